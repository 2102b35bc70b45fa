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

package allocate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// networkTopology returns the network topology constraint of a job's PodGroup, or nil.
func networkTopology(j *api.JobInfo) *schedulingv1beta1.NetworkTopologySpec {
	if j.PodGroup == nil {
		return nil
	}
	return j.PodGroup.Spec.NetworkTopology
}

// placeInDomain places a job with a network topology within one network domain (a HyperNode
// and the nodes it holds), chosen by chooseDomain. When the job allows the whole cluster (soft
// mode, or a tier above every HyperNode's) and no domain fits, it is placed anywhere. A hard job
// that fits no domain waits, and says which domains it tried and what the closest one lacked.
func placeInDomain(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, tasks []*api.TaskInfo, promised *promises,
	nt *schedulingv1beta1.NetworkTopologySpec) []*api.TaskInfo {
	topo := ssn.Topology()
	limit := topology.LimitOf(nt, topo)
	if limit.Problem != "" {
		waitFor(ssn, j, tasks, fmt.Sprintf("%s, but %s", limit.Describe(), limit.Problem), nil)
		return nil
	}
	want := domainWant{limit: limit, held: j.HeldNodes(nil), need: gangNeed(j, tasks), upper: requests(tasks)}
	best, nodes, miss := chooseDomain(ssn, topo, j, want, func(nodes []*api.NodeInfo, record recorder) (bool, int, func()) {
		stmt, _, placed := try(ssn, q, j, tasks, promised, framework.NewDomainSearch(nodes), record)
		return ssn.JobReady(j) || ssn.JobPipelined(j), placed, stmt.Discard
	})
	if best != nil {
		stmt, untried, _ := try(ssn, q, j, tasks, promised, framework.NewDomainSearch(nodes), inDomain(ssn, best))
		return settle(ssn, j, stmt, untried)
	}
	if limit.Tier >= topo.TopTier() {
		// The whole cluster is allowed: place the job anywhere, as it would be without a network
		// topology.
		return anywhere(ssn, q, j, tasks, promised)
	}
	msg, fits := miss.explain(want, "its pods")
	waitFor(ssn, j, tasks, msg, fits)
	return nil
}

// recorder records why a task fits no node.
type recorder func(*api.TaskInfo, *api.FitErrors)

// domainAttempt tries to place tasks on nodes, recording why a task fits none with record; it
// reports whether the placement holds (the gang, or a subgroup, is whole), how many tasks it
// placed, and how to undo it.
type domainAttempt func(nodes []*api.NodeInfo, record recorder) (ok bool, placed int, undo func())

// domainWant is what a domain must offer: a tier at most limit.Tier, every node of held, free
// resources of at least need together, and (when within is not nil) only nodes of within. upper
// is what every task an attempt may place asks for together, which bounds the domains' scores
// (see framework.HyperNodeScoreBound).
type domainWant struct {
	limit  topology.Limit
	held   []string
	need   api.Resource
	upper  api.Resource
	within map[string]bool
}

// domainMiss is what a search that found no domain saw: how many domains it tried, how many
// lacked the free resources, and the tried domain that placed the most tasks, with why its first
// unplaced task did not fit there.
type domainMiss struct {
	tried, lacking int
	closest        *topology.Domain
	closestIndex   int
	placed         int
	first          *api.TaskInfo
	fits           map[api.TaskID]*api.FitErrors
}

