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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// podGroupWith is a PodGroup of minMember 4 with the given conditions.
func podGroupWith(conds ...schedulingv1beta1.PodGroupCondition) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{Spec: schedulingv1beta1.PodGroupSpec{MinMember: 4}}
	pg.Status.Conditions = conds
	return pg
}

func unschedulableCond(status corev1.ConditionStatus, reason, message string) schedulingv1beta1.PodGroupCondition {
	return schedulingv1beta1.PodGroupCondition{Type: schedulingv1beta1.PodGroupUnschedulableType, Status: status, Reason: reason, Message: message}
}

func TestSetSchedulingConditions(t *testing.T) {
	const (
		ready       = batchv1alpha1.ReadyCondition
		reconciling = batchv1alpha1.ReconcilingCondition
		stalled     = batchv1alpha1.StalledCondition
		quota       = "4 of 4 pods wait: queue resource quota insufficient: queue q can hold 8 of cpu"
		never       = "4 of 4 pods wait: this PodGroup's minResources ask for 64 cpu, more than queue q's capability of 32 cpu: " +
			"the gang can never be admitted; lower minResources (or the tasks' requests), or raise the queue's spec.capability"
	)
	pendingConds := []metav1.Condition{
		cond(reconciling, true, batchv1alpha1.JobPendingReason, "waiting for the job's gang to be scheduled"),
		cond(ready, false, batchv1alpha1.JobPendingReason, "waiting for the job's gang to be scheduled"),
	}
	tests := []struct {
		name     string
		state    batchv1alpha1.JobState
		running  int32
		minAvail int32
		podGroup *schedulingv1beta1.PodGroup
		want     []metav1.Condition
	}{
		{
			name:  "no PodGroup yet: the phase's words stay",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Pending},
			want:  pendingConds,
		},
		{
			name:     "a PodGroup the scheduler has not judged",
			state:    batchv1alpha1.JobState{Phase: batchv1alpha1.Pending},
			podGroup: podGroupWith(),
			want:     pendingConds,
		},
		{
			name:     "a pending job carries its PodGroup's words, and Ready its reason",
			state:    batchv1alpha1.JobState{Phase: batchv1alpha1.Pending},
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.NotEnoughResourcesReason, quota)),
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.JobPendingReason, "waiting for the scheduler: "+quota),
				cond(ready, false, schedulingv1beta1.NotEnoughResourcesReason, "waiting for the scheduler: "+quota),
			},
		},
		{
			name:     "a job with no phase yet is pending",
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.QueueNotOpenReason, "4 of 4 pods wait: queue q is Closed")),
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.JobPendingReason, "waiting for the scheduler: 4 of 4 pods wait: queue q is Closed"),
				cond(ready, false, schedulingv1beta1.QueueNotOpenReason, "waiting for the scheduler: 4 of 4 pods wait: queue q is Closed"),
			},
		},
		{
			name:  "a reason the API would refuse is replaced by the phase's",
			state: batchv1alpha1.JobState{Phase: batchv1alpha1.Pending},
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionTrue, "not enough resources", "3/0 tasks in gang unschedulable: x"),
				unschedulableCond(corev1.ConditionFalse, "Scheduled", "")),
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.JobPendingReason, "waiting for the scheduler: 3/0 tasks in gang unschedulable: x"),
				cond(ready, false, batchv1alpha1.JobPendingReason, "waiting for the scheduler: 3/0 tasks in gang unschedulable: x"),
			},
		},
		{
			name:     "an Unschedulable condition that is False says nothing",
			state:    batchv1alpha1.JobState{Phase: batchv1alpha1.Pending},
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionFalse, "Scheduled", "")),
			want:     pendingConds,
		},
		{
			name:     "a gang that can never fit stalls the job",
			state:    batchv1alpha1.JobState{Phase: batchv1alpha1.Pending},
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.UnsatisfiableReason, never)),
			want: []metav1.Condition{
				cond(ready, false, batchv1alpha1.UnsatisfiableReason, never),
				cond(stalled, true, batchv1alpha1.UnsatisfiableReason, never),
			},
		},
		{
			name:     "a running job short of minAvailable carries the words",
			state:    batchv1alpha1.JobState{Phase: batchv1alpha1.Running, Message: "2 pods are running"},
			running:  2,
			minAvail: 4,
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.NotEnoughResourcesReason, "2 of 4 pods wait: x")),
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.JobRunningReason, "waiting for the scheduler: 2 of 4 pods wait: x"),
				cond(ready, false, schedulingv1beta1.NotEnoughResourcesReason, "waiting for the scheduler: 2 of 4 pods wait: x"),
			},
		},
		{
			name:     "a restarting job short of the PodGroup's minMember carries the words",
			state:    batchv1alpha1.JobState{Phase: batchv1alpha1.Restarting, Message: "restart"},
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.NotEnoughResourcesReason, "4 of 4 pods wait: x")),
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.ProgressingReason, "waiting for the scheduler: 4 of 4 pods wait: x"),
				cond(ready, false, schedulingv1beta1.NotEnoughResourcesReason, "waiting for the scheduler: 4 of 4 pods wait: x"),
			},
		},
		{
			name:     "a running job with its minimum running keeps its words",
			state:    batchv1alpha1.JobState{Phase: batchv1alpha1.Running, Message: "4 pods are running"},
			running:  4,
			minAvail: 4,
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.NotEnoughResourcesReason, "0 of 4 pods wait: x")),
			want: []metav1.Condition{
				cond(reconciling, true, batchv1alpha1.JobRunningReason, "4 pods are running"),
				cond(ready, false, batchv1alpha1.JobRunningReason, "4 pods are running"),
			},
		},
		{
			name:     "a failed job is not stalled by its PodGroup",
			state:    batchv1alpha1.JobState{Phase: batchv1alpha1.Failed, Message: "it failed"},
			podGroup: podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.UnsatisfiableReason, never)),
			want: []metav1.Condition{
				cond(stalled, true, batchv1alpha1.JobFailedReason, "it failed"),
				cond(ready, false, batchv1alpha1.JobFailedReason, "it failed"),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := newJob(nil)
			job.Status.State = tc.state
			job.Status.Running = tc.running
			job.Status.MinAvailable = tc.minAvail
			SetConditions(job, newClock())
			SetSchedulingConditions(job, tc.podGroup, newClock())
			if diff := cmp.Diff(tc.want, job.Status.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetSchedulingConditionsClears checks that a job stalled by an Unsatisfiable PodGroup
// waits again once the PodGroup's reason changes, and that a long message is cut.
func TestSetSchedulingConditionsClears(t *testing.T) {
	clk := newClock()
	job := newJob(nil, inPhase(batchv1alpha1.Pending))
	never := podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.UnsatisfiableReason, "4 of 4 pods wait: never"))
	SetConditions(job, clk)
	SetSchedulingConditions(job, never, clk)
	SetHealth(job)
	if job.Status.Health != batchv1alpha1.HealthFailed {
		t.Errorf("health = %s, want Failed", job.Status.Health)
	}

	clk.SetTime(t0.Add(time.Minute))
	long := strings.Repeat("x", 5000)
	waits := podGroupWith(unschedulableCond(corev1.ConditionTrue, schedulingv1beta1.NotEnoughResourcesReason, long))
	SetConditions(job, clk)
	SetSchedulingConditions(job, waits, clk)
	SetHealth(job)
	message := "waiting for the scheduler: " + long[:maxConditionMessage-3] + "..."
	at := metav1.NewTime(t0.Add(time.Minute))
	want := []metav1.Condition{
		{Type: batchv1alpha1.ReadyCondition, Status: metav1.ConditionFalse, Reason: schedulingv1beta1.NotEnoughResourcesReason,
			Message: message, ObservedGeneration: 4, LastTransitionTime: metav1.NewTime(t0)},
		{Type: batchv1alpha1.ReconcilingCondition, Status: metav1.ConditionTrue, Reason: batchv1alpha1.JobPendingReason,
			Message: message, ObservedGeneration: 4, LastTransitionTime: at},
	}
	if diff := cmp.Diff(want, job.Status.Conditions); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	if job.Status.Health != batchv1alpha1.HealthProgressing {
		t.Errorf("health = %s, want Progressing", job.Status.Health)
	}
}
