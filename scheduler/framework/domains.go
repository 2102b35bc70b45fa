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
	"math"

	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

// HyperNodeOrderFn scores a network domain for a job whose tasks were just tried in it: it is
// called with the job's placements in the domain still applied, so nodes' Used include them.
// Higher is better.
type HyperNodeOrderFn func(job *api.JobInfo, nodes []*api.NodeInfo) float64

// HyperNodeScoreBound bounds a HyperNodeOrderFn before a trial: called with the domain's nodes as
// they are and add, what the tasks about to be tried ask for together, it returns at least what
// the HyperNodeOrderFn scores the domain once any of those tasks are placed in it. A search that
// has a domain scoring more than another's bound need not try that one.
type HyperNodeScoreBound func(job *api.JobInfo, nodes []*api.NodeInfo, add *api.Resource) float64

type hyperNodeScorer struct {
	score HyperNodeOrderFn
	bound HyperNodeScoreBound
}

// AddHyperNodeOrderFn registers a network domain score and, when bound is not nil, its bound.
func (ssn *Session) AddHyperNodeOrderFn(name string, fn HyperNodeOrderFn, bound HyperNodeScoreBound) {
	ssn.hyperNodeOrderFns[name] = hyperNodeScorer{score: fn, bound: bound}
}

// HyperNodeScore sums the domain scores of the plugins whose enabledHyperNodeOrder is on.
func (ssn *Session) HyperNodeScore(j *api.JobInfo, nodes []*api.NodeInfo) float64 {
	var score float64
	for _, s := range ssn.hyperNodeScorers() {
		score += s.score(j, nodes)
	}
	return score
}

// HyperNodeScoreBound sums the bounds of the domain scores HyperNodeScore sums (see
// HyperNodeScoreBound, the type); a score with no bound counts as +Inf.
func (ssn *Session) HyperNodeScoreBound(j *api.JobInfo, nodes []*api.NodeInfo, add *api.Resource) float64 {
	var bound float64
	for _, s := range ssn.hyperNodeScorers() {
		if s.bound == nil {
			return math.Inf(1)
		}
		bound += s.bound(j, nodes, add)
	}
	return bound
}

// BoundsHyperNodeScores reports whether a plugin scores HyperNodes and every such score has a
// bound.
func (ssn *Session) BoundsHyperNodeScores() bool {
	scorers := ssn.hyperNodeScorers()
	for _, s := range scorers {
		if s.bound == nil {
			return false
		}
	}
	return len(scorers) > 0
}

// ScoresHyperNodes reports whether a plugin scores HyperNodes (HyperNodeScore is not always 0).
func (ssn *Session) ScoresHyperNodes() bool { return len(ssn.hyperNodeScorers()) > 0 }

// hyperNodeScorers are the HyperNode scores of the plugins whose enabledHyperNodeOrder is on, in
// the configuration's order.
func (ssn *Session) hyperNodeScorers() []hyperNodeScorer {
	var out []hyperNodeScorer
	for _, p := range ssn.plugins {
		if s, ok := ssn.hyperNodeOrderFns[p.option.Name]; ok && conf.Enabled(p.option.EnabledHyperNodeOrder) {
			out = append(out, s)
		}
	}
	return out
}

// Topology returns the cycle's network domains (the HyperNodes over the snapshot's nodes).
func (ssn *Session) Topology() *topology.Topology { return ssn.Snapshot.Topology() }

// DomainNodes returns the snapshot's nodes a domain holds, in name order.
func (ssn *Session) DomainNodes(d *topology.Domain) []*api.NodeInfo {
	out := make([]*api.NodeInfo, 0, len(d.Nodes))
	for _, name := range d.Nodes {
		if n, ok := ssn.Nodes[name]; ok && n.Node != nil {
			out = append(out, n)
		}
	}
	return out
}

// NewDomainSearch starts a search memory for one job that places its tasks only on nodes, the
// nodes of one network domain: every one of them is looked at, and the best scored is chosen.
func NewDomainSearch(nodes []*api.NodeInfo) *NodeSearch {
	s := NewNodeSearch()
	s.within = nodes
	if s.within == nil {
		s.within = []*api.NodeInfo{}
	}
	return s
}

// Within returns the nodes a domain search is held to, as a set, or nil when it looks at every
// node.
func (s *NodeSearch) Within() map[string]bool {
	if s == nil || s.within == nil {
		return nil
	}
	out := make(map[string]bool, len(s.within))
	for _, n := range s.within {
		out[n.Name] = true
	}
	return out
}
