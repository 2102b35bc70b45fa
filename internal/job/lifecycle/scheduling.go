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
	"regexp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// WaitingForSchedulerPrefix starts the job's Ready and Reconciling messages while its gang
// waits for the scheduler; the PodGroup's Unschedulable message follows it.
const WaitingForSchedulerPrefix = "waiting for the scheduler: "

// conditionReason is what the API server accepts as a condition's reason (metav1.Condition).
var conditionReason = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

// SetSchedulingConditions carries what the scheduler says about the job's gang, in its
// PodGroup's Unschedulable condition, into the job's conditions, where users look. It applies
// while the job is Pending, or Running or Restarting with fewer running pods than minAvailable,
// and the PodGroup's Unschedulable condition is True:
//
//   - reason Unsatisfiable (minResources exceed what the queue or the cluster can ever hold):
//     Stalled=True and Ready=False with reason Unsatisfiable and the PodGroup's message, no
//     Reconciling (see MarkStalled): kstatus reads the job Failed, as waiting will not help;
//   - any other reason: Ready=False and Reconciling=True with the message "waiting for the
//     scheduler: <the PodGroup's message>", e.g. "waiting for the scheduler: 4 of 4 pods wait:
//     queue resource quota insufficient: ..."; Ready's reason is the PodGroup's (why the job is
//     not ready, such as NotEnoughResources or QueueNotOpen; the phase's when the PodGroup's is
//     not a valid condition reason), Reconciling keeps the phase's (JobPending, ...).
//
// Otherwise, or when podGroup is nil, the conditions are left as they are. Call it after
// SetConditions, which clears a Stalled condition this set once the PodGroup's reason changes.
func SetSchedulingConditions(job *batchv1alpha1.Job, podGroup *schedulingv1beta1.PodGroup, clk clock.PassiveClock) {
	c := unschedulable(podGroup)
	if c == nil || !waitsForScheduler(job, podGroup) {
		return
	}
	message := c.Message
	if len(message) > maxConditionMessage {
		message = message[:maxConditionMessage-3] + "..."
	}
	if c.Reason == schedulingv1beta1.UnsatisfiableReason {
		MarkStalled(job, batchv1alpha1.UnsatisfiableReason, message, clk)
		return
	}
	phase := job.Status.State.Phase
	if phase == "" {
		phase = batchv1alpha1.Pending
	}
	progress, _ := phaseReason(job, phase)
	readyReason := progress
	if conditionReason.MatchString(c.Reason) && len(c.Reason) <= 1024 {
		readyReason = c.Reason
	}
	if message == "" {
		message = "the gang is not yet placed"
	}
	message = WaitingForSchedulerPrefix + message
	setCondition(job, batchv1alpha1.ReconcilingCondition, true, progress, message, clk)
	setCondition(job, batchv1alpha1.ReadyCondition, false, readyReason, message, clk)
}

// unschedulable is the PodGroup's Unschedulable condition when it is True, or nil.
func unschedulable(pg *schedulingv1beta1.PodGroup) *schedulingv1beta1.PodGroupCondition {
	if pg == nil {
		return nil
	}
	for i := range pg.Status.Conditions {
		c := &pg.Status.Conditions[i]
		if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// waitsForScheduler reports whether the job waits for its gang to be placed: it is Pending, or
// Running or Restarting with fewer running pods than minAvailable (the job's, else the
// PodGroup's minMember).
func waitsForScheduler(job *batchv1alpha1.Job, pg *schedulingv1beta1.PodGroup) bool {
	switch job.Status.State.Phase {
	case "", batchv1alpha1.Pending:
		return true
	case batchv1alpha1.Running, batchv1alpha1.Restarting:
		minAvailable := job.Status.MinAvailable
		if minAvailable == 0 {
			minAvailable = pg.Spec.MinMember
		}
		return job.Status.Running < minAvailable
	}
	return false
}
