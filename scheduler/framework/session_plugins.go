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
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

// Registration of callbacks, by plugin name.

// AddJobOrderFn registers a job order.
func (ssn *Session) AddJobOrderFn(name string, fn JobOrderFn) { ssn.jobOrderFns[name] = fn }

// AddQueueOrderFn registers a queue order.
func (ssn *Session) AddQueueOrderFn(name string, fn QueueOrderFn) { ssn.queueOrderFns[name] = fn }

// AddTaskOrderFn registers a task order.
func (ssn *Session) AddTaskOrderFn(name string, fn TaskOrderFn) { ssn.taskOrderFns[name] = fn }

// AddJobValidFn registers a job validity check.
func (ssn *Session) AddJobValidFn(name string, fn JobValidFn) { ssn.jobValidFns[name] = fn }

// AddJobReadyFn registers a job readiness check.
func (ssn *Session) AddJobReadyFn(name string, fn JobCheckFn) { ssn.jobReadyFns[name] = fn }

// AddJobPipelinedFn registers a pipelined vote.
func (ssn *Session) AddJobPipelinedFn(name string, fn JobVoteFn) { ssn.jobPipelinedFns[name] = fn }

// AddJobEnqueueableFn registers an enqueue vote.
func (ssn *Session) AddJobEnqueueableFn(name string, fn JobVoteFn) { ssn.jobEnqueueableFns[name] = fn }

// AddJobEnqueuedFn registers what to do when a job is admitted.
func (ssn *Session) AddJobEnqueuedFn(name string, fn JobFn) { ssn.jobEnqueuedFns[name] = fn }

// AddJobStarvingFn registers a starving check.
func (ssn *Session) AddJobStarvingFn(name string, fn JobCheckFn) { ssn.jobStarvingFns[name] = fn }

// AddOverusedFn registers a queue-overused check.
func (ssn *Session) AddOverusedFn(name string, fn QueueCheckFn) { ssn.overusedFns[name] = fn }

// AddAllocatableFn registers a check that a queue may take a task.
func (ssn *Session) AddAllocatableFn(name string, fn QueueTaskCheckFn) { ssn.allocatableFns[name] = fn }

// AddPreemptiveFn registers a check that a queue may reclaim for a task.
func (ssn *Session) AddPreemptiveFn(name string, fn QueueTaskCheckFn) { ssn.preemptiveFns[name] = fn }

// AddPreemptableFn registers a preemption victim filter.
func (ssn *Session) AddPreemptableFn(name string, fn VictimsFn) { ssn.preemptableFns[name] = fn }

// AddReclaimableFn registers a reclaim victim filter.
func (ssn *Session) AddReclaimableFn(name string, fn VictimsFn) { ssn.reclaimableFns[name] = fn }

// AddPrePredicateFn registers a node-independent check of a task.
func (ssn *Session) AddPrePredicateFn(name string, fn PrePredicateFn) { ssn.prePredicateFns[name] = fn }

// AddPredicateFn registers a node filter.
func (ssn *Session) AddPredicateFn(name string, fn PredicateFn) { ssn.predicateFns[name] = fn }

// AddNodeOrderFn registers a node score.
func (ssn *Session) AddNodeOrderFn(name string, fn NodeOrderFn) { ssn.nodeOrderFns[name] = fn }

// AddEventHandler registers an event handler.
func (ssn *Session) AddEventHandler(h *EventHandler) {
	ssn.eventHandlers = append(ssn.eventHandlers, h)
}

func (ssn *Session) fireAllocate(t *api.TaskInfo, node string) {
	for _, h := range ssn.eventHandlers {
		if h.AllocateFunc != nil {
			h.AllocateFunc(&Event{Task: t, Node: node})
		}
	}
}

func (ssn *Session) fireDeallocate(t *api.TaskInfo, node string) {
	for _, h := range ssn.eventHandlers {
		if h.DeallocateFunc != nil {
			h.DeallocateFunc(&Event{Task: t, Node: node})
		}
	}
}

