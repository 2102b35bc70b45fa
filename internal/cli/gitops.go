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

package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-sh/caldera/internal/gitops"
)

// FieldManager is the field manager vcctl writes under, so that what it changed can be told
// apart from what Git (through a GitOps tool) or a person wrote.
const FieldManager = "vcctl"

// specOwner is someone other than vcctl who keeps a field of an object's spec: a GitOps tool
// that applies the object from Git, or another field manager.
type specOwner struct {
	// Who names the owner and how it was recognised.
	Who string
	// Fix says how to change the field where the owner takes it from.
	Fix string
}

// gitOpsOwners returns the GitOps tools whose tracking labels or annotations an object carries:
// Argo CD (annotation argocd.argoproj.io/tracking-id, or label app.kubernetes.io/instance on an
// object Helm does not manage) and Flux (labels kustomize.toolkit.fluxcd.io/name,
// helm.toolkit.fluxcd.io/name). field is the spec field vcctl means to change, for the advice.
func gitOpsOwners(obj metav1.Object, field string) []specOwner {
	var owners []specOwner
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	argo := func(app, how string) specOwner {
		return specOwner{
			Who: fmt.Sprintf("Argo CD application %s (%s)", app, how),
			Fix: fmt.Sprintf("change %s in the Git source of Argo CD application %s and let it sync", field, app),
		}
	}
	if id, ok := annotations[gitops.ArgoCDTrackingIDAnnotation]; ok {
		app, _, _ := strings.Cut(id, ":")
		owners = append(owners, argo(app, "annotation "+gitops.ArgoCDTrackingIDAnnotation+"="+id))
	} else if app, ok := labels[gitops.ArgoCDInstanceLabel]; ok && !strings.EqualFold(labels[gitops.ManagedByLabel], "Helm") {
		owners = append(owners, argo(app, "label "+gitops.ArgoCDInstanceLabel+"="+app))
	}
	if name, ok := labels[gitops.FluxKustomizeNameLabel]; ok {
		ks := qualified(labels[gitops.FluxKustomizeNamespaceLabel], name)
		owners = append(owners, specOwner{
			Who: fmt.Sprintf("Flux Kustomization %s (label %s=%s)", ks, gitops.FluxKustomizeNameLabel, name),
			Fix: fmt.Sprintf("change %s in the Git source of Flux Kustomization %s; Flux applies it at its next reconcile", field, ks),
		})
	}
	if name, ok := labels[gitops.FluxHelmNameLabel]; ok {
		hr := qualified(labels[gitops.FluxHelmNamespaceLabel], name)
		owners = append(owners, specOwner{
			Who: fmt.Sprintf("Flux HelmRelease %s (label %s=%s)", hr, gitops.FluxHelmNameLabel, name),
			Fix: fmt.Sprintf("change %s in the values of Flux HelmRelease %s in Git", field, hr),
		})
	}
	return owners
}

// qualified is namespace/name, or name alone when the namespace is not known.
func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// fieldManagers returns the field managers other than vcctl that own a field of an object's
// spec (path, such as ["spec", "weight"]) by Apply or Update of the main resource, in the
// order metadata.managedFields lists them.
func fieldManagers(obj metav1.Object, path []string, field string) []specOwner {
	var owners []specOwner
	for _, entry := range obj.GetManagedFields() {
		if entry.Manager == FieldManager || entry.Subresource != "" || entry.FieldsV1 == nil {
			continue
		}
		if entry.Operation != metav1.ManagedFieldsOperationApply && entry.Operation != metav1.ManagedFieldsOperationUpdate {
			continue
		}
		if !ownsPath(entry.FieldsV1.GetRawBytes(), path) {
			continue
		}
		how := "server-side apply"
		if entry.Operation == metav1.ManagedFieldsOperationUpdate {
			how = "update"
		}
		owners = append(owners, specOwner{
			Who: fmt.Sprintf("field manager %s (%s)", entry.Manager, how),
			Fix: fmt.Sprintf("change %s where %s takes it from (for a GitOps tool, in Git)", field, entry.Manager),
		})
	}
	return owners
}

// ownsPath reports whether a managedFields fieldsV1 set holds the field at path.
func ownsPath(raw []byte, path []string) bool {
	for _, name := range path {
		var set map[string]json.RawMessage
		if err := json.Unmarshal(raw, &set); err != nil {
			return false
		}
		next, ok := set["f:"+name]
		if !ok {
			return false
		}
		raw = next
	}
	return true
}

// weightOwners returns who other than vcctl keeps a queue's spec.weight: the GitOps tools that
// track it, then the other field managers of spec.weight.
func weightOwners(queue metav1.Object) []specOwner {
	const field = "spec.weight"
	return append(gitOpsOwners(queue, field), fieldManagers(queue, []string{"spec", "weight"}, field)...)
}

// ownedFieldError is the error of a vcctl command that would change field of an object (what,
// e.g. "queue team-a") that others keep: it names them, says where to change the field, and how
// to change it here anyway.
func ownedFieldError(what, field string, owners []specOwner) error {
	who := make([]string, len(owners))
	fixes := make([]string, 0, len(owners))
	for i, o := range owners {
		who[i] = o.Who
		if !slices.Contains(fixes, o.Fix) {
			fixes = append(fixes, o.Fix)
		}
	}
	return fmt.Errorf("%s: %s is kept by %s, which would set it back: %s. "+
		"To change it here anyway, until the next sync reverts it, pass --force",
		what, field, strings.Join(who, " and "), strings.Join(fixes, "; or "))
}

// forcedFieldWarning is what a vcctl command run with --force prints when it took field of an
// object (what) from others.
func forcedFieldWarning(what, field string, owners []specOwner) string {
	who := make([]string, len(owners))
	for i, o := range owners {
		who[i] = o.Who
	}
	return fmt.Sprintf("warning: %s: %s was kept by %s; vcctl took it with server-side apply as field "+
		"manager %s, and Git will revert it at the next sync: %s\n", what, field, strings.Join(who, " and "), FieldManager, owners[0].Fix)
}
