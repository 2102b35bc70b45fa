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
	"time"

	"k8s.io/utils/clock"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/gitops"
)

// TTLDecision is what spec.ttlSecondsAfterFinished does to a finished job.
type TTLDecision struct {
	// Expiry is when the TTL passes.
	Expiry time.Time
	// Action is batchv1alpha1.TTLActionDelete (the Job goes, and everything it made with it) or
	// batchv1alpha1.TTLActionDeleteChildren (the Job stays as the record).
	Action string
	// Why says why the action was chosen, for the condition and the logs.
	Why string
	// Problem is set when the caldera.sh/ttl-action annotation holds a value that is not an
	// action; the default action is taken then.
	Problem string
}

// TTL decides what a job's ttlSecondsAfterFinished does, and when; false when the job has no
// TTL or has not finished. Finished means Completed, Failed, Terminated or Aborted, but never
// held by spec.suspend: pausing a job from Git must not delete it. The Job itself is deleted
// (Volcano's behaviour) unless the caldera.sh/ttl-action annotation says DeleteChildren, or a
// GitOps tool manages the job (gitops.Manager) and the annotation does not say Delete: a tool
// that keeps the Job as Git says would re-create a deleted Job, and the job would run again.
func TTL(job *batchv1alpha1.Job) (TTLDecision, bool) {
	if job.Spec.TTLSecondsAfterFinished == nil || !finishedForTTL(job) {
		return TTLDecision{}, false
	}
	since := job.Status.State.LastTransitionTime.Time
	if since.IsZero() {
		since = job.CreationTimestamp.Time
	}
	d := TTLDecision{Expiry: since.Add(time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second)}
	manager, managed := gitops.Manager(job)
	value, set := job.Annotations[batchv1alpha1.TTLActionAnnotation]
	switch {
	case set && value == batchv1alpha1.TTLActionDelete:
		d.Action, d.Why = batchv1alpha1.TTLActionDelete, "annotation "+batchv1alpha1.TTLActionAnnotation+" says Delete"
	case set && value == batchv1alpha1.TTLActionDeleteChildren:
		d.Action, d.Why = batchv1alpha1.TTLActionDeleteChildren, "annotation "+batchv1alpha1.TTLActionAnnotation+" says DeleteChildren"
	default:
		if set {
			d.Problem = fmt.Sprintf("annotation %s=%q is not an action: use %s or %s; the default is taken",
				batchv1alpha1.TTLActionAnnotation, value, batchv1alpha1.TTLActionDelete, batchv1alpha1.TTLActionDeleteChildren)
		}
		if managed {
			d.Action, d.Why = batchv1alpha1.TTLActionDeleteChildren, manager+" manages the job and would re-create a deleted Job, which would run again"
		} else {
			d.Action, d.Why = batchv1alpha1.TTLActionDelete, "no GitOps tool manages the job"
		}
	}
	return d, true
}

// finishedForTTL reports whether the job has ended for good, as far as its TTL goes.
func finishedForTTL(job *batchv1alpha1.Job) bool {
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		return false
	}
	state := job.Status.State
	switch state.Phase {
	case batchv1alpha1.Completed, batchv1alpha1.Failed, batchv1alpha1.Terminated:
		return true
	case batchv1alpha1.Aborted:
		return state.Reason != batchv1alpha1.JobSuspendedReason
	}
	return false
}

// SetTTLCondition sets ChildrenDeleted=True (reason TTLExpired) on a job kept as the record once
// its TTL has passed, saying what went and why the Job stays; it removes the condition from any
// other job. Call it after SetConditions.
func SetTTLCondition(job *batchv1alpha1.Job, clk clock.PassiveClock) {
	d, ok := TTL(job)
	if !ok || d.Action != batchv1alpha1.TTLActionDeleteChildren || clk.Now().Before(d.Expiry) {
		removeCondition(job, batchv1alpha1.ChildrenDeletedCondition)
		return
	}
	setCondition(job, batchv1alpha1.ChildrenDeletedCondition, true, batchv1alpha1.TTLExpiredReason,
		fmt.Sprintf("ttlSecondsAfterFinished (%ds) passed: the job's pods, PodGroup, plugin objects and the claims it made are deleted, "+
			"and the Job is kept as the record because %s; delete the Job (from Git, if a tool applies it) to remove it",
			*job.Spec.TTLSecondsAfterFinished, d.Why), clk)
}
