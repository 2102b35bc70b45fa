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
