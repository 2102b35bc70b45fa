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

package lifecycle

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScaleDown chooses up to n pods of one task to delete when the task should keep replicas
// pods, in the order they should go. Pods already being deleted are never chosen (the caller
// counts them as gone). The order combines the pods' names with the Kubernetes Job
// controller's order:
//
//  1. Surplus pods first: those whose index (<job>-<task>-<index>) is >= replicas, highest
//     index first; a pod whose index cannot be read counts as the highest. Deleting by index
//     keeps the names 0..replicas-1, which the svc plugin's host lists and the pods' own
//     VC_TASK_INDEX rely on.
//  2. Then the other pods, in the Kubernetes Job controller's order: unscheduled before
//     scheduled; Pending before Unknown before Running (then Failed, then Succeeded: finished
//     pods hold no resources, and a succeeded pod holds finished work); not ready before
//     ready; ready for a shorter time before longer; more container restarts before fewer;
//     newer before older.
//
// Remaining ties go by name, so the choice is deterministic.
func ScaleDown(pods []*corev1.Pod, replicas int32, n int) []*corev1.Pod {
	if n <= 0 {
		return nil
	}
	var candidates []*corev1.Pod
	for _, p := range pods {
		if !isDeleting(p) {
			candidates = append(candidates, p)
		}
	}
	slices.SortFunc(candidates, func(a, b *corev1.Pod) int { return compareForDeletion(a, b, replicas) })
	return candidates[:min(n, len(candidates))]
}

// compareForDeletion orders a before b (-1) when a should be deleted first.
func compareForDeletion(a, b *corev1.Pod, replicas int32) int {
	ia, sa := surplusRank(a, replicas)
	ib, sb := surplusRank(b, replicas)
	switch {
	case sa != sb:
		return boolFirst(sa, sb)
	case sa:
		if c := cmp.Compare(ib, ia); c != 0 {
			return c
		}
	default:
		if c := compareActive(a, b); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Name, b.Name)
}

// surplusRank is a pod's index for ordering surplus pods (an unreadable index ranks highest)
// and whether the pod is surplus.
func surplusRank(p *corev1.Pod, replicas int32) (int, bool) {
	i, ok := indexOf(p)
	if !ok {
		return int(^uint(0) >> 1), true
	}
	return i, i >= int(replicas)
}

// phaseRank orders phases for deletion: Pending, Unknown, Running, Failed, Succeeded.
var phaseRank = map[corev1.PodPhase]int{
	corev1.PodPending: 0, "": 0, corev1.PodUnknown: 1, corev1.PodRunning: 2, corev1.PodFailed: 3, corev1.PodSucceeded: 4,
}

// compareActive is the Kubernetes Job controller's deletion order.
func compareActive(a, b *corev1.Pod) int {
	if sa, sb := a.Spec.NodeName == "", b.Spec.NodeName == ""; sa != sb {
		return boolFirst(sa, sb)
	}
	if c := cmp.Compare(phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]); c != 0 {
		return c
	}
	ra, rb := isReady(a), isReady(b)
	if ra != rb {
		return boolFirst(!ra, !rb)
	}
	if ra {
		if c := laterFirst(readySince(a), readySince(b)); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(maxRestarts(b), maxRestarts(a)); c != 0 {
		return c
	}
	return laterFirst(a.CreationTimestamp, b.CreationTimestamp)
}

// laterFirst orders a zero time first, then later times before earlier ones.
func laterFirst(a, b metav1.Time) int {
	switch {
	case a.Equal(&b):
		return 0
	case a.IsZero():
		return -1
	case b.IsZero():
		return 1
	case a.After(b.Time):
		return -1
	}
	return 1
}

// boolFirst orders true before false.
func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
