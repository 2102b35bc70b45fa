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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestScaleDown(t *testing.T) {
	older, newer := t0.Add(-2*time.Hour), t0.Add(-time.Hour)
	tests := []struct {
		name     string
		pods     []*corev1.Pod
		replicas int32
		n        int
		want     []string
	}{
		{
			name: "surplus indexes first, highest first, whatever their state",
			pods: []*corev1.Pod{
				newPod("w", 0, corev1.PodPending, unscheduled()), newPod("w", 3, corev1.PodRunning, readyAt(older)),
				newPod("w", 1, corev1.PodRunning), newPod("w", 4, corev1.PodRunning, readyAt(older)),
			},
			replicas: 2, n: 2, want: []string{"j-w-4", "j-w-3"},
		},
		{
			name: "a pod without a readable index counts as the highest surplus",
			pods: []*corev1.Pod{
				newPod("w", 5, corev1.PodRunning),
				newPod("w", 0, corev1.PodRunning, func(p *corev1.Pod) { p.Name = "j-w-x"; p.Annotations["volcano.sh/task-index"] = "x" }),
			},
			replicas: 1, n: 2, want: []string{"j-w-x", "j-w-5"},
		},
		{
			name:     "pods being deleted are never chosen",
			pods:     []*corev1.Pod{newPod("w", 3, corev1.PodRunning, deleting()), newPod("w", 2, corev1.PodRunning)},
			replicas: 2, n: 1, want: []string{"j-w-2"},
		},
		{
			name:     "unscheduled before scheduled",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodPending), newPod("w", 1, corev1.PodPending, unscheduled())},
			replicas: 2, n: 1, want: []string{"j-w-1"},
		},
		{
			name:     "pending before unknown before running",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodRunning), newPod("w", 1, corev1.PodUnknown), newPod("w", 2, corev1.PodPending)},
			replicas: 3, n: 3, want: []string{"j-w-2", "j-w-1", "j-w-0"},
		},
		{
			name:     "finished pods last, failed before succeeded",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodSucceeded), newPod("w", 1, corev1.PodFailed), newPod("w", 2, corev1.PodRunning)},
			replicas: 3, n: 3, want: []string{"j-w-2", "j-w-1", "j-w-0"},
		},
		{
			name:     "not ready before ready",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodRunning, readyAt(older)), newPod("w", 1, corev1.PodRunning)},
			replicas: 2, n: 1, want: []string{"j-w-1"},
		},
		{
			name:     "ready for a shorter time first",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodRunning, readyAt(older)), newPod("w", 1, corev1.PodRunning, readyAt(newer))},
			replicas: 2, n: 1, want: []string{"j-w-1"},
		},
		{
			name:     "more restarts first",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodRunning, restarts(1)), newPod("w", 1, corev1.PodRunning, restarts(4))},
			replicas: 2, n: 1, want: []string{"j-w-1"},
		},
		{
			name:     "newer first",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodRunning, created(newer)), newPod("w", 1, corev1.PodRunning, created(older))},
			replicas: 2, n: 1, want: []string{"j-w-0"},
		},
		{
			name:     "ties by name",
			pods:     []*corev1.Pod{newPod("w", 1, corev1.PodRunning), newPod("w", 0, corev1.PodRunning)},
			replicas: 2, n: 2, want: []string{"j-w-0", "j-w-1"},
		},
		{
			name:     "n above the candidates takes them all; n <= 0 takes none",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodRunning)},
			replicas: 1, n: 5, want: []string{"j-w-0"},
		},
		{
			name:     "n of 0",
			pods:     []*corev1.Pod{newPod("w", 0, corev1.PodRunning)},
			replicas: 0, n: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := podNames(ScaleDown(tc.pods, tc.replicas, tc.n))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("chosen (-want +got):\n%s", diff)
			}
		})
	}
}
