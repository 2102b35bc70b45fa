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
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// outcome is the part of a Result the transition table checks.
type outcome struct {
	Phase          batchv1alpha1.JobPhase
	Delete         []string
	DeletePodGroup bool
	Version        int32
	RetryCount     int32
}

// outcomeOf summarizes r.
func outcomeOf(r Result) outcome {
	return outcome{
		Phase: r.Status.State.Phase, Delete: podNames(r.Delete), DeletePodGroup: r.DeletePodGroup,
		Version: r.Status.Version, RetryCount: r.Status.RetryCount,
	}
}

// Actions of the transition table, with the targets a policy resolution gives them.
var (
	restartJob       = Decision{Action: busv1alpha1.RestartJobAction, Reason: "PodFailed"}
	restartTask      = Decision{Action: busv1alpha1.RestartTaskAction, Target: Target{Task: "w"}, Reason: "PodFailed"}
	restartPod       = Decision{Action: busv1alpha1.RestartPodAction, Target: Target{Task: "w", Pod: "j-w-0"}, Reason: "PodFailed"}
	restartPartition = Decision{Action: busv1alpha1.RestartPartitionAction, Target: Target{Task: "w", Partition: "0"}, Reason: "PodFailed"}
	abortJob         = Decision{Action: busv1alpha1.AbortJobAction, Reason: ReasonCommandIssued}
	terminateJob     = Decision{Action: busv1alpha1.TerminateJobAction, Reason: "TaskFailed"}
	completeJob      = Decision{Action: busv1alpha1.CompleteJobAction, Reason: "TaskCompleted"}
	resumeJob        = Decision{Action: busv1alpha1.ResumeJobAction, Reason: ReasonCommandIssued}
	syncJob          = Decision{Action: busv1alpha1.SyncJobAction}
)

// tablePods are the pods of every row of the transition table unless it says otherwise: task w
// (3 replicas, so minAvailable 3) with one running, one succeeded and one failed pod; partition
// 0 holds the first two.
func tablePods() []*corev1.Pod {
	return []*corev1.Pod{
		newPod("w", 0, corev1.PodRunning, partition("0")),
		newPod("w", 1, corev1.PodSucceeded, partition("0")),
		newPod("w", 2, corev1.PodFailed, partition("1")),
	}
}

// finishedPods have no pod pending, running or terminating.
func finishedPods() []*corev1.Pod {
	return []*corev1.Pod{newPod("w", 1, corev1.PodSucceeded), newPod("w", 2, corev1.PodFailed)}
}

