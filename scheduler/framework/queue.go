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
	"sort"

	"github.com/caldera-sh/caldera/scheduler/api"
)

// PriorityQueue pops items in the order of a less function, re-evaluated at every push and pop
// (so an order that depends on changing state, such as a queue's share, stays right).
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

// Pop removes and returns the first item.
func (q *PriorityQueue[T]) Pop() T { return heap.Pop(q.h).(T) }

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
