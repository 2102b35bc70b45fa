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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// cond is a condition set at t0 for generation 4.
func cond(kind string, status bool, reason, message string) metav1.Condition {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: kind, Status: s, Reason: reason, Message: message, ObservedGeneration: 4, LastTransitionTime: metav1.NewTime(t0)}
}

func TestSetConditions(t *testing.T) {
	const (
		ready       = batchv1alpha1.ReadyCondition
		reconciling = batchv1alpha1.ReconcilingCondition
		stalled     = batchv1alpha1.StalledCondition
		suspended   = batchv1alpha1.SuspendedCondition
	)
	tests := []struct {
		name  string
		state batchv1alpha1.JobState
		opts  []jobOpt
		want  []metav1.Condition
	}{
		{
			name:  "a new job is pending and reconciling",
			state: batchv1alpha1.JobState{},
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.JobPendingReason, "waiting for the job's gang to be scheduled"),
				cond(ready, false, batchv1alpha1.JobPendingReason, "waiting for the job's gang to be scheduled"),
			},
		},
		{
			name:  "a running job is reconciling, with the state's message",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Running, Message: "3 pods are running or finished; minAvailable is 3"},
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.JobRunningReason, "3 pods are running or finished; minAvailable is 3"),
				cond(ready, false, batchv1alpha1.JobRunningReason, "3 pods are running or finished; minAvailable is 3"),
			},
		},
		{
			name:  "a restarting job is progressing",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Restarting, Message: "event PodFailed of pod j-w-0 matched spec.policies[0] (RestartJob)"},
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.ProgressingReason, "the job is Restarting: event PodFailed of pod j-w-0 matched spec.policies[0] (RestartJob)"),
				cond(ready, false, batchv1alpha1.ProgressingReason, "the job is Restarting: event PodFailed of pod j-w-0 matched spec.policies[0] (RestartJob)"),
			},
		},
		{
			name:  "a completed job is ready",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Completed, Message: "every pod has finished, and 3 succeeded; minAvailable is 3"},
			want: []metav1.Condition{
				cond(ready, true, batchv1alpha1.JobCompletedReason, "every pod has finished, and 3 succeeded; minAvailable is 3"),
			},
		},
		{
			name:  "a failed job is stalled",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Failed, Message: "retryCount 3 reached maxRetry 3"},
			want: []metav1.Condition{
				cond(stalled, true, batchv1alpha1.JobFailedReason, "retryCount 3 reached maxRetry 3"),
				cond(ready, false, batchv1alpha1.JobFailedReason, "retryCount 3 reached maxRetry 3"),
			},
		},
		{
			name:  "a terminated job is stalled",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Terminated},
			want: []metav1.Condition{
				cond(stalled, true, batchv1alpha1.JobTerminatedReason, "the job was terminated"),
				cond(ready, false, batchv1alpha1.JobTerminatedReason, "the job was terminated"),
			},
		},
		{
			name:  "an aborted job is stalled",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Aborted, Reason: batchv1alpha1.JobAbortedReason},
			want: []metav1.Condition{
				cond(stalled, true, batchv1alpha1.JobAbortedReason, "the job was aborted; resume it with a ResumeJob Command"),
				cond(ready, false, batchv1alpha1.JobAbortedReason, "the job was aborted; resume it with a ResumeJob Command"),
			},
		},
		{
			name:  "a job held by spec.suspend is only suspended",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Aborted, Reason: batchv1alpha1.JobSuspendedReason},
			opts:  []jobOpt{suspend(true)},
			want: []metav1.Condition{
				cond(suspended, true, batchv1alpha1.JobSuspendedReason, "spec.suspend holds the job; set it to false to resume"),
			},
		},
		{
			name:  "a job being suspended is not suspended yet",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Aborting, Reason: batchv1alpha1.JobSuspendedReason, Message: "spec.suspend is true"},
			opts:  []jobOpt{suspend(true)},
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.ProgressingReason, "the job is Aborting: spec.suspend is true"),
				cond(ready, false, batchv1alpha1.ProgressingReason, "the job is Aborting: spec.suspend is true"),
				cond(suspended, false, batchv1alpha1.ProgressingReason, "spec.suspend is true and the job is Aborting: waiting for its pods to stop"),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := newJob(nil, tc.opts...)
			job.Status.State = tc.state
			SetConditions(job, newClock())
			if diff := cmp.Diff(tc.want, job.Status.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetConditionsTransitions checks that conditions are replaced as the phase moves on, and
// that lastTransitionTime moves only when a condition's status changes.
func TestSetConditionsTransitions(t *testing.T) {
	clk := newClock()
	job := newJob(nil, suspend(true))
	job.Status.State = batchv1alpha1.JobState{Phase: batchv1alpha1.Running}
	SetConditions(job, clk)

	clk.SetTime(t0.Add(time.Minute))
	job.Status.State = batchv1alpha1.JobState{Phase: batchv1alpha1.Pending}
	job.Generation = 5
	SetConditions(job, clk)
	reconciling := cond(batchv1alpha1.ReconcilingCondition, true, batchv1alpha1.JobPendingReason, "waiting for the job's gang to be scheduled")
	reconciling.ObservedGeneration = 5
	if diff := cmp.Diff(reconciling, job.Status.Conditions[0]); diff != "" {
		t.Errorf("Reconciling kept its transition time (-want +got):\n%s", diff)
	}

	clk.SetTime(t0.Add(2 * time.Minute))
	job.Spec.Suspend = nil
	job.Status.State = batchv1alpha1.JobState{Phase: batchv1alpha1.Completed}
	SetConditions(job, clk)
	want := []metav1.Condition{{
		Type: batchv1alpha1.ReadyCondition, Status: metav1.ConditionTrue, Reason: batchv1alpha1.JobCompletedReason,
		Message: "the job completed", ObservedGeneration: 5, LastTransitionTime: metav1.NewTime(t0.Add(2 * time.Minute)),
	}}
	if diff := cmp.Diff(want, job.Status.Conditions); diff != "" {
		t.Errorf("after completion (-want +got):\n%s", diff)
	}

	MarkStalled(job, batchv1alpha1.InvalidPolicyReason, "spec.policies[0].when: undeclared reference to 'pods'", clk)
	want = []metav1.Condition{
		{Type: batchv1alpha1.ReadyCondition, Status: metav1.ConditionFalse, Reason: batchv1alpha1.InvalidPolicyReason,
			Message: "spec.policies[0].when: undeclared reference to 'pods'", ObservedGeneration: 5, LastTransitionTime: metav1.NewTime(t0.Add(2 * time.Minute))},
		{Type: batchv1alpha1.StalledCondition, Status: metav1.ConditionTrue, Reason: batchv1alpha1.InvalidPolicyReason,
			Message: "spec.policies[0].when: undeclared reference to 'pods'", ObservedGeneration: 5, LastTransitionTime: metav1.NewTime(t0.Add(2 * time.Minute))},
	}
	if diff := cmp.Diff(want, job.Status.Conditions); diff != "" {
		t.Errorf("after MarkStalled (-want +got):\n%s", diff)
	}
}

func TestMarkReconcileError(t *testing.T) {
	const (
		ready       = batchv1alpha1.ReadyCondition
		reconciling = batchv1alpha1.ReconcilingCondition
	)
	long := strings.Repeat("x", maxConditionMessage+10)
	tests := []struct {
		name  string
		state batchv1alpha1.JobState
		err   error
		want  []metav1.Condition
	}{
		{
			name:  "no error leaves the phase's conditions",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Running, Message: "running"},
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.JobRunningReason, "running"),
				cond(ready, false, batchv1alpha1.JobRunningReason, "running"),
			},
		},
		{
			name:  "an error of a running job is Ready=False and Reconciling=True with the error",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Running, Message: "running"},
			err:   errors.New("deleting pod j-w-0: the server is busy"),
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.ReconcileErrorReason, "deleting pod j-w-0: the server is busy"),
				cond(ready, false, batchv1alpha1.ReconcileErrorReason, "deleting pod j-w-0: the server is busy"),
			},
		},
		{
			name:  "an error of a completed job makes it not ready while it is retried",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Completed},
			err:   errors.New("boom"),
			want: []metav1.Condition{
				cond(ready, false, batchv1alpha1.ReconcileErrorReason, "boom"),
				cond(reconciling, true, batchv1alpha1.ReconcileErrorReason, "boom"),
			},
		},
		{
			name:  "a long error is cut",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Running, Message: "running"},
			err:   errors.New(long),
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.ReconcileErrorReason, long[:maxConditionMessage-3]+"..."),
				cond(ready, false, batchv1alpha1.ReconcileErrorReason, long[:maxConditionMessage-3]+"..."),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := newJob(nil)
			job.Status.State = tc.state
			clk := newClock()
			SetConditions(job, clk)
			MarkReconcileError(job, tc.err, clk)
			if diff := cmp.Diff(tc.want, job.Status.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetHealth(t *testing.T) {
	tests := []struct {
		name    string
		state   batchv1alpha1.JobState
		opts    []jobOpt
		stalled string
		want    batchv1alpha1.JobHealth
	}{
		{name: "pending", want: batchv1alpha1.HealthProgressing},
		{name: "running", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Running}, want: batchv1alpha1.HealthProgressing},
		{name: "restarting", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Restarting}, want: batchv1alpha1.HealthProgressing},
		{name: "completed", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Completed}, want: batchv1alpha1.HealthSucceeded},
		{name: "failed", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Failed}, want: batchv1alpha1.HealthFailed},
		{name: "terminated", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Terminated}, want: batchv1alpha1.HealthFailed},
		{name: "bad input leaves the job pending but failed", stalled: batchv1alpha1.QueueNotFoundReason, want: batchv1alpha1.HealthFailed},
		{name: "aborted by a Command", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Aborted, Reason: ReasonCommandIssued}, want: batchv1alpha1.HealthSuspended},
		{name: "aborted by a policy", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Aborted, Reason: batchv1alpha1.JobAbortedReason}, want: batchv1alpha1.HealthFailed},
		{name: "held by spec.suspend", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Aborted, Reason: batchv1alpha1.JobSuspendedReason},
			opts: []jobOpt{suspend(true)}, want: batchv1alpha1.HealthSuspended},
		{name: "being suspended", state: batchv1alpha1.JobState{Phase: batchv1alpha1.Aborting, Reason: batchv1alpha1.JobSuspendedReason},
			opts: []jobOpt{suspend(true)}, want: batchv1alpha1.HealthProgressing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := newJob(nil, tc.opts...)
			job.Status.State = tc.state
			SetConditions(job, newClock())
			if tc.stalled != "" {
				MarkStalled(job, tc.stalled, "fix it", newClock())
			}
			SetHealth(job)
			if diff := cmp.Diff(tc.want, job.Status.Health); diff != "" {
				t.Errorf("health (-want +got):\n%s", diff)
			}
		})
	}
}
