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
	"sort"

	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// taskGroup is tasks of one subgroup, or (sub nil) tasks of none.
type taskGroup struct {
	sub   *api.SubGroup
	tasks []*api.TaskInfo
}

// bySubGroup splits tasks, keeping their order within each part: first those of no subgroup,
// then each subgroup's, subgroups in order (policy, then partition index).
func bySubGroup(j *api.JobInfo, tasks []*api.TaskInfo) []taskGroup {
	var none []*api.TaskInfo
	index := map[api.SubGroup]int{}
	var groups []taskGroup
	for _, t := range tasks {
		sg, ok := j.SubGroupOf(t)
		if !ok {
			none = append(none, t)
			continue
		}
		i, seen := index[sg]
		if !seen {
			i = len(groups)
			index[sg] = i
			groups = append(groups, taskGroup{sub: &sg})
		}
		groups[i].tasks = append(groups[i].tasks, t)
	}
	sort.SliceStable(groups, func(a, b int) bool { return groups[a].sub.Less(*groups[b].sub) })
	if len(none) > 0 {
		groups = append([]taskGroup{{tasks: none}}, groups...)
	}
	return groups
}

// subGroupPlaced counts the job's tasks of a subgroup that are placed or promised a node.
func subGroupPlaced(j *api.JobInfo, sg api.SubGroup) int32 {
	var n int32
	for _, t := range j.Tasks {
		if api.AllocatedStatus(t.Status) || t.Status == api.Succeeded || t.Status == api.Pipelined {
			if got, ok := j.SubGroupOf(t); ok && got == sg {
				n++
			}
		}
	}
	return n
}

// trySubGroups places a job's tasks subgroup by subgroup into stmt, each subgroup whole or not
// at all: a subgroup (a vcjob's partition) is placed only when its subGroupSize of pods fit
// together, within one HyperNode when its policy has a network topology (inside the nodes search
// looks at, which are the job's own domain when the job has a network topology). Once the job
// is ready, the subgroups left are returned untried, for its next turn.
func trySubGroups(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, stmt *framework.Statement, tasks []*api.TaskInfo,
	promised *promises, search *framework.NodeSearch, record recorder) (untried []*api.TaskInfo, placed int) {
	groups := bySubGroup(j, tasks)
	remaining := len(tasks)
	for gi, g := range groups {
		remaining -= len(g.tasks)
		if gi > 0 && ssn.JobReady(j) {
			for _, rest := range groups[gi:] {
				untried = append(untried, rest.tasks...)
			}
			return untried, placed
		}
		if g.sub == nil {
			_, n, stopped := tryTasks(ssn, q, j, stmt, g.tasks, remaining, promised, search, record, false)
			placed += n
			if stopped {
				return nil, placed
			}
			continue
		}
		policy := j.SubGroups[g.sub.Policy]
		mark := stmt.Mark()
		n, stopped, whole := trySubGroup(ssn, q, j, stmt, g, policy, remaining, promised, search, record)
		if !whole {
			stmt.DiscardFrom(mark)
			continue
		}
		placed += n
		if stopped {
			return nil, placed
		}
	}
	return nil, placed
}

// trySubGroup places one subgroup's tasks into stmt, within a HyperNode when its policy has a
// confining network topology. It reports how many it placed, whether the job can no longer be
// placed (stopped), and whether the subgroup is whole (its subGroupSize placed); when it is not,
// it has recorded why, and the caller undoes its placements.
func trySubGroup(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, stmt *framework.Statement, g taskGroup, policy api.SubGroupPolicy,
	more int, promised *promises, search *framework.NodeSearch, record recorder) (placed int, stopped, whole bool) {
	complete := func() bool { return subGroupPlaced(j, *g.sub) >= policy.Size }
	if policy.NetworkTopology == nil {
		placed, stopped = tryInto(ssn, q, j, stmt, g.tasks, more, promised, search, record)
		return placed, stopped, explainPartial(j, g, policy, complete(), record)
	}
	topo := ssn.Topology()
	limit := topology.LimitOf(policy.NetworkTopology, topo)
	if limit.Problem != "" {
		recordAll(g.tasks, record, fmt.Sprintf("subgroup %s: %s, but %s", g.sub.Key, limit.Describe(), limit.Problem))
		return 0, false, false
	}
	missing := max(int(policy.Size-subGroupPlaced(j, *g.sub)), 1)
	var need api.Resource
	for i, t := range g.tasks {
		if i >= missing {
			break
		}
		need.Add(t.Resreq)
	}
	want := domainWant{limit: limit, held: j.HeldNodes(g.sub), need: need, upper: requests(g.tasks), within: search.Within()}
	best, nodes, miss := chooseDomain(ssn, topo, j, want, func(nodes []*api.NodeInfo, rec recorder) (bool, int, func()) {
		m := stmt.Mark()
		n, _ := tryInto(ssn, q, j, stmt, g.tasks, more, promised, framework.NewDomainSearch(nodes), rec)
		return complete(), n, func() { stmt.DiscardFrom(m) }
	})
	switch {
	case best != nil:
		placed, stopped = tryInto(ssn, q, j, stmt, g.tasks, more, promised, framework.NewDomainSearch(nodes), inDomain(ssn, best))
	case limit.Tier >= topo.TopTier():
		placed, stopped = tryInto(ssn, q, j, stmt, g.tasks, more, promised, search, record)
	default:
		msg, fits := miss.explain(want, "the pods of subgroup "+g.sub.Key)
		for _, t := range g.tasks {
			if fe, ok := fits[t.UID]; ok {
				record(t, fe)
			}
		}
		recordAll(g.tasks[:1], record, msg)
		return 0, false, false
	}
	return placed, stopped, explainPartial(j, g, policy, complete(), record)
}

// tryInto places tasks of one subgroup into stmt, not stopping when the job is ready.
func tryInto(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, stmt *framework.Statement, tasks []*api.TaskInfo, more int,
	promised *promises, search *framework.NodeSearch, record recorder) (int, bool) {
	_, n, stopped := tryTasks(ssn, q, j, stmt, tasks, more, promised, search, record, false)
	return n, stopped
}

// explainPartial returns whole. When the subgroup is not whole but some of its pods fit (they
// are about to be taken back), it says so on those: the pods that did not fit said why
// themselves.
func explainPartial(j *api.JobInfo, g taskGroup, policy api.SubGroupPolicy, whole bool, record recorder) bool {
	if whole {
		return true
	}
	var fitted []*api.TaskInfo
	for _, t := range g.tasks {
		if cur := j.Tasks[t.UID]; cur != nil && (api.AllocatedStatus(cur.Status) || cur.Status == api.Pipelined) {
			fitted = append(fitted, t)
		}
	}
	if len(fitted) > 0 {
		recordAll(fitted, record, fmt.Sprintf("subgroup %s is placed whole or not at all, and only %d of its subGroupSize %d pods fit together",
			g.sub.Key, subGroupPlaced(j, *g.sub), policy.Size))
	}
	return false
}

// recordAll records the same reason for each task.
func recordAll(tasks []*api.TaskInfo, record recorder, msg string) {
	for _, t := range tasks {
		record(t, &api.FitErrors{Err: msg})
	}
}