// tiers returns the plugin entries grouped by tier, in order.
func (ssn *Session) tiers() [][]pluginEntry {
	var out [][]pluginEntry
	for _, p := range ssn.plugins {
		if len(out) == 0 || out[len(out)-1][0].tier != p.tier {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], p)
	}
	return out
}

// Aggregation, tier by tier.

// JobOrderFn reports whether l goes before r: the first plugin with an opinion decides; then
// the older job, then the smaller ID.
func (ssn *Session) JobOrderFn(l, r *api.JobInfo) bool {
	for _, p := range ssn.plugins {
		if !conf.Enabled(p.option.EnabledJobOrder) {
			continue
		}
		if fn, ok := ssn.jobOrderFns[p.option.Name]; ok {
			if c := fn(l, r); c != 0 {
				return c < 0
			}
		}
	}
	if !l.CreationTime.Equal(r.CreationTime) {
		return l.CreationTime.Before(r.CreationTime)
	}
	return l.UID < r.UID
}

// QueueOrderFn reports whether queue l goes before r: the first plugin with an opinion
// decides; then the older queue, then the name.
func (ssn *Session) QueueOrderFn(l, r *api.QueueInfo) bool {
	for _, p := range ssn.plugins {
		if !conf.Enabled(p.option.EnabledQueueOrder) {
			continue
		}
		if fn, ok := ssn.queueOrderFns[p.option.Name]; ok {
			if c := fn(l, r); c != 0 {
				return c < 0
			}
		}
	}
	lt, rt := l.Queue.CreationTimestamp.Time, r.Queue.CreationTimestamp.Time
	if !lt.Equal(rt) {
		return lt.Before(rt)
	}
	return l.Name < r.Name
}

// TaskOrderFn reports whether task l goes before r: the first plugin with an opinion decides;
// then the older pod, then the name.
func (ssn *Session) TaskOrderFn(l, r *api.TaskInfo) bool {
	for _, p := range ssn.plugins {
		if !conf.Enabled(p.option.EnabledTaskOrder) {
			continue
		}
		if fn, ok := ssn.taskOrderFns[p.option.Name]; ok {
			if c := fn(l, r); c != 0 {
				return c < 0
			}
		}
	}
	if !l.CreationTime.Equal(r.CreationTime) {
		return l.CreationTime.Before(r.CreationTime)
	}
	return l.Name < r.Name
}

// JobValid returns the first failing validity check, or nil.
func (ssn *Session) JobValid(job *api.JobInfo) *ValidateResult {
	for _, p := range ssn.plugins {
		if fn, ok := ssn.jobValidFns[p.option.Name]; ok {
			if res := fn(job); res != nil {
				return res
			}
		}
	}
	return nil
}

// JobReady reports whether every enabled readiness check passes.
func (ssn *Session) JobReady(job *api.JobInfo) bool {
	for _, p := range ssn.plugins {
		if !conf.Enabled(p.option.EnabledJobReady) {
			continue
		}
		if fn, ok := ssn.jobReadyFns[p.option.Name]; ok && !fn(job) {
			return false
		}
	}
	return true
}

func (ssn *Session) vote(fns map[string]JobVoteFn, enabled func(conf.PluginOption) *bool, job *api.JobInfo) bool {
	votes := map[string]int{}
	for _, p := range ssn.plugins {
		if !conf.Enabled(enabled(p.option)) {
			continue
		}
		if fn, ok := fns[p.option.Name]; ok {
			v := fn(job)
			if v >= ForcePermit {
				return true
			}
			votes[p.option.Name] = v
		}
	}
	for _, tier := range ssn.tiers() {
		permit := false
		for _, p := range tier {
			if !conf.Enabled(enabled(p.option)) {
				continue
			}
			v, ok := votes[p.option.Name]
			if !ok {
				continue
			}
			switch {
			case v < 0:
				return false
			case v > 0:
				permit = true
			}
		}
		if permit {
			return true
		}
	}
	return true
}

// JobPipelined reports whether the job may keep resources it is promised but not yet ready to
// use: a ForcePermit lets it through; otherwise any rejection stops it and the first tier with
// a permit lets it through.
func (ssn *Session) JobPipelined(job *api.JobInfo) bool {
	return ssn.vote(ssn.jobPipelinedFns, func(o conf.PluginOption) *bool { return o.EnabledJobPipelined }, job)
}

