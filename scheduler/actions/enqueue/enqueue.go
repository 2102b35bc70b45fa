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

// Package enqueue admits PodGroups: a Pending job goes Inqueue when its queue exists and is
// Open and, if it names minResources, the plugins (queue capability, cluster room, SLA) agree.
// A PodGroup they refuse is admitted all the same when preempt or reclaim could make room for
// it (framework.RoomCanBeMade), so those actions can act for it once its pods exist.
// Queues take turns in queue order, one job at a time, jobs in job order. A queue with dequeue
// strategy fifo stops at its first job that cannot be admitted; traverse (the default) goes on.
package enqueue

import (
	"fmt"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the action's name.
const Name = "enqueue"

type action struct{}

// New returns the action.
func New() framework.Action { return &action{} }

func (a *action) Name() string { return Name }

func (a *action) Execute(ssn *framework.Session) {
	var pending []*api.JobInfo
	for _, j := range ssn.PendingJobs() {
		if j.Schedulable() && j.Phase == schedulingv1beta1.PodGroupPending {
			pending = append(pending, j)
		}
	}
	turns := ssn.NewQueueTurns(pending, func(name string, q *api.QueueInfo, jobs []*api.JobInfo) bool {
		var why string
		switch {
		case q == nil:
			why = framework.MissingQueueMessage(name)
		case !q.IsOpen():
			why = fmt.Sprintf("queue %s is %s and admits no new PodGroups; open the queue or submit to an open one", name, q.State)
		default:
			return true
		}
		for _, j := range jobs {
			ssn.MarkAttempted(j)
			ssn.Explain(j.UID, why)
		}
		return false
	})
	for q, jobs, ok := turns.Next(); ok; q, jobs, ok = turns.Next() {
		j, rest := jobs[0], jobs[1:]
		ssn.MarkAttempted(j)
		if j.MinResources == nil || ssn.JobEnqueueable(j) || ssn.RoomCanBeMade(j) {
			ssn.JobEnqueued(j)
			ssn.SetJobPhase(j, schedulingv1beta1.PodGroupInqueue)
		} else if q.Queue.Spec.DequeueStrategy == schedulingv1beta1.DequeueFIFO {
			for _, later := range rest {
				ssn.MarkAttempted(later)
				ssn.Explain(later.UID, fmt.Sprintf("queue %s admits jobs in order (dequeueStrategy fifo) and an earlier job waits to be admitted", q.Name))
			}
			continue
		}
		turns.Again(q, rest)
	}
}