// chooseDomain tries the domains a placement may use, from the lowest tier up to the highest
// allowed, and returns the one to use with its nodes: in the first tier where attempt succeeds in
// some domain, the one the HyperNode order scores best once the attempt is in it (ties: by name).
// Domains that do not hold every held node (where the job's or subgroup's pods already are) are
// left out, so placements grow, and replaced pods come back, where they already are. With no
// domain, it returns what it saw. Every attempt is undone.
//
// Not every domain is tried. When no plugin scores HyperNodes, every domain scores the same and
// the first where the attempt succeeds is the one. When every score has a bound, the domains are
// tried from the highest bound down, and the search stops once the best score found is above the
// bounds left (or equal to them, from domains after it by name). Either way the choice is the one
// trying every domain makes: with 32 racks, a gang is placed on trial once or a few times instead
// of 32 times.
func chooseDomain(ssn *framework.Session, topo *topology.Topology, j *api.JobInfo, want domainWant, attempt domainAttempt) (*topology.Domain, []*api.NodeInfo, domainMiss) {
	var miss domainMiss
	scored, bounded := ssn.ScoresHyperNodes(), ssn.BoundsHyperNodeScores()
	domains := topo.Domains
	for start := 0; start < len(domains); {
		tier := domains[start].Tier
		end := start
		for end < len(domains) && domains[end].Tier == tier {
			end++
		}
		group := domains[start:end]
		start = end
		if tier > want.limit.Tier {
			break
		}
		next := candidatesByName(ssn, group, want, &miss)
		if bounded {
			next = candidatesByBound(ssn, j, group, want, &miss)
		}
		var best domainCandidate
		var bestScore float64
		for c, ok := next(); ok; c, ok = next() {
			if best.domain != nil && (c.bound < bestScore || c.bound == bestScore && c.index > best.index) {
				// The candidates left are bounded as low or lower, and come later by name when as
				// high: none can be chosen.
				break
			}
			miss.tried++
			fits := map[api.TaskID]*api.FitErrors{}
			var first *api.TaskInfo
			ok, placed, undo := attempt(c.nodes, func(t *api.TaskInfo, fe *api.FitErrors) {
				if first == nil {
					first = t
				}
				fits[t.UID] = fe
			})
			if ok && !scored {
				undo()
				return c.domain, c.nodes, miss
			}
			if ok {
				if score := ssn.HyperNodeScore(j, c.nodes); best.domain == nil || score > bestScore || score == bestScore && c.index < best.index {
					best, bestScore = c, score
				}
			} else if miss.closer(c, placed) {
				miss.closest, miss.closestIndex, miss.placed, miss.fits, miss.first = c.domain, c.index, placed, fits, first
			}
			undo()
		}
		if best.domain != nil {
			return best.domain, best.nodes, miss
		}
	}
	return nil, nil, miss
}

// domainCandidate is a domain of one tier worth trying, with its nodes, its place in the tier
// (by name) and the bound of its score (+Inf when there is none).
type domainCandidate struct {
	domain *topology.Domain
	nodes  []*api.NodeInfo
	index  int
	bound  float64
}

// candidatesByName hands out, one at a time and by name, the domains of one tier that hold the
// held nodes, lie within the nodes allowed and have room for want.need, counting in miss those
// that lack the room. A domain is looked at only when asked for: the search may stop before.
func candidatesByName(ssn *framework.Session, group []*topology.Domain, want domainWant, miss *domainMiss) func() (domainCandidate, bool) {
	i := 0
	return func() (domainCandidate, bool) {
		for ; i < len(group); i++ {
			if c, ok := candidate(ssn, group, i, want, miss); ok {
				i++
				return c, true
			}
		}
		return domainCandidate{}, false
	}
}

// candidatesByBound hands out the same domains as candidatesByName, all looked at first, from the
// highest bound of their score down (ties: by name).
func candidatesByBound(ssn *framework.Session, j *api.JobInfo, group []*topology.Domain, want domainWant, miss *domainMiss) func() (domainCandidate, bool) {
	cands := make([]domainCandidate, 0, len(group))
	for i := range group {
		if c, ok := candidate(ssn, group, i, want, miss); ok {
			c.bound = ssn.HyperNodeScoreBound(j, c.nodes, &want.upper)
			cands = append(cands, c)
		}
	}
	slices.SortStableFunc(cands, func(a, b domainCandidate) int { return cmp.Compare(b.bound, a.bound) })
	return func() (domainCandidate, bool) {
		if len(cands) == 0 {
			return domainCandidate{}, false
		}
		c := cands[0]
		cands = cands[1:]
		return c, true
	}
}

// candidate reports whether the i-th domain of group is worth trying, counting it in miss when
// it lacks the room.
func candidate(ssn *framework.Session, group []*topology.Domain, i int, want domainWant, miss *domainMiss) (domainCandidate, bool) {
	d := group[i]
	if !d.HoldsAll(want.held) || !within(d, want.within) {
		return domainCandidate{}, false
	}
	nodes := ssn.DomainNodes(d)
	if !roomFor(nodes, want.need) {
		miss.lacking++
		return domainCandidate{}, false
	}
	return domainCandidate{domain: d, nodes: nodes, index: i, bound: math.Inf(1)}, true
}

// closer reports whether a tried domain that placed placed tasks is closer than the closest so
// far: it placed more, or as many and comes first by name in the same tier (domains are tried
// tier by tier, and within a tier not always by name).
func (m *domainMiss) closer(c domainCandidate, placed int) bool {
	if m.closest == nil || placed != m.placed {
		return m.closest == nil || placed > m.placed
	}
	return c.domain.Tier == m.closest.Tier && c.index < m.closestIndex
}

