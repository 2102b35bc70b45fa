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

package cronjob

import (
	"errors"
	"fmt"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// maxConditionMessage bounds a condition message built from an error.
const maxConditionMessage = 4096

// SetConditions sets the CronJob's kstatus conditions at the end of a reconcile:
//
//   - bad input (an InvalidSpecError): Stalled=True and Ready=False with its reason and
//     message, no Reconciling;
//   - another error (retried): Ready=False and Reconciling=True, reason ReconcileError, the
//     error as message, no Stalled;
//   - suspended: Ready=True, reason Suspended (the CronJob is as Git asks), no Reconciling or
//     Stalled;
//   - otherwise: Ready=True, reason Scheduled, the next run time in the message.
//
// Each condition's observedGeneration is the CronJob's generation; lastTransitionTime is now
// and changes only with the condition's status.
func SetConditions(cj *batchv1alpha1.CronJob, err error, nextRun, now time.Time) {
	var invalid *InvalidSpecError
	switch {
	case errors.As(err, &invalid):
		set(cj, batchv1alpha1.StalledCondition, true, invalid.Reason, invalid.Message, now)
		set(cj, batchv1alpha1.ReadyCondition, false, invalid.Reason, invalid.Message, now)
		remove(cj, batchv1alpha1.ReconcilingCondition)
	case err != nil:
		msg := err.Error()
		if len(msg) > maxConditionMessage {
			msg = msg[:maxConditionMessage-3] + "..."
		}
		set(cj, batchv1alpha1.ReadyCondition, false, batchv1alpha1.ReconcileErrorReason, msg, now)
		set(cj, batchv1alpha1.ReconcilingCondition, true, batchv1alpha1.ReconcileErrorReason, msg, now)
		remove(cj, batchv1alpha1.StalledCondition)
	case cj.Spec.Suspend != nil && *cj.Spec.Suspend:
		set(cj, batchv1alpha1.ReadyCondition, true, batchv1alpha1.CronJobSuspendedReason,
			"spec.suspend is true: no run is started; set it to false to resume", now)
		remove(cj, batchv1alpha1.ReconcilingCondition)
		remove(cj, batchv1alpha1.StalledCondition)
	default:
		msg := "the schedule is in force"
		if !nextRun.IsZero() {
			msg = fmt.Sprintf("the schedule is in force; next run at %s", nextRun.Add(-nextRunDelta).UTC().Format(time.RFC3339))
		}
		set(cj, batchv1alpha1.ReadyCondition, true, batchv1alpha1.CronJobScheduledReason, msg, now)
		remove(cj, batchv1alpha1.ReconcilingCondition)
		remove(cj, batchv1alpha1.StalledCondition)
	}
}

func set(cj *batchv1alpha1.CronJob, kind string, status bool, reason, message string, now time.Time) {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	apimeta.SetStatusCondition(&cj.Status.Conditions, metav1.Condition{
		Type:               kind,
		Status:             s,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: cj.Generation,
		LastTransitionTime: metav1.NewTime(now),
	})
}

func remove(cj *batchv1alpha1.CronJob, kind string) {
	apimeta.RemoveStatusCondition(&cj.Status.Conditions, kind)
}