// TestTransitionTable has one row for every phase and action of the transition table, plus the
// rows where the next phase depends on the counts. The job is at version 1 with retryCount 0 and
// maxRetry 3 unless the row says otherwise.
func TestTransitionTable(t *testing.T) {
	all := []string{"j-w-0", "j-w-1", "j-w-2"}
	alive := []string{"j-w-0"}
	type row struct {
		name  string
		phase batchv1alpha1.JobPhase
		d     Decision
		opts  []jobOpt
		pods  []*corev1.Pod
		want  outcome
	}
	// Kill outcomes, by phase after the step.
	killNone := func(p batchv1alpha1.JobPhase) outcome {
		return outcome{Phase: p, Delete: all, DeletePodGroup: true, Version: 2, RetryCount: 1}
	}
	killSoft := func(p batchv1alpha1.JobPhase) outcome {
		return outcome{Phase: p, Delete: alive, DeletePodGroup: true, Version: 2}
	}
	sweep := func(p batchv1alpha1.JobPhase) outcome {
		return outcome{Phase: p, Delete: alive, DeletePodGroup: true, Version: 1}
	}
	target := func(p batchv1alpha1.JobPhase, retry int32, del ...string) outcome {
		return outcome{Phase: p, Delete: del, Version: 1, RetryCount: retry}
	}
	synced := func(p batchv1alpha1.JobPhase) outcome { return outcome{Phase: p, Version: 1} }

	const (
		pending     = batchv1alpha1.Pending
		aborting    = batchv1alpha1.Aborting
		aborted     = batchv1alpha1.Aborted
		running     = batchv1alpha1.Running
		restarting  = batchv1alpha1.Restarting
		completing  = batchv1alpha1.Completing
		completed   = batchv1alpha1.Completed
		terminating = batchv1alpha1.Terminating
		terminated  = batchv1alpha1.Terminated
		failed      = batchv1alpha1.Failed
	)
	rows := []row{
		// Pending: kills start a new phase; SyncJob and ResumeJob sync and apply the Pending status.
		{phase: pending, d: restartJob, want: killNone(restarting)},
		{phase: pending, d: restartTask, want: target(restarting, 1, all...)},
		{phase: pending, d: restartPod, want: target(restarting, 1, "j-w-0")},
		{phase: pending, d: restartPartition, want: target(restarting, 1, "j-w-0", "j-w-1")},
		{phase: pending, d: abortJob, want: killSoft(aborting)},
		{phase: pending, d: terminateJob, want: killSoft(terminating)},
		{phase: pending, d: completeJob, want: killSoft(completing)},
		{phase: pending, d: resumeJob, want: synced(running)},
		{phase: pending, d: syncJob, want: synced(running)},
		{name: "Pending stays Pending below minAvailable", phase: pending, d: syncJob,
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodRunning), newPod("w", 1, corev1.PodPending)}, want: synced(pending)},
		{name: "a new job (no phase) is Pending", phase: "", d: syncJob, pods: []*corev1.Pod{}, want: synced(pending)},

		// Running: as Pending, but SyncJob applies the Running status.
		{phase: running, d: restartJob, want: killNone(restarting)},
		{phase: running, d: restartTask, want: target(restarting, 1, all...)},
		{phase: running, d: restartPod, want: target(restarting, 1, "j-w-0")},
		{phase: running, d: restartPartition, want: target(restarting, 1, "j-w-0", "j-w-1")},
		{phase: running, d: abortJob, want: killSoft(aborting)},
		{phase: running, d: terminateJob, want: killSoft(terminating)},
		{phase: running, d: completeJob, want: killSoft(completing)},
		{phase: running, d: resumeJob, want: synced(running)},
		{phase: running, d: syncJob, want: synced(running)},

		// Restarting: kills then the Restarting status; ends of run are honoured.
		{phase: restarting, d: restartJob, want: outcome{Phase: restarting, Delete: all, DeletePodGroup: true, Version: 2}},
		{name: "Restarting RestartJob without live pods only syncs", phase: restarting, d: restartJob,
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodRunning, deleting())}, want: synced(restarting)},
		{phase: restarting, d: restartTask, want: target(restarting, 0, all...)},
		{phase: restarting, d: restartPod, want: target(restarting, 0, "j-w-0")},
		{phase: restarting, d: restartPartition, want: target(restarting, 0, "j-w-0", "j-w-1")},
		{phase: restarting, d: abortJob, want: killSoft(aborting)},
		{phase: restarting, d: terminateJob, want: killSoft(terminating)},
		{phase: restarting, d: completeJob, want: killSoft(completing)},
		{phase: restarting, d: resumeJob, want: synced(pending)},
		{phase: restarting, d: syncJob, want: synced(pending)},
		{name: "Restarting fails once retryCount reaches maxRetry", phase: restarting, d: syncJob, opts: []jobOpt{retried(3)},
			want: outcome{Phase: failed, Delete: alive, DeletePodGroup: true, Version: 1, RetryCount: 3}},
		{name: "Restarting waits while too many pods terminate", phase: restarting, d: syncJob,
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodRunning, deleting())}, want: synced(restarting)},

		// Aborting: every action sweeps; ResumeJob restarts without a retry.
		{phase: aborting, d: restartJob, want: sweep(aborting)},
		{phase: aborting, d: restartTask, want: sweep(aborting)},
		{phase: aborting, d: restartPod, want: sweep(aborting)},
		{phase: aborting, d: restartPartition, want: sweep(aborting)},
		{phase: aborting, d: abortJob, want: sweep(aborting)},
		{phase: aborting, d: terminateJob, want: sweep(aborting)},
		{phase: aborting, d: completeJob, want: sweep(aborting)},
		{phase: aborting, d: resumeJob, want: killSoft(restarting)},
		{phase: aborting, d: syncJob, want: sweep(aborting)},
		{name: "Aborting becomes Aborted when no pod is alive", phase: aborting, d: syncJob, pods: finishedPods(),
			want: outcome{Phase: aborted, DeletePodGroup: true, Version: 1}},

		// Aborted: every action sweeps and stays; ResumeJob restarts without a retry.
		{phase: aborted, d: restartJob, want: sweep(aborted)},
		{phase: aborted, d: restartTask, want: sweep(aborted)},
		{phase: aborted, d: restartPod, want: sweep(aborted)},
		{phase: aborted, d: restartPartition, want: sweep(aborted)},
		{phase: aborted, d: abortJob, want: sweep(aborted)},
		{phase: aborted, d: terminateJob, want: sweep(aborted)},
		{phase: aborted, d: completeJob, want: sweep(aborted)},
		{phase: aborted, d: resumeJob, want: killSoft(restarting)},
		{phase: aborted, d: syncJob, want: sweep(aborted)},

		// Completing: every action sweeps, Completed once no pod is alive.
		{phase: completing, d: restartJob, want: sweep(completing)},
		{phase: completing, d: restartTask, want: sweep(completing)},
		{phase: completing, d: restartPod, want: sweep(completing)},
		{phase: completing, d: restartPartition, want: sweep(completing)},
		{phase: completing, d: abortJob, want: sweep(completing)},
		{phase: completing, d: terminateJob, want: sweep(completing)},
		{phase: completing, d: completeJob, want: sweep(completing)},
		{phase: completing, d: resumeJob, want: sweep(completing)},
		{phase: completing, d: syncJob, want: sweep(completing)},
		{name: "Completing becomes Completed when no pod is alive", phase: completing, d: syncJob, pods: finishedPods(),
			want: outcome{Phase: completed, DeletePodGroup: true, Version: 1}},

		// Terminating: every action sweeps, Terminated once no pod is alive.
		{phase: terminating, d: restartJob, want: sweep(terminating)},
		{phase: terminating, d: restartTask, want: sweep(terminating)},
		{phase: terminating, d: restartPod, want: sweep(terminating)},
		{phase: terminating, d: restartPartition, want: sweep(terminating)},
		{phase: terminating, d: abortJob, want: sweep(terminating)},
		{phase: terminating, d: terminateJob, want: sweep(terminating)},
		{phase: terminating, d: completeJob, want: sweep(terminating)},
		{phase: terminating, d: resumeJob, want: sweep(terminating)},
		{phase: terminating, d: syncJob, want: sweep(terminating)},
		{name: "Terminating becomes Terminated when no pod is alive", phase: terminating, d: syncJob, pods: finishedPods(),
			want: outcome{Phase: terminated, DeletePodGroup: true, Version: 1}},
	}
	// Completed, Terminated, Failed: every action sweeps and stays.
	for _, final := range []batchv1alpha1.JobPhase{completed, terminated, failed} {
		for _, d := range []Decision{restartJob, restartTask, restartPod, restartPartition, abortJob, terminateJob, completeJob, resumeJob, syncJob} {
			rows = append(rows, row{phase: final, d: d, want: sweep(final)})
		}
	}

	for _, r := range rows {
		name := r.name
		if name == "" {
			name = string(r.phase) + "/" + string(r.d.Action)
		}
		t.Run(name, func(t *testing.T) {
			job := newJob([]batchv1alpha1.TaskSpec{task("w", 3)}, append([]jobOpt{inPhase(r.phase)}, r.opts...)...)
			pods := r.pods
			if pods == nil {
				pods = tablePods()
			}
			got, err := Execute(Snapshot{Job: job, Pods: pods}, r.d, newClock())
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if diff := cmp.Diff(r.want, outcomeOf(got)); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecuteStatus checks a whole status written by a transition.
func TestExecuteStatus(t *testing.T) {
	job := newJob([]batchv1alpha1.TaskSpec{task("ps", 1), task("w", 2)}, retried(1))
	pods := []*corev1.Pod{
		newPod("ps", 0, corev1.PodRunning),
		newPod("w", 0, corev1.PodFailed, exited(3)),
		newPod("w", 1, corev1.PodPending, deleting()),
	}
	d := Decision{Action: busv1alpha1.RestartJobAction, Event: busv1alpha1.PodFailedEvent, Reason: "PodFailed",
		Message: "event PodFailed of pod j-w-0 (exit code 3) matched spec.policies[0] (RestartJob)"}
	got, err := Execute(Snapshot{Job: job, Pods: pods}, d, newClock())
	if err != nil {
		t.Fatal(err)
	}
	want := batchv1alpha1.JobStatus{
		State: batchv1alpha1.JobState{
			Phase: batchv1alpha1.Restarting, Reason: "PodFailed", LastTransitionTime: metav1.NewTime(t0),
			Message: "event PodFailed of pod j-w-0 (exit code 3) matched spec.policies[0] (RestartJob); retryCount 2, maxRetry 3",
		},
		MinAvailable:    3,
		Terminating:     3,
		Version:         2,
		RetryCount:      2,
		RunningDuration: &metav1.Duration{Duration: time.Hour},
	}
	if diff := cmp.Diff(want, got.Status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"j-ps-0", "j-w-0"}, podNames(got.Delete)); diff != "" {
		t.Errorf("deleted (-want +got):\n%s", diff)
	}
	if !got.Transitioned {
		t.Error("Transitioned is false, want true")
	}
}

// TestExecuteCounting covers the counting rules of the status functions and of retries.
func TestExecuteCounting(t *testing.T) {
	evicted := Decision{Action: busv1alpha1.RestartJobAction, Event: busv1alpha1.PodEvictedEvent, KeepRetryCount: true}
	tests := []struct {
		name  string
		tasks []batchv1alpha1.TaskSpec
		opts  []jobOpt
		pods  []*corev1.Pod
		d     Decision
		want  outcome
	}{
		{
			name:  "Running scaled down to no replicas stays Running, as in Volcano",
			tasks: []batchv1alpha1.TaskSpec{task("w", 0)},
			d:     syncJob, want: outcome{Phase: batchv1alpha1.Running, Version: 1},
		},
		{
			name:  "minSuccess reached completes at once and stops the other pods",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{minSuccess(2)},
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodSucceeded), newPod("w", 1, corev1.PodSucceeded), newPod("w", 2, corev1.PodRunning)},
			d:    syncJob, want: outcome{Phase: batchv1alpha1.Completed, Delete: []string{"j-w-2"}, DeletePodGroup: true, Version: 1},
		},
		{
			name:  "all finished with minAvailable succeeded completes",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{minAvailable(2)},
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodSucceeded), newPod("w", 1, corev1.PodSucceeded), newPod("w", 2, corev1.PodFailed)},
			d:    syncJob, want: outcome{Phase: batchv1alpha1.Completed, Version: 1},
		},
		{
			name:  "all finished with too few succeeded fails",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{minAvailable(2)},
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodSucceeded), newPod("w", 1, corev1.PodFailed), newPod("w", 2, corev1.PodFailed)},
			d:    syncJob, want: outcome{Phase: batchv1alpha1.Failed, Version: 1},
		},
		{
			name:  "all finished below minSuccess fails",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{minAvailable(1), minSuccess(3)},
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodSucceeded), newPod("w", 1, corev1.PodSucceeded), newPod("w", 2, corev1.PodFailed)},
			d:    syncJob, want: outcome{Phase: batchv1alpha1.Failed, Version: 1},
		},
		{
			name:  "a task below its minAvailable fails the job when minAvailable covers every task",
			tasks: []batchv1alpha1.TaskSpec{task("ps", 1), task("w", 2, taskMin(1))}, opts: []jobOpt{minAvailable(2)},
			pods: []*corev1.Pod{newPod("ps", 0, corev1.PodFailed), newPod("w", 0, corev1.PodSucceeded), newPod("w", 1, corev1.PodSucceeded)},
			d:    syncJob, want: outcome{Phase: batchv1alpha1.Failed, Version: 1},
		},
		{
			name:  "task minAvailable is not checked when the job's minAvailable is lower than their sum",
			tasks: []batchv1alpha1.TaskSpec{task("ps", 1), task("w", 2)}, opts: []jobOpt{minAvailable(2)},
			pods: []*corev1.Pod{newPod("ps", 0, corev1.PodFailed), newPod("w", 0, corev1.PodSucceeded), newPod("w", 1, corev1.PodSucceeded)},
			d:    syncJob, want: outcome{Phase: batchv1alpha1.Completed, Version: 1},
		},
		{
			name:  "Running goes back to Pending when more pods are pending than minAvailable allows",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{minAvailable(2)},
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodRunning), newPod("w", 1, corev1.PodPending), newPod("w", 2, corev1.PodPending)},
			d:    syncJob, want: outcome{Phase: batchv1alpha1.Pending, Version: 1},
		},
		{
			name:  "Running stays Running while the pending pods are within the slack",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{minAvailable(2)},
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodRunning), newPod("w", 1, corev1.PodRunning), newPod("w", 2, corev1.PodPending)},
			d:    syncJob, want: outcome{Phase: batchv1alpha1.Running, Version: 1},
		},
		{
			name:  "the last retry keeps finished pods",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{retried(2)},
			pods: tablePods(), d: restartJob,
			want: outcome{Phase: batchv1alpha1.Restarting, Delete: []string{"j-w-0"}, DeletePodGroup: true, Version: 2, RetryCount: 3},
		},
		{
			name:  "an eviction restart does not count as a retry, nor keep finished pods",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{retried(2)},
			pods: tablePods(), d: evicted,
			want: outcome{Phase: batchv1alpha1.Restarting, Delete: []string{"j-w-0", "j-w-1", "j-w-2"}, DeletePodGroup: true, Version: 2, RetryCount: 2},
		},
		{
			name:  "ResumeJob does not count as a retry",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{inPhase(batchv1alpha1.Aborted), retried(2)},
			pods: finishedPods(), d: resumeJob,
			want: outcome{Phase: batchv1alpha1.Restarting, DeletePodGroup: true, Version: 2, RetryCount: 2},
		},
		{
			name:  "maxRetry counts runs: the third restart with maxRetry 3 fails",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{inPhase(batchv1alpha1.Restarting), retried(3)},
			pods: []*corev1.Pod{}, d: syncJob,
			want: outcome{Phase: batchv1alpha1.Failed, Version: 1, RetryCount: 3},
		},
		{
			name:  "maxRetry 0 means 3",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)}, opts: []jobOpt{inPhase(batchv1alpha1.Restarting), retried(2), maxRetry(0)},
			pods: []*corev1.Pod{}, d: syncJob,
			want: outcome{Phase: batchv1alpha1.Pending, Version: 1, RetryCount: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := newJob(tc.tasks, tc.opts...)
			got, err := Execute(Snapshot{Job: job, Pods: tc.pods}, tc.d, newClock())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, outcomeOf(got)); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecuteSync covers what SyncJob creates and deletes.
