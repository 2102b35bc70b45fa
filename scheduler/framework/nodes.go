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
	"slices"

	"github.com/caldera-sh/caldera/scheduler/api"
)

// FeasibleNodesToFind is how many fitting nodes a search looks for before it stops and scores
// them, out of n nodes: all of them up to 100 nodes, then a share falling from 50% by one point
// per 125 nodes down to 5%, never fewer than 100 (the rule kube-scheduler uses).
func FeasibleNodesToFind(n int) int {
	if n <= 100 {
		return n
	}
	pct := 50 - n/125
	if pct < 5 {
		pct = 5
	}
	num := n * pct / 100
	if num < 100 {
		num = 100
	}
	return num
}

// NodeSearch remembers, while one job is being placed, which nodes failed tasks of each
// predicate key, so that the job's later tasks with the same key skip them. It is only valid
// while resources on nodes do not grow, that is within the placement of one job.
type NodeSearch struct {
	failed map[uint64]map[int][]string
	// within, when not nil, are the only nodes the search looks at (see NewDomainSearch).
	within []*api.NodeInfo
}

// NewNodeSearch starts a search memory for one job.
func NewNodeSearch() *NodeSearch { return &NodeSearch{failed: map[uint64]map[int][]string{}} }

// Placement is where a task may go.
type Placement struct {
	// Node is the chosen node.
	Node *api.NodeInfo
	// Pipelined is true when the task fits only once releasing resources are freed.
	Pipelined bool
}

// FitOnNode checks a task against one node: the node filters, then pods and resources. It
// returns no reason and whether the task must be pipelined (it fits only once releasing pods are
// gone: their resources, or the filters they alone fail), or the reasons it does not fit (one per
// missing resource, as kube-scheduler reports them).
func (ssn *Session) FitOnNode(t *api.TaskInfo, n *api.NodeInfo) (reasons []string, pipelined bool) {
	if r := ssn.Predicate(t, n); r != "" {
		if n.ReleasingPods == 0 || !ssn.fitsOnceReleased(t, n) {
			return []string{r}, false
		}
		// Only pods on their way out refuse it (a port they hold, their anti-affinity): it may
		// wait for them, as for the resources they release.
		if reasons, _ := fitCapacity(t, n); len(reasons) > 0 {
			return reasons, false
		}
		return nil, true
	}
	return fitCapacity(t, n)
}

// fitsOnceReleased reports whether the filters let t on n as the node will be once its
// releasing pods are gone.
func (ssn *Session) fitsOnceReleased(t *api.TaskInfo, n *api.NodeInfo) bool {
	ssn.onceReleased = true
	defer func() { ssn.onceReleased = false }()
	return ssn.Predicate(t, n) == ""
}

// OnceReleased reports whether the filters are being asked about nodes as they will be once
// their releasing pods are gone: filters that look at a node's other pods then pass over the
// pods with status Releasing.
func (ssn *Session) OnceReleased() bool { return ssn.onceReleased }

// SelectNode finds the best node for a pending task: its nominated node if that still fits;
// else, the first time a predicate key is seen in the cycle, the best-scored among the first
// fitting nodes found starting where the last search stopped; from the second time on, the
// best-scored node of all, from the key's node ranking (which later tasks of the key share).
// A node with room now is preferred to one that fits only once resources are released. When
// nothing fits, the returned FitErrors say why, node by node; search may be nil.
func (ssn *Session) SelectNode(t *api.TaskInfo, search *NodeSearch) (*Placement, *api.FitErrors) {
	nodes := ssn.NodeList
	inDomain := search != nil && search.within != nil
	if inDomain {
		nodes = search.within
	}
	fe := api.NewFitErrors(len(nodes))
	if len(nodes) == 0 {
		return nil, fe
	}
	if err := ssn.PrePredicate(t); err != nil {
		fe.Err = err.Error()
		return nil, fe
	}
	if t.NominatedNode != "" {
		if n, ok := ssn.Nodes[t.NominatedNode]; ok && (!inDomain || slices.Contains(nodes, n)) {
			if reasons, pipelined := ssn.FitOnNode(t, n); len(reasons) == 0 {
				return &Placement{Node: n, Pipelined: pipelined}, nil
			}
		}
	}
	if !inDomain && ssn.shareable(t) {
		ssn.keyUses[t.PredicateKey]++
		if ssn.keyUses[t.PredicateKey] > 1 {
			return ssn.ranked(t)
		}
	}
	var failed map[int][]string
	if search != nil {
		failed = search.failed[t.PredicateKey]
		if failed == nil {
			failed = map[int][]string{}
			search.failed[t.PredicateKey] = failed
		}
	}
	want, start := len(nodes), 0
	if !inDomain {
		want, start = FeasibleNodesToFind(len(nodes)), ssn.nodeStart%len(nodes)
	}
	var now, later []*api.NodeInfo
	scanned := 0
	for i := 0; i < len(nodes) && len(now) < want; i++ {
		idx := (start + i) % len(nodes)
		scanned++
		if reasons, ok := failed[idx]; ok {
			for _, r := range reasons {
				fe.Add(r)
			}
			continue
		}
		n := nodes[idx]
		reasons, pipelined := ssn.FitOnNode(t, n)
		switch {
		case len(reasons) > 0:
			for _, r := range reasons {
				fe.Add(r)
			}
			if failed != nil && !ssn.podSpecific[reasons[0]] {
				failed[idx] = reasons
			}
		case pipelined:
			later = append(later, n)
		default:
			now = append(now, n)
		}
	}
	if !inDomain {
		ssn.nodeStart = (start + scanned) % len(nodes)
	}
	candidates, pipelined := now, false
	if len(candidates) == 0 {
		candidates, pipelined = later, true
	}
	if len(candidates) == 0 {
		return nil, fe
	}
	best := candidates[0]
	if len(candidates) > 1 && ssn.HasNodeOrder() {
		bestScore := ssn.NodeScore(t, best)
		for _, n := range candidates[1:] {
			if s := ssn.NodeScore(t, n); s > bestScore {
				best, bestScore = n, s
			}
		}
	}
	return &Placement{Node: best, Pipelined: pipelined}, nil
}

// shareable reports whether a task's filter results and scores depend only on its predicate
// key and the nodes' free resources, so a node ranking may serve it: it has no inter-pod
// affinity, asks for no host port (a port taken by a pod placed earlier in the cycle refuses
// it), has no topology spread constraint nor preferred inter-pod affinity, and no pod on any
// node refuses neighbours, and no node score depends on other nodes.
func (ssn *Session) shareable(t *api.TaskInfo) bool {
	return !ssn.antiAffinity && !ssn.scoresSpanNodes && !api.HasRequiredPodAffinity(t.Pod) && !api.HasHostPorts(t.Pod) && !api.HasPlacementRules(t.Pod)
}

// PredicateNodes returns the nodes whose filters let the task on, whatever their free
// resources (preemption and reclaim free resources themselves), and why the others refused.
func (ssn *Session) PredicateNodes(t *api.TaskInfo) ([]*api.NodeInfo, *api.FitErrors) {
	fe := api.NewFitErrors(len(ssn.NodeList))
	if err := ssn.PrePredicate(t); err != nil {
		fe.Err = err.Error()
		return nil, fe
	}
	var out []*api.NodeInfo
	for _, n := range ssn.NodeList {
		if reason := ssn.Predicate(t, n); reason != "" {
			fe.Add(reason)
			continue
		}
		out = append(out, n)
	}
	return out, fe
}
