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

// Package capacity is Volcano's capacity plugin: each queue deserves what its spec.deserved says
// (not a share worked out by weight), may hold up to its capability, and gives back to others
// what it holds above its deserved share.
//
// A queue's limit (Volcano's realCapability) is its spec.capability within what the other
// queues' guarantees leave: the cluster less every guarantee, plus its own. Its deserved share is
// spec.deserved, within that limit and never below its guarantee. A queue places pods while
// what it holds stays within its limit (there is no overused state: queues may borrow up to
// their limit), admits a job while the job's minResources fit in it beside what the queue holds
// for running and admitted jobs, may reclaim while it stays within its limit and at or under its
// deserved share of some resource it asks for, and loses to reclaim only pods of a queue above
// its deserved share of a resource the pod holds, never below its guarantee. Queues are ordered
// by priority, then by share (what they hold over what they deserve), those with a deserved share
// first.
//
// With enableHierarchy: true, queues form a tree by spec.parent (no parent: the root queue, which
// Caldera makes). A queue's limit is its parent's less its siblings' guarantees, plus its own,
// within its capability; a capability a child leaves unset is its parent's. The root's limit is
// its capability (none: unlimited); its deserved and guarantee are its children's sums. What a
// queue holds counts in every queue above it, a pod is placed only while every queue up to the
// root has room, only leaf queues take jobs, and siblings are ordered by share at the level
// below the queues' nearest common ancestor. A hierarchy that cannot be read (a loop, a parent
// that does not exist) places nothing and says why.
//
// Argument ancestorReclaimLevel (0; with enableHierarchy): reclaim looks that many levels above
// the leaves, as Volcano's does. A queue at or above its deserved share still reclaims while one
// of its ancestors within the levels is under its own; a pod is taken only while each ancestor of
// its queue within the levels that the reclaimer's branch does not share is above its deserved
// share too (so a branch under its share keeps its pods); and a pod its queue deserves nothing of
// is not taken from a queue that shares such an ancestor with a reclaimer whose queue deserves
// nothing of what it asks for either. The DRA quota switches are reported as having no effect.
package capacity