// JobEnqueueable reports whether the job may be admitted, by the same voting as JobPipelined.
func (ssn *Session) JobEnqueueable(job *api.JobInfo) bool {
	return ssn.vote(ssn.jobEnqueueableFns, func(o conf.PluginOption) *bool { return o.EnabledJobEnqueued }, job)
}

// JobEnqueued tells the plugins a job was admitted, and counts the room it needs as taken for
// RoomCanBeMade.
func (ssn *Session) JobEnqueued(job *api.JobInfo) {
	if job.MinResources != nil {
		ssn.roomAdmitted.Add(job.MinResources)
	}
	for _, p := range ssn.plugins {
		if !conf.Enabled(p.option.EnabledJobEnqueued) {
			continue
		}
		if fn, ok := ssn.jobEnqueuedFns[p.option.Name]; ok {
			fn(job)
		}
	}
}

// JobStarving reports whether the job wants more resources: the first tier with a starving
// check decides, every check of that tier must agree. No check means not starving.
func (ssn *Session) JobStarving(job *api.JobInfo) bool {
	for _, tier := range ssn.tiers() {
		found := false
		for _, p := range tier {
			if !conf.Enabled(p.option.EnabledJobStarving) {
				continue
			}
			fn, ok := ssn.jobStarvingFns[p.option.Name]
			if !ok {
				continue
			}
			found = true
			if !fn(job) {
				return false
			}
		}
		if found {
			return true
		}
	}
	return false
}

// Overused reports whether any enabled plugin finds the queue overused.
func (ssn *Session) Overused(q *api.QueueInfo) bool {
	for _, p := range ssn.plugins {
		if !conf.Enabled(p.option.EnabledOverused) {
			continue
		}
		if fn, ok := ssn.overusedFns[p.option.Name]; ok && fn(q) {
			return true
		}
	}
	return false
}

// Allocatable reports whether every enabled plugin lets the queue take the task.
func (ssn *Session) Allocatable(q *api.QueueInfo, t *api.TaskInfo) bool {
	for _, p := range ssn.plugins {
		if !conf.Enabled(p.option.EnabledAllocatable) {
			continue
		}
		if fn, ok := ssn.allocatableFns[p.option.Name]; ok && !fn(q, t) {
			return false
		}
	}
	return true
}

// Preemptive reports whether every enabled plugin lets the queue reclaim for the task.
func (ssn *Session) Preemptive(q *api.QueueInfo, t *api.TaskInfo) bool {
	for _, p := range ssn.plugins {
		if !conf.Enabled(p.option.EnabledPreemptive) {
			continue
		}
		if fn, ok := ssn.preemptiveFns[p.option.Name]; ok && !fn(q, t) {
			return false
		}
	}
	return true
}

