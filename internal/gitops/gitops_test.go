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

package gitops

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestIsTrackingKey(t *testing.T) {
	cases := map[string]bool{
		"argocd.argoproj.io/tracking-id":                   true,
		"argocd.argoproj.io/instance":                      true, // a custom instanceLabelKey
		"workflows.argoproj.io/workflow":                   true,
		"app.kubernetes.io/instance":                       true,
		"kustomize.toolkit.fluxcd.io/name":                 true,
		"helm.toolkit.fluxcd.io/namespace":                 true,
		"meta.helm.sh/release-name":                        true,
		"kubectl.kubernetes.io/last-applied-configuration": true,
		"app.kubernetes.io/name":                           false,
		"volcano.sh/job-name":                              false,
		"team":                                             false,
		"notargoproj.io/x":                                 false,
	}
	for key, want := range cases {
		if got := IsTrackingKey(key); got != want {
			t.Errorf("IsTrackingKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestManager(t *testing.T) {
	cases := map[string]struct {
		labels, annotations map[string]string
		want                string
	}{
		"plain":            {want: ""},
		"flux kustomize":   {labels: map[string]string{FluxKustomizeNameLabel: "batch", FluxKustomizeNamespaceLabel: "flux-system"}, want: "Flux Kustomization flux-system/batch"},
		"flux helm":        {labels: map[string]string{FluxHelmNameLabel: "jobs"}, want: "Flux HelmRelease jobs"},
		"argo annotation":  {annotations: map[string]string{ArgoCDTrackingIDAnnotation: "train:batch.volcano.sh/Job:ns/tf"}, want: "Argo CD application train"},
		"argo label":       {labels: map[string]string{ArgoCDInstanceLabel: "train"}, want: "Argo CD application train"},
		"argo custom":      {labels: map[string]string{"argocd.argoproj.io/instance": "train"}, want: "Argo CD application train (label argocd.argoproj.io/instance)"},
		"helm":             {annotations: map[string]string{HelmReleaseNameAnnotation: "rel"}, labels: map[string]string{ArgoCDInstanceLabel: "rel", ManagedByLabel: "Helm"}, want: "Helm release rel"},
		"helm label alone": {labels: map[string]string{ManagedByLabel: "Helm"}, want: "Helm"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := Manager(&metav1.ObjectMeta{Labels: tc.labels, Annotations: tc.annotations})
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("Manager = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}