import (
	"fmt"
	"math"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/metrics"
	"github.com/caldera-sh/caldera/scheduler/plugins/proportion"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// Name is the plugin's name.
const Name = "capacity"

// Arguments Volcano's capacity plugin takes; the DRA switches are accepted with no effect.
const (
	AncestorReclaimLevelArgument = "ancestorReclaimLevel"
	DRAArgument                  = "capacity.DynamicResourceAllocationEnable"
	DRAConsumableArgument        = "capacity.DRAConsumableCapacityEnable"
)

// Ignored are the arguments accepted with no effect, each with what it would turn on.
var Ignored = map[string]string{
	DRAArgument:           "quota on Dynamic Resource Allocation device classes",
	DRAConsumableArgument: "quota on Dynamic Resource Allocation consumable capacity",
}

type plugin struct {
	attrs map[string]*attr
	// levels is ancestorReclaimLevel.
	levels int
}

// New builds the plugin.
func New(args conf.Arguments) (framework.Plugin, error) {
	if err := args.CheckKeys([]string{AncestorReclaimLevelArgument, DRAArgument, DRAConsumableArgument}); err != nil {
		return nil, err
	}
	levels, err := args.Int(AncestorReclaimLevelArgument, 0)
	if err != nil {
		return nil, err
	}
	if levels < 0 {
		return nil, fmt.Errorf("%s: must be 0 or more, got %d", AncestorReclaimLevelArgument, levels)
	}
	return &plugin{levels: levels}, nil
}

func (p *plugin) Name() string { return Name }

// attr is what the plugin knows of one queue in a cycle. QueueAttr.Capability is the queue's
// limit (Volcano's realCapability).
type attr struct {
	proportion.QueueAttr
	// deserves holds the resources the queue has a deserved share of (spec.deserved or
	// spec.guarantee): its share and what counts as above it look at these alone.
	deserves map[corev1.ResourceName]bool
	// own is spec.capability (in a hierarchy, what a child leaves unset is its parent's), +Inf
	// when unset.
	own proportion.Vec
	// up are the queues above, nearest first (hierarchy only); children those right below.
	up       []*attr
	children []*attr
}

// leaf reports whether no queue is below a.
func (a *attr) leaf() bool { return len(a.children) == 0 }

// Tree is the cycle's queue attributes by queue name, and, in a hierarchy, the problem that
// keeps it from being read.
type Tree struct {
	Attrs     map[string]*attr
	Problem   string
	Hierarchy bool
	dims      []corev1.ResourceName
}

// Build works out every queue's limit and deserved share, flat or as a hierarchy. Flat, only the
// queues with jobs (in usage) take part, but every queue's guarantee is set aside.
func Build(queues map[string]*api.QueueInfo, usage map[string]*snapshot.QueueUsage, total *api.Resource, hierarchy bool) *Tree {
	dims := proportion.Dims(total)
	t := &Tree{Attrs: map[string]*attr{}, Hierarchy: hierarchy, dims: dims}
	newAttr := func(name string, q *api.QueueInfo) *attr {
		a := &attr{QueueAttr: proportion.QueueAttr{Name: name, Weight: 1, Deserved: proportion.Vec{}, Allocated: proportion.Vec{},
			Request: proportion.Vec{}, Inqueue: proportion.Vec{}, Elastic: proportion.Vec{}, Capability: proportion.Vec{}, Guarantee: proportion.Vec{}},
			deserves: map[corev1.ResourceName]bool{}, own: proportion.Vec{}}
		if q != nil {
			a.Weight = float64(q.Weight)
		}
		g := proportion.GuaranteeOf(q)
		a.Guarantee = proportion.VecOf(&g, dims)
		for _, d := range dims {
			a.own[d] = proportion.SpecCapability(q, d)
			if a.Guarantee[d] > 0 {
				a.deserves[d] = true
			}
		}
		if q != nil && q.Queue != nil {
			for name, v := range q.Queue.Spec.Deserved {
				if name == corev1.ResourceCPU {
					a.Deserved[name] = float64(v.MilliValue())
				} else {
					a.Deserved[name] = float64(v.Value())
				}
				if a.Deserved[name] > 0 {
					a.deserves[name] = true
				}
			}
		}
		if u := usage[name]; u != nil {
			a.Allocated, a.Request = proportion.VecOf(&u.Allocated, dims), proportion.VecOf(&u.Request, dims)
			a.Inqueue, a.Elastic = proportion.VecOf(&u.Inqueue, dims), proportion.VecOf(&u.Elastic, dims)
		}
		return a
	}
	if !hierarchy {
		guaranteed := proportion.Guaranteed(queues, dims)
		for name := range usage {
			q, ok := queues[name]
			if !ok {
				continue
			}
			a := newAttr(name, q)
			for _, d := range dims {
				a.Capability[d] = math.Min(a.own[d], math.Max(float64(total.Get(d))-guaranteed[d], 0)+a.Guarantee[d])
				if a.deserves[d] {
					a.Deserved[d] = math.Max(math.Min(a.Deserved[d], a.Capability[d]), a.Guarantee[d])
				}
			}
			a.updateShare(dims)
			t.Attrs[name] = a
		}
		return t
	}
	for name, q := range queues {
		t.Attrs[name] = newAttr(name, q)
	}
	root := t.Attrs[schedulingv1beta1.RootQueue]
	if root == nil {
		// Caldera makes the root queue; until it exists, one with no limit stands in.
		root = newAttr(schedulingv1beta1.RootQueue, nil)
		t.Attrs[schedulingv1beta1.RootQueue] = root
	}
	names := make([]string, 0, len(t.Attrs))
	for name := range t.Attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == schedulingv1beta1.RootQueue {
			continue
		}
		parent := parentOf(queues[name])
		p, ok := t.Attrs[parent]
		if !ok {
			t.Problem = fmt.Sprintf("queue %s names spec.parent %s, which does not exist; create it or change spec.parent", name, parent)
			return t
		}
		p.children = append(p.children, t.Attrs[name])
	}
	// Each queue's chain up to the root; a loop never reaches it.
	for _, name := range names {
		a := t.Attrs[name]
		seen := map[string]bool{name: true}
		for cur := name; cur != schedulingv1beta1.RootQueue; {
			up := parentOf(queues[cur])
			if seen[up] {
				t.Problem = fmt.Sprintf("queues %s form a loop through spec.parent; make one of them name another parent", strings.Join(sortedKeys(seen), ", "))
				return t
			}
			seen[up] = true
			a.up = append(a.up, t.Attrs[up])
			cur = up
		}
	}
	// What a queue holds counts in every queue above it.
	for _, name := range names {
		a := t.Attrs[name]
		for _, up := range a.up {
			for _, d := range dims {
				up.Allocated[d] += a.Allocated[d]
				up.Request[d] += a.Request[d]
				up.Inqueue[d] += a.Inqueue[d]
				up.Elastic[d] += a.Elastic[d]
			}
		}
	}
	for _, d := range dims {
		root.Capability[d] = root.own[d]
	}
	var down func(p *attr)
	down = func(p *attr) {
		sort.Slice(p.children, func(i, j int) bool { return p.children[i].Name < p.children[j].Name })
		sumG := proportion.Vec{}
		for _, c := range p.children {
			for _, d := range dims {
				sumG[d] += c.Guarantee[d]
			}
		}
		for _, c := range p.children {
			for _, d := range dims {
				if c.deserves[d] {
					c.Deserved[d] = math.Max(c.Deserved[d], c.Guarantee[d])
				}
				if math.IsInf(c.own[d], 1) {
					c.own[d] = p.own[d]
				}
				c.Capability[d] = math.Min(math.Max(p.Capability[d]-sumG[d], 0)+c.Guarantee[d], c.own[d])
			}
			down(c)
		}
	}
	// The root deserves and guarantees what its children do.
	root.Deserved, root.Guarantee, root.deserves = proportion.Vec{}, proportion.Vec{}, map[corev1.ResourceName]bool{}
	for _, c := range root.children {
		for _, d := range dims {
			root.Guarantee[d] += c.Guarantee[d]
			root.Deserved[d] += math.Max(c.Deserved[d], c.Guarantee[d])
			if c.deserves[d] {
				root.deserves[d] = true
			}
		}
	}
	down(root)
	for _, a := range t.Attrs {
		a.updateShare(dims)
	}
	return t
}

