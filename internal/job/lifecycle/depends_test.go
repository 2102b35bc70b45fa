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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestDependenciesMet(t *testing.T) {
	running := func(task string, i int32) *corev1.Pod { return newPod(task, i, corev1.PodRunning) }
	ready := func(task string, i int32) *corev1.Pod { return newPod(task, i, corev1.PodRunning, readyAt(t0)) }
	tests := []struct {
		name string
		deps batchv1alpha1.Iteration
		on   []string
		pods []*corev1.Pod
		want bool
	}{
		{name: "no dependsOn", want: true},
		{name: "all: every dependency ready", on: []string{"a", "b"},
			pods: []*corev1.Pod{ready("a", 0), ready("a", 1), ready("b", 0)}, want: true},
		{name: "all: one dependency short", on: []string{"a", "b"},
			pods: []*corev1.Pod{ready("a", 0), ready("a", 1), running("b", 0)}},
		{name: "any: one dependency ready", deps: batchv1alpha1.IterationAny, on: []string{"a", "b"},
			pods: []*corev1.Pod{running("a", 0), ready("b", 0)}, want: true},
		{name: "any: none ready", deps: batchv1alpha1.IterationAny, on: []string{"a", "b"},
			pods: []*corev1.Pod{ready("a", 0), running("b", 0)}},
		{name: "succeeded pods count as ready", on: []string{"a"},
			pods: []*corev1.Pod{newPod("a", 0, corev1.PodSucceeded), ready("a", 1)}, want: true},
		{name: "a pod being deleted does not count", on: []string{"b"},
			pods: []*corev1.Pod{newPod("b", 0, corev1.PodRunning, readyAt(t0), deleting())}},
		{name: "a dependency's minAvailable is what counts", on: []string{"c"},
			pods: []*corev1.Pod{ready("c", 0)}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := task("w", 1)
			if tc.on != nil {
				w = task("w", 1, dependsOn(tc.deps, tc.on...))
			}
			spec := &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("a", 2), task("b", 1), task("c", 3, taskMin(1)), w}}
			if got := DependenciesMet(spec, "w", tc.pods); got != tc.want {
				t.Errorf("DependenciesMet = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMissingPods(t *testing.T) {
	spec := &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{
		task("ps", 1), task("w", 3), task("eval", 1, dependsOn("", "w")),
	}}
	pods := []*corev1.Pod{newPod("ps", 0, corev1.PodRunning), newPod("w", 1, corev1.PodFailed), newPod("w", 2, corev1.PodRunning, deleting())}
	want := []PodSlot{{Task: "w", Index: 0}}
	if diff := cmp.Diff(want, MissingPods("j", spec, pods)); diff != "" {
		t.Errorf("missing pods (-want +got):\n%s", diff)
	}
}

func TestMissingPodsUnnamedTasks(t *testing.T) {
	// Unnamed tasks are default0 and default1; default1 waits for default0 (dependsOn).
	spec := &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("", 1), task("", 2, dependsOn("", "default0"))}}
	cases := []struct {
		name string
		pods []*corev1.Pod
		want []PodSlot
	}{
		{name: "no pods: the first task only", want: []PodSlot{{Task: "default0", Index: 0}}},
		{
			name: "default0 ready: default1's pods",
			pods: []*corev1.Pod{newPod("default0", 0, corev1.PodSucceeded)},
			want: []PodSlot{{Task: "default1", Index: 0}, {Task: "default1", Index: 1}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, MissingPods("j", spec, tc.pods)); diff != "" {
				t.Errorf("missing pods (-want +got):\n%s", diff)
			}
		})
	}
}
