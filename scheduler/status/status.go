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

// Package status works out, as pure functions, the PodGroup and Queue statuses the scheduler
// writes at the end of a cycle, and whether they differ from what is stored (so nothing is
// written when nothing changed).
package status

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// Phase is a PodGroup's phase after a cycle:
//   - Unknown when some of its pods run but the gang was found unschedulable this cycle, or it
//     has fewer pods than its minimum (a member of a running gang is gone), as in Volcano;
//   - Running when at least minMember (and at least one) pods are placed or finished (failed
//     pods count, as Volcano counts them scheduled), or Completed when every one of those has
//     finished, succeeded or failed, and none waits (gated pods wait too);
//   - otherwise it stays Inqueue if admitted, and is Pending if not.
func Phase(j *api.JobInfo, unschedulable bool) schedulingv1beta1.PodGroupPhase {
	failed := j.Count(api.Failed)
	if j.Count(api.Running) > 0 && (unschedulable || j.ValidTaskNum()+failed < j.MinAvailable) {
		return schedulingv1beta1.PodGroupUnknown
	}
	placed := j.ReadyTaskNum() + failed
	if placed > 0 && placed >= j.MinAvailable {
		if j.Count(api.Succeeded)+failed == placed && j.Count(api.Pending) == 0 && j.GatedTaskNum() == 0 {
			return schedulingv1beta1.PodGroupCompleted
		}
		return schedulingv1beta1.PodGroupRunning
	}
	switch j.Phase {
	case schedulingv1beta1.PodGroupInqueue, schedulingv1beta1.PodGroupRunning, schedulingv1beta1.PodGroupUnknown:
		// Admitted once; it stays admitted while it waits for its pods to be placed again.
		return schedulingv1beta1.PodGroupInqueue
	case schedulingv1beta1.PodGroupCompleted:
		return schedulingv1beta1.PodGroupCompleted
	}
	return schedulingv1beta1.PodGroupPending
}

// Unschedulable reports whether conds hold a True Unschedulable condition.
func Unschedulable(conds []schedulingv1beta1.PodGroupCondition) bool {
	for _, c := range conds {
		if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// MergeConditions puts the cycle's conditions into the stored ones, by type. A condition whose
// status, reason and message are unchanged keeps its stored transitionID and time, so an
// unchanged condition causes no write.
func MergeConditions(stored, decided []schedulingv1beta1.PodGroupCondition) []schedulingv1beta1.PodGroupCondition {
	out := make([]schedulingv1beta1.PodGroupCondition, len(stored))
	copy(out, stored)
	for _, c := range decided {
		found := false
		for i := range out {
			if out[i].Type != c.Type {
				continue
			}
			found = true
			if out[i].Status != c.Status || out[i].Reason != c.Reason || out[i].Message != c.Message {
				out[i] = c
			}
		}
		if !found {
			out = append(out, c)
		}
	}
	return out
}

// PodGroup returns the status a PodGroup should have after a cycle that decided conds for it.
func PodGroup(j *api.JobInfo, stored schedulingv1beta1.PodGroupStatus, conds []schedulingv1beta1.PodGroupCondition) schedulingv1beta1.PodGroupStatus {
	merged := MergeConditions(stored.Conditions, conds)
	return schedulingv1beta1.PodGroupStatus{
		Phase:      Phase(j, Unschedulable(conds)),
		Conditions: merged,
		Running:    j.Count(api.Running),
		Succeeded:  j.Count(api.Succeeded),
		Failed:     j.Count(api.Failed),
	}
}

// PodGroupEqual reports whether two PodGroup statuses are the same.
func PodGroupEqual(a, b schedulingv1beta1.PodGroupStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
}

// QueueState is the state a queue should have: a queue without a state is Open; a Closing queue
// with no PodGroups left is Closed; otherwise the state stays.
func QueueState(stored schedulingv1beta1.QueueState, podGroups int32) schedulingv1beta1.QueueState {
	switch {
	case stored == "":
		return schedulingv1beta1.QueueStateOpen
	case stored == schedulingv1beta1.QueueStateClosing && podGroups == 0:
		return schedulingv1beta1.QueueStateClosed
	}
	return stored
}

// Queue returns the status a queue should have given its usage (nil when it has no jobs).
func Queue(stored schedulingv1beta1.QueueStatus, u *snapshot.QueueUsage) schedulingv1beta1.QueueStatus {
	out := stored.DeepCopy()
	out.Allocated, out.Pending, out.Inqueue, out.Running, out.Unknown, out.Completed = nil, 0, 0, 0, 0, 0
	var podGroups int32
	if u != nil {
		if rl := u.Allocated.ResourceList(); len(rl) > 0 {
			out.Allocated = rl
		}
		out.Pending = u.Phases[schedulingv1beta1.PodGroupPending]
		out.Inqueue = u.Phases[schedulingv1beta1.PodGroupInqueue]
		out.Running = u.Phases[schedulingv1beta1.PodGroupRunning]
		out.Unknown = u.Phases[schedulingv1beta1.PodGroupUnknown]
		out.Completed = u.Phases[schedulingv1beta1.PodGroupCompleted]
		for _, n := range u.Phases {
			podGroups += n
		}
	}
	out.State = QueueState(stored.State, podGroups)
	return *out
}

// TreeAllocated returns, per queue that has queues below it (spec.parent, given by parents),
// what it and those queues hold together: a parent's status.allocated counts its children's, as
// in Volcano. A parent that does not exist, or a loop, ends a queue's chain.
func TreeAllocated(parents map[string]string, usage map[string]*snapshot.QueueUsage) map[string]api.Resource {
	out := map[string]api.Resource{}
	for name, u := range usage {
		if _, ok := parents[name]; !ok {
			continue
		}
		seen := map[string]bool{name: true}
		for p := parents[name]; p != "" && !seen[p]; p = parents[p] {
			if _, ok := parents[p]; !ok {
				break
			}
			seen[p] = true
			sum, ok := out[p]
			if !ok {
				if own := usage[p]; own != nil {
					sum = own.Allocated.Clone()
				}
			}
			sum.Add(&u.Allocated)
			out[p] = sum
		}
	}
	return out
}

// QueueEqual reports whether two queue statuses are the same (quantities compared by value).
func QueueEqual(a, b schedulingv1beta1.QueueStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
}
