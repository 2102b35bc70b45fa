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
// room the cluster has free, covers its minResources, and its queue, that work gone and the job
// counted, stays within its deserved share (as preempt places only within it): a queue at its
// share or capability gets no more work this way than the work it gives up. With reclaim
// configured: its queue, counting it, stays within its deserved share, and work of other
// reclaimable queues above their deserved share, with the free room, covers it. Both ask the
// share through Preemptive. Free room is what the Ready nodes have free less what admitted jobs
// still need, those admitted earlier in the cycle included (JobEnqueued counts them, whichever
// way they were admitted): room one PodGroup was admitted for is not promised to another.
func (ssn *Session) RoomCanBeMade(j *api.JobInfo) bool {
	q := ssn.Queues[j.Queue]
	if q == nil || !q.IsOpen() || j.MinResources == nil {
		return false
	}
	rc := ssn.roomCache()
	room := rc.free.Clone()
	room.SubFloor(&ssn.roomAdmitted)
	if ssn.Config.ActionConfigured(preemptAction) {
		lower := rc.work(func(queue string, priority int32) bool { return queue == q.Name && priority < j.Priority })
		// What the queue would hold more once the job runs in place of that work.
		more := j.MinResources.Clone()
		more.SubFloor(&lower.evictable)
		lower.evictable.Add(&room)
		if j.MinResources.LessEqual(&lower.evictable) &&
			ssn.Preemptive(q, &api.TaskInfo{Job: j.UID, Namespace: j.Namespace, Name: j.Name, Resreq: &more}) {
			return true
		}
		ssn.explainProtected(j, "preemption", lower)
	}
	if ssn.Config.ActionConfigured(reclaimAction) && !ssn.Overused(q) &&
		ssn.Preemptive(q, &api.TaskInfo{Job: j.UID, Namespace: j.Namespace, Name: j.Name, Resreq: j.MinResources}) {
		over := map[string]bool{}
		for name, vq := range ssn.Queues {
			over[name] = name != q.Name && vq.Reclaimable && ssn.Overused(vq)
		}
		reclaimable := rc.work(func(queue string, _ int32) bool { return over[queue] })
		reclaimable.evictable.Add(&room)
		if j.MinResources.LessEqual(&reclaimable.evictable) {
			return true
		}
		ssn.explainProtected(j, "reclaim", reclaimable)
	}
	return false
}

// explainProtected tells a job that protected work is all that keeps the room-making action from
// acting for it: with that work, what could be freed (w.evictable, the free room included)
// would cover its minResources.
func (ssn *Session) explainProtected(j *api.JobInfo, action string, w workSum) {
	if len(w.protected) == 0 {
		return
	}
	freeable := w.evictable.Clone()
	freeable.Add(&w.protectedWork)
	if j.MinResources.LessEqual(&freeable) {
		ssn.Explain(j.UID, fmt.Sprintf("%s cannot make room for the gang: the work it could take is protected: %s", action, w.protected))
	}
}

// workSum is running work that preempt or reclaim could take: what may be evicted, and apart
// what is protected (it or its PodGroup is marked volcano.sh/preemptable=false), counted by
// what protects it.
type workSum struct {
	evictable, protectedWork api.Resource
	protected                protections
}

func (w *workSum) add(o *workSum) {
	w.evictable.Add(&o.evictable)
	w.protectedWork.Add(&o.protectedWork)
	for what, n := range o.protected {
		w.protected.add(what, n)
	}
}

// admissionRoom is what RoomCanBeMade works from, gathered once per cycle: the free room less
// what admitted jobs still need, and the running work by queue and job priority.
type admissionRoom struct {
	free    api.Resource
	byQueue map[string]map[int32]*workSum
}

// work sums the running work of the queues and priorities keep selects.
func (r *admissionRoom) work(keep func(queue string, priority int32) bool) workSum {
	sum := workSum{protected: protections{}}
	for queue, byPriority := range r.byQueue {
		for priority, w := range byPriority {
			if keep(queue, priority) {
				sum.add(w)
			}
		}
	}
	return sum
}

// roomCache returns the cycle's admissionRoom, gathering it on first use: enqueue, which asks,
// places and evicts nothing, so it holds for the whole action.
func (ssn *Session) roomCache() *admissionRoom {
	if ssn.admission != nil {
		return ssn.admission
	}
	r := &admissionRoom{free: ssn.freeRoom(nil), byQueue: map[string]map[int32]*workSum{}}
	for _, u := range ssn.Snapshot.Usage {
		r.free.SubFloor(&u.Inqueue)
	}
	for _, vj := range ssn.Jobs {
		if vj.Allocated.IsEmpty() {
			continue
		}
		byPriority := r.byQueue[vj.Queue]
		if byPriority == nil {
			byPriority = map[int32]*workSum{}
			r.byQueue[vj.Queue] = byPriority
		}
		w := byPriority[vj.Priority]
		if w == nil {
			w = &workSum{protected: protections{}}
			byPriority[vj.Priority] = w
		}
		for _, t := range vj.Tasks {
			if t.Status != api.Running && t.Status != api.Bound {
				continue
			}
			switch {
			case !vj.Preemptable:
				w.protected.add(protectedGroup, 1)
				w.protectedWork.Add(t.Resreq)
			case !t.Preemptable:
				w.protected.add(protectedPod, 1)
				w.protectedWork.Add(t.Resreq)
			default:
				w.evictable.Add(t.Resreq)
			}
		}
	}
	ssn.admission = r
	return r
}
