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
	"container/heap"
	"fmt"
	"sort"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
)

// PriorityQueue pops items in the order of a less function, re-evaluated over every item at each
// pop (so an order that depends on changing state, such as a queue's share, stays right); it
// holds few items (the queues with jobs to place).
type PriorityQueue[T any] struct {
	h *pqHeap[T]
}

type pqHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h *pqHeap[T]) Len() int           { return len(h.items) }
func (h *pqHeap[T]) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *pqHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *pqHeap[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *pqHeap[T]) Pop() any {
	n := len(h.items)
	x := h.items[n-1]
	h.items = h.items[:n-1]
	return x
}

// NewPriorityQueue returns an empty queue ordered by less.
func NewPriorityQueue[T any](less func(a, b T) bool) *PriorityQueue[T] {
	return &PriorityQueue[T]{h: &pqHeap[T]{less: less}}
}

// Push adds an item.
func (q *PriorityQueue[T]) Push(x T) { heap.Push(q.h, x) }

// Pop removes and returns the first item. The items are ordered anew first: the order of items
// already in the queue may have changed since they were pushed (a queue's share grows as its
// jobs are placed), which a heap alone would not see.
func (q *PriorityQueue[T]) Pop() T {
	heap.Init(q.h)
	return heap.Pop(q.h).(T)
}

// Len returns the number of items.
func (q *PriorityQueue[T]) Len() int { return q.h.Len() }

// Empty reports whether the queue is empty.
func (q *PriorityQueue[T]) Empty() bool { return q.h.Len() == 0 }

// PendingTasks returns a job's pending tasks in task order; bestEffort selects the tasks that
// request nothing (true) or those that request something (false).
func (ssn *Session) PendingTasks(j *api.JobInfo, bestEffort bool) []*api.TaskInfo {
	var out []*api.TaskInfo
	for _, t := range j.Tasks {
		if t.Status == api.Pending && t.BestEffort == bestEffort {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(a, b int) bool { return ssn.TaskOrderFn(out[a], out[b]) })
	return out
}

// JobsByQueue groups jobs by queue name, each group in job order.
func (ssn *Session) JobsByQueue(jobs []*api.JobInfo) map[string][]*api.JobInfo {
	out := map[string][]*api.JobInfo{}
	for _, j := range jobs {
		out[j.Queue] = append(out[j.Queue], j)
	}
	for _, js := range out {
		sort.SliceStable(js, func(a, b int) bool { return ssn.JobOrderFn(js[a], js[b]) })
	}
	return out
}

// MissingQueueMessage is what a job whose queue does not exist is told.
func MissingQueueMessage(queue string) string {
	return fmt.Sprintf("queue %s does not exist; create the queue or set spec.queue to an existing one", queue)
}

// QueueTurns gives queues turns in queue order, re-evaluated at every turn (a queue's share
// changes as its jobs are placed), one job a turn, each queue's jobs in job order: the loop of
// the enqueue and allocate actions.
type QueueTurns struct {
	pq *PriorityQueue[*queueTurn]
}

type queueTurn struct {
	queue *api.QueueInfo
	jobs  []*api.JobInfo
}

// NewQueueTurns groups jobs by queue. The jobs of a queue get turns only when admit returns true
// for it; admit is called once per queue, with a nil QueueInfo for a queue that does not exist,
// and is where an action explains why a queue's jobs wait.
func (ssn *Session) NewQueueTurns(jobs []*api.JobInfo, admit func(name string, q *api.QueueInfo, jobs []*api.JobInfo) bool) *QueueTurns {
	t := &QueueTurns{pq: NewPriorityQueue(func(l, r *queueTurn) bool { return ssn.QueueOrderFn(l.queue, r.queue) })}
	for name, js := range ssn.JobsByQueue(jobs) {
		q := ssn.Queues[name]
		if !admit(name, q, js) || q == nil {
			continue
		}
		t.pq.Push(&queueTurn{queue: q, jobs: js})
	}
	return t
}

// Next returns the queue whose turn it is and the jobs it has left, this turn's job first; ok is
// false when no queue has a job left. The queue gets no later turn unless Again gives it one.
func (t *QueueTurns) Next() (q *api.QueueInfo, jobs []*api.JobInfo, ok bool) {
	if t.pq.Empty() {
		return nil, nil, false
	}
	turn := t.pq.Pop()
	return turn.queue, turn.jobs, true
}

// Again gives q a later turn with jobs, unless there are none.
func (t *QueueTurns) Again(q *api.QueueInfo, jobs []*api.JobInfo) {
	if len(jobs) > 0 {
		t.pq.Push(&queueTurn{queue: q, jobs: jobs})
	}
}

// StarvingJobs returns the jobs preempt and reclaim make room for: admitted (not Pending),
// schedulable, valid, with pending tasks, and starving.
func (ssn *Session) StarvingJobs() []*api.JobInfo {
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
	return starving
}

// QueuesInOrder returns, in queue order, the queues of byQueue that exist and that keep (nil
// keeps all) returns true for.
func (ssn *Session) QueuesInOrder(byQueue map[string][]*api.JobInfo, keep func(*api.QueueInfo) bool) []*api.QueueInfo {
	queues := make([]*api.QueueInfo, 0, len(byQueue))
	for name := range byQueue {
		if q, ok := ssn.Queues[name]; ok && (keep == nil || keep(q)) {
			queues = append(queues, q)
		}
	}
	sort.Slice(queues, func(i, j int) bool { return ssn.QueueOrderFn(queues[i], queues[j]) })
	return queues
}