// explain says why no domain was found for what (e.g. "its pods"), and why the closest domain's
// first unplaced task did not fit there.
func (m domainMiss) explain(want domainWant, what string) (string, map[api.TaskID]*api.FitErrors) {
	limit := want.limit
	var why string
	switch {
	case m.tried == 0 && m.lacking == 0 && len(want.held) > 0:
		why = fmt.Sprintf("no HyperNode of tier %d or lower holds the nodes its placed pods are on (%s)", limit.Tier, strings.Join(want.held, ", "))
	case m.tried == 0 && m.lacking == 0:
		why = fmt.Sprintf("there is no HyperNode of tier %d or lower", limit.Tier)
	case m.tried == 0:
		why = fmt.Sprintf("none of the %d HyperNodes of tier %d or lower has the free resources %s need together (%s)", m.lacking, limit.Tier, what, want.need.String())
	default:
		why = fmt.Sprintf("%s fit together in none of the %d HyperNodes of tier %d or lower with room enough (%d more lack the free resources); "+
			"the closest, %s (tier %d), holds %d of them", what, m.tried, limit.Tier, m.lacking, m.closest.Name, m.closest.Tier, m.placed)
	}
	var fits map[api.TaskID]*api.FitErrors
	if m.closest != nil && m.first != nil {
		fits = map[api.TaskID]*api.FitErrors{m.first.UID: prefixed(m.fits[m.first.UID], m.closest)}
	}
	return fmt.Sprintf("%s, and %s", limit.Describe(), why), fits
}

// within reports whether every node of a domain is in nodes (nil: any node).
func within(d *topology.Domain, nodes map[string]bool) bool {
	if nodes == nil {
		return true
	}
	for _, n := range d.Nodes {
		if !nodes[n] {
			return false
		}
	}
	return true
}

// inDomain records fit errors of tasks tried in a domain, naming it.
func inDomain(ssn *framework.Session, d *topology.Domain) recorder {
	return func(t *api.TaskInfo, fe *api.FitErrors) { ssn.RecordFitErrors(t, prefixed(fe, d)) }
}

// prefixed returns fit errors whose message starts by naming the domain they were found in.
func prefixed(fe *api.FitErrors, d *topology.Domain) *api.FitErrors {
	return &api.FitErrors{Err: fmt.Sprintf("in HyperNode %s: %s", d.Name, fe.Error())}
}

// waitFor says why a job with a network topology is not placed: on the PodGroup, and on each
// of its pods (with fits, when given, saying why a pod did not fit in the closest domain).
func waitFor(ssn *framework.Session, j *api.JobInfo, tasks []*api.TaskInfo, msg string, fits map[api.TaskID]*api.FitErrors) {
	ssn.Explain(j.UID, msg)
	for _, t := range tasks {
		if fe, ok := fits[t.UID]; ok {
			ssn.RecordFitErrors(t, fe)
		}
	}
	if len(fits) == 0 && len(tasks) > 0 {
		ssn.RecordFitErrors(tasks[0], &api.FitErrors{Err: "the pod waits with its job: " + msg})
	}
}

// gangNeed is what the job's tasks to be placed now request together: the first of them that
// the gang still lacks, or the first one when the gang is met.
func gangNeed(j *api.JobInfo, tasks []*api.TaskInfo) api.Resource {
	missing := int(j.MinAvailable - j.ReadyTaskNum() - j.WaitingTaskNum())
	missing = max(missing, 1)
	var need api.Resource
	for i, t := range tasks {
		if i >= missing {
			break
		}
		need.Add(t.Resreq)
	}
	return need
}

// requests is what tasks ask for together.
func requests(tasks []*api.TaskInfo) api.Resource {
	var r api.Resource
	for _, t := range tasks {
		r.Add(t.Resreq)
	}
	return r
}

// roomFor reports whether nodes have, together, the free (or releasing) resources need asks:
// a domain that has not cannot hold the gang, whatever the placement.
func roomFor(nodes []*api.NodeInfo, need api.Resource) bool {
	var free api.Resource
	for _, n := range nodes {
		if !n.Ready || n.Unschedulable {
			continue
		}
		f := n.Allocatable.Clone()
		f.SubFloor(&n.Used)
		f.Add(&n.Releasing)
		f.SubFloor(&n.Pipelined)
		free.Add(&f)
	}
	for _, name := range need.Names() {
		if need.Get(name) > free.Get(name) {
			return false
		}
	}
	return true
}