func (ssn *Session) victims(fns map[string]VictimsFn, enabled func(conf.PluginOption) *bool, preemptor *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo {
	return ssn.victimsBy(fns, enabled, preemptor, candidates, "", false)
}

// victimsBy combines the victim callbacks: within a tier, a candidate must be allowed by every
// plugin with an opinion; the first tier with an opinion decides, or, with allTiers, every tier
// with an opinion must allow it. The plugin named skip is not consulted. No opinion at all
// means no victim.
func (ssn *Session) victimsBy(fns map[string]VictimsFn, enabled func(conf.PluginOption) *bool, preemptor *api.TaskInfo, candidates []*api.TaskInfo, skip string, allTiers bool) []*api.TaskInfo {
	var chosen map[api.TaskID]bool
	decided := false
	for _, tier := range ssn.tiers() {
		for _, p := range tier {
			if p.option.Name == skip || !conf.Enabled(enabled(p.option)) {
				continue
			}
			fn, ok := fns[p.option.Name]
			if !ok {
				continue
			}
			victims, abstain := fn(preemptor, candidates)
			if abstain {
				continue
			}
			set := make(map[api.TaskID]bool, len(victims))
			for _, v := range victims {
				if !decided || chosen[v.UID] {
					set[v.UID] = true
				}
			}
			chosen, decided = set, true
		}
		if decided && !allTiers {
			break
		}
	}
	if !decided {
		return nil
	}
	out := make([]*api.TaskInfo, 0, len(chosen))
	for _, c := range candidates {
		if chosen[c.UID] {
			out = append(out, c)
		}
	}
	return out
}

// GangPreemptable returns the candidates a gang-aware preemption may evict: Preemptable without
// the gang plugin's rule, which the search enforces itself by taking whole jobs or surplus pods.
func (ssn *Session) GangPreemptable(preemptor *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo {
	return ssn.victimsBy(ssn.preemptableFns, func(o conf.PluginOption) *bool { return o.EnabledPreemptable }, preemptor, candidates, GangPluginName, false)
}

// GangReclaimable returns the candidates a gang-aware reclaim may evict: those every tier with an
// opinion allows (so proportion keeps each queue at its deserved share whatever its tier),
// without the gang plugin's rule, which the search enforces itself.
func (ssn *Session) GangReclaimable(reclaimer *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo {
	return ssn.victimsBy(ssn.reclaimableFns, func(o conf.PluginOption) *bool { return o.EnabledReclaimable }, reclaimer, candidates, GangPluginName, true)
}

// Preemptable returns the candidates the preemptor may evict: within a tier, those every
// plugin with an opinion allows; the first tier with an opinion decides; none means no victim.
func (ssn *Session) Preemptable(preemptor *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo {
	return ssn.victims(ssn.preemptableFns, func(o conf.PluginOption) *bool { return o.EnabledPreemptable }, preemptor, candidates)
}

// Reclaimable returns the candidates the reclaimer may evict, combined as Preemptable.
func (ssn *Session) Reclaimable(reclaimer *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo {
	return ssn.victims(ssn.reclaimableFns, func(o conf.PluginOption) *bool { return o.EnabledReclaimable }, reclaimer, candidates)
}

// PrePredicate returns the first node-independent reason the task cannot be placed, or nil.
func (ssn *Session) PrePredicate(t *api.TaskInfo) error {
	for _, fn := range ssn.prePredicates {
		if err := fn(t); err != nil {
			return err
		}
	}
	if api.UsesResourceClaims(t.Pod) {
		if ssn.devices == nil {
			// Placing it without allocating its claims would leave it on a node that cannot start it.
			return fmt.Errorf("pod %s/%s has resourceClaims (Dynamic Resource Allocation), and this scheduler allocates no devices: "+
				"the cluster does not serve resource.k8s.io/v1; it is not placed", t.Namespace, t.Name)
		}
		if err := ssn.devices.PreFilter(t.Pod); err != nil {
			return err
		}
	}
	return nil
}

// Predicate returns "" when every enabled node filter lets the task on the node, else the first
// reason it may not go there. Not-ready nodes are always filtered out.
func (ssn *Session) Predicate(t *api.TaskInfo, n *api.NodeInfo) string {
	if !n.Ready {
		return "node(s) were not ready"
	}
	for _, fn := range ssn.predicates {
		if reason := fn(t, n); reason != "" {
			return reason
		}
	}
	if ssn.devices != nil && api.UsesResourceClaims(t.Pod) {
		return ssn.devices.Filter(t.Pod, n)
	}
	return ""
}

// NodeScore sums the enabled node scores of a task on a node.
func (ssn *Session) NodeScore(t *api.TaskInfo, n *api.NodeInfo) float64 {
	var score float64
	for _, fn := range ssn.nodeOrders {
		score += fn(t, n)
	}
	return score
}

// HasNodeOrder reports whether any node score is registered.
func (ssn *Session) HasNodeOrder() bool { return len(ssn.nodeOrders) > 0 }

// HierarchyEnabled reports whether the configuration turns on enableHierarchy for the plugin.
func (ssn *Session) HierarchyEnabled(name string) bool {
	for _, p := range ssn.plugins {
		if p.option.Name == name && conf.EnabledOff(p.option.EnabledHierarchy) {
			return true
		}
	}
	return false
}
