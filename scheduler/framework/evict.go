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
	"sort"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/metrics"
)

// Evictable reports whether a task may be chosen as a victim at all: it is bound or running
// (binds in flight and placements of this cycle are left alone) and not marked
// volcano.sh/preemptable=false.
func Evictable(t *api.TaskInfo) bool {
	return (t.Status == api.Running || t.Status == api.Bound) && t.Preemptable
}

// NodeCandidates returns the tasks on a node, of jobs in the session, that keep returns true
// for and that are Evictable, leaving out jobs whose PodGroup is marked
// volcano.sh/preemptable=false.
func (ssn *Session) NodeCandidates(n *api.NodeInfo, keep func(t *api.TaskInfo, j *api.JobInfo) bool) []*api.TaskInfo {
	var out []*api.TaskInfo
	for _, nt := range n.Tasks {
		if nt.Job == "" {
			continue
		}
		j, ok := ssn.Jobs[nt.Job]
		if !ok || !j.Preemptable {
			continue
		}
		t, ok := j.Tasks[nt.UID]
		if !ok || !Evictable(t) || !keep(t, j) {
			continue
		}
		out = append(out, t)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].UID < out[b].UID })
	return out
}

// EvictFor evicts victims from node, the least important first (reverse task order), until the
// preemptor fits in what the node will have free, then pipelines the preemptor there. It
// reports whether that worked; if not, nothing was changed.
func (ssn *Session) EvictFor(stmt *Statement, preemptor *api.TaskInfo, n *api.NodeInfo, victims []*api.TaskInfo, reason string) bool {
	// Enough, all together?
	free := n.FutureIdle()
	for _, v := range victims {
		free.Add(v.Resreq)
	}
	if !preemptor.Resreq.LessEqual(&free) {
		return false
	}
	ordered := append([]*api.TaskInfo(nil), victims...)
	sort.SliceStable(ordered, func(a, b int) bool { return ssn.TaskOrderFn(ordered[b], ordered[a]) })
	mark := len(stmt.ops)
	for _, v := range ordered {
		if n.FitsFutureIdle(preemptor.Resreq) {
			break
		}
		if err := stmt.Evict(v, reason); err != nil {
			ssn.Log.Error(err, "evicting a task", "task", v.Namespace+"/"+v.Name)
		}
	}
	if !n.FitsFutureIdle(preemptor.Resreq) {
		stmt.discardFrom(mark)
		return false
	}
	if err := stmt.Pipeline(preemptor, n.Name); err != nil {
		ssn.Log.Error(err, "pipelining a task", "task", preemptor.Namespace+"/"+preemptor.Name)
		stmt.discardFrom(mark)
		return false
	}
	return true
}

// EvictionSearch is how preempt and reclaim look for room for a starving job's pending tasks.
type EvictionSearch struct {
	// Reason is why the victims are evicted, as their pods and events say.
	Reason string
	// Candidates keeps the tasks on a node that may be victims (see NodeCandidates).
	Candidates func(t *api.TaskInfo, j *api.JobInfo) bool
	// Victims lets the plugins choose among a node's candidates (Preemptable or Reclaimable).
	Victims func(preemptor *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo
	// MayEvictFor, when set, is asked before each task: false ends the search for the job.
	MayEvictFor func(t *api.TaskInfo) bool
	// BestNodesFirst tries the nodes in the order of the plugins' scores, best first; otherwise
	// in the order the predicates return them.
	BestNodesFirst bool
}

// EvictForJob tries to place each pending task of the job that allows preemption by evicting, on
// the first node where that works, victims the search chooses. It commits the evictions and
// placements when the job is then pipelined (its gang can start once the victims are gone),
// undoes everything otherwise, and reports whether it committed. The attempt, and the victims
// of a committed one, go to the metrics.
func (ssn *Session) EvictForJob(j *api.JobInfo, s EvictionSearch) bool {
	stmt := ssn.NewStatement()
	evicted := false
	for _, t := range ssn.PendingTasks(j, false) {
		if t.PreemptionNever {
			continue
		}
		if s.MayEvictFor != nil && !s.MayEvictFor(t) {
			break
		}
		nodes, _ := ssn.PredicateNodes(t)
		if s.BestNodesFirst {
			nodes = ssn.bestNodesFirst(t, nodes)
		}
		for _, n := range nodes {
			candidates := ssn.NodeCandidates(n, s.Candidates)
			if len(candidates) == 0 {
				continue
			}
			victims := s.Victims(t, candidates)
			if len(victims) == 0 {
				continue
			}
			if ssn.EvictFor(stmt, t, n, victims, s.Reason) {
				evicted = true
				break
			}
		}
	}
	if evicted && ssn.JobPipelined(j) {
		metrics.UpdatePreemption(stmt.Evictions())
		stmt.Commit()
		return true
	}
	metrics.UpdatePreemption(0)
	stmt.Discard()
	return false
}

// bestNodesFirst orders nodes by the plugins' scores for t, best first.
func (ssn *Session) bestNodesFirst(t *api.TaskInfo, nodes []*api.NodeInfo) []*api.NodeInfo {
	if !ssn.HasNodeOrder() || len(nodes) < 2 {
		return nodes
	}
	scores := make(map[string]float64, len(nodes))
	for _, n := range nodes {
		scores[n.Name] = ssn.NodeScore(t, n)
	}
	sort.SliceStable(nodes, func(a, b int) bool { return scores[nodes[a].Name] > scores[nodes[b].Name] })
	return nodes
}
