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
	"fmt"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// SetConditions sets the job's kstatus conditions from status.state and spec.suspend:
//
//   - Pending, Running, or changing phase (Restarting, Aborting, Completing, Terminating):
//     Reconciling=True (JobPending, JobRunning or Progressing), Ready=False, no Stalled;
//   - Completed: Ready=True (JobCompleted), no Reconciling or Stalled;
//   - Failed, Terminated, Aborted: Stalled=True (JobFailed, JobTerminated, JobAborted) with
//     status.state.message, Ready=False, no Reconciling;
//   - Aborted by spec.suspend: no Ready, Stalled or Reconciling, only Suspended=True: the job
//     is as Git asks, and kstatus would read Stalled as a failure and Ready=False as progress;
//   - spec.suspend true: Suspended=True (JobSuspended) once the job is Aborted, False
//     (Progressing) until then; without spec.suspend there is no Suspended condition.
//
// Each condition's observedGeneration is the job's generation; lastTransitionTime comes from
// clk and changes only when the condition's status does. status.observedGeneration is left to
// the caller. The conditions are those of kstatus, so Flux, Argo CD and kubectl wait read them.
func SetConditions(job *batchv1alpha1.Job, clk clock.PassiveClock) {
	state := job.Status.State
	phase := state.Phase
	if phase == "" {
		phase = batchv1alpha1.Pending
	}
	reason, message := phaseReason(job, phase)
	switch phase {
	case batchv1alpha1.Completed:
		setCondition(job, batchv1alpha1.ReadyCondition, true, reason, message, clk)
		removeCondition(job, batchv1alpha1.ReconcilingCondition)
		removeCondition(job, batchv1alpha1.StalledCondition)
	case batchv1alpha1.Aborted:
		if reason == batchv1alpha1.JobSuspendedReason {
			// Held by spec.suspend, as Git asks: the desired state, not a failure. kstatus reads
			// Stalled as Failed and Ready=False as InProgress (a wait: true Kustomization would
			// time out), so a suspended job has neither: Suspended=True says what it is.
			removeCondition(job, batchv1alpha1.ReadyCondition)
			removeCondition(job, batchv1alpha1.ReconcilingCondition)
			removeCondition(job, batchv1alpha1.StalledCondition)
			break
		}
		setCondition(job, batchv1alpha1.StalledCondition, true, reason, message, clk)
		setCondition(job, batchv1alpha1.ReadyCondition, false, reason, message, clk)
		removeCondition(job, batchv1alpha1.ReconcilingCondition)
	case batchv1alpha1.Failed, batchv1alpha1.Terminated:
		setCondition(job, batchv1alpha1.StalledCondition, true, reason, message, clk)
		setCondition(job, batchv1alpha1.ReadyCondition, false, reason, message, clk)
		removeCondition(job, batchv1alpha1.ReconcilingCondition)
	default:
		setCondition(job, batchv1alpha1.ReconcilingCondition, true, reason, message, clk)
		setCondition(job, batchv1alpha1.ReadyCondition, false, reason, message, clk)
		removeCondition(job, batchv1alpha1.StalledCondition)
	}
	setSuspended(job, phase, clk)
}

// MarkStalled records bad input that stops the job until its spec changes (a policy that does
// not compile, a queue that does not exist, ...): Stalled=True and Ready=False with reason (one
// of the reasons in the batch API, such as InvalidPolicy) and a message that says what to fix;
// Reconciling is removed. Call it after SetConditions.
func MarkStalled(job *batchv1alpha1.Job, reason, message string, clk clock.PassiveClock) {
	setCondition(job, batchv1alpha1.StalledCondition, true, reason, message, clk)
	setCondition(job, batchv1alpha1.ReadyCondition, false, reason, message, clk)
	removeCondition(job, batchv1alpha1.ReconcilingCondition)
}

// SetHealth sets status.health from the job's conditions, once they are final: Suspended when
// the job is held by spec.suspend (Suspended=True) or aborted by an AbortJob Command (until a
// ResumeJob); Failed when otherwise Stalled=True (a failed or terminated run, or bad input);
// Succeeded when Ready=True; Progressing otherwise.
func SetHealth(job *batchv1alpha1.Job) {
	conds := job.Status.Conditions
	state := job.Status.State
	switch {
	case state.Phase == batchv1alpha1.Aborted && state.Reason == ReasonCommandIssued:
		// Aborted by an AbortJob Command: held until a ResumeJob Command, not failed.
		job.Status.Health = batchv1alpha1.HealthSuspended
	case apimeta.IsStatusConditionTrue(conds, batchv1alpha1.StalledCondition):
		job.Status.Health = batchv1alpha1.HealthFailed
	case apimeta.IsStatusConditionTrue(conds, batchv1alpha1.ReadyCondition):
		job.Status.Health = batchv1alpha1.HealthSucceeded
	case apimeta.IsStatusConditionTrue(conds, batchv1alpha1.SuspendedCondition):
		job.Status.Health = batchv1alpha1.HealthSuspended
	default:
		job.Status.Health = batchv1alpha1.HealthProgressing
	}
}

