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

// Package gang makes scheduling all-or-nothing per PodGroup: a job is ready only when at least
// minMember of its tasks (and minTaskMember of each task) are placed; it never lets preemption
// or reclaim take a running gang below its minimum; and at the end of each cycle it writes the
// Unschedulable or Scheduled condition, with Volcano's reasons (and QueueNotFound, QueueNotOpen
// and Unsatisfiable for a gang that waiting will not place) and a message that says how many
// pods wait and why.
package gang

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "gang"

// ScheduledReason is the reason of the Scheduled condition, as Volcano words it.
const ScheduledReason = "tasks in gang are ready to be scheduled"

type plugin struct{}

// New builds the plugin; it takes no arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	if err := args.CheckKeys(nil); err != nil {
		return nil, err
	}
	return &plugin{}, nil
}

func (p *plugin) Name() string { return Name }

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	ssn.AddJobValidFn(Name, Valid)
	ssn.AddJobOrderFn(Name, func(l, r *api.JobInfo) int {
		lr, rr := Ready(l), Ready(r)
		switch {
		case lr == rr:
			return 0
		case lr:
			return 1
		default:
			return -1
		}
	})
	ssn.AddJobReadyFn(Name, Ready)
	ssn.AddJobPipelinedFn(Name, func(j *api.JobInfo) int {
		if Pipelined(j) {
			return framework.Permit
		}
		return framework.Reject
	})
	ssn.AddJobStarvingFn(Name, Starving)
	victims := func(_ *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
		return Evictable(ssn.Jobs, candidates), false
	}
	ssn.AddPreemptableFn(Name, victims)
	ssn.AddReclaimableFn(Name, victims)
}

// Valid fails a job that cannot reach its minimum with the tasks it has. Pods held by
// scheduling gates other than Volcano's queue-allocation gate do not count, as in Volcano: the
// gang waits whole until they are released.
func Valid(j *api.JobInfo) *framework.ValidateResult {
	if j.HeldByGates() {
		return &framework.ValidateResult{
			Reason: schedulingv1beta1.NotEnoughPodsReason,
			Message: fmt.Sprintf("%s; the gang waits whole: %d of minMember %d pods may be scheduled",
				HeldNote(j), j.ValidTaskNum(), j.MinAvailable),
		}
	}
	if valid := j.ValidTaskNum(); valid < j.MinAvailable {
		return &framework.ValidateResult{
			Reason:  schedulingv1beta1.NotEnoughPodsReason,
			Message: fmt.Sprintf("not enough valid pods for the gang: %d of minMember %d exist; create the missing pods or lower minMember", valid, j.MinAvailable),
		}
	}
	if j.TaskMinimumsApply() {
		_, valid := j.RoleCounts()
		for _, role := range sortedRoles(j.TaskMinAvailable) {
			if min := j.TaskMinAvailable[role]; valid[role] < min {
				return &framework.ValidateResult{
					Reason:  schedulingv1beta1.NotEnoughPodsOfTaskReason,
					Message: fmt.Sprintf("not enough valid pods of task %q: %d of minTaskMember %d exist; create the missing pods or lower minTaskMember", role, valid[role], min),
				}
			}
		}
	}
	if j.HasSubGroupMinimums() {
		complete := j.CompleteSubGroups(j.SubGroupCounts(func(t *api.TaskInfo) bool {
			return api.AllocatedStatus(t.Status) || t.Status == api.Succeeded || t.Status == api.Pending || t.Status == api.Pipelined || api.HeldValid(t)
		}))
		for i, p := range j.SubGroups {
			if complete[i] < p.Min {
				return &framework.ValidateResult{
					Reason: schedulingv1beta1.NotEnoughPodsOfTaskReason,
					Message: fmt.Sprintf("not enough valid subgroups of subGroupPolicy %q: %d of minSubGroups %d have their subGroupSize of %d pods; "+
						"create the missing pods or lower minSubGroups", p.Name, complete[i], p.Min, p.Size),
				}
			}
		}
	}
	return nil
}

// Ready reports whether enough of a job's tasks are placed: minMember (pending tasks that
// request nothing count, as backfill places them) and each task's minTaskMember.
func Ready(j *api.JobInfo) bool { return j.MinimumsMet(false) }

// Pipelined reports whether a job's placed and promised tasks reach its minimums.
func Pipelined(j *api.JobInfo) bool { return j.MinimumsMet(true) }