func TestExecuteSync(t *testing.T) {
	tests := []struct {
		name       string
		tasks      []batchv1alpha1.TaskSpec
		pods       []*corev1.Pod
		canCreate  bool
		wantCreate []PodSlot
		wantDelete []string
	}{
		{
			name:      "missing pods are created once the PodGroup admits them",
			tasks:     []batchv1alpha1.TaskSpec{task("w", 3)},
			pods:      []*corev1.Pod{newPod("w", 1, corev1.PodRunning)},
			canCreate: true, wantCreate: []PodSlot{{Task: "w", Index: 0}, {Task: "w", Index: 2}},
		},
		{
			name:  "nothing is created before the PodGroup admits the pods",
			tasks: []batchv1alpha1.TaskSpec{task("w", 3)},
			pods:  []*corev1.Pod{newPod("w", 1, corev1.PodRunning)},
		},
		{
			name:      "a pod being deleted holds its name",
			tasks:     []batchv1alpha1.TaskSpec{task("w", 1)},
			pods:      []*corev1.Pod{newPod("w", 0, corev1.PodRunning, deleting())},
			canCreate: true,
		},
		{
			name:      "a task waits for its dependencies",
			tasks:     []batchv1alpha1.TaskSpec{task("ps", 1), task("w", 2, dependsOn("", "ps"))},
			pods:      []*corev1.Pod{newPod("ps", 0, corev1.PodPending)},
			canCreate: true,
		},
		{
			name:       "a task starts once its dependencies are ready",
			tasks:      []batchv1alpha1.TaskSpec{task("ps", 1), task("w", 2, dependsOn("", "ps"))},
			pods:       []*corev1.Pod{newPod("ps", 0, corev1.PodRunning, readyAt(t0))},
			canCreate:  true,
			wantCreate: []PodSlot{{Task: "w", Index: 0}, {Task: "w", Index: 1}},
		},
		{
			name:  "scale down deletes the surplus indexes, highest first",
			tasks: []batchv1alpha1.TaskSpec{task("w", 2)},
			pods: []*corev1.Pod{newPod("w", 0, corev1.PodRunning), newPod("w", 1, corev1.PodRunning),
				newPod("w", 2, corev1.PodRunning), newPod("w", 3, corev1.PodPending)},
			wantDelete: []string{"j-w-3", "j-w-2"},
		},
		{
			name:       "pods of a task no longer in the spec and pods marked out of sync are deleted",
			tasks:      []batchv1alpha1.TaskSpec{task("w", 2)},
			pods:       []*corev1.Pod{newPod("w", 0, corev1.PodRunning, markedOutOfSync()), newPod("w", 1, corev1.PodRunning), newPod("old", 0, corev1.PodRunning)},
			wantDelete: []string{"j-w-0", "j-old-0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := newJob(tc.tasks, inPhase(batchv1alpha1.Pending))
			got, err := Execute(Snapshot{Job: job, Pods: tc.pods, CanCreatePods: tc.canCreate}, syncJob, newClock())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantCreate, got.Create); diff != "" {
				t.Errorf("created (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantDelete, podNames(got.Delete)); diff != "" {
				t.Errorf("deleted (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecuteErrors covers decisions and snapshots Execute refuses, and a job being deleted.
func TestExecuteErrors(t *testing.T) {
	job := newJob([]batchv1alpha1.TaskSpec{task("w", 1)})
	pods := []*corev1.Pod{newPod("w", 0, corev1.PodRunning)}
	for _, d := range []Decision{
		{Action: busv1alpha1.RestartTaskAction},
		{Action: busv1alpha1.RestartPodAction, Target: Target{Task: "w"}},
		{Action: busv1alpha1.RestartPartitionAction, Target: Target{Task: "w"}},
	} {
		if _, err := Execute(Snapshot{Job: job, Pods: pods}, d, newClock()); !errors.Is(err, ErrNoTarget) {
			t.Errorf("%s without a target: error %v, want ErrNoTarget", d.Action, err)
		}
	}
	if _, err := Execute(Snapshot{}, syncJob, newClock()); err == nil {
		t.Error("a snapshot without a job: no error")
	}
	bad := newJob([]batchv1alpha1.TaskSpec{task("w", 1, taskMin(2))})
	if _, err := Execute(Snapshot{Job: bad}, syncJob, newClock()); err == nil {
		t.Error("a job whose task minAvailable exceeds its replicas: no error")
	}

	gone := newJob([]batchv1alpha1.TaskSpec{task("w", 1)})
	gone.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
	got, err := Execute(Snapshot{Job: gone, Pods: pods}, restartJob, newClock())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Result{Status: gone.Status}, got); diff != "" {
		t.Errorf("a job being deleted (-want +got):\n%s", diff)
	}
}

// TestPodGroupAdmits covers the PodGroup phases that let pods be created.
func TestPodGroupAdmits(t *testing.T) {
	for phase, want := range map[string]bool{"": false, "Pending": false, "Inqueue": true, "Running": true, "Unknown": true} {
		if got := PodGroupAdmits(schedulingPhase(phase)); got != want {
			t.Errorf("PodGroupAdmits(%q) = %v, want %v", phase, got, want)
		}
	}
}

// schedulingPhase converts a phase name.
func schedulingPhase(s string) schedulingv1beta1.PodGroupPhase {
	return schedulingv1beta1.PodGroupPhase(s)
}
