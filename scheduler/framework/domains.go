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
	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

// HyperNodeOrderFn scores a network domain for a job whose tasks were just tried in it: it is
// called with the job's placements in the domain still applied, so nodes' Used include them.
// Higher is better.
type HyperNodeOrderFn func(job *api.JobInfo, nodes []*api.NodeInfo) float64

// AddHyperNodeOrderFn registers a network domain score.
func (ssn *Session) AddHyperNodeOrderFn(name string, fn HyperNodeOrderFn) {
	ssn.hyperNodeOrderFns[name] = fn
}

// HyperNodeScore sums the domain scores of the plugins whose enabledHyperNodeOrder is on.
func (ssn *Session) HyperNodeScore(j *api.JobInfo, nodes []*api.NodeInfo) float64 {
	var score float64
	for _, fn := range ssn.hyperNodeScorers() {
		score += fn(j, nodes)
	}
	return score
}

// ScoresHyperNodes reports whether a plugin scores HyperNodes (HyperNodeScore is not always 0).
func (ssn *Session) ScoresHyperNodes() bool { return len(ssn.hyperNodeScorers()) > 0 }

// hyperNodeScorers are the HyperNode order functions of the plugins whose enabledHyperNodeOrder
// is on, in the configuration's order.
func (ssn *Session) hyperNodeScorers() []HyperNodeOrderFn {
	var fns []HyperNodeOrderFn
	for _, p := range ssn.plugins {
		if fn, ok := ssn.hyperNodeOrderFns[p.option.Name]; ok && conf.Enabled(p.option.EnabledHyperNodeOrder) {
			fns = append(fns, fn)
		}
	}
	return fns
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