// Starving reports whether a job has fewer tasks placed or promised than its minimum.
func Starving(j *api.JobInfo) bool {
	return j.ReadyTaskNum()+j.WaitingTaskNum() < j.MinAvailable
}

// Evictable keeps the candidates whose job stays at or above its minimum without them; a job
// with minMember 1 may always lose a task.
func Evictable(jobs map[api.JobID]*api.JobInfo, candidates []*api.TaskInfo) []*api.TaskInfo {
	spare := map[api.JobID]int32{}
	var out []*api.TaskInfo
	for _, c := range candidates {
		j := jobs[c.Job]
		if j == nil {
			continue
		}
		s, ok := spare[c.Job]
		if !ok {
			s = j.ReadyTaskNum() - j.MinAvailable
			if j.HasSubGroupMinimums() {
				// Losing one pod may break a subgroup the job needs whole.
				s = 0
			}
		}
		if s > 0 || j.MinAvailable <= 1 {
			out = append(out, c)
			s--
		}
		spare[c.Job] = s
	}
	return out
}

func (p *plugin) OnSessionClose(ssn *framework.Session) {
	for _, id := range ssn.Attempted() {
		j, ok := ssn.Jobs[id]
		if !ok || j.PodGroup == nil {
			continue
		}
		now := metav1.NewTime(ssn.Now)
		if Ready(j) && len(j.Tasks) > 0 {
			ssn.SetJobCondition(id, schedulingv1beta1.PodGroupCondition{
				Type: schedulingv1beta1.PodGroupScheduled, Status: corev1.ConditionTrue, TransitionID: string(ssn.UID),
				LastTransitionTime: now, Reason: ScheduledReason,
			})
			ssn.SetJobCondition(id, schedulingv1beta1.PodGroupCondition{
				Type: schedulingv1beta1.PodGroupUnschedulableType, Status: corev1.ConditionFalse, TransitionID: string(ssn.UID),
				LastTransitionTime: now, Reason: "Scheduled",
			})
			continue
		}
		admitted := j.Phase != schedulingv1beta1.PodGroupPending
		if admitted && !j.HasPendingTasks() && j.WaitingTaskNum() == 0 && j.GatedTaskNum() == 0 {
			// Admitted and waiting for its pods to be created: nothing to explain yet.
			continue
		}
		reason, message := Unschedulable(j, ssn.Queues[j.Queue], ssn.PeekDiagnosis(id), func(q *api.QueueInfo) Limits {
			return limitsOf(ssn, q)
		})
		ssn.SetJobCondition(id, schedulingv1beta1.PodGroupCondition{
			Type: schedulingv1beta1.PodGroupUnschedulableType, Status: corev1.ConditionTrue, TransitionID: string(ssn.UID),
			LastTransitionTime: now, Reason: reason, Message: message,
		})
	}
}

// Unschedulable gives the reason and message of the Unschedulable condition of a job that is not
// ready; q is its queue (nil when it does not exist), d what the session learned (may be nil)
// and limits the bounds of its queue (see Limits). The reason, first that applies:
//
//   - QueueNotFound: the queue does not exist;
//   - Unsatisfiable: a Pending or Inqueue job's minResources exceed what the queue or the
//     cluster can ever hold; the message says only that (see Unsatisfiable);
//   - the reason an action recorded with the first job-level reason (framework ExplainReason);
//   - QueueNotOpen: a Pending job's queue is closed or closing;
//   - the validity reason (NotEnoughTasks, NotEnoughPodsOfTask) of an admitted job that has too
//     few pods;
//   - NotEnoughResources otherwise.
func Unschedulable(j *api.JobInfo, q *api.QueueInfo, d *framework.JobDiagnosis, limits func(*api.QueueInfo) Limits) (string, string) {
	pending := j.Phase == schedulingv1beta1.PodGroupPending
	if q == nil {
		return schedulingv1beta1.QueueNotFoundReason, Message(j, d)
	}
	if pending || j.Phase == schedulingv1beta1.PodGroupInqueue {
		if why := Unsatisfiable(j, limits(q)); why != "" {
			return schedulingv1beta1.UnsatisfiableReason, waitMessage(j, []string{why})
		}
	}
	switch {
	case d != nil && d.Reason != "":
		return d.Reason, Message(j, d)
	case pending && !q.IsOpen():
		return schedulingv1beta1.QueueNotOpenReason, Message(j, d)
	}
	if v := Valid(j); v != nil && !pending {
		return v.Reason, Message(j, d)
	}
	return schedulingv1beta1.NotEnoughResourcesReason, Message(j, d)
}

