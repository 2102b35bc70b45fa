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

package framework

import (
	"fmt"

	"github.com/caldera-sh/caldera/scheduler/api"
)

// Action names RoomCanBeMade looks for in the configuration.
const (
	preemptAction = "preempt"
	reclaimAction = "reclaim"
)

// RoomCanBeMade reports whether preempt or reclaim could make room for a PodGroup the enqueue
// plugins refuse, so that it is admitted (its pods are created) and those actions can act for
// it. With preempt configured: lower-priority work of its queue that may be evicted, with the
// room the cluster has free, covers its minResources. With reclaim configured: its queue,
// counting it, stays within its deserved share, and work of other reclaimable queues above
// their deserved share, with the free room, covers it. Free room is what the Ready nodes have
// free less what admitted jobs still need; room this function promised earlier in the cycle
// is not promised again.
func (ssn *Session) RoomCanBeMade(j *api.JobInfo) bool {
	q := ssn.Queues[j.Queue]
	if q == nil || !q.IsOpen() || j.MinResources == nil {
		return false
	}
	room := ssn.freeRoom()
	for _, u := range ssn.Snapshot.Usage {
		room.SubFloor(&u.Inqueue)
	}
	room.SubFloor(&ssn.roomPromised)
	if ssn.Config.ActionConfigured(preemptAction) {
		lower, kept, protected := ssn.evictableWork(func(vj *api.JobInfo) bool { return vj.Queue == q.Name && vj.Priority < j.Priority })
		lower.Add(&room)
		if j.MinResources.LessEqual(&lower) {
			ssn.roomPromised.Add(j.MinResources)
			return true
		}
		ssn.explainProtected(j, "preemption", lower, kept, protected)
	}
	if ssn.Config.ActionConfigured(reclaimAction) && !ssn.Overused(q) &&
		ssn.Preemptive(q, &api.TaskInfo{Job: j.UID, Namespace: j.Namespace, Name: j.Name, Resreq: j.MinResources}) {
		over := map[string]bool{}
		for name, vq := range ssn.Queues {
			over[name] = name != q.Name && vq.Reclaimable && ssn.Overused(vq)
		}
		reclaimable, kept, protected := ssn.evictableWork(func(vj *api.JobInfo) bool { return over[vj.Queue] })
		reclaimable.Add(&room)
		if j.MinResources.LessEqual(&reclaimable) {
			ssn.roomPromised.Add(j.MinResources)
			return true
		}
		ssn.explainProtected(j, "reclaim", reclaimable, kept, protected)
	}
	return false
}

// explainProtected tells a job that protected work is all that keeps the room-making action from
// acting for it: with that work, what could be freed would cover its minResources.
func (ssn *Session) explainProtected(j *api.JobInfo, action string, freeable, kept api.Resource, protected protections) {
	if len(protected) == 0 {
		return
	}
	freeable.Add(&kept)
	if j.MinResources.LessEqual(&freeable) {
		ssn.Explain(j.UID, fmt.Sprintf("%s cannot make room for the gang: the work it could take is protected: %s", action, protected))
	}
}

// evictableWork sums the requests of the running pods of the jobs keep selects that could be
// evicted, and sums apart those that are protected (they or their PodGroup are marked
// volcano.sh/preemptable=false), counting them by what protects them.
func (ssn *Session) evictableWork(keep func(vj *api.JobInfo) bool) (evictable, protectedWork api.Resource, protected protections) {
	protected = protections{}
	for _, vj := range ssn.Jobs {
		if vj.Allocated.IsEmpty() || !keep(vj) {
			continue
		}
		for _, t := range vj.Tasks {
			if t.Status != api.Running && t.Status != api.Bound {
				continue
			}
			switch {
			case !vj.Preemptable:
				protected.add(protectedGroup, 1)
				protectedWork.Add(t.Resreq)
			case !t.Preemptable:
				protected.add(protectedPod, 1)
				protectedWork.Add(t.Resreq)
			default:
				evictable.Add(t.Resreq)
			}
		}
	}
	return evictable, protectedWork, protected
}
