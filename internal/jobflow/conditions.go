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

package jobflow

import (
	"fmt"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
)

// SetConditions sets the flow's kstatus conditions from status.state.phase:
//
//   - Pending, Running: Reconciling=True (FlowPending, FlowRunning), Ready=False, no Stalled;
//   - Succeed: Ready=True (FlowSucceeded), no Reconciling or Stalled;
//   - Failed: Stalled=True and Ready=False (FlowFailed) naming the jobs, no Reconciling;
//   - Terminating: Reconciling=True (FlowTerminating), Ready=False.
//
// Then bad input (stalled, a *SpecError) makes it Stalled=True with its reason and message,
// and a retried error (retErr) Ready=False and Reconciling=True with reason ReconcileError.
// observedGeneration of each condition is the flow's generation; lastTransitionTime comes
// from clk and changes only with the condition's status.
func SetConditions(jf *flowv1alpha1.JobFlow, stalled *SpecError, retErr error, clk clock.PassiveClock) {
	st := jf.Status
	switch st.State.Phase {
	case flowv1alpha1.Succeed:
		set(jf, flowv1alpha1.ReadyCondition, true, flowv1alpha1.FlowSucceededReason, "every job of the flow completed", clk)
		remove(jf, flowv1alpha1.ReconcilingCondition, flowv1alpha1.StalledCondition)
	case flowv1alpha1.Failed:
		msg := fmt.Sprintf("jobs ended without success: %s; no further job is created", strings.Join(append(append([]string{}, st.FailedJobs...), st.TerminatedJobs...), ", "))
		if len(st.FailedJobs)+len(st.TerminatedJobs) == 0 {
			msg = "a job was aborted; no further job is created"
		}
		set(jf, flowv1alpha1.StalledCondition, true, flowv1alpha1.FlowFailedReason, msg, clk)
		set(jf, flowv1alpha1.ReadyCondition, false, flowv1alpha1.FlowFailedReason, msg, clk)
		remove(jf, flowv1alpha1.ReconcilingCondition)
	case flowv1alpha1.Terminating:
		set(jf, flowv1alpha1.ReconcilingCondition, true, flowv1alpha1.FlowTerminatingReason, "the JobFlow is being deleted", clk)
		set(jf, flowv1alpha1.ReadyCondition, false, flowv1alpha1.FlowTerminatingReason, "the JobFlow is being deleted", clk)
		remove(jf, flowv1alpha1.StalledCondition)
	case flowv1alpha1.Running:
		msg := fmt.Sprintf("%d of %d jobs completed", len(st.CompletedJobs), len(jf.Spec.Flows))
		set(jf, flowv1alpha1.ReconcilingCondition, true, flowv1alpha1.FlowRunningReason, msg, clk)
		set(jf, flowv1alpha1.ReadyCondition, false, flowv1alpha1.FlowRunningReason, msg, clk)
		remove(jf, flowv1alpha1.StalledCondition)
	default:
		msg := "waiting for the first jobs to start"
		set(jf, flowv1alpha1.ReconcilingCondition, true, flowv1alpha1.FlowPendingReason, msg, clk)
		set(jf, flowv1alpha1.ReadyCondition, false, flowv1alpha1.FlowPendingReason, msg, clk)
		remove(jf, flowv1alpha1.StalledCondition)
	}
	switch {
	case stalled != nil:
		set(jf, flowv1alpha1.StalledCondition, true, stalled.Reason, stalled.Message, clk)
		set(jf, flowv1alpha1.ReadyCondition, false, stalled.Reason, stalled.Message, clk)
		remove(jf, flowv1alpha1.ReconcilingCondition)
	case retErr != nil:
		msg := retErr.Error()
		if len(msg) > maxConditionMessage {
			msg = msg[:maxConditionMessage-3] + "..."
		}
		set(jf, flowv1alpha1.ReadyCondition, false, flowv1alpha1.ReconcileErrorReason, msg, clk)
		set(jf, flowv1alpha1.ReconcilingCondition, true, flowv1alpha1.ReconcileErrorReason, msg, clk)
	}
}

// maxConditionMessage bounds a condition message built from an error.
const maxConditionMessage = 4096

func set(jf *flowv1alpha1.JobFlow, kind string, status bool, reason, message string, clk clock.PassiveClock) {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	apimeta.SetStatusCondition(&jf.Status.Conditions, metav1.Condition{
		Type: kind, Status: s, Reason: reason, Message: message,
		ObservedGeneration: jf.Generation, LastTransitionTime: metav1.NewTime(clk.Now()),
	})
}

func remove(jf *flowv1alpha1.JobFlow, kinds ...string) {
	for _, k := range kinds {
		apimeta.RemoveStatusCondition(&jf.Status.Conditions, k)
	}
}