func parentOf(q *api.QueueInfo) string {
	if q == nil || q.Queue == nil || q.Queue.Spec.Parent == "" {
		return schedulingv1beta1.RootQueue
	}
	return q.Queue.Spec.Parent
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// updateShare sets the share: the largest allocated/deserved over the resources the queue has a
// deserved share of; 1 for a queue with none.
func (a *attr) updateShare(dims []corev1.ResourceName) {
	if len(a.deserves) == 0 {
		a.Share = 1
		return
	}
	a.Share = 0
	for _, d := range dims {
		if !a.deserves[d] {
			continue
		}
		var s float64
		switch {
		case a.Deserved[d] > 0:
			s = a.Allocated[d] / a.Deserved[d]
		case a.Allocated[d] > 0:
			s = 1
		}
		a.Share = math.Max(a.Share, s)
	}
}

// chain is a queue and the queues above it, nearest first.
func (a *attr) chain() []*attr { return append([]*attr{a}, a.up...) }

// add adds (sign 1) or takes back (sign -1) r to what a queue and those above it hold.
func (t *Tree) add(a *attr, r *api.Resource, sign float64, to func(*attr) proportion.Vec) {
	for _, q := range a.chain() {
		v := to(q)
		for _, d := range t.dims {
			v[d] += sign * float64(r.Get(d))
		}
		q.updateShare(t.dims)
	}
}

// over returns the first queue of a's chain whose limit base(q)+r would exceed, with the
// resource; nil when none.
func (t *Tree) over(a *attr, r *api.Resource, base func(*attr) proportion.Vec) (*attr, corev1.ResourceName) {
	for _, q := range a.chain() {
		if ok, d := proportion.Fits(base(q), r, q.Capability, t.dims); !ok {
			return q, d
		}
	}
	return nil, ""
}

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	total := ssn.TotalResource.Clone()
	t := Build(ssn.Queues, ssn.Snapshot.Usage, &total, ssn.HierarchyEnabled(Name))
	p.attrs = t.Attrs
	dims := t.dims
	allocated := func(a *attr) proportion.Vec { return a.Allocated }
	admitted := func(a *attr) proportion.Vec {
		v := proportion.Vec{}
		for _, d := range dims {
			v[d] = a.Allocated[d] + a.Inqueue[d] - a.Elastic[d]
		}
		return v
	}
	// refuse says why a job of queue q may not be placed or admitted, or "" when it may.
	refuse := func(q *api.QueueInfo) string {
		switch {
		case t.Problem != "":
			return "the queue hierarchy cannot be read (capacity plugin, enableHierarchy): " + t.Problem
		case !q.IsOpen():
			return fmt.Sprintf("queue %s is %s and places no new pods; open the queue or move the job to an open one", q.Name, q.State)
		case t.Hierarchy && t.Attrs[q.Name] != nil && !t.Attrs[q.Name].leaf():
			return fmt.Sprintf("queue %s has queues below it (spec.parent) and takes no jobs itself: submit the job to a leaf queue", q.Name)
		}
		return ""
	}

	ssn.AddQueueOrderFn(Name, func(l, r *api.QueueInfo) int {
		if l.Priority != r.Priority {
			if l.Priority > r.Priority {
				return -1
			}
			return 1
		}
		la, ra := t.Attrs[l.Name], t.Attrs[r.Name]
		if la == nil || ra == nil {
			return 0
		}
		if t.Hierarchy {
			la, ra = belowCommonAncestor(la, ra)
		}
		switch {
		case la.Share < ra.Share:
			return -1
		case la.Share > ra.Share:
			return 1
		case len(la.deserves) > 0 && len(ra.deserves) == 0:
			return -1
		case len(la.deserves) == 0 && len(ra.deserves) > 0:
			return 1
		}
		return 0
	})
	ssn.AddAllocatableFn(Name, func(q *api.QueueInfo, task *api.TaskInfo) bool {
		if why := refuse(q); why != "" {
			ssn.Explain(task.Job, why)
			return false
		}
		a := t.Attrs[q.Name]
		if a == nil {
			return true
		}
		if full, d := t.over(a, task.Resreq, allocated); full != nil {
			ssn.ExplainShare(task.Job, fullMessage(q.Name, full, d)+fmt.Sprintf(" (pod %s requests %s)", task.Name, api.FormatAmount(d, task.Resreq.Get(d))))
			return false
		}
		return true
	})
	ssn.AddPreemptiveFn(Name, func(q *api.QueueInfo, task *api.TaskInfo) bool {
		a := t.Attrs[q.Name]
		if a == nil || refuse(q) != "" {
			return false
		}
		if full, _ := t.over(a, task.Resreq, allocated); full != nil {
			return false
		}
		// It reclaims only while it (or, with ancestorReclaimLevel, a queue that many levels
		// above) is at or under its deserved share of some resource it asks for.
		if underDeserved(a, task.Resreq, dims) {
			return true
		}
		for k := 1; t.Hierarchy && k <= p.levels; k++ {
			if up := ancestorAt(a, k); up != nil && underDeserved(up, task.Resreq, dims) {
				return true
			}
		}
		return false
	})
	ssn.AddReclaimableFn(Name, func(reclaimer *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
		var ra *attr
		if j := ssn.Jobs[reclaimer.Job]; j != nil {
			ra = t.Attrs[j.Queue]
		}
		left := map[*attr]proportion.Vec{}
		// allocOf is what a queue holds less the victims taken from it so far.
		allocOf := func(a *attr) proportion.Vec {
			alloc, ok := left[a]
			if !ok {
				alloc = proportion.Vec{}
				for _, d := range dims {
					alloc[d] = a.Allocated[d]
				}
				left[a] = alloc
			}
			return alloc
		}
		var victims []*api.TaskInfo
		for _, c := range candidates {
			j := ssn.Jobs[c.Job]
			if j == nil {
				continue
			}
			a := t.Attrs[j.Queue]
			if a == nil || !shares(reclaimer.Resreq, c.Resreq, dims) {
				continue
			}
			// The queue keeps its guarantee, and gives back only above its deserved share of a
			// resource the pod holds (a pod of resources the queue deserves none of may go).
			if !keepsGuarantee(a, allocOf(a), c.Resreq, dims) {
				continue
			}
			relevant, above := aboveDeserved(a, allocOf(a), c.Resreq, dims)
			if relevant && !above {
				continue
			}
			taken := []*attr{a}
			if t.Hierarchy && p.levels > 0 && ra != nil {
				if !relevant && shareAncestorWithin(ra, a, p.levels) && !deservesAny(ra, reclaimer.Resreq, dims) {
					// Neither queue deserves what is asked for, under a common ancestor: no contention.
					continue
				}
				ok := true
				for k := 1; k <= p.levels && ok; k++ {
					up := ancestorAt(a, k)
					if up == nil || up == ancestorAt(ra, k) {
						continue
					}
					taken = append(taken, up)
					if rel, abv := aboveDeserved(up, allocOf(up), c.Resreq, dims); rel {
						ok = abv
					}
				}
				if !ok {
					continue
				}
			}
			for _, q := range taken {
				alloc := allocOf(q)
				for _, d := range dims {
					alloc[d] -= float64(c.Resreq.Get(d))
				}
			}
			victims = append(victims, c)
		}
		return victims, false
	})
	ssn.AddJobEnqueueableFn(Name, func(j *api.JobInfo) int {
		q := ssn.Queues[j.Queue]
		if q == nil {
			return framework.Reject
		}
		if why := refuse(q); why != "" {
			if !q.IsOpen() {
				ssn.ExplainReason(j.UID, schedulingv1beta1.QueueNotOpenReason, why)
			} else {
				ssn.Explain(j.UID, why)
			}
			return framework.Reject
		}
		a := t.Attrs[q.Name]
		if a == nil || j.MinResources == nil {
			return framework.Permit
		}
		if full, d := t.over(a, j.MinResources, admitted); full != nil {
			ssn.Explain(j.UID, quotaMessage(q.Name, full, d, admitted(full)[d], proportion.Needs(j), j.MinResources.Get(d)))
			return framework.Reject
		}
		return framework.Permit
	})
	ssn.AddJobEnqueuedFn(Name, func(j *api.JobInfo) {
		if a := t.Attrs[j.Queue]; a != nil && j.MinResources != nil {
			t.add(a, j.MinResources, 1, func(q *attr) proportion.Vec { return q.Inqueue })
		}
	})
	ssn.AddEventHandler(&framework.EventHandler{
		AllocateFunc: func(e *framework.Event) {
			if j := ssn.Jobs[e.Task.Job]; j != nil {
				if a := t.Attrs[j.Queue]; a != nil {
					t.add(a, e.Task.Resreq, 1, allocated)
				}
			}
		},
		DeallocateFunc: func(e *framework.Event) {
			if j := ssn.Jobs[e.Task.Job]; j != nil {
				if a := t.Attrs[j.Queue]; a != nil {
					t.add(a, e.Task.Resreq, -1, allocated)
				}
			}
		},
	})
}

