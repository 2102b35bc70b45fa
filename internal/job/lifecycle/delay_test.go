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
	"k8s.io/apimachinery/pkg/types"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

// delayed is a delayed action of job j's pod j-w-0 (or of the job when pod is empty) for event,
// taking action, decided at version 1 and due at t0+d.
func delayed(event busv1alpha1.Event, action busv1alpha1.Action, pod string, target Target, d time.Duration) DelayedAction {
	a := DelayedAction{
		Key:      DelayKey{JobUID: jobUID},
		Version:  1,
		Decision: Decision{Event: event, Action: action, Target: target, Delay: d},
		Due:      t0.Add(d),
	}
	if pod != "" {
		a.Key.Task, a.Key.Pod, a.PodUID = "w", pod, types.UID("uid-"+pod)
	}
	return a
}

func TestNewDelayedAction(t *testing.T) {
	job := newJob([]batchv1alpha1.TaskSpec{task("w", 1)}, version(4))
	d := Decision{Action: busv1alpha1.RestartPodAction, Event: busv1alpha1.PodPendingEvent, Delay: 10 * time.Minute}
	req := podReq("w", 0, busv1alpha1.PodPendingEvent)

	got := NewDelayedAction(job, req, d, newClock())
	want := DelayedAction{
		Key: DelayKey{JobUID: jobUID, Task: "w", Pod: "j-w-0"}, PodUID: "uid-j-w-0", Version: 4, Decision: d,
		Due: t0.Add(10 * time.Minute),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("without Since (-want +got):\n%s", diff)
	}

	req.Since = t0.Add(-8 * time.Minute)
	if got := NewDelayedAction(job, req, d, newClock()).Due; !got.Equal(t0.Add(2 * time.Minute)) {
		t.Errorf("with Since 8m ago: due %v, want t0+2m", got)
	}
}

