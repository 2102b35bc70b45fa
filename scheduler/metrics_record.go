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

package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/metrics"
	"github.com/caldera-sh/caldera/scheduler/status"
)

// jobAttempts counts the schedule attempts of a cycle by result, to be recorded at once.
type jobAttempts struct {
	scheduled, unschedulable int
}

// count adds one attempt with result; "" (no verdict) counts nothing.
func (a *jobAttempts) count(result string) {
	switch result {
	case metrics.ResultScheduled:
		a.scheduled++
	case metrics.ResultUnschedulable:
		a.unschedulable++
	}
}

// record hands the counts to the metrics.
func (a *jobAttempts) record() {
	metrics.UpdateScheduleAttempts(metrics.ResultScheduled, a.scheduled)
	metrics.UpdateScheduleAttempts(metrics.ResultUnschedulable, a.unschedulable)
}

// attemptResult is the verdict of the cycle on a PodGroup it worked on, from the conditions the
// gang plugin decided: unschedulable, scheduled, or "" when it decided neither (a PodGroup
// admitted and waiting for its pods to be created).
func attemptResult(conds []schedulingv1beta1.PodGroupCondition) string {
	if status.Unschedulable(conds) {
		return metrics.ResultUnschedulable
	}
	if hasCondition(conds, schedulingv1beta1.PodGroupScheduled) {
		return metrics.ResultScheduled
	}
	return ""
}

// lonePodResult is the verdict of the cycle on a lone pod: scheduled when it was placed,
// unschedulable when it was tried and still waits, "" when it was not tried.
func lonePodResult(ssn *framework.Session, j *api.JobInfo) string {
	if !ssn.WasAttempted(j.UID) {
		return ""
	}
	view := committedView(ssn, j)
	switch {
	case view.ReadyTaskNum() > 0:
		return metrics.ResultScheduled
	case view.HasPendingTasks() && view.WaitingTaskNum() == 0:
		return metrics.ResultUnschedulable
	}
	return ""
}

// unscheduledTasks is what volcano_unschedule_task_count shows of a PodGroup after a cycle: when
// the cycle found it unschedulable, the tasks its gang lacks (minMember less the placed tasks,
// or else its pending tasks, as Volcano counts them); zero (no series) once it is scheduled or
// its gang is placed. decided is false when the cycle says nothing new of the job (it was not
// worked on and its gang is not placed): what was recorded stays.
func unscheduledTasks(view *api.JobInfo, conds []schedulingv1beta1.PodGroupCondition, phase schedulingv1beta1.PodGroupPhase) (tasks int, decided bool) {
	if status.Unschedulable(conds) {
		missing := view.MinAvailable - view.ReadyTaskNum()
		if missing <= 0 {
			missing = view.Count(api.Pending)
		}
		return int(max(missing, 0)), true
	}
	if len(conds) > 0 {
		return 0, true
	}
	switch phase {
	case schedulingv1beta1.PodGroupRunning, schedulingv1beta1.PodGroupCompleted:
		return 0, true
	}
	return 0, false
}

// firstPlaced reports whether the cycle placed a PodGroup's gang for the first time: it is
// decided Running (or Completed) while the scheduler last had it Pending or Inqueue, and no pod
// of it has run yet.
func firstPlaced(j *api.JobInfo, stored schedulingv1beta1.PodGroupStatus, phase schedulingv1beta1.PodGroupPhase) bool {
	if phase != schedulingv1beta1.PodGroupRunning && phase != schedulingv1beta1.PodGroupCompleted {
		return false
	}
	if j.Phase != schedulingv1beta1.PodGroupPending && j.Phase != schedulingv1beta1.PodGroupInqueue {
		return false
	}
	return stored.Running == 0 && stored.Succeeded == 0 && stored.Failed == 0
}

// hasCondition reports whether conds hold a True condition of type t.
func hasCondition(conds []schedulingv1beta1.PodGroupCondition, t schedulingv1beta1.PodGroupConditionType) bool {
	for _, c := range conds {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
