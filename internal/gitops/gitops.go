/*
Copyright 2026 The Caldera Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package gitops recognises what GitOps tools (Argo CD, Flux, Helm, kubectl apply) put on the
// objects they apply: the labels and annotations they track them by, and so which tool keeps an
// object in step with Git.
package gitops

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Keys GitOps tools track objects by.
const (
	// ArgoCDTrackingIDAnnotation is Argo CD's annotation tracking: "<app>:<group>/<kind>:<ns>/<name>".
	ArgoCDTrackingIDAnnotation = "argocd.argoproj.io/tracking-id"
	// ArgoCDInstanceLabel is the label Argo CD's label tracking uses by default.
	ArgoCDInstanceLabel = "app.kubernetes.io/instance"
	// ManagedByLabel names the tool that manages an object ("Helm" for Helm releases).
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// FluxKustomizeNameLabel and FluxKustomizeNamespaceLabel name the Flux Kustomization that
	// applied an object.
	FluxKustomizeNameLabel      = "kustomize.toolkit.fluxcd.io/name"
	FluxKustomizeNamespaceLabel = "kustomize.toolkit.fluxcd.io/namespace"
	// FluxHelmNameLabel and FluxHelmNamespaceLabel name the Flux HelmRelease that installed an object.
	FluxHelmNameLabel      = "helm.toolkit.fluxcd.io/name"
	FluxHelmNamespaceLabel = "helm.toolkit.fluxcd.io/namespace"
	// HelmReleaseNameAnnotation names the Helm release that installed an object.
	HelmReleaseNameAnnotation = "meta.helm.sh/release-name"
	// LastAppliedAnnotation is what client-side kubectl apply tracks an object by.
	LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
)

// trackingDomains are the key prefixes (a DNS domain and its subdomains) whose labels and
// annotations belong to a GitOps tool: Argo CD (argoproj.io, including a custom
// instanceLabelKey such as argocd.argoproj.io/instance), Flux (fluxcd.io) and Helm (meta.helm.sh).
var trackingDomains = []string{"argoproj.io", "fluxcd.io", "meta.helm.sh"}

// IsTrackingKey reports whether a label or annotation key is one a GitOps tool tracks an object
// by, or records its own state in: every key of Argo CD's, Flux's and Helm's domains, Argo CD's
// default instance label, and kubectl's last-applied configuration. Objects a controller makes
// for a job are not applied from Git, so they must not carry such keys: the tool would count
// them as its own, show them in its application and prune them.
func IsTrackingKey(key string) bool {
	if key == ArgoCDInstanceLabel || key == LastAppliedAnnotation {
		return true
	}
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, d := range trackingDomains {
		if prefix == d || strings.HasSuffix(prefix, "."+d) {
			return true
		}
	}
	return false
}

// Manager names the GitOps tool that keeps an object as Git (or a chart) says, from the keys it
// tracks the object by, e.g. "Flux Kustomization apps/batch"; false when none does. A tool that
// manages an object re-creates it when it is deleted.
func Manager(obj metav1.Object) (string, bool) {
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	if name, ok := labels[FluxKustomizeNameLabel]; ok {
		return "Flux Kustomization " + qualified(labels[FluxKustomizeNamespaceLabel], name), true
	}
	if name, ok := labels[FluxHelmNameLabel]; ok {
		return "Flux HelmRelease " + qualified(labels[FluxHelmNamespaceLabel], name), true
	}
	if id, ok := annotations[ArgoCDTrackingIDAnnotation]; ok {
		app, _, _ := strings.Cut(id, ":")
		return "Argo CD application " + app, true
	}
	if name, ok := annotations[HelmReleaseNameAnnotation]; ok {
		return "Helm release " + name, true
	}
	if strings.EqualFold(labels[ManagedByLabel], "Helm") {
		return "Helm", true
	}
	if app, ok := labels[ArgoCDInstanceLabel]; ok {
		return "Argo CD application " + app, true
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if IsTrackingKey(k) && strings.Contains(k, "argoproj.io") {
			return fmt.Sprintf("Argo CD application %s (label %s)", labels[k], k), true
		}
	}
	return "", false
}

func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
