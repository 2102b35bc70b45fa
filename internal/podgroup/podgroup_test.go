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

package podgroup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

func pod(mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-abc", UID: "pod-uid"},
		Spec: corev1.PodSpec{SchedulerName: "volcano", Containers: []corev1.Container{{
			Name: "main", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi"),
			}},
		}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

var rsRef = metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid", Controller: ptr.To(true)}

func controlled(p *corev1.Pod) { p.OwnerReferences = []metav1.OwnerReference{rsRef} }

func TestDesired(t *testing.T) {
	cases := map[string]struct {
		in           Inputs
		want         *schedulingv1beta1.PodGroup
		wantProblems []string
	}{
		"a bare pod is a group of one, owned by the pod": {
			in: Inputs{Pod: pod()},
			want: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "podgroup-pod-uid", OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: "web-abc", UID: "pod-uid", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
				Spec: schedulingv1beta1.PodGroupSpec{MinMember: 1, MinResources: &corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
			},
		},
		"a controller's group-min-member sets minMember and multiplies minResources": {
			in: Inputs{Pod: pod(controlled, func(p *corev1.Pod) {
				p.Spec.PriorityClassName = "high"
				p.Annotations = map[string]string{schedulingv1beta1.QueueNameAnnotationKey: "team-a", "volcano.sh/preemptable": "true", "other.io/x": "y"}
			}), OwnerAnnotations: map[string]string{
				schedulingv1beta1.GroupMinMemberAnnotationKey: "3", "volcano.sh/preemptable": "false", "deployment.kubernetes.io/revision": "2",
			}, NamespaceAnnotations: map[string]string{schedulingv1beta1.QueueNameAnnotationKey: "ns-queue"}},
			want: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "podgroup-rs-uid", OwnerReferences: []metav1.OwnerReference{rsRef},
					Annotations: map[string]string{
						schedulingv1beta1.GroupMinMemberAnnotationKey: "3", schedulingv1beta1.QueueNameAnnotationKey: "team-a", "volcano.sh/preemptable": "true",
					}},
				Spec: schedulingv1beta1.PodGroupSpec{MinMember: 3, Queue: "team-a", PriorityClassName: "high", MinResources: &corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourceMemory: resource.MustParse("3Gi")}},
			},
		},
		"the namespace's queue when neither the pod nor its controller names one": {
			in: Inputs{Pod: pod(controlled), OwnerAnnotations: map[string]string{},
				NamespaceAnnotations: map[string]string{schedulingv1beta1.QueueNameAnnotationKey: "ns-queue"}},
			want: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "podgroup-rs-uid", OwnerReferences: []metav1.OwnerReference{rsRef}},
				Spec: schedulingv1beta1.PodGroupSpec{MinMember: 1, Queue: "ns-queue", MinResources: &corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
			},
		},
		"a group-min-member that is not a positive number counts as 1 and says so": {
			in: Inputs{Pod: pod(controlled), OwnerKind: "ReplicaSet web", OwnerAnnotations: map[string]string{schedulingv1beta1.GroupMinMemberAnnotationKey: "three"}},
			want: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "podgroup-rs-uid", OwnerReferences: []metav1.OwnerReference{rsRef},
					Annotations: map[string]string{schedulingv1beta1.GroupMinMemberAnnotationKey: "three"}},
				Spec: schedulingv1beta1.PodGroupSpec{MinMember: 1, MinResources: &corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
			},
			wantProblems: []string{`annotation scheduling.volcano.sh/group-min-member="three" on ReplicaSet web is not a positive whole number, so the PodGroup podgroup-rs-uid has minMember 1; set it to the number of pods that must start together`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, problems := Desired(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PodGroup mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantProblems, problems); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	existing, _ := Desired(Inputs{Pod: pod(controlled), NamespaceAnnotations: map[string]string{schedulingv1beta1.QueueNameAnnotationKey: "q"}})
	if _, changed := Update(existing, existing.DeepCopy()); changed {
		t.Errorf("Update of an unchanged group reports a change")
	}
	desired, _ := Desired(Inputs{Pod: pod(controlled), OwnerAnnotations: map[string]string{schedulingv1beta1.GroupMinMemberAnnotationKey: "2"}})
	spec, changed := Update(existing, desired)
	if !changed {
		t.Fatalf("Update of a new group-min-member reports no change")
	}
	want := schedulingv1beta1.PodGroupSpec{MinMember: 2, Queue: "q", MinResources: &corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")}}
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("spec mismatch (-want +got):\n%s", diff)
	}
}

func TestMadeFor(t *testing.T) {
	made, _ := Desired(Inputs{Pod: pod(controlled)})
	if !MadeFor(made) {
		t.Errorf("MadeFor(%s) = false, want true", made.Name)
	}
	user := made.DeepCopy()
	user.Name = "podgroup-mine"
	if MadeFor(user) {
		t.Errorf("MadeFor(%s) = true for a group named after no owner", user.Name)
	}
}
