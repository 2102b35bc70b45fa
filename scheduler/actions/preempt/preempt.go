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

// Package preempt makes room for starving gangs inside their own queue, by priority: for each
// starving job, queues and jobs in order, it takes lower-priority work of the same queue as
// parts of jobs (surplus pods first, then whole jobs, never a job left below its minimum),
// simulates the gang on the cluster those evictions would leave, and evicts only when the whole
// gang then fits (see framework.MakeRoom). Then, within each job, a pending task may take the
// place of a lower-priority task of its own job.
package preempt

import (
	"fmt"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the action's name.
const Name = "preempt"

type action struct{}

// New returns the action.
func New() framework.Action { return &action{} }

func (a *action) Name() string { return Name }

func (a *action) Execute(ssn *framework.Session) {
	byQueue := ssn.JobsByQueue(ssn.StarvingJobs())
	queues := ssn.QueuesInOrder(byQueue, nil)
	for _, q := range queues {
		for _, j := range byQueue[q.Name] {
			ssn.MarkAttempted(j)
			ssn.MakeRoom(j, Search(ssn, q, j))
		}
	}
	// Within a job: a pending task may take the place of a lower-priority task of its job.
	for _, q := range queues {
		for _, j := range byQueue[q.Name] {
			if !j.HasPendingTasks() {
				continue
			}
			ssn.EvictForJob(j, framework.EvictionSearch{
				Reason:         fmt.Sprintf("preempted by a higher-priority pod of its job %s/%s", j.Namespace, j.Name),
				Candidates:     func(_ *api.TaskInfo, vj *api.JobInfo) bool { return vj.UID == j.UID },
				Victims:        ssn.Preemptable,
				BestNodesFirst: true,
			})
		}
	}
}

// Search is how a starving job j of queue q preempts: lower-priority work of its own queue (the
// plugins' victim rules decide what is lower), within the queue's limits.
func Search(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo) framework.RoomSearch {
	return framework.RoomSearch{
		Action: "preemption",
		Candidates: func(vj *api.JobInfo) (bool, string) {
			return vj.Queue == j.Queue, ""
		},
		Victims:  ssn.GangPreemptable,
		MayPlace: func(t *api.TaskInfo) bool { return ssn.Allocatable(q, t) },
		Reason:   fmt.Sprintf("preempted by job %s/%s of higher priority (%d) in queue %s", j.Namespace, j.Name, j.Priority, q.Name),
		Doing: func(victims []*api.TaskInfo) string {
			return fmt.Sprintf("preempting %d pod(s) of lower priority (%s); the gang starts once they are gone", len(victims), framework.JobsOf(victims))
		},
	}
}
