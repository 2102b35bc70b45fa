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
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/metrics"
)

// MaxRoomSimulations bounds how many times one starving gang is placed on a simulated cluster
// in one cycle, searching and pruning together.
const MaxRoomSimulations = 16

// GangPluginName is the plugin whose victim rule (never take a running gang below its minimum)
// the gang-aware search enforces itself, with bundles; its victim callbacks are not consulted.
const GangPluginName = "gang"

// RoomSearch is how preempt or reclaim makes room for a starving gang.
type RoomSearch struct {
	// Action names the action in messages: "preemption" or "reclaim".
	Action string
	// Candidates keeps the jobs that may lose pods. When it refuses a job for a protection the
	// user set (a queue marked reclaimable: false), it says which in protectedBy.
	Candidates func(vj *api.JobInfo) (ok bool, protectedBy string)
	// Victims lets the plugins choose among candidate tasks, given least important first.
	Victims func(preemptor *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo
	// VictimOrder, when set, compares victim jobs before their priority: negative gives l up
	// first.
	VictimOrder func(l, r *api.JobInfo) int
	// MayPlace is asked for each of the gang's tasks on the simulated cluster (the queue's
	// limits, with the victims gone).
	MayPlace func(t *api.TaskInfo) bool
	// Reason is why the victims are evicted, as their DisruptionTarget condition and event say.
	Reason string
	// Doing says, for the gang's PodGroup, what happens while the victims go.
	Doing func(victims []*api.TaskInfo) string
}

// bundle is a part of a victim job that goes together: one surplus pod, or the rest of the job.
type bundle struct {
	job   *api.JobInfo
	tasks []*api.TaskInfo
	// whole is the job's last part: taking it takes the job away entirely, so it may be taken
	// only with every surplus bundle of the job (singles).
	whole   bool
	singles []*bundle
	freed   api.Resource
}

// protections counts the pods the search could have taken but may not, by what protects them.
type protections map[string]int

func (p protections) add(what string, n int) {
	if n > 0 {
		p[what] += n
	}
}

func (p protections) String() string {
	parts := make([]string, 0, len(p))
	for what, n := range p {
		parts = append(parts, fmt.Sprintf("%d pod(s) %s", n, what))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Protection wordings.
const (
	protectedPod      = "marked volcano.sh/preemptable=false"
	protectedGroup    = "of PodGroups marked volcano.sh/preemptable=false"
	protectedByBudget = "whose PodDisruptionBudget allows no more disruptions"
)

// MakeRoom tries to make room for a starving gang by evicting parts of other jobs. Victims are
// taken as bundles: first single surplus pods (above their job's minMember and each task's
// minTaskMember), then whole jobs, never a job left running below its minimum; in victim order
// (the search's order, then lower priority, then the smallest part). Each time the victims
// chosen so far could free enough, the gang's pending pods are placed on the cluster those
// evictions would leave, free room included; only when the gang then reaches its own minimums
// are the evictions kept, less any the placement turns out not to need. The evictions are then
// committed and the gang's pods promised their nodes; otherwise nothing changes. It reports
// whether it committed.
func (ssn *Session) MakeRoom(j *api.JobInfo, s RoomSearch) bool {
	pending := ssn.PendingTasks(j, false)
	if len(pending) == 0 || j.MinimumsMet(true) {
		return false
	}
	for _, t := range pending {
		if t.PreemptionNever {
			return false
		}
	}
	if j.PodGroup != nil && j.PodGroup.Spec.NetworkTopology != nil {
		topo := ssn.Topology()
		if limit := topology.LimitOf(j.PodGroup.Spec.NetworkTopology, topo); limit.Confines(topo) {
			return ssn.makeRoomInDomain(j, s, pending, topo, limit)
		}
	}
	return ssn.makeRoom(j, s, pending, nil)
}

// makeRoomInDomain makes room for a gang held within one HyperNode: the room search runs within
// each HyperNode the gang may use in turn, lowest tier first, holding the nodes its placed pods
// are on, and stops at the first where evictions there let the gang fit there.
func (ssn *Session) makeRoomInDomain(j *api.JobInfo, s RoomSearch, pending []*api.TaskInfo, topo *topology.Topology, limit topology.Limit) bool {
	if limit.Problem != "" {
		return false
	}
	held := j.HeldNodes(nil)
	for _, d := range topo.Domains {
		if d.Tier > limit.Tier {
			break
		}
		if !d.HoldsAll(held) {
			continue
		}
		within := make(map[string]bool, len(d.Nodes))
		for _, n := range d.Nodes {
			within[n] = true
		}
		if ssn.makeRoom(j, s, pending, within) {
			return true
		}
	}
	ssn.Explain(j.UID, fmt.Sprintf("%s found no HyperNode where evictions would let the gang fit (%s)", s.Action, limit.Describe()))
	return false
}

// makeRoom is MakeRoom's search, on the nodes of within only when it is not nil.
func (ssn *Session) makeRoom(j *api.JobInfo, s RoomSearch, pending []*api.TaskInfo, within map[string]bool) bool {
	bundles, protected := ssn.victimBundles(j, pending[0], s)
	if within != nil {
		// Only victims on the domain's nodes make room there.
		bundles = slices.DeleteFunc(bundles, func(b *bundle) bool {
			return !slices.ContainsFunc(b.tasks, func(t *api.TaskInfo) bool { return within[t.NodeName] })
		})
	}
	need := minimumNeed(j, pending)
	room := ssn.freeRoom(within)
	free := ssn.roomyNodes(pending, within)
	left := ssn.budgetsLeft()
	var chosen []*bundle
	sims := 0
	for _, b := range bundles {
		if !canTake(b, chosen) {
			continue
		}
		if !left.take(ssn, b) {
			protected.add(protectedByBudget, len(b.tasks))
			continue
		}
		chosen = append(chosen, b)
		room.Add(&b.freed)
		if !need.LessEqual(&room) {
			continue
		}
		if sims >= MaxRoomSimulations {
			break
		}
		sims++
		stmt, used := ssn.simulate(j, pending, chosen, free, s, within)
		if stmt == nil {
			continue
		}
		stmt.Discard()
		chosen = ssn.prune(j, pending, chosen, used, free, s, &sims, within)
		stmt, _ = ssn.simulate(j, pending, chosen, free, s, within)
		if stmt == nil {
			// Cannot happen: the pruned set was just simulated.
			return false
		}
		var victims []*api.TaskInfo
		for _, c := range chosen {
			victims = append(victims, c.tasks...)
		}
		ssn.useBudgets(victims)
		metrics.UpdatePreemption(stmt.Evictions())
		stmt.Commit()
		note := s.Doing(victims)
		ssn.Snapshot.RoomNotes[j.UID] = note
		ssn.Explain(j.UID, note)
		return true
	}
	metrics.UpdatePreemption(0)
	if len(protected) > 0 {
		ssn.Explain(j.UID, fmt.Sprintf("%s cannot make room for the gang: the work it could take is protected: %s", s.Action, protected))
	}
	return false
}

// canTake reports whether b may be added to chosen: a whole job only with all its singles.
func canTake(b *bundle, chosen []*bundle) bool {
	if !b.whole {
		return true
	}
	for _, s := range b.singles {
		found := false
		for _, c := range chosen {
			if c == s {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// victimBundles returns the parts of other jobs the search may take, in the order to take them,
// and what protected the others.
func (ssn *Session) victimBundles(j *api.JobInfo, preemptor *api.TaskInfo, s RoomSearch) ([]*bundle, protections) {
	protected := protections{}
	type victimJob struct {
		job *api.JobInfo
		// running are the job's running pods, tasks those of them the plugins let go.
		running, tasks []*api.TaskInfo
		// whole is false when some of the job's pods may not go (protected, or placed in this
		// cycle), so the job can lose only its surplus.
		whole bool
	}
	var jobs []*victimJob
	var candidates []*api.TaskInfo
	protectedTasks := map[api.TaskID]string{}
	for _, vj := range ssn.Jobs {
		if vj.UID == j.UID || vj.Allocated.IsEmpty() {
			continue
		}
		ok, why := s.Candidates(vj)
		if !ok {
			if why != "" {
				protected.add(why, int(vj.Count(api.Running)+vj.Count(api.Bound)))
			}
			continue
		}
		v := &victimJob{job: vj, whole: true}
		for _, t := range vj.Tasks {
			switch {
			case t.Status == api.Running || t.Status == api.Bound:
				v.running = append(v.running, t)
				switch {
				case !vj.Preemptable:
					protectedTasks[t.UID] = protectedGroup
				case !t.Preemptable:
					protectedTasks[t.UID] = protectedPod
				}
			case api.AllocatedStatus(t.Status) || t.Status == api.Pipelined:
				v.whole = false
			}
		}
		jobs = append(jobs, v)
	}
	// Least important first: jobs in victim order, each job's pods in reverse task order.
	sort.Slice(jobs, func(a, b int) bool { return ssn.victimJobLess(jobs[a].job, jobs[b].job, s) })
	for _, v := range jobs {
		sort.Slice(v.running, func(a, b int) bool {
			ta, tb := v.running[a], v.running[b]
			if ssn.TaskOrderFn(tb, ta) != ssn.TaskOrderFn(ta, tb) {
				return ssn.TaskOrderFn(tb, ta)
			}
			return ta.UID < tb.UID
		})
		candidates = append(candidates, v.running...)
	}
	allowed := map[api.TaskID]bool{}
	for _, t := range s.Victims(preemptor, candidates) {
		if why, ok := protectedTasks[t.UID]; ok {
			protected.add(why, 1)
			continue
		}
		allowed[t.UID] = true
	}
	byJob := map[api.JobID]*victimJob{}
	for _, v := range jobs {
		byJob[v.job.UID] = v
	}
	for _, t := range candidates {
		v := byJob[t.Job]
		if allowed[t.UID] {
			v.tasks = append(v.tasks, t)
		} else {
			v.whole = false
		}
	}
	var bundles []*bundle
	for _, v := range jobs {
		if len(v.tasks) == 0 {
			continue
		}
		surplus, rest := v.job.Surplus(v.tasks)
		var singles []*bundle
		for _, t := range surplus {
			b := &bundle{job: v.job, tasks: []*api.TaskInfo{t}}
			b.freed.Add(t.Resreq)
			singles = append(singles, b)
		}
		bundles = append(bundles, singles...)
		if v.whole && len(rest) > 0 {
			b := &bundle{job: v.job, tasks: rest, whole: true, singles: singles}
			for _, t := range rest {
				b.freed.Add(t.Resreq)
			}
			bundles = append(bundles, b)
		}
	}
	sort.SliceStable(bundles, func(a, b int) bool { return ssn.bundleLess(bundles[a], bundles[b], s) })
	return bundles, protected
}

// victimJobLess reports whether job l gives up its pods before job r: the search's order, then
// lower priority, then the younger job, then the ID.
func (ssn *Session) victimJobLess(l, r *api.JobInfo, s RoomSearch) bool {
	if s.VictimOrder != nil {
		if c := s.VictimOrder(l, r); c != 0 {
			return c < 0
		}
	}
	if l.Priority != r.Priority {
		return l.Priority < r.Priority
	}
	if !l.CreationTime.Equal(r.CreationTime) {
		return l.CreationTime.After(r.CreationTime)
	}
	return l.UID < r.UID
}

// bundleLess orders bundles: by victim job (search order, then priority), surplus pods before
// whole jobs, the smallest part first; within a job, its tasks' order.
func (ssn *Session) bundleLess(a, b *bundle, s RoomSearch) bool {
	if a.job.UID != b.job.UID {
		if s.VictimOrder != nil {
			if c := s.VictimOrder(a.job, b.job); c != 0 {
				return c < 0
			}
		}
		if a.job.Priority != b.job.Priority {
			return a.job.Priority < b.job.Priority
		}
	}
	if a.whole != b.whole {
		return !a.whole
	}
	if len(a.tasks) != len(b.tasks) {
		return len(a.tasks) < len(b.tasks)
	}
	if a.job.UID != b.job.UID {
		return ssn.victimJobLess(a.job, b.job, s)
	}
	return false
}

// minimumNeed is a lower bound of what the gang still needs to reach minMember: per resource,
// the sum of the smallest requests of as many pending tasks as it lacks.
func minimumNeed(j *api.JobInfo, pending []*api.TaskInfo) api.Resource {
	missing := int(j.MinAvailable - j.ReadyTaskNum() - j.WaitingTaskNum() - j.PendingBestEffortNum())
	var need api.Resource
	if missing <= 0 {
		return need
	}
	if missing > len(pending) {
		missing = len(pending)
	}
	names := map[corev1.ResourceName]bool{}
	for _, t := range pending {
		for _, n := range t.Resreq.Names() {
			names[n] = true
		}
	}
	for name := range names {
		vals := make([]int64, 0, len(pending))
		for _, t := range pending {
			vals = append(vals, t.Resreq.Get(name))
		}
		sort.Slice(vals, func(a, b int) bool { return vals[a] < vals[b] })
		var sum int64
		for _, v := range vals[:missing] {
			sum += v
		}
		need.Set(name, sum)
	}
	return need
}

// freeRoom is what the Ready nodes (of within, when not nil) will have free once releasing pods
// are gone, summed.
func (ssn *Session) freeRoom(within map[string]bool) api.Resource {
	var room api.Resource
	for _, n := range ssn.NodeList {
		if !n.Ready || (within != nil && !within[n.Name]) {
			continue
		}
		idle := n.FutureIdle()
		for _, name := range idle.Names() {
			if v := idle.Get(name); v > 0 {
				room.Set(name, room.Get(name)+v)
			}
		}
	}
	return room
}

// roomyNodes returns the Ready nodes (of within, when not nil) with room, now or once releasing
// pods are gone, for the smallest of the pending tasks.
func (ssn *Session) roomyNodes(pending []*api.TaskInfo, within map[string]bool) []*api.NodeInfo {
	var out []*api.NodeInfo
	for _, n := range ssn.NodeList {
		if !n.Ready || (within != nil && !within[n.Name]) {
			continue
		}
		for _, t := range pending {
			if n.FitsFutureIdle(t.Resreq) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// simulate evicts the chosen bundles and places the gang's pending tasks, in task order, until
// it reaches its minimums: each on the first node that takes it, the nodes with room first,
// then the victims' nodes in the order they were chosen. It returns the open statement and
// the nodes used, or nil (with everything undone) when the gang does not reach its minimums.
func (ssn *Session) simulate(j *api.JobInfo, pending []*api.TaskInfo, chosen []*bundle, free []*api.NodeInfo, s RoomSearch, within map[string]bool) (*Statement, map[string]bool) {
	stmt := ssn.NewStatement()
	nodes := append([]*api.NodeInfo(nil), free...)
	seen := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		seen[n.Name] = true
	}
	for _, b := range chosen {
		for _, v := range b.tasks {
			if err := stmt.Evict(v, s.Reason); err != nil {
				ssn.Log.Error(err, "evicting a task", "task", v.Namespace+"/"+v.Name)
			}
			if n, ok := ssn.Nodes[v.NodeName]; ok && !seen[n.Name] && (within == nil || within[n.Name]) {
				seen[n.Name] = true
				nodes = append(nodes, n)
			}
		}
	}
	used := map[string]bool{}
	for _, t := range pending {
		if j.MinimumsMet(true) {
			break
		}
		if s.MayPlace != nil && !s.MayPlace(t) {
			continue
		}
		if ssn.PrePredicate(t) != nil {
			continue
		}
		for _, n := range nodes {
			if reasons, _ := ssn.FitOnNode(t, n); len(reasons) > 0 {
				continue
			}
			if err := stmt.Pipeline(t, n.Name); err != nil {
				ssn.Log.Error(err, "pipelining a task", "task", t.Namespace+"/"+t.Name)
				continue
			}
			used[n.Name] = true
			break
		}
	}
	if !j.MinimumsMet(true) {
		stmt.Discard()
		return nil, nil
	}
	return stmt, used
}

// prune drops the chosen bundles the gang does not need: first those with no pod on a node the
// placement used, then, most important first, each whose absence still lets the gang fit, as
// long as simulations are left.
func (ssn *Session) prune(j *api.JobInfo, pending []*api.TaskInfo, chosen []*bundle, used map[string]bool, free []*api.NodeInfo, s RoomSearch, sims *int, within map[string]bool) []*bundle {
	var kept []*bundle
	for _, b := range chosen {
		for _, t := range b.tasks {
			if used[t.NodeName] {
				kept = append(kept, b)
				break
			}
		}
	}
	if len(kept) < len(chosen) && consistent(kept) && *sims < MaxRoomSimulations {
		*sims++
		if stmt, _ := ssn.simulate(j, pending, kept, free, s, within); stmt != nil {
			stmt.Discard()
			chosen = kept
		}
	}
	for i := len(chosen) - 1; i >= 0 && *sims < MaxRoomSimulations; i-- {
		without := append(append([]*bundle(nil), chosen[:i]...), chosen[i+1:]...)
		if !consistent(without) {
			continue
		}
		*sims++
		if stmt, _ := ssn.simulate(j, pending, without, free, s, within); stmt != nil {
			stmt.Discard()
			chosen = without
		}
	}
	return chosen
}

// consistent reports whether every whole job in bundles comes with all its singles.
func consistent(bundles []*bundle) bool {
	for _, b := range bundles {
		if !canTake(b, bundles) {
			return false
		}
	}
	return true
}

// budgetTaker tracks, while one gang's victims are chosen, the disruptions its bundles take
// from PodDisruptionBudgets, beside those committed earlier in the cycle.
type budgetTaker struct {
	taken map[string]int32
}

func (ssn *Session) budgetsLeft() *budgetTaker { return &budgetTaker{taken: map[string]int32{}} }

// take reports whether every pod of b may go without a budget going below zero disruptions
// allowed, counting what the cycle and this search already took, and takes them if so.
func (bt *budgetTaker) take(ssn *Session, b *bundle) bool {
	want := map[string]int32{}
	allowed := map[string]int32{}
	for _, t := range b.tasks {
		for _, budget := range ssn.Snapshot.Budgets(t.Pod) {
			want[budget.Key]++
			allowed[budget.Key] = budget.Allowed
		}
	}
	for key, n := range want {
		if ssn.budgetUsed[key]+bt.taken[key]+n > allowed[key] {
			return false
		}
	}
	for key, n := range want {
		bt.taken[key] += n
	}
	return true
}

// useBudgets records committed evictions against the budgets that cover them.
func (ssn *Session) useBudgets(victims []*api.TaskInfo) {
	for _, t := range victims {
		for _, budget := range ssn.Snapshot.Budgets(t.Pod) {
			ssn.budgetUsed[budget.Key]++
		}
	}
}

// JobsOf names the jobs of tasks, e.g. "job ns/a" or "jobs ns/a, ns/b".
func JobsOf(tasks []*api.TaskInfo) string {
	return namesOf(tasks, "job", func(t *api.TaskInfo) string { return string(t.Job) })
}

// QueuesOf names the queues of tasks' jobs, e.g. "queue qa".
func QueuesOf(ssn *Session, tasks []*api.TaskInfo) string {
	return namesOf(tasks, "queue", func(t *api.TaskInfo) string {
		if j, ok := ssn.Jobs[t.Job]; ok {
			return j.Queue
		}
		return ""
	})
}

func namesOf(tasks []*api.TaskInfo, kind string, name func(*api.TaskInfo) string) string {
	var names []string
	seen := map[string]bool{}
	for _, t := range tasks {
		if n := name(t); n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 1 {
		return kind + " " + names[0]
	}
	return kind + "s " + strings.Join(names, ", ")
}
