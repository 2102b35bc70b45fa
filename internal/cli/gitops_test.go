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
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// managed is a managedFields entry of the main resource.
func managed(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "scheduling.volcano.sh/v1beta1",
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
}

const (
	weightFields     = `{"f:spec":{".":{},"f:weight":{}}}`
	capabilityFields = `{"f:spec":{"f:capability":{".":{},"f:cpu":{}}}}`
)

func TestWeightOwners(t *testing.T) {
	cases := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		fields      []metav1.ManagedFieldsEntry
		want        []string
	}{
		{name: "nobody else", fields: []metav1.ManagedFieldsEntry{managed("vcctl", metav1.ManagedFieldsOperationUpdate, weightFields)}},
		{
			name:        "Argo CD tracking annotation",
			annotations: map[string]string{"argocd.argoproj.io/tracking-id": "queues:scheduling.volcano.sh/Queue:/team-a"},
			want:        []string{"Argo CD application queues (annotation argocd.argoproj.io/tracking-id=queues:scheduling.volcano.sh/Queue:/team-a)"},
		},
		{
			name:   "Argo CD instance label",
			labels: map[string]string{"app.kubernetes.io/instance": "queues"},
			want:   []string{"Argo CD application queues (label app.kubernetes.io/instance=queues)"},
		},
		{
			name:   "the instance label of a Helm release is not Argo's",
			labels: map[string]string{"app.kubernetes.io/instance": "caldera", "app.kubernetes.io/managed-by": "Helm"},
		},
		{
			name:   "Flux Kustomization",
			labels: map[string]string{"kustomize.toolkit.fluxcd.io/name": "infra", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"},
			want:   []string{"Flux Kustomization flux-system/infra (label kustomize.toolkit.fluxcd.io/name=infra)"},
		},
		{
			name:   "Flux HelmRelease",
			labels: map[string]string{"helm.toolkit.fluxcd.io/name": "queues"},
			want:   []string{"Flux HelmRelease queues (label helm.toolkit.fluxcd.io/name=queues)"},
		},
		{
			name:   "another manager applied spec.weight",
			fields: []metav1.ManagedFieldsEntry{managed("kustomize-controller", metav1.ManagedFieldsOperationApply, weightFields)},
			want:   []string{"field manager kustomize-controller (server-side apply)"},
		},
		{
			name:   "another manager updated spec.weight",
			fields: []metav1.ManagedFieldsEntry{managed("kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate, weightFields)},
			want:   []string{"field manager kubectl-client-side-apply (update)"},
		},
		{
			name: "other managers of other fields, of the status, and vcctl itself do not count",
			fields: []metav1.ManagedFieldsEntry{
				managed("kubectl-edit", metav1.ManagedFieldsOperationUpdate, capabilityFields),
				func() metav1.ManagedFieldsEntry {
					e := managed("caldera-scheduler", metav1.ManagedFieldsOperationApply, `{"f:status":{"f:state":{}}}`)
					e.Subresource = "status"
					return e
				}(),
				managed("vcctl", metav1.ManagedFieldsOperationApply, weightFields),
			},
		},
		{
			name:   "tracking metadata and the manager together",
			labels: map[string]string{"kustomize.toolkit.fluxcd.io/name": "infra"},
			fields: []metav1.ManagedFieldsEntry{managed("kustomize-controller", metav1.ManagedFieldsOperationApply, weightFields)},
			want:   []string{"Flux Kustomization infra (label kustomize.toolkit.fluxcd.io/name=infra)", "field manager kustomize-controller (server-side apply)"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: tc.labels,
				Annotations: tc.annotations, ManagedFields: tc.fields}}
			var got []string
			for _, o := range weightOwners(q) {
				got = append(got, o.Who)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("weightOwners (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOwnedWeightMessages(t *testing.T) {
	owners := []specOwner{
		{Who: "Flux Kustomization flux-system/infra (label kustomize.toolkit.fluxcd.io/name=infra)",
			Fix: "change spec.weight in the Git source of Flux Kustomization flux-system/infra; Flux applies it at its next reconcile"},
		{Who: "field manager kustomize-controller (server-side apply)",
			Fix: "change spec.weight where kustomize-controller takes it from (for a GitOps tool, in Git)"},
	}
	cases := []struct {
		name string
		got  string
		want string
	}{
		{
			name: "refusal",
			got:  ownedFieldError("queue team-a", "spec.weight", owners).Error(),
			want: "queue team-a: spec.weight is kept by Flux Kustomization flux-system/infra (label kustomize.toolkit.fluxcd.io/name=infra) " +
				"and field manager kustomize-controller (server-side apply), which would set it back: " +
				"change spec.weight in the Git source of Flux Kustomization flux-system/infra; Flux applies it at its next reconcile; " +
				"or change spec.weight where kustomize-controller takes it from (for a GitOps tool, in Git). " +
				"To change it here anyway, until the next sync reverts it, pass --force",
		},
		{
			name: "warning",
			got:  forcedFieldWarning("queue team-a", "spec.weight", owners[1:]),
			want: "warning: queue team-a: spec.weight was kept by field manager kustomize-controller (server-side apply); " +
				"vcctl took it with server-side apply as field manager vcctl, and Git will revert it at the next sync: " +
				"change spec.weight where kustomize-controller takes it from (for a GitOps tool, in Git)\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
