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

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// stay keeps the job in its phase.
func stay(m *machine) (batchv1alpha1.JobPhase, string, string) {
	return m.phase, "", ""
}

// to moves the job to phase, for the decision's reason. The message adds how a restart was
// counted.
func to(phase batchv1alpha1.JobPhase) nextFunc {
	return func(m *machine) (batchv1alpha1.JobPhase, string, string) {
		msg := m.decision.Message
		if phase == batchv1alpha1.Restarting {
			msg = joinMessage(msg, m.retryNote())
		}
		return phase, m.decision.Reason, msg
	}
}

// retryNote says how the step counted against spec.maxRetry.
func (m *machine) retryNote() string {
	limit := jobMaxRetry(m.spec)
	switch {
	case m.decision.Action == busv1alpha1.ResumeJobAction:
		return fmt.Sprintf("resuming is not a retry (retryCount %d, maxRetry %d)", m.retryCount, limit)
	case m.decision.KeepRetryCount:
		return fmt.Sprintf("not counted as a retry: evictions and spec changes are free (retryCount %d, maxRetry %d)", m.retryCount, limit)
	}
	return fmt.Sprintf("retryCount %d, maxRetry %d", m.retryCount, limit)
}

// joinMessage joins two sentences.
func joinMessage(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// whenGone moves the job to final once none of its pods is pending, running or terminating.
// The message of the phase that led here (why the job ends) is kept; an abort caused by
// spec.suspend or by an AbortJob Command keeps its reason (JobSuspended, CommandIssued).
func whenGone(final batchv1alpha1.JobPhase) nextFunc {
	return func(m *machine) (batchv1alpha1.JobPhase, string, string) {
		if m.counts.alive() {
			return m.phase, "", ""
		}
		state := m.job.Status.State
		reason := map[batchv1alpha1.JobPhase]string{
			batchv1alpha1.Aborted:    batchv1alpha1.JobAbortedReason,
			batchv1alpha1.Completed:  batchv1alpha1.JobCompletedReason,
			batchv1alpha1.Terminated: batchv1alpha1.JobTerminatedReason,
		}[final]
		if state.Reason == batchv1alpha1.JobSuspendedReason ||
			(final == batchv1alpha1.Aborted && state.Reason == ReasonCommandIssued) {
			// Paused by spec.suspend or by an AbortJob Command: the reason says who, so that
			// tools tell a pause someone asked for from an abort by a lifecycle policy.
			reason = state.Reason
		}
		msg := state.Message
		if msg == "" {
			msg = "every pod has stopped"
		}
		return final, reason, msg
	}
}

// pendingStatus moves a pending job to Running once minAvailable of its pods run or have
// finished.
func pendingStatus(m *machine) (batchv1alpha1.JobPhase, string, string) {
	c := m.counts
	if started := c.running + c.succeeded + c.failed; m.spec.MinAvailable <= started {
		return batchv1alpha1.Running, batchv1alpha1.JobRunningReason,
			fmt.Sprintf("%d pods are running or finished; minAvailable is %d", started, m.spec.MinAvailable)
	}
	return stay(m)
}

// runningStatus decides whether a running job has completed, has failed, or is back to
// Pending (see the package documentation).
func runningStatus(m *machine) (batchv1alpha1.JobPhase, string, string) {
	c, spec := m.counts, m.spec
	total := totalReplicas(spec)
	switch {
	case total == 0:
		// Scaled down to zero replicas: as in Volcano, the job keeps its phase, so that scaling
		// it up again carries on with the same job (its plugin objects stay).
		return stay(m)
	case spec.MinSuccess != nil && c.succeeded >= *spec.MinSuccess:
		return batchv1alpha1.Completed, batchv1alpha1.JobCompletedReason,
			fmt.Sprintf("%d pods succeeded; minSuccess is %d", c.succeeded, *spec.MinSuccess)
	case c.succeeded+c.failed >= total:
		return finishedStatus(m)
	case c.pending > total-spec.MinAvailable:
		return batchv1alpha1.Pending, batchv1alpha1.JobPendingReason,
			fmt.Sprintf("%d pods are pending; with %d replicas and minAvailable %d at most %d may be", c.pending, total, spec.MinAvailable, total-spec.MinAvailable)
	}
	return stay(m)
}

// finishedStatus decides between Completed and Failed once every pod has finished.
func finishedStatus(m *machine) (batchv1alpha1.JobPhase, string, string) {
	c, spec := m.counts, m.spec
	failed := func(format string, args ...any) (batchv1alpha1.JobPhase, string, string) {
		return batchv1alpha1.Failed, batchv1alpha1.JobFailedReason, fmt.Sprintf(format, args...)
	}
	if spec.MinAvailable >= totalTaskMinAvailable(spec) {
		for i := range spec.Tasks {
			t, name := &spec.Tasks[i], naming.TaskName(spec.Tasks, i)
			phases, counted := c.byTask[name]
			if want := taskMinAvailable(t); counted && phases[corev1.PodSucceeded] < want {
				return failed("every pod has finished, and task %s has %d succeeded pods, fewer than its minAvailable %d",
					name, phases[corev1.PodSucceeded], want)
			}
		}
	}
	if spec.MinSuccess != nil && c.succeeded < *spec.MinSuccess {
		return failed("every pod has finished, and %d succeeded, fewer than minSuccess %d", c.succeeded, *spec.MinSuccess)
	}
	if c.succeeded < spec.MinAvailable {
		return failed("every pod has finished, and %d succeeded, fewer than minAvailable %d", c.succeeded, spec.MinAvailable)
	}
	return batchv1alpha1.Completed, batchv1alpha1.JobCompletedReason,
		fmt.Sprintf("every pod has finished, and %d succeeded; minAvailable is %d", c.succeeded, spec.MinAvailable)
}

// restartingStatus fails a restarting job that has used its retries, and makes it Pending again
// once enough of its old pods are gone for a new gang.
func restartingStatus(m *machine) (batchv1alpha1.JobPhase, string, string) {
	limit := jobMaxRetry(m.spec)
	if m.retryCount >= limit {
		return batchv1alpha1.Failed, batchv1alpha1.JobFailedReason,
			joinMessage(m.job.Status.State.Message, fmt.Sprintf("retryCount %d reached maxRetry %d", m.retryCount, limit))
	}
	if free := totalReplicas(m.spec) - m.counts.terminating; free >= m.spec.MinAvailable {
		return batchv1alpha1.Pending, batchv1alpha1.JobPendingReason,
			fmt.Sprintf("restarted at version %d; waiting for the gang of %d pods to be scheduled", m.version, m.spec.MinAvailable)
	}
	return stay(m)
}
