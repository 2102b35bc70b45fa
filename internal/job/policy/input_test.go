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

package policy

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestCountPods(t *testing.T) {
	cases := []struct {
		name string
		pods []corev1.Pod
		want Counts
	}{
		{"no pods", nil, Counts{Tasks: map[string]PodCounts{}}},
		{
			name: "every state",
			pods: pods(
				makePod("j", "a", 0, corev1.PodPending).container(waitingC("m", "ContainerCreating", 1)).
					initContainer(waitingC("i", "PodInitializing", 2)),
				makePod("j", "a", 1, corev1.PodRunning).container(runningC("m", 3)),
				makePod("j", "a", 2, corev1.PodSucceeded).container(terminated("m", 0, "Completed")),
				makePod("j", "b", 0, corev1.PodFailed).container(withLast(terminated("m", 1, "Error"), 1, "Error")),
				makePod("j", "b", 1, corev1.PodRunning).deleting().container(runningC("m", 7)),
				makePod("j", "b", 2, corev1.PodFailed).deleting(),
				makePod("j", "b", 3, corev1.PodUnknown),
				makePod("j", "b", 4, ""),
			),
			want: Counts{
				Job: PodCounts{Pending: 1, Running: 1, Succeeded: 1, Failed: 2, Terminating: 1, Unknown: 2, Restarts: 6},
				Tasks: map[string]PodCounts{
					"a": {Pending: 1, Running: 1, Succeeded: 1, Restarts: 6},
					"b": {Failed: 2, Terminating: 1, Unknown: 2},
				},
			},
		},
		{
			name: "tasks interleaved",
			pods: pods(
				makePod("j", "a", 0, corev1.PodRunning),
				makePod("j", "b", 0, corev1.PodRunning),
				makePod("j", "a", 1, corev1.PodRunning),
				makePod("j", "b", 1, corev1.PodSucceeded),
			),
			want: Counts{
				Job:   PodCounts{Running: 3, Succeeded: 1},
				Tasks: map[string]PodCounts{"a": {Running: 2}, "b": {Running: 1, Succeeded: 1}},
			},
		},
		{
			name: "task from the annotation, or none",
			pods: func() []corev1.Pod {
				p1 := makePod("j", "a", 0, corev1.PodRunning)
				delete(p1.Labels, batchv1alpha1.TaskSpecKey)
				p1.Annotations = map[string]string{batchv1alpha1.TaskSpecKey: "c"}
				p2 := makePod("j", "a", 1, corev1.PodRunning)
				delete(p2.Labels, batchv1alpha1.TaskSpecKey)
				return pods(p1, p2)
			}(),
			want: Counts{Job: PodCounts{Running: 2}, Tasks: map[string]PodCounts{"c": {Running: 1}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CountPods(tc.pods)); diff != "" {
				t.Errorf("CountPods (-want +got):\n%s", diff)
			}
			ptrs := []*corev1.Pod{nil}
			for i := range tc.pods {
				ptrs = append(ptrs, &tc.pods[i])
			}
			if diff := cmp.Diff(tc.want, CountPodPointers(ptrs)); diff != "" {
				t.Errorf("CountPodPointers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestElapsed(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := testingclock.NewFakePassiveClock(now)
	cases := []struct {
		name  string
		start time.Time
		want  time.Duration
	}{
		{"not started", time.Time{}, 0},
		{"started 2h ago", now.Add(-2 * time.Hour), 2 * time.Hour},
		{"start in the future", now.Add(time.Minute), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Elapsed(tc.start, clk)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobMinAvailable(t *testing.T) {
	cases := []struct {
		name string
		job  *batchv1alpha1.Job
		want int32
	}{
		{"spec", makeJob("j").task("a", 4).minAvailable(3).obj(), 3},
		{"sum of replicas", makeJob("j").task("a", 4).task("b", 2).obj(), 6},
		{"sum of task minAvailable", makeJob("j").task("a", 4).taskMinAvailable(1).task("b", 2).obj(), 3},
		{"no tasks", makeJob("j").obj(), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, JobMinAvailable(tc.job)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodExitCode(t *testing.T) {
	cases := []struct {
		name string
		pod  *corev1.Pod
		want int32
	}{
		{"no containers", makePod("j", "a", 0, corev1.PodPending).obj(), 0},
		{"running", makePod("j", "a", 0, corev1.PodRunning).container(runningC("m", 0)).obj(), 0},
		{"first terminated", makePod("j", "a", 0, corev1.PodFailed).container(runningC("s", 0)).
			container(terminated("m", 2, "Error")).container(terminated("n", 3, "Error")).obj(), 2},
		{"terminated with 0", makePod("j", "a", 0, corev1.PodFailed).container(terminated("m", 0, "Completed")).
			container(terminated("n", 3, "Error")).obj(), 0},
		{"failed init container", makePod("j", "a", 0, corev1.PodFailed).
			initContainer(terminated("i1", 0, "Completed")).initContainer(terminated("i2", 9, "Error")).
			container(waitingC("m", "PodInitializing", 0)).obj(), 9},
		{"last termination does not count", makePod("j", "a", 0, corev1.PodRunning).
			container(withLast(runningC("m", 1), 137, "OOMKilled")).obj(), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PodExitCode(tc.pod)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodIndexAndTask(t *testing.T) {
	type got struct {
		Index int64
		Task  string
	}
	withAnnotations := makePod("j", "a", 3, corev1.PodRunning)
	withAnnotations.Annotations = withAnnotations.Labels
	withAnnotations.Labels = nil
	bad := makePod("j", "a", 0, corev1.PodRunning)
	bad.Labels[batchv1alpha1.TaskIndex] = "x"
	cases := []struct {
		name string
		pod  *corev1.Pod
		want got
	}{
		{"labels", makePod("j", "a", 2, corev1.PodRunning).obj(), got{2, "a"}},
		{"annotations", withAnnotations.obj(), got{3, "a"}},
		{"bad index", bad.obj(), got{-1, "a"}},
		{"nothing", &corev1.Pod{}, got{-1, ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, got{podIndex(tc.pod), PodTaskName(tc.pod)}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCountsAreLazy checks that the pods are counted only when an expression reads a count.
func TestCountsAreLazy(t *testing.T) {
	job, ps := fixture()
	e := newTestEngine(t)
	in := NewJobInput(job, ps, 0)
	ev := in.ForEvent("PodFailed", "", &ps[3])
	for _, x := range []string{"pod.exitCode == 137", "job.name == 'train'", "event == 'PodFailed'"} {
		if _, err := e.EvaluateBool(context.Background(), x, ev); err != nil {
			t.Fatal(err)
		}
	}
	if in.counts.Tasks != nil {
		t.Fatalf("the pods were counted though no expression read a count")
	}
	if _, err := e.EvaluateBool(context.Background(), "job.failed == 1", ev); err != nil {
		t.Fatal(err)
	}
	if in.counts.Tasks == nil {
		t.Fatalf("the pods should have been counted")
	}
}

func TestNilJob(t *testing.T) {
	e := newTestEngine(t)
	ok, err := e.EvaluateBool(context.Background(), "job.name == '' && tasks.size() == 0 && job.running == 0",
		NewJobInput(nil, nil, 0).ForEvent("", "", nil))
	if err != nil || !ok {
		t.Errorf("a nil job should read as an empty job: %v, %v", ok, err)
	}
}

func TestJobInputFromPodPointers(t *testing.T) {
	job, ps := fixture()
	ptrs := []*corev1.Pod{nil}
	for i := range ps {
		ptrs = append(ptrs, &ps[i])
	}
	byPtr := NewJobInputFromPodPointers(job, ptrs, 0)
	if diff := cmp.Diff(CountPods(ps), byPtr.Counts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	type found struct{ ByValue, ByPointer string }
	name := func(p *corev1.Pod) string {
		if p == nil {
			return "<nil>"
		}
		return p.Name
	}
	byValue := NewJobInput(job, ps, 0)
	for _, tc := range []struct{ name, want string }{
		{"train-worker-2", "train-worker-2"}, {"nope", "<nil>"}, {"", "<nil>"},
	} {
		got := found{name(byValue.Pod(tc.name)), name(byPtr.Pod(tc.name))}
		if diff := cmp.Diff(found{tc.want, tc.want}, got); diff != "" {
			t.Errorf("Pod(%q) (-want +got):\n%s", tc.name, diff)
		}
	}
}
