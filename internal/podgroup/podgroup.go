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

// Package podgroup decides the PodGroup of a pod that names none: a pod of ours (its
// schedulerName is served) made by a Deployment, StatefulSet, Job, another operator, or by
// hand. As in Volcano, the group is named podgroup-<uid of the pod's controller>, or
// podgroup-<pod uid> for a pod without one, is owned by that controller (or the pod), and takes
// its minMember from the controller's scheduling.volcano.sh/group-min-member annotation.
package podgroup

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	jobpods "github.com/caldera-sh/caldera/internal/job/pods"
)

// NamePrefix starts the name of every PodGroup made for pods that name none.
const NamePrefix = "podgroup-"

// inheritedPrefixes are the annotation prefixes a PodGroup takes from its pods' controller and
// from the pod (the pod's win): the scheduling.volcano.sh/ and volcano.sh/ settings such as
// scheduling.volcano.sh/queue-name, volcano.sh/preemptable or volcano.sh/sla-waiting-time.
var inheritedPrefixes = []string{"scheduling.volcano.sh/", "volcano.sh/"}

// GroupName is the PodGroup a pod names: its scheduling.k8s.io/group-name annotation, else its
// scheduling.volcano.sh/group-name; empty when it names none.
func GroupName(pod *corev1.Pod) string {
	if v := pod.Annotations[schedulingv1beta1.KubeGroupNameAnnotationKey]; v != "" {
		return v
	}
	return pod.Annotations[schedulingv1beta1.VolcanoGroupNameAnnotationKey]
}

// Grouped reports whether a pod already names its PodGroup.
func Grouped(pod *corev1.Pod) bool { return GroupName(pod) != "" }

// Name is the PodGroup of a pod that names none: podgroup-<uid of its controller>, or
// podgroup-<pod uid> when it has no controller.
func Name(pod *corev1.Pod) string {
	if ref := metav1.GetControllerOf(pod); ref != nil {
		return NamePrefix + string(ref.UID)
	}
	return NamePrefix + string(pod.UID)
}

// Owner is the owner of the PodGroup of a pod: the pod's controller, or the pod itself.
func Owner(pod *corev1.Pod) metav1.OwnerReference {
	if ref := metav1.GetControllerOf(pod); ref != nil {
		return *ref
	}
	return metav1.OwnerReference{
		APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
}

// MadeFor reports whether a PodGroup is one Desired makes: named podgroup-<uid> and controlled by
// the object of that uid.
func MadeFor(pg *schedulingv1beta1.PodGroup) bool {
	ref := metav1.GetControllerOf(pg)
	return ref != nil && pg.Name == NamePrefix+string(ref.UID)
}

// Inputs is what the PodGroup of a pod is made from.
type Inputs struct {
	// Pod is one of the group's pods.
	Pod *corev1.Pod
	// OwnerAnnotations are the annotations of the pod's controller (nil for a pod without one).
	OwnerAnnotations map[string]string
	// OwnerKind names the controller for messages, e.g. "ReplicaSet web-5d9c".
	OwnerKind string
	// NamespaceAnnotations are the annotations of the pod's namespace.
	NamespaceAnnotations map[string]string
}

// Desired returns the PodGroup of a pod that names none, and the problems with what it was made
// from (a group-min-member that is not a positive integer, which counts as 1), each naming the
// annotation and the fix:
//   - minMember from the controller's scheduling.volcano.sh/group-min-member (else 1);
//   - minResources the pod's requests times minMember;
//   - queue from the pod's scheduling.volcano.sh/queue-name, else the controller's, else the
//     namespace's (else empty: the scheduler's default queue);
//   - priorityClassName the pod's;
//   - the scheduling.volcano.sh/ and volcano.sh/ annotations of the controller, then the pod's.
func Desired(in Inputs) (*schedulingv1beta1.PodGroup, []string) {
	pod := in.Pod
	var problems []string
	minMember := int32(1)
	if v, ok := in.OwnerAnnotations[schedulingv1beta1.GroupMinMemberAnnotationKey]; ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil || n < 1 {
			problems = append(problems, fmt.Sprintf("annotation %s=%q on %s is not a positive whole number, so the PodGroup %s has minMember 1; set it to the number of pods that must start together",
				schedulingv1beta1.GroupMinMemberAnnotationKey, v, in.OwnerKind, Name(pod)))
		} else {
			minMember = int32(n)
		}
	}
	annotations := map[string]string{}
	for _, from := range []map[string]string{in.OwnerAnnotations, pod.Annotations} {
		for k, v := range from {
			if inherited(k) {
				annotations[k] = v
			}
		}
	}
	// The group annotations name a pod's group; the group itself has no use for them.
	delete(annotations, schedulingv1beta1.VolcanoGroupNameAnnotationKey)
	queue := pod.Annotations[schedulingv1beta1.QueueNameAnnotationKey]
	if queue == "" {
		queue = in.OwnerAnnotations[schedulingv1beta1.QueueNameAnnotationKey]
	}
	if queue == "" {
		queue = in.NamespaceAnnotations[schedulingv1beta1.QueueNameAnnotationKey]
	}
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       pod.Namespace,
			Name:            Name(pod),
			OwnerReferences: []metav1.OwnerReference{Owner(pod)},
		},
		Spec: schedulingv1beta1.PodGroupSpec{
			MinMember:         minMember,
			Queue:             queue,
			PriorityClassName: pod.Spec.PriorityClassName,
			MinResources:      ptr.To(times(jobpods.PodRequests(&pod.Spec), minMember)),
		},
	}
	if len(annotations) > 0 {
		pg.Annotations = annotations
	}
	return pg, problems
}

// Update returns the spec an existing PodGroup of pods that named none should have now that its
// pods' controller or template changed (minMember, minResources, priorityClassName), and whether
// that differs from what it has. The queue stays as made: moving an admitted group between
// queues would break both queues' accounting.
func Update(existing, desired *schedulingv1beta1.PodGroup) (schedulingv1beta1.PodGroupSpec, bool) {
	spec := *existing.Spec.DeepCopy()
	spec.MinMember = desired.Spec.MinMember
	spec.PriorityClassName = desired.Spec.PriorityClassName
	spec.MinResources = ptr.To(desired.Spec.MinResources.DeepCopy())
	return spec, !equality.Semantic.DeepEqual(spec, existing.Spec)
}

func inherited(key string) bool {
	for _, p := range inheritedPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// times returns list with every quantity multiplied by n.
func times(list corev1.ResourceList, n int32) corev1.ResourceList {
	out := make(corev1.ResourceList, len(list))
	for name, q := range list {
		v := q.DeepCopy()
		v.Mul(int64(n))
		out[name] = v
	}
	return out
}