// Message says why a job is not scheduled, in the form "<missing> of <minMember> pods wait:
// <why>", where missing is minMember less the pods placed (never below 0) and why gives the
// job-level reasons (queue state, quota, minimums) and then why no node fitted the first task
// that failed, e.g. "3 of 5 pods wait: 0/4 nodes are available: 4 Insufficient cpu.".
// (Volcano writes "<missing>/<tasks> tasks in gang unschedulable: <why>", which reads "4/0"
// before the pods exist.)
func Message(j *api.JobInfo, d *framework.JobDiagnosis) string {
	var why []string
	// Pods of a PodGroup not yet admitted may not exist yet: their absence explains nothing.
	if v := Valid(j); v != nil && (j.Phase != schedulingv1beta1.PodGroupPending || j.HeldByGates()) {
		why = append(why, v.Message)
	} else if j.GatedTaskNum() > 0 {
		why = append(why, HeldNote(j))
	}
	if d != nil {
		// The allocate action records the validity message as a reason too: say it once.
		for _, r := range d.Reasons {
			if !slices.Contains(why, r) {
				why = append(why, r)
			}
		}
		fe, ok := d.TaskFit[d.FirstFailedTask]
		if !ok {
			why = append(why, d.ShareReasons...)
		}
		if ok {
			task := j.Tasks[d.FirstFailedTask]
			prefix := ""
			if task != nil && len(d.TaskFit) > 1 {
				prefix = fmt.Sprintf("pod %s (and %d more): ", task.Name, len(d.TaskFit)-1)
			} else if task != nil {
				prefix = fmt.Sprintf("pod %s: ", task.Name)
			}
			msg := fe.Error()
			if task != nil && strings.Contains(msg, "Insufficient") {
				msg += " The pod requests " + task.Resreq.String() + "."
			}
			why = append(why, prefix+msg)
		}
	}
	if len(why) == 0 && j.WaitingTaskNum() > 0 {
		why = append(why, fmt.Sprintf("%d pod(s) wait for pods leaving their nodes (the resources, ports or pod anti-affinity those hold)", j.WaitingTaskNum()))
	}
	if len(why) == 0 {
		if j.Phase == schedulingv1beta1.PodGroupPending {
			why = append(why, "the PodGroup is waiting to be admitted to its queue")
		} else {
			why = append(why, fmt.Sprintf("pod group is not ready, %d minAvailable", j.MinAvailable))
		}
	}
	return waitMessage(j, why)
}

// waitMessage is "<missing> of <minMember> pods wait: <why; why; ...>".
func waitMessage(j *api.JobInfo, why []string) string {
	missing := max(j.MinAvailable-j.ReadyTaskNum(), 0)
	return fmt.Sprintf("%d of %d pods wait: %s", missing, j.MinAvailable, strings.Join(why, "; "))
}

// HeldNote says which of a job's pods are held (task status Gated) and by what, e.g.
// "2 pods are held by scheduling gates (example.com/a, example.com/b)"; pods whose bind the API
// server refused are named apart. It is empty when no pod is held.
func HeldNote(j *api.JobInfo) string {
	gated, refused := 0, 0
	names := map[string]struct{}{}
	for _, t := range j.Tasks {
		if t.Status != api.Gated {
			continue
		}
		gates := api.SchedulingGates(t.Pod)
		if len(gates) == 0 {
			refused++
			continue
		}
		gated++
		for _, g := range gates {
			names[g] = struct{}{}
		}
	}
	var parts []string
	if gated > 0 {
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		parts = append(parts, fmt.Sprintf("%s held by scheduling gates (%s)", pods(gated), strings.Join(list, ", ")))
	}
	if refused > 0 {
		parts = append(parts, fmt.Sprintf("%s held until changed: the API server refused the bind", pods(refused)))
	}
	return strings.Join(parts, "; ")
}

func pods(n int) string {
	if n == 1 {
		return "1 pod is"
	}
	return fmt.Sprintf("%d pods are", n)
}

func sortedRoles(m map[string]int32) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