// underDeserved reports whether a queue holding r more would stay at or under its deserved
// share of some resource r asks for.
func underDeserved(a *attr, r *api.Resource, dims []corev1.ResourceName) bool {
	for _, d := range dims {
		req := float64(r.Get(d))
		if req > 0 && a.Allocated[d]+req <= a.Deserved[d]+1e-6 {
			return true
		}
	}
	return false
}

// keepsGuarantee reports whether a queue holding alloc keeps its guarantee once r is taken.
func keepsGuarantee(a *attr, alloc proportion.Vec, r *api.Resource, dims []corev1.ResourceName) bool {
	for _, d := range dims {
		req := float64(r.Get(d))
		if req > 0 && alloc[d]-req < a.Guarantee[d]-1e-6 {
			return false
		}
	}
	return true
}

// aboveDeserved reports whether r holds a resource the queue deserves a share of (relevant), and
// whether the queue, holding alloc, is above its deserved share of one of them.
func aboveDeserved(a *attr, alloc proportion.Vec, r *api.Resource, dims []corev1.ResourceName) (relevant, above bool) {
	for _, d := range dims {
		if r.Get(d) > 0 && a.deserves[d] {
			relevant = true
			if alloc[d] > a.Deserved[d]+1e-6 {
				above = true
			}
		}
	}
	return relevant, above
}

