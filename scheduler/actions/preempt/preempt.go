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
			ssn.EvictForJob(j, framework.EvictionSearch{
				Reason: fmt.Sprintf("preempted by job %s/%s of higher priority in queue %s", j.Namespace, j.Name, q.Name),
				Candidates: func(_ *api.TaskInfo, vj *api.JobInfo) bool {
					return vj.Queue == j.Queue && vj.UID != j.UID
				},
				Victims:        ssn.Preemptable,
				BestNodesFirst: true,
			})
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
