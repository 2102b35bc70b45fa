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

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the action's name.
const Name = "reclaim"

type action struct{}

// New returns the action.
func New() framework.Action { return &action{} }

func (a *action) Name() string { return Name }

func (a *action) Execute(ssn *framework.Session) {
	byQueue := ssn.JobsByQueue(ssn.StarvingJobs())
	for _, q := range ssn.QueuesInOrder(byQueue, (*api.QueueInfo).IsOpen) {
		if ssn.Overused(q) {
			continue
		}
		for _, j := range byQueue[q.Name] {
			ssn.MarkAttempted(j)
			ssn.EvictForJob(j, framework.EvictionSearch{
				Reason: fmt.Sprintf("reclaimed for queue %s, which is below its deserved share", q.Name),
				Candidates: func(_ *api.TaskInfo, vj *api.JobInfo) bool {
					if vj.Queue == q.Name {
						return false
					}
					vq, ok := ssn.Queues[vj.Queue]
					return ok && vq.Reclaimable
				},
				Victims:     ssn.Reclaimable,
				MayEvictFor: func(t *api.TaskInfo) bool { return ssn.Preemptive(q, t) },
			})
		}
	}
}