// MarkReconcileError records a reconcile that failed and is retried, as Flux does: Ready=False
// with reason ReconcileError and the error as message, and Reconciling=True with the same
// reason, so a job never reads as waiting when it is failing. Call it after SetConditions, for
// errors that are not bad input (those are MarkStalled).
func MarkReconcileError(job *batchv1alpha1.Job, err error, clk clock.PassiveClock) {
	if err == nil {
		return
	}
	msg := err.Error()
	if len(msg) > maxConditionMessage {
		msg = msg[:maxConditionMessage-3] + "..."
	}
	setCondition(job, batchv1alpha1.ReadyCondition, false, batchv1alpha1.ReconcileErrorReason, msg, clk)
	setCondition(job, batchv1alpha1.ReconcilingCondition, true, batchv1alpha1.ReconcileErrorReason, msg, clk)
}

// maxConditionMessage bounds a condition message built from an error (the API allows 32768).
const maxConditionMessage = 4096

// phaseReason is the condition reason and message for the job's phase.
func phaseReason(job *batchv1alpha1.Job, phase batchv1alpha1.JobPhase) (string, string) {
	state := job.Status.State
	message := state.Message
	orDefault := func(def string) string {
		if message != "" {
			return message
		}
		return def
	}
	switch phase {
	case batchv1alpha1.Pending:
		return batchv1alpha1.JobPendingReason, orDefault("waiting for the job's gang to be scheduled")
	case batchv1alpha1.Running:
		return batchv1alpha1.JobRunningReason, orDefault("the job is running")
	case batchv1alpha1.Completed:
		return batchv1alpha1.JobCompletedReason, orDefault("the job completed")
	case batchv1alpha1.Failed:
		return batchv1alpha1.JobFailedReason, orDefault("the job failed")
	case batchv1alpha1.Terminated:
		return batchv1alpha1.JobTerminatedReason, orDefault("the job was terminated")
	case batchv1alpha1.Aborted:
		if state.Reason == batchv1alpha1.JobSuspendedReason {
			return batchv1alpha1.JobSuspendedReason, orDefault("spec.suspend holds the job")
		}
		return batchv1alpha1.JobAbortedReason, orDefault("the job was aborted; resume it with a ResumeJob Command")
	}
	return batchv1alpha1.ProgressingReason, fmt.Sprintf("the job is %s: %s", phase, orDefault("its pods are being released"))
}

// setSuspended sets the Suspended condition from spec.suspend and the phase.
func setSuspended(job *batchv1alpha1.Job, phase batchv1alpha1.JobPhase, clk clock.PassiveClock) {
	if job.Spec.Suspend == nil || !*job.Spec.Suspend {
		removeCondition(job, batchv1alpha1.SuspendedCondition)
		return
	}
	if phase == batchv1alpha1.Aborted {
		setCondition(job, batchv1alpha1.SuspendedCondition, true, batchv1alpha1.JobSuspendedReason,
			"spec.suspend holds the job; set it to false to resume", clk)
		return
	}
	setCondition(job, batchv1alpha1.SuspendedCondition, false, batchv1alpha1.ProgressingReason,
		fmt.Sprintf("spec.suspend is true and the job is %s: waiting for its pods to stop", phase), clk)
}

// setCondition sets one condition; its lastTransitionTime changes only with its status.
func setCondition(job *batchv1alpha1.Job, kind string, status bool, reason, message string, clk clock.PassiveClock) {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	conditions := job.GetConditions()
	apimeta.SetStatusCondition(&conditions, metav1.Condition{
		Type:               kind,
		Status:             s,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: job.Generation,
		LastTransitionTime: metav1.NewTime(clk.Now()),
	})
	job.SetConditions(conditions)
}

// removeCondition removes one condition.
func removeCondition(job *batchv1alpha1.Job, kind string) {
	conditions := job.GetConditions()
	apimeta.RemoveStatusCondition(&conditions, kind)
	job.SetConditions(conditions)
}
