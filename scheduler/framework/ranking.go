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

	"github.com/caldera-sh/caldera/scheduler/api"
)

// nodeRanking orders, for one predicate key, the nodes a task of that key fits on, best score
// first (nodes with room now before nodes that fit only once releasing pods are gone). Tasks
// with the same predicate key pass the same filters and get the same scores on the same node
// state, so one ranking serves them all; when the cycle changes a node, the ranking re-scores
// that node only. Entries made before a node's last change are stale and dropped when they
// come to the top.
type nodeRanking struct {
	entries rankEntries
	// filtered is, per node position, 0 when the filters were not run yet, 1 when they pass
	// and 2 when they refuse.
	filtered []uint8
	// reasons are, per node position, why the node does not fit (filters or capacity).
	reasons map[int][]string
	// logPos is how much of the session's node log the ranking has taken in.
	logPos int
}

type rankEntry struct {
	idx       int
	version   uint64
	score     float64
	pipelined bool
}

type rankEntries []rankEntry

func (h rankEntries) Len() int { return len(h) }
func (h rankEntries) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.pipelined != b.pipelined {
		return !a.pipelined
	}
	if a.score != b.score {
		return a.score > b.score
	}
	return a.idx < b.idx
}
func (h rankEntries) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *rankEntries) Push(x any)   { *h = append(*h, x.(rankEntry)) }
func (h *rankEntries) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// fitCapacity checks the pod count and resources of a node for a task: no reason and whether
// the task must be pipelined, or the reasons it does not fit.
func fitCapacity(t *api.TaskInfo, n *api.NodeInfo) (reasons []string, pipelined bool) {
	if n.PodsFull() {
		return []string{"Too many pods"}, false
	}
	if n.FitsIdle(t.Resreq) {
		return nil, false
	}
	if n.FitsFutureIdle(t.Resreq) {
		return nil, true
	}
	idle := n.FutureIdle()
	for _, r := range t.Resreq.Insufficient(&idle) {
		reasons = append(reasons, "Insufficient "+string(r))
	}
	if len(reasons) == 0 {
		reasons = []string{"Insufficient resources"}
	}
	return reasons, false
}

// rankNode (re)evaluates one node for the ranking.
func (ssn *Session) rankNode(r *nodeRanking, t *api.TaskInfo, idx int) {
	n := ssn.NodeList[idx]
	if r.filtered[idx] == 0 {
		if reason := ssn.Predicate(t, n); reason != "" {
			r.filtered[idx] = 2
			r.reasons[idx] = []string{reason}
			return
		}
		r.filtered[idx] = 1
	}
	if r.filtered[idx] == 2 {
		return
	}
	reasons, pipelined := fitCapacity(t, n)
	if len(reasons) > 0 {
		r.reasons[idx] = reasons
		return
	}
	delete(r.reasons, idx)
	heap.Push(&r.entries, rankEntry{idx: idx, version: ssn.nodeVersion[idx], score: ssn.NodeScore(t, n), pipelined: pipelined})
}

// ranked finds the best node for a task from the ranking of its predicate key, building or
// bringing the ranking up to date first.
func (ssn *Session) ranked(t *api.TaskInfo) (*Placement, *api.FitErrors) {
	r, ok := ssn.rankings[t.PredicateKey]
	if !ok {
		r = &nodeRanking{filtered: make([]uint8, len(ssn.NodeList)), reasons: map[int][]string{}}
		for idx := range ssn.NodeList {
			ssn.rankNode(r, t, idx)
		}
		r.logPos = len(ssn.nodeLog)
		ssn.rankings[t.PredicateKey] = r
	} else if r.logPos < len(ssn.nodeLog) {
		changed := ssn.nodeLog[r.logPos:]
		r.logPos = len(ssn.nodeLog)
		seen := make(map[int]bool, len(changed))
		for _, idx := range changed {
			if !seen[idx] {
				seen[idx] = true
				ssn.rankNode(r, t, idx)
			}
		}
	}
	for r.entries.Len() > 0 {
		top := r.entries[0]
		if top.version != ssn.nodeVersion[top.idx] {
			heap.Pop(&r.entries)
			continue
		}
		return &Placement{Node: ssn.NodeList[top.idx], Pipelined: top.pipelined}, nil
	}
	fe := api.NewFitErrors(len(ssn.NodeList))
	for _, reasons := range r.reasons {
		for _, reason := range reasons {
			fe.Add(reason)
		}
	}
	return nil, fe
}
