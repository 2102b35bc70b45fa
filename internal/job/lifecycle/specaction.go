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
	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

// SpecAction is the action the job's spec asks for, if any; ok is false when there is none.
// spec is the job's spec (raw or effective); recordedHash is the TemplateHash of the spec the
// job's live pods were made from (the caller records it, for example on the pods), "" when
// unknown. In order:
//
//   - spec.suspend is true and the job is Pending, Running or Restarting: AbortJob, with reason
//     JobSuspended (kept through Aborting to Aborted);
//   - spec.suspend is not true and the job is Aborting or Aborted because of spec.suspend
//     (reason JobSuspended): ResumeJob. A job aborted by a policy or a Command is not resumed by
//     the spec; a Command ResumeJob resumes it;
//   - a pod template, the volumes or the plugins changed (recordedHash is set and differs from
//     TemplateHash(spec)) while the job is Pending or Running: RestartJob at a new
//     status.version, not counted as a retry.
//
// All three decisions have KeepRetryCount set. Replicas and minAvailable need no action: SyncJob
// creates and deletes pods to match them.
func SpecAction(job *batchv1alpha1.Job, spec *batchv1alpha1.JobSpec, recordedHash string) (Decision, bool) {
	phase := job.Status.State.Phase
	suspended := spec.Suspend != nil && *spec.Suspend
	switch {
	case suspended && (phase == "" || phase == batchv1alpha1.Pending || phase == batchv1alpha1.Running || phase == batchv1alpha1.Restarting):
		return specDecision(busv1alpha1.AbortJobAction, batchv1alpha1.JobSuspendedReason,
			"spec.suspend is true: the job's pods are deleted and it is held until spec.suspend is false"), true
	case !suspended && (phase == batchv1alpha1.Aborting || phase == batchv1alpha1.Aborted) &&
		job.Status.State.Reason == batchv1alpha1.JobSuspendedReason:
		return specDecision(busv1alpha1.ResumeJobAction, ReasonJobResumed, "spec.suspend is no longer true: the job resumes"), true
	case !suspended && (phase == batchv1alpha1.Pending || phase == batchv1alpha1.Running) &&
		recordedHash != "" && recordedHash != TemplateHash(spec):
		return specDecision(busv1alpha1.RestartJobAction, ReasonSpecChanged,
			"a pod template, the volumes or the plugins changed: the job restarts at a new version"), true
	}
	return Decision{}, false
}

// specDecision is a decision the spec asks for.
func specDecision(action busv1alpha1.Action, reason, message string) Decision {
	return Decision{Action: action, Reason: reason, Message: message, KeepRetryCount: true}
}