func TestDelayedActionHolds(t *testing.T) {
	pendingDelay := delayed(busv1alpha1.PodPendingEvent, busv1alpha1.RestartPodAction, "j-w-0", Target{Task: "w", Pod: "j-w-0"}, time.Minute)
	failedDelay := delayed(busv1alpha1.PodFailedEvent, busv1alpha1.RestartJobAction, "j-w-0", Target{}, time.Minute)
	evictedDelay := delayed(busv1alpha1.PodEvictedEvent, busv1alpha1.RestartJobAction, "j-w-0", Target{}, time.Minute)
	unknownDelay := delayed(busv1alpha1.JobUnknownEvent, busv1alpha1.RestartJobAction, "", Target{}, time.Minute)
	recreated := func(phase corev1.PodPhase) *corev1.Pod {
		return newPod("w", 0, phase, func(p *corev1.Pod) { p.UID = "new" })
	}
	tests := []struct {
		name string
		a    DelayedAction
		job  *batchv1alpha1.Job
		pods []*corev1.Pod
		want bool
	}{
		{name: "PodPending holds while the pod is pending", a: pendingDelay, pods: []*corev1.Pod{newPod("w", 0, corev1.PodPending)}, want: true},
		{name: "PodPending ends when the pod runs", a: pendingDelay, pods: []*corev1.Pod{newPod("w", 0, corev1.PodRunning)}},
		{name: "PodPending ends when the pod is being deleted", a: pendingDelay, pods: []*corev1.Pod{newPod("w", 0, corev1.PodPending, deleting())}},
		{name: "PodPending ends when the pod is gone", a: pendingDelay},
		{name: "PodPending ends when another pod of that name replaced it", a: pendingDelay, pods: []*corev1.Pod{recreated(corev1.PodPending)}},
		{name: "PodFailed holds while the pod stays failed", a: failedDelay, pods: []*corev1.Pod{newPod("w", 0, corev1.PodFailed)}, want: true},
		{name: "PodFailed holds while the pod is gone", a: failedDelay, want: true},
		{name: "PodFailed ends when a pod of that name runs again", a: failedDelay, pods: []*corev1.Pod{recreated(corev1.PodRunning)}},
		{name: "PodEvicted holds while no pod of that name runs", a: evictedDelay, pods: []*corev1.Pod{recreated(corev1.PodPending)}, want: true},
		{name: "PodEvicted ends when a pod of that name runs again", a: evictedDelay, pods: []*corev1.Pod{recreated(corev1.PodRunning)}},
		{name: "other events hold", a: unknownDelay, want: true},
		{name: "a new run of the job ends it", a: unknownDelay, job: newJob(nil, version(2))},
		{name: "another job of the same name ends it", a: unknownDelay, job: newJob(nil, func(j *batchv1alpha1.Job) { j.UID = "other" })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := tc.job
			if job == nil {
				job = newJob(nil)
			}
			if got := tc.a.Holds(job, tc.pods); got != tc.want {
				t.Errorf("Holds = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDelayedActionCancelledBy(t *testing.T) {
	jobDelay := delayed(busv1alpha1.PodFailedEvent, busv1alpha1.TerminateJobAction, "j-w-0", Target{}, time.Minute)
	taskDelay := delayed(busv1alpha1.PodFailedEvent, busv1alpha1.RestartTaskAction, "j-w-0", Target{Task: "w"}, time.Minute)
	podDelay := delayed(busv1alpha1.PodPendingEvent, busv1alpha1.RestartPodAction, "j-w-0", Target{Task: "w", Pod: "j-w-0"}, time.Minute)
	partDelay := delayed(busv1alpha1.PodFailedEvent, busv1alpha1.RestartPartitionAction, "j-w-0", Target{Task: "w", Partition: "0"}, time.Minute)
	tests := []struct {
		name string
		a    DelayedAction
		x    Decision
		want bool
	}{
		{name: "SyncJob cancels nothing", a: jobDelay, x: syncJob},
		{name: "a job action cancels a job action", a: jobDelay, x: restartJob, want: true},
		{name: "a job action leaves a pod action", a: podDelay, x: restartJob},
		{name: "a task action cancels one of the same task", a: taskDelay, x: restartTask, want: true},
		{name: "a task action leaves one of another task", a: taskDelay,
			x: Decision{Action: busv1alpha1.RestartTaskAction, Target: Target{Task: "ps"}}},
		{name: "a pod action cancels one of the same pod", a: podDelay, x: restartPod, want: true},
		{name: "a pod action leaves one of another pod", a: podDelay,
			x: Decision{Action: busv1alpha1.RestartPodAction, Target: Target{Task: "w", Pod: "j-w-1"}}},
		{name: "a partition action cancels one of the same partition", a: partDelay, x: restartPartition, want: true},
		{name: "a partition action leaves one of another partition", a: partDelay,
			x: Decision{Action: busv1alpha1.RestartPartitionAction, Target: Target{Task: "w", Partition: "1"}}},
		{name: "a partition action leaves the same partition of another task", a: partDelay,
			x: Decision{Action: busv1alpha1.RestartPartitionAction, Target: Target{Task: "ps", Partition: "0"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.CancelledBy(tc.x); got != tc.want {
				t.Errorf("CancelledBy = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDelays(t *testing.T) {
	pendingW0 := delayed(busv1alpha1.PodPendingEvent, busv1alpha1.RestartPodAction, "j-w-0", Target{Task: "w", Pod: "j-w-0"}, 5*time.Minute)
	unknown := delayed(busv1alpha1.JobUnknownEvent, busv1alpha1.RestartJobAction, "", Target{}, 2*time.Minute)

	var ds Delays
	ds = ds.Add(pendingW0).Add(unknown)

	again := pendingW0
	again.Due = t0.Add(time.Hour)
	if diff := cmp.Diff(ds, ds.Add(again)); diff != "" {
		t.Errorf("adding the same action again changed its due time (-want +got):\n%s", diff)
	}
	other := pendingW0
	other.Decision.Action = busv1alpha1.AbortJobAction
	if got := ds.Add(other); got[0].Decision.Action != busv1alpha1.AbortJobAction || len(got) != 2 {
		t.Errorf("another action under the same key did not replace it: %+v", got)
	}
	if ds[0].Decision.Action != busv1alpha1.RestartPodAction {
		t.Error("Add changed its receiver")
	}

	if next, ok := ds.Next(); !ok || !next.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("Next = %v, %v; want t0+2m", next, ok)
	}
	if _, ok := Delays(nil).Next(); ok {
		t.Error("Next of no delays is ok")
	}

	due, waiting := ds.Due(t0.Add(3 * time.Minute))
	if diff := cmp.Diff(Delays{unknown}, due); diff != "" {
		t.Errorf("due at t0+3m (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Delays{pendingW0}, waiting); diff != "" {
		t.Errorf("waiting at t0+3m (-want +got):\n%s", diff)
	}
	if due, _ := ds.Due(t0.Add(time.Hour)); len(due) != 2 || due[0].Decision.Event != busv1alpha1.JobUnknownEvent {
		t.Errorf("due at t0+1h, earliest first: %+v", due)
	}

	kept, cancelled := ds.Prune(newJob(nil), []*corev1.Pod{newPod("w", 0, corev1.PodRunning)})
	if diff := cmp.Diff(Delays{unknown}, kept); diff != "" {
		t.Errorf("kept after the pod ran (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Delays{pendingW0}, cancelled); diff != "" {
		t.Errorf("cancelled after the pod ran (-want +got):\n%s", diff)
	}

	kept, cancelled = ds.Executed(abortJob)
	if diff := cmp.Diff(Delays{pendingW0}, kept); diff != "" {
		t.Errorf("kept after AbortJob (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Delays{unknown}, cancelled); diff != "" {
		t.Errorf("cancelled after AbortJob (-want +got):\n%s", diff)
	}
}