// deservesAny reports whether the queue deserves a share of a resource r asks for.
func deservesAny(a *attr, r *api.Resource, dims []corev1.ResourceName) bool {
	relevant, _ := aboveDeserved(a, proportion.Vec{}, r, dims)
	return relevant
}

// ancestorAt returns the queue k levels above a (1: its parent), or nil when there is none or it
// is the root.
func ancestorAt(a *attr, k int) *attr {
	if a == nil || k < 1 || k > len(a.up) {
		return nil
	}
	if q := a.up[k-1]; q.Name != schedulingv1beta1.RootQueue {
		return q
	}
	return nil
}

// shareAncestorWithin reports whether two queues have a common ancestor, other than the root,
// within levels above each.
func shareAncestorWithin(l, r *attr, levels int) bool {
	for i := 1; i <= levels; i++ {
		li := ancestorAt(l, i)
		if li == nil {
			continue
		}
		for k := 1; k <= levels; k++ {
			if ancestorAt(r, k) == li {
				return true
			}
		}
	}
	return false
}

// belowCommonAncestor returns the queues of l's and r's chains right below their nearest common
// ancestor: siblings are compared by their own shares, cousins by their branches'.
func belowCommonAncestor(l, r *attr) (*attr, *attr) {
	lc, rc := l.chain(), r.chain()
	// From the root down, the chains agree until they part.
	i, j := len(lc)-1, len(rc)-1
	for i > 0 && j > 0 && lc[i-1] == rc[j-1] {
		i--
		j--
	}
	if i > 0 && j > 0 {
		return lc[i-1], rc[j-1]
	}
	return l, r
}

