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

package api

import (
	"time"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// JobID identifies a job: "<namespace>/<PodGroup name>" for a PodGroup, and
// "<namespace>/#pod/<pod name>" for a pod that names no PodGroup and is scheduled as a gang of
// one ('#' cannot appear in an object name, so the two never collide).
type JobID string

// PodJobID returns the JobID of a pod that names no PodGroup.
func PodJobID(namespace, podName string) JobID {
	return JobID(namespace + "/#pod/" + podName)
}

// GroupJobID returns the JobID of a PodGroup.
func GroupJobID(namespace, name string) JobID {
	return JobID(namespace + "/" + name)
}

// JobInfo is a gang: a PodGroup (or a lone pod) with its tasks. Fields marked read only are
// shared between copies and never changed.
type JobInfo struct {
	// UID identifies the job.
	UID JobID
	// Name and Namespace are the PodGroup's (or the lone pod's).
	Name, Namespace string
	// Queue is the queue the job is admitted and accounted in.
	Queue string
	// PodGroup is the PodGroup as last seen; nil for a lone pod and for pods whose PodGroup does
	// not exist (yet). Read only.
	PodGroup *schedulingv1beta1.PodGroup
	// PodOnly is true for a lone pod scheduled as a gang of one.
	PodOnly bool
	// Phase is the PodGroup's phase as the scheduler last decided it.
	Phase schedulingv1beta1.PodGroupPhase
	// Priority is the job's priority (its PriorityClass's value).
	Priority int32
	// MissingPriorityClass is the PriorityClass the PodGroup names when no such class exists;
	// the job waits for it, as a pod naming one is refused.
	MissingPriorityClass string
	// MinAvailable is the number of tasks that must be placed together.
	MinAvailable int32
	// TaskMinAvailable is, per task role, the number of its tasks that must be placed together.
	// Read only.
	TaskMinAvailable map[string]int32
	// SubGroups are the PodGroup's subGroupPolicy (partitions). Read only.
	SubGroups []SubGroupPolicy
	// MinResources is what the job needs to start, nil when not given. Read only.
	MinResources *Resource
	// CreationTime is the PodGroup's (or lone pod's) creation time.
	CreationTime time.Time
	// WaitingTime is the job's SLA waiting time, when annotated.
	WaitingTime *time.Duration
	// Preemptable is false when the PodGroup is marked volcano.sh/preemptable=false.
	Preemptable bool
	// Tasks are the job's tasks by UID.
	Tasks map[TaskID]*TaskInfo

	counts            [numStatuses]int32
	pendingBestEffort int32
	// heldValid counts the held tasks that still count as valid: those held only by Volcano's
	// queue-allocation gate.
	heldValid int32
	// owned marks the tasks this copy may change; the others are shared with the copy it was
	// made from and are replaced by a private copy (OwnTask) before any change.
	owned map[TaskID]bool
	// Allocated is the sum of the requests of tasks in an allocated status.
	Allocated Resource
	// PendingRequest is the sum of the requests of pending tasks.
	PendingRequest Resource
}

// NewJobInfo returns an empty job.
func NewJobInfo(uid JobID) *JobInfo {
	return &JobInfo{UID: uid, Tasks: map[TaskID]*TaskInfo{}, Preemptable: true}
}

// Clone returns a copy that may be changed without touching j. Tasks are shared until the copy
// changes one: take a task with OwnTask before changing it.
func (j *JobInfo) Clone() *JobInfo {
	c := *j
	c.Tasks = make(map[TaskID]*TaskInfo, len(j.Tasks))
	for id, t := range j.Tasks {
		c.Tasks[id] = t
	}
	c.owned = nil
	c.Allocated = j.Allocated.Clone()
	c.PendingRequest = j.PendingRequest.Clone()
	return &c
}

// OwnTask returns the job's own copy of a task, making it on first use, so it may be changed.
// It returns nil when the job has no such task.
func (j *JobInfo) OwnTask(uid TaskID) *TaskInfo {
	t, ok := j.Tasks[uid]
	if !ok {
		return nil
	}
	if j.owned[uid] {
		return t
	}
	c := t.Clone()
	j.Tasks[uid] = c
	if j.owned == nil {
		j.owned = map[TaskID]bool{}
	}
	j.owned[uid] = true
	return c
}

// AddTask adds a task, replacing one with the same UID.
func (j *JobInfo) AddTask(t *TaskInfo) {
	if old, ok := j.Tasks[t.UID]; ok {
		j.account(old, -1)
	}
	j.Tasks[t.UID] = t
	j.account(t, 1)
}

// DeleteTask removes a task.
func (j *JobInfo) DeleteTask(uid TaskID) {
	if old, ok := j.Tasks[uid]; ok {
		j.account(old, -1)
		delete(j.Tasks, uid)
	}
}

// UpdateTaskStatus moves a task of j to a new status, keeping the sums right. t must be the job's
// own copy (see OwnTask) unless the job was built, not cloned.
func (j *JobInfo) UpdateTaskStatus(t *TaskInfo, status TaskStatus) {
	j.account(t, -1)
	t.Status = status
	j.account(t, 1)
}

func (j *JobInfo) account(t *TaskInfo, sign int32) {
	j.counts[t.Status] += sign
	switch {
	case AllocatedStatus(t.Status):
		if sign > 0 {
			j.Allocated.Add(t.Resreq)
		} else {
			j.Allocated.Sub(t.Resreq)
		}
	case t.Status == Gated:
		if HeldValid(t) {
			j.heldValid += sign
		}
	case t.Status == Pending:
		if t.BestEffort {
			j.pendingBestEffort += sign
		}
		if sign > 0 {
			j.PendingRequest.Add(t.Resreq)
		} else {
			j.PendingRequest.Sub(t.Resreq)
		}
	}
}

// Count returns how many tasks are in a status.
func (j *JobInfo) Count(s TaskStatus) int32 { return j.counts[s] }

// ReadyTaskNum is the number of tasks placed or done: allocated, binding, bound, running or
// succeeded.
func (j *JobInfo) ReadyTaskNum() int32 {
	return j.counts[Allocated] + j.counts[Binding] + j.counts[Bound] + j.counts[Running] + j.counts[Succeeded]
}

// PendingBestEffortNum is the number of pending tasks that request nothing.
func (j *JobInfo) PendingBestEffortNum() int32 { return j.pendingBestEffort }

// WaitingTaskNum is the number of pipelined tasks.
func (j *JobInfo) WaitingTaskNum() int32 { return j.counts[Pipelined] }

// ValidTaskNum is the number of tasks that are, or may still become, placed. Held tasks
// (status Gated) do not count, but for those held only by Volcano's queue-allocation gate (see
// HeldValid), as Volcano counts them.
func (j *JobInfo) ValidTaskNum() int32 {
	return j.counts[Pending] + j.counts[Pipelined] + j.ReadyTaskNum() + j.heldValid
}

// GatedTaskNum is the number of held tasks (status Gated): pods with scheduling gates, or whose
// bind the API server refused.
func (j *JobInfo) GatedTaskNum() int32 { return j.counts[Gated] }

// HeldByGates reports whether held tasks keep the job from being valid: without them it has
// fewer valid tasks than its minimum. Such a job can do nothing until one of its pods changes.
func (j *JobInfo) HeldByGates() bool {
	return j.counts[Gated] > 0 && j.ValidTaskNum() < j.MinAvailable
}

// HeldValid reports whether a held task still counts as valid for its gang: it is held only by
// Volcano's queue-allocation gate, which is lifted when the queue has room.
func HeldValid(t *TaskInfo) bool {
	return t.Status == Gated && t.Pod != nil && len(t.Pod.Spec.SchedulingGates) > 0 && !ForeignGated(t.Pod) && t.Pod.Spec.NodeName == ""
}

// HasPendingTasks reports whether a task waits to be placed.
func (j *JobInfo) HasPendingTasks() bool { return j.counts[Pending] > 0 }

// RoleCounts returns, per task role, the ready and the valid task counts.
func (j *JobInfo) RoleCounts() (ready, valid map[string]int32) {
	ready, valid = map[string]int32{}, map[string]int32{}
	for _, t := range j.Tasks {
		switch {
		case AllocatedStatus(t.Status) || t.Status == Succeeded:
			ready[t.TaskRole]++
			valid[t.TaskRole]++
		case t.Status == Pending || t.Status == Pipelined || HeldValid(t):
			valid[t.TaskRole]++
		}
	}
	return ready, valid
}

// Schedulable reports whether the job can be worked on at all: it has a PodGroup or is a lone
// pod.
func (j *JobInfo) Schedulable() bool { return j.PodGroup != nil || j.PodOnly }

// WaitedSince returns when the job started waiting: its creation time.
func (j *JobInfo) WaitedSince() time.Time { return j.CreationTime }

// MinimumsMet reports whether a job's placed tasks (and, with countPipelined, the tasks promised
// a node) reach its minMember and every task's minTaskMember. Pending tasks that request
// nothing count, as backfill places them. Per-task minimums apply only when minMember covers
// their sum, as in Volcano.
func (j *JobInfo) MinimumsMet(countPipelined bool) bool {
	placed := j.ReadyTaskNum() + j.PendingBestEffortNum()
	if countPipelined {
		placed += j.WaitingTaskNum()
	}
	if placed < j.MinAvailable {
		return false
	}
	if !j.TaskMinimumsApply() {
		return !j.HasSubGroupMinimums() || j.subGroupMinimumsMet(countPipelined)
	}
	counts := map[string]int32{}
	for _, t := range j.Tasks {
		if AllocatedStatus(t.Status) || t.Status == Succeeded || (countPipelined && t.Status == Pipelined) ||
			(t.Status == Pending && t.BestEffort) {
			counts[t.TaskRole]++
		}
	}
	for role, min := range j.TaskMinAvailable {
		if counts[role] < min {
			return false
		}
	}
	return !j.HasSubGroupMinimums() || j.subGroupMinimumsMet(countPipelined)
}

// TaskMinimumsApply reports whether the job's per-task minimums (minTaskMember) are enforced:
// only when it has some and minMember covers their sum, as in Volcano.
func (j *JobInfo) TaskMinimumsApply() bool {
	if len(j.TaskMinAvailable) == 0 {
		return false
	}
	var sum int32
	for _, v := range j.TaskMinAvailable {
		sum += v
	}
	return j.MinAvailable >= sum
}

// Surplus splits tasks of the job, given in the order they would be given up (least important
// first), into those that may go one by one while the job keeps its minimums (placed tasks at
// least minMember, and each task's at least its minTaskMember) and the rest. Only placed tasks
// (AllocatedStatus) count toward the minimums and may be surplus.
func (j *JobInfo) Surplus(tasks []*TaskInfo) (surplus, rest []*TaskInfo) {
	if j.HasSubGroupMinimums() {
		// Losing one pod may break a subgroup the job needs whole: none goes alone.
		return nil, tasks
	}
	spare := j.ReadyTaskNum() - j.MinAvailable
	var roleSpare map[string]int32
	if j.TaskMinimumsApply() {
		ready, _ := j.RoleCounts()
		roleSpare = make(map[string]int32, len(j.TaskMinAvailable))
		for role, min := range j.TaskMinAvailable {
			roleSpare[role] = ready[role] - min
		}
	}
	for _, t := range tasks {
		ok := AllocatedStatus(t.Status) && spare > 0
		if s, limited := roleSpare[t.TaskRole]; ok && limited && s <= 0 {
			ok = false
		}
		if !ok {
			rest = append(rest, t)
			continue
		}
		surplus = append(surplus, t)
		spare--
		if _, limited := roleSpare[t.TaskRole]; limited {
			roleSpare[t.TaskRole]--
		}
	}
	return surplus, rest
}
