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

// Package preempt frees room for starving jobs inside their own queue: for each pending task
// of a starving job, in job and task order, it looks for a node where evicting tasks of other
// jobs of the same queue (those the plugins let go: lower priority, not taking a running gang
// below its minimum, not critical) makes the task fit, evicts the least important first and
// promises the node to the task. A job's evictions are carried out only if the job is then
// pipelined (its gang can start once the victims are gone). Then, within each job, a pending
// task may evict a lower-priority task of the same job.
package preempt

import (
	"fmt"
	"sort"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/metrics"
)

// Name is the action's name.
const Name = "preempt"

type action struct{}

// New returns the action.
func New() framework.Action { return &action{} }

func (a *action) Name() string { return Name }

func (a *action) Execute(ssn *framework.Session) {
	var starving []*api.JobInfo
	for _, j := range ssn.PendingJobs() {
		if !j.Schedulable() || j.Phase == schedulingv1beta1.PodGroupPending || !j.HasPendingTasks() {
			continue
		}
		if ssn.JobValid(j) != nil || !ssn.JobStarving(j) {
			continue
		}
		starving = append(starving, j)
	}
	byQueue := ssn.JobsByQueue(starving)
	queues := make([]*api.QueueInfo, 0, len(byQueue))
	for name := range byQueue {
		if q, ok := ssn.Queues[name]; ok {
			queues = append(queues, q)
		}
	}
	sort.Slice(queues, func(i, j int) bool { return ssn.QueueOrderFn(queues[i], queues[j]) })
	for _, q := range queues {
		for _, j := range byQueue[q.Name] {
			ssn.MarkAttempted(j)
			preemptForJob(ssn, j, func(t *api.TaskInfo, vj *api.JobInfo) bool {
				return vj.Queue == j.Queue && vj.UID != j.UID
			}, fmt.Sprintf("preempted by job %s/%s of higher priority in queue %s", j.Namespace, j.Name, q.Name))
		}
	}
	// Within a job: a pending task may take the place of a lower-priority task of its job.
	for _, q := range queues {
		for _, j := range byQueue[q.Name] {
			if !j.HasPendingTasks() {
				continue
			}
			preemptForJob(ssn, j, func(t *api.TaskInfo, vj *api.JobInfo) bool {
				return vj.UID == j.UID
			}, fmt.Sprintf("preempted by a higher-priority pod of its job %s/%s", j.Namespace, j.Name))
		}
	}
}

// preemptForJob tries to place the job's pending tasks by evicting candidates that keep selects
// and the plugins allow; it commits when the job is pipelined and undoes everything otherwise.
// The attempt, and the victims of a committed one, go to the metrics.
func preemptForJob(ssn *framework.Session, j *api.JobInfo, keep func(*api.TaskInfo, *api.JobInfo) bool, reason string) {
	stmt := ssn.NewStatement()
	evicted := false
	for _, t := range ssn.PendingTasks(j, false) {
		if t.PreemptionNever {
			continue
		}
		nodes, _ := ssn.PredicateNodes(t)
		nodes = bestFirst(ssn, t, nodes)
		for _, n := range nodes {
			candidates := ssn.NodeCandidates(n, keep)
			if len(candidates) == 0 {
				continue
			}
			victims := ssn.Preemptable(t, candidates)
			if len(victims) == 0 {
				continue
			}
			if ssn.EvictFor(stmt, t, n, victims, reason) {
				evicted = true
				break
			}
		}
	}
	if evicted && ssn.JobPipelined(j) {
		metrics.UpdatePreemption(stmt.Evictions())
		stmt.Commit()
		return
	}
	metrics.UpdatePreemption(0)
	stmt.Discard()
}

// bestFirst orders nodes by the plugins' scores, best first.
func bestFirst(ssn *framework.Session, t *api.TaskInfo, nodes []*api.NodeInfo) []*api.NodeInfo {
	if !ssn.HasNodeOrder() || len(nodes) < 2 {
		return nodes
	}
	scores := make(map[string]float64, len(nodes))
	for _, n := range nodes {
		scores[n.Name] = ssn.NodeScore(t, n)
	}
	sort.SliceStable(nodes, func(a, b int) bool { return scores[nodes[a].Name] > scores[nodes[b].Name] })
	return nodes
}