// shares reports whether a reclaimer's request and a victim's share a resource: freeing what the
// reclaimer does not ask for helps it not.
func shares(reclaimer, victim *api.Resource, dims []corev1.ResourceName) bool {
	for _, d := range dims {
		if reclaimer.Get(d) > 0 && victim.Get(d) > 0 {
			return true
		}
	}
	return false
}

// fullMessage says why a pod of queue q is not placed: full, q itself or a queue above it, has
// reached its limit of d.
func fullMessage(q string, full *attr, d corev1.ResourceName) string {
	if full.Name == q {
		return fmt.Sprintf("queue %s holds %s of %s, all it may hold (its capability, less what the other queues' guarantees set aside); "+
			"wait for its pods to finish, or raise its spec.capability", q, proportion.Format(d, full.Allocated[d]), d)
	}
	return fmt.Sprintf("queue %s is below queue %s, which holds %s of %s, all it may hold; wait for its queues' pods to finish, or raise queue %s's spec.capability",
		q, full.Name, proportion.Format(d, full.Allocated[d]), d, full.Name)
}

// quotaMessage says why a job of queue q is not admitted (Volcano's "queue resource quota
// insufficient"): full, q or a queue above it, cannot hold need more of d beside base.
func quotaMessage(q string, full *attr, d corev1.ResourceName, base float64, what string, need int64) string {
	where := "queue " + q
	if full.Name != q {
		where = fmt.Sprintf("queue %s is below queue %s, which", q, full.Name)
	}
	return fmt.Sprintf("queue resource quota insufficient: %s can hold %s of %s and already holds %s for running and admitted jobs; "+
		"%s need %s more; wait for those jobs to finish, or raise spec.capability, or lower minResources",
		where, proportion.Format(d, full.Capability[d]), d, proportion.Format(d, base), what, api.FormatAmount(d, need))
}

// OnSessionClose records every queue's amounts in the metrics.
func (p *plugin) OnSessionClose(ssn *framework.Session) {
	attrs := make(map[string]*proportion.QueueAttr, len(p.attrs))
	for name, a := range p.attrs {
		attrs[name] = &a.QueueAttr
	}
	metrics.UpdateQueues(proportion.QueueMetrics(ssn.Queues, attrs))
}
