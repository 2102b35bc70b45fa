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

package controllers

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
)

// setJobConditions computes the job's conditions at the end of a reconcile: from its phase,
// then bad input (Stalled), then a reconcile error that is retried (Ready=False, reason
// ReconcileError, as Flux reports it), then a lifecycle policy that failed to evaluate
// (Ready=False); when none of those holds, what the scheduler says about the job's gang in its
// PodGroup's Unschedulable condition (Stalled=True, reason Unsatisfiable, for a gang that can
// never fit).
func setJobConditions(job *batchv1alpha1.Job, rc *jobRun, retErr error, clk clock.PassiveClock) {
	lifecycle.SetConditions(job, clk)
	switch {
	case rc.stalled != nil:
		lifecycle.MarkStalled(job, rc.stalled.reason, rc.stalled.message, clk)
	case retErr != nil && !errors.Is(retErr, rc.evalErr):
		// A failed reconcile is retried: say so, with the error, as Flux does.
		lifecycle.MarkReconcileError(job, retErr, clk)
	case rc.evalErr != nil:
		meta.SetStatusCondition(&job.Status.Conditions, metav1.Condition{
			Type:               batchv1alpha1.ReadyCondition,
			Status:             metav1.ConditionFalse,
			Reason:             batchv1alpha1.PolicyEvaluationFailedReason,
			Message:            rc.evalErr.Error(),
			ObservedGeneration: job.Generation,
			LastTransitionTime: metav1.NewTime(clk.Now()),
		})
	default:
		lifecycle.SetSchedulingConditions(job, rc.podGroup, clk)
	}
	lifecycle.SetTTLCondition(job, clk)
	lifecycle.SetHealth(job)
}
