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
	"fmt"
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
// and the nodes it holds). Domains are tried from the lowest tier up to the highest the job
// allows; in the first tier where the job's gang fits in some domain, the domain the
// HyperNode order scores best is chosen (ties: by name). Domains that do not hold every node
// the job's placed pods are on are left out, so a job grows, and its pods come back, where it
// already is. When the job allows the whole cluster (soft mode, or a tier above every
// HyperNode's) and no domain fits, it is placed anywhere. A hard job that fits no domain waits,
// and says which domains it tried and what the closest one lacked.
func placeInDomain(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, tasks []*api.TaskInfo, promised *promises,
	nt *schedulingv1beta1.NetworkTopologySpec) []*api.TaskInfo {
	topo := ssn.Topology()
	limit := topology.LimitOf(nt, topo)
	if limit.Problem != "" {
		waitFor(ssn, j, tasks, fmt.Sprintf("%s, but %s", limit.Describe(), limit.Problem), nil)
		return nil
	}
	held := heldNodes(j)
	need := gangNeed(j, tasks)
	// closest is the tried domain that placed the most tasks, and why its first unplaced task
	// did not fit there.
	var closest struct {
		domain *topology.Domain
		placed int
		fits   map[api.TaskID]*api.FitErrors
		first  *api.TaskInfo
	}
	tried, lacking := 0, 0
	domains := topo.Domains
	for start := 0; start < len(domains); {
		tier := domains[start].Tier
		end := start
		for end < len(domains) && domains[end].Tier == tier {
			end++
		}
		group := domains[start:end]
		start = end
		if tier > limit.Tier {
			break
		}
		var best *topology.Domain
		var bestNodes []*api.NodeInfo
		var bestScore float64
		for _, d := range group {
			if !holdsAll(d, held) {
				continue
			}
			nodes := ssn.DomainNodes(d)
			if !roomFor(nodes, need) {
				lacking++
				continue
			}
			tried++
			fits := map[api.TaskID]*api.FitErrors{}
			var first *api.TaskInfo
			record := func(t *api.TaskInfo, fe *api.FitErrors) {
				if first == nil {
					first = t
				}
				fits[t.UID] = fe
			}
			stmt, _, placed := try(ssn, q, j, tasks, promised, framework.NewDomainSearch(nodes), record)
			if ssn.JobReady(j) || ssn.JobPipelined(j) {
				if score := ssn.HyperNodeScore(j, nodes); best == nil || score > bestScore {
					best, bestNodes, bestScore = d, nodes, score
				}
			} else if closest.domain == nil || placed > closest.placed {
				closest.domain, closest.placed, closest.fits, closest.first = d, placed, fits, first
			}
			stmt.Discard()
		}
		if best != nil {
			stmt, untried, _ := try(ssn, q, j, tasks, promised, framework.NewDomainSearch(bestNodes), inDomain(ssn, best))
			return settle(ssn, j, stmt, untried)
		}
	}
	if limit.Tier >= topo.TopTier() {
		// The whole cluster is allowed: place the job anywhere, as it would be without a network
		// topology (but within the nodes its placed pods hold, which the whole cluster holds).
		return anywhere(ssn, q, j, tasks, promised)
	}
	var why string
	switch {
	case tried == 0 && lacking == 0 && len(held) > 0:
		why = fmt.Sprintf("no HyperNode of tier %d or lower holds the nodes its placed pods are on (%s)", limit.Tier, strings.Join(held, ", "))
	case tried == 0 && lacking == 0:
		why = fmt.Sprintf("there is no HyperNode of tier %d or lower", limit.Tier)
	case tried == 0:
		why = fmt.Sprintf("none of the %d HyperNodes of tier %d or lower has the free resources its pods need together (%s)", lacking, limit.Tier, need.String())
	default:
		why = fmt.Sprintf("its pods fit together in none of the %d HyperNodes of tier %d or lower with room enough (%d more lack the free resources); "+
			"the closest, %s (tier %d), holds %d of them", tried, limit.Tier, lacking, closest.domain.Name, closest.domain.Tier, closest.placed)
	}
	msg := fmt.Sprintf("%s, and %s", limit.Describe(), why)
	var fits map[api.TaskID]*api.FitErrors
	if closest.domain != nil && closest.first != nil {
		fits = map[api.TaskID]*api.FitErrors{closest.first.UID: prefixed(closest.fits[closest.first.UID], closest.domain)}
	}
	waitFor(ssn, j, tasks, msg, fits)
	return nil
}

// inDomain records fit errors of tasks tried in a domain, naming it.
func inDomain(ssn *framework.Session, d *topology.Domain) func(*api.TaskInfo, *api.FitErrors) {
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

// heldNodes returns, sorted, the nodes the job's placed pods (and those waiting for a node's
// releasing resources) are on.
func heldNodes(j *api.JobInfo) []string {
	var out []string
	for _, t := range j.Tasks {
		if t.NodeName != "" && (api.AllocatedStatus(t.Status) || t.Status == api.Pipelined) {
			out = append(out, t.NodeName)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// holdsAll reports whether a domain holds every node of names.
func holdsAll(d *topology.Domain, names []string) bool {
	for _, n := range names {
		if !d.Holds(n) {
			return false
		}
	}
	return true
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
