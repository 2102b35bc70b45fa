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

package api

import (
	"fmt"
	"sort"
	"strings"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// QueueInfo is a queue as the scheduler reads it.
type QueueInfo struct {
	// Name is the queue's name.
	Name string
	// Queue is the queue as last seen. Read only.
	Queue *schedulingv1beta1.Queue
	// Weight is spec.weight (at least 1).
	Weight int32
	// Priority is spec.priority.
	Priority int32
	// State is status.state; empty is read as Open.
	State schedulingv1beta1.QueueState
	// Reclaimable is spec.reclaimable (unset means true).
	Reclaimable bool
}

// NewQueueInfo builds the QueueInfo of a queue.
func NewQueueInfo(q *schedulingv1beta1.Queue) *QueueInfo {
	w := q.Spec.Weight
	if w < 1 {
		w = 1
	}
	state := q.Status.State
	if state == "" {
		state = schedulingv1beta1.QueueStateOpen
	}
	return &QueueInfo{
		Name:        q.Name,
		Queue:       q,
		Weight:      w,
		Priority:    q.Spec.Priority,
		State:       state,
		Reclaimable: q.Spec.Reclaimable == nil || *q.Spec.Reclaimable,
	}
}

// IsOpen reports whether the queue admits new jobs.
func (q *QueueInfo) IsOpen() bool { return q.State == schedulingv1beta1.QueueStateOpen }

// FitErrors collects why one task fits no node: per reason, how many nodes gave it.
type FitErrors struct {
	// Nodes is the number of nodes considered.
	Nodes int
	// Reasons counts nodes by reason.
	Reasons map[string]int
	// Err is a reason that holds whatever the node (for example a failed pre-filter).
	Err string
}

// NewFitErrors returns an empty FitErrors over n nodes.
func NewFitErrors(n int) *FitErrors {
	return &FitErrors{Nodes: n, Reasons: map[string]int{}}
}

// Add records that one node failed for reason.
func (f *FitErrors) Add(reason string) { f.Reasons[reason]++ }

// AddN records that n nodes failed for reason.
func (f *FitErrors) AddN(reason string, n int) { f.Reasons[reason] += n }

// Error renders the reasons as kube-scheduler does, for example
// "0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu."
func (f *FitErrors) Error() string {
	if f.Err != "" {
		return f.Err
	}
	if len(f.Reasons) == 0 {
		return fmt.Sprintf("0/%d nodes are available.", f.Nodes)
	}
	parts := make([]string, 0, len(f.Reasons))
	for reason, n := range f.Reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, reason))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", f.Nodes, strings.Join(parts, ", "))
}
