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

// Package reclaim gives queues back their share: for each starving job of a queue that is not
// overused and may reclaim (it is below its deserved share), each pending task looks for a node
// where evicting tasks of other, reclaimable queues (those the plugins let go: queues above
// their deserved share, gangs kept at their minimum, no critical pods) makes it fit; the least
// important victims go first and the node is promised to the task. A job's evictions are carried
// out only if the job is then pipelined.
package reclaim

import (
	"fmt"
	"sort"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/metrics"
)

// Name is the action's name.
const Name = "reclaim"

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
		if q, ok := ssn.Queues[name]; ok && q.IsOpen() {
			queues = append(queues, q)
		}
	}
	sort.Slice(queues, func(i, j int) bool { return ssn.QueueOrderFn(queues[i], queues[j]) })
	for _, q := range queues {
		if ssn.Overused(q) {
			continue
		}
		for _, j := range byQueue[q.Name] {
			ssn.MarkAttempted(j)
			reclaimForJob(ssn, q, j)
		}
	}
}

// reclaimForJob tries to place the job's pending tasks by evicting tasks of reclaimable queues
// above their deserved share; it commits when the job is pipelined and undoes everything
// otherwise. The attempt, and the victims of a committed one, go to the metrics.
func reclaimForJob(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo) {
	stmt := ssn.NewStatement()
	evicted := false
	reason := fmt.Sprintf("reclaimed for queue %s, which is below its deserved share", q.Name)
	for _, t := range ssn.PendingTasks(j, false) {
		if t.PreemptionNever {
			continue
		}
		if !ssn.Preemptive(q, t) {
			break
		}
		nodes, _ := ssn.PredicateNodes(t)
		for _, n := range nodes {
			candidates := ssn.NodeCandidates(n, func(_ *api.TaskInfo, vj *api.JobInfo) bool {
				if vj.Queue == q.Name {
					return false
				}
				vq, ok := ssn.Queues[vj.Queue]
				return ok && vq.Reclaimable
			})
			if len(candidates) == 0 {
				continue
			}
			victims := ssn.Reclaimable(t, candidates)
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
