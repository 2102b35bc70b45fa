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

// Package reclaim gives queues back their share: for each starving job of an open queue that is
// not overused, it takes work of other, reclaimable queues that hold more than their deserved
// share (the plugins' victim rules of every tier decide, so proportion keeps each queue at its
// share), as parts of jobs (surplus pods first, then whole jobs, never a job left below its
// minimum, the queue furthest behind in queue order first), simulates the gang on the cluster
// those evictions would leave, and evicts only when the whole gang then fits within its queue's
// share (see framework.MakeRoom).
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
			ssn.MakeRoom(j, Search(ssn, q, j))
		}
	}
}

// Search is how a starving job j of queue q reclaims: work of other queues that may be
// reclaimed, taken from the queue last in queue order first, as long as q stays within its
// deserved share.
func Search(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo) framework.RoomSearch {
	return framework.RoomSearch{
		Action: "reclaim",
		Candidates: func(vj *api.JobInfo) (bool, string) {
			if vj.Queue == q.Name {
				return false, ""
			}
			vq, ok := ssn.Queues[vj.Queue]
			if !ok {
				return false, ""
			}
			if !vq.Reclaimable {
				return false, fmt.Sprintf("of queue %s, which is marked reclaimable: false", vq.Name)
			}
			return true, ""
		},
		Victims: ssn.GangReclaimable,
		VictimOrder: func(l, r *api.JobInfo) int {
			if l.Queue == r.Queue {
				return 0
			}
			lq, rq := ssn.Queues[l.Queue], ssn.Queues[r.Queue]
			switch {
			case lq == nil || rq == nil:
				return 0
			case ssn.QueueOrderFn(rq, lq):
				return -1
			case ssn.QueueOrderFn(lq, rq):
				return 1
			}
			return 0
		},
		MayPlace: func(t *api.TaskInfo) bool { return ssn.Preemptive(q, t) },
		Reason:   fmt.Sprintf("reclaimed for queue %s, which is below its deserved share, by job %s/%s", q.Name, j.Namespace, j.Name),
		Doing: func(victims []*api.TaskInfo) string {
			var freed api.Resource
			for _, v := range victims {
				freed.Add(v.Resreq)
			}
			return fmt.Sprintf("reclaiming %s from %s (above their deserved share) by evicting %d pod(s) of %s; the gang starts once they are gone",
				freed.String(), framework.QueuesOf(ssn, victims), len(victims), framework.JobsOf(victims))
		},
	}
}
