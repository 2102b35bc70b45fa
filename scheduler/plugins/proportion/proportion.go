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

// Package proportion shares the cluster between queues by weight. Each cycle it works out every
// queue's deserved share by water-filling: the unclaimed remainder is split by weight among the
// queues that still ask for more, each capped by its capability (its spec.capability, within
// what is left of the cluster once every other queue's guarantee is set aside, as Volcano's
// realCapability: the guarantee of a queue with no job is set aside too), by what it asks for,
// and floored at its guarantee. A queue may allocate up to its deserved share, is overused at
// it, may reclaim from queues above theirs (when those are reclaimable), and admits a job only
// while the job's minResources fit under its capability.
package proportion

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
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// Name is the plugin's name.
const Name = "proportion"

// Vec is an amount per resource, as floating point (CPU in millicores).
type Vec map[corev1.ResourceName]float64

// VecOf reads the amounts of dims of r.
func VecOf(r *api.Resource, dims []corev1.ResourceName) Vec {
	v := make(Vec, len(dims))
	for _, d := range dims {
		v[d] = float64(r.Get(d))
	}
	return v
}

// QueueAttr is what the plugin knows of one queue in a cycle.
type QueueAttr struct {
	// Name and Weight are the queue's.
	Name   string
	Weight float64
	// Deserved is the queue's share; Allocated, Request, Inqueue and Elastic its usage;
	// Capability its effective cap; Guarantee its reserved floor.
	Deserved, Allocated, Request, Inqueue, Elastic, Capability, Guarantee Vec
	// Share is the largest allocated/deserved ratio over the resources.
	Share float64
}

// ElasticClusterArgument is the argument that tells the plugin the cluster grows on demand (a
// cluster autoscaler or Karpenter adds nodes for pods marked Unschedulable). By default a queue's
// share and its admission are capped by what today's nodes offer, as in Volcano, so a gang larger
// than the free nodes waits in its queue with no pods and no autoscaler ever sees it. With
// elastic-cluster: true a queue deserves what its jobs ask for up to its own capability (an
// absolute quota, as a Kueue ClusterQueue's), whatever the nodes offer: such a gang is admitted,
// its pods are created, and the pods no node fits are marked Unschedulable for the autoscaler.
const ElasticClusterArgument = "elastic-cluster"

type plugin struct {
	// elastic is the elastic-cluster argument.
	elastic bool
	// attrs are the cycle's queue attributes, kept up to date by the event handler.
	attrs map[string]*QueueAttr
}

// New builds the plugin from its one argument, elastic-cluster (ElasticClusterArgument).
func New(args conf.Arguments) (framework.Plugin, error) {
	if err := args.CheckKeys([]string{ElasticClusterArgument}); err != nil {
		return nil, err
	}
	elastic, err := args.Bool(ElasticClusterArgument, false)
	if err != nil {
		return nil, err
	}
	return &plugin{elastic: elastic}, nil
}

func (p *plugin) Name() string { return Name }

// Dims returns the resources the shares are computed over: cpu, memory and every other resource
// the cluster offers.
func Dims(total *api.Resource) []corev1.ResourceName {
	dims := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}
	var scalars []corev1.ResourceName
	for name := range total.Scalar {
		scalars = append(scalars, name)
	}
	sort.Slice(scalars, func(i, j int) bool { return scalars[i] < scalars[j] })
	return append(dims, scalars...)
}

// Attrs builds the queue attributes from queue usage and queue specs and works out the deserved
// shares. Only queues with jobs take part, but the guarantees of all queues are set aside from
// each one's capability, as Volcano's totalGuarantee is: a queue with no job keeps its
// guarantee free of the other queues. In an elastic cluster (ElasticClusterArgument) the nodes
// cap nothing: a queue's capability is its own and it deserves what its jobs ask for up to that
// capability, never less than its guarantee. Capabilities are cut from the cluster's total;
// deserved shares divide shared, what pods of no job leave of it.
func Attrs(queues map[string]*api.QueueInfo, usage map[string]*snapshot.QueueUsage, total, shared *api.Resource, elastic bool) map[string]*QueueAttr {
	dims := Dims(total)
	attrs := map[string]*QueueAttr{}
	guaranteed := Guaranteed(queues, dims)
	for name, u := range usage {
		q, ok := queues[name]
		if !ok {
			continue
		}
		a := &QueueAttr{
			Name: name, Weight: float64(q.Weight),
			Allocated: VecOf(&u.Allocated, dims), Request: VecOf(&u.Request, dims), Inqueue: VecOf(&u.Inqueue, dims),
			Elastic: VecOf(&u.Elastic, dims), Guarantee: Vec{}, Capability: Vec{}, Deserved: Vec{},
		}
		g := GuaranteeOf(q)
		a.Guarantee = VecOf(&g, dims)
		attrs[name] = a
	}
	for name, a := range attrs {
		for _, d := range dims {
			c := SpecCapability(queues[name], d)
			if elastic {
				a.Capability[d] = c
				continue
			}
			// What the others' guarantees leave.
			left := float64(total.Get(d)) - guaranteed[d] + a.Guarantee[d]
			a.Capability[d] = math.Min(c, math.Max(left, 0))
		}
	}
	if elastic {
		for _, a := range attrs {
			for _, d := range dims {
				a.Deserved[d] = math.Min(math.Max(a.Request[d], a.Guarantee[d]), a.Capability[d])
			}
		}
	} else {
		waterFill(attrs, VecOf(shared, dims), dims)
	}
	for _, a := range attrs {
		a.updateShare(dims)
	}
	return attrs
}

// GuaranteeOf returns a queue's spec.guarantee.
func GuaranteeOf(q *api.QueueInfo) api.Resource {
	if q == nil || q.Queue == nil || len(q.Queue.Spec.Guarantee.Resource) == 0 {
		return api.Resource{}
	}
	return api.NewResource(q.Queue.Spec.Guarantee.Resource)
}

// Guaranteed returns the sum of the guarantees of all queues, those without jobs included (nil,
// which reads as zero, when no queue has one).
func Guaranteed(queues map[string]*api.QueueInfo, dims []corev1.ResourceName) Vec {
	var sum Vec
	for _, q := range queues {
		if q.Queue == nil || len(q.Queue.Spec.Guarantee.Resource) == 0 {
			continue
		}
		if sum == nil {
			sum = Vec{}
		}
		g := GuaranteeOf(q)
		for _, d := range dims {
			sum[d] += float64(g.Get(d))
		}
	}
	return sum
}

// GuaranteedTo names the guarantees of resource d of the queues other than except, with the
// amounts, in name order: "the guarantee of queue a (2)" or "the guarantees of queues a (2),
// b (1)"; "" when no other queue has one.
func GuaranteedTo(queues map[string]*api.QueueInfo, except string, d corev1.ResourceName) string {
	var names []string
	for name, q := range queues {
		if name == except || q.Queue == nil {
			continue
		}
		if v, ok := q.Queue.Spec.Guarantee.Resource[d]; ok && !v.IsZero() {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	const most = 3
	parts := make([]string, 0, most+1)
	for i, name := range names {
		if i == most {
			parts = append(parts, fmt.Sprintf("%d more", len(names)-most))
			break
		}
		g := GuaranteeOf(queues[name])
		parts = append(parts, fmt.Sprintf("%s (%s)", name, api.FormatAmount(d, g.Get(d))))
	}
	if len(names) == 1 {
		return "the guarantee of queue " + parts[0]
	}
	return "the guarantees of queues " + strings.Join(parts, ", ")
}

// SpecCapability returns a queue's spec.capability of resource d, +Inf when it names none.
func SpecCapability(q *api.QueueInfo, d corev1.ResourceName) float64 {
	if q == nil || q.Queue == nil {
		return math.Inf(1)
	}
	v, ok := q.Queue.Spec.Capability[d]
	if !ok {
		return math.Inf(1)
	}
	if d == corev1.ResourceCPU {
		return float64(v.MilliValue())
	}
	return float64(v.Value())
}

// cutByGuarantees reports whether a queue's capability of resource d is what the other queues'
// guarantees leave of the cluster's total, below both its own spec.capability and the total.
func cutByGuarantees(a *QueueAttr, q *api.QueueInfo, d corev1.ResourceName, total *api.Resource, elastic bool) bool {
	return !elastic && a.Capability[d] < math.Min(SpecCapability(q, d), float64(total.Get(d)))-1e-6
}

func waterFill(attrs map[string]*QueueAttr, total Vec, dims []corev1.ResourceName) {
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	met := map[string]bool{}
	remaining := Vec{}
	for _, d := range dims {
		remaining[d] = total[d]
	}
	for round := 0; round < 1000; round++ {
		var weights float64
		for _, n := range names {
			if !met[n] {
				weights += attrs[n].Weight
			}
		}
		if weights == 0 {
			break
		}
		changed := false
		for _, n := range names {
			if met[n] {
				continue
			}
			a := attrs[n]
			old := Vec{}
			for _, d := range dims {
				old[d] = a.Deserved[d]
				v := a.Deserved[d] + remaining[d]*a.Weight/weights
				v = math.Min(v, a.Capability[d])
				v = math.Min(v, a.Request[d])
				v = math.Max(v, a.Guarantee[d])
				a.Deserved[d] = v
			}
			same, satisfied := true, true
			for _, d := range dims {
				if math.Abs(a.Deserved[d]-old[d]) > 1e-6 {
					same, changed = false, true
				}
				if a.Request[d] > a.Deserved[d]+1e-6 && a.Deserved[d] < a.Capability[d]-1e-6 {
					satisfied = false
				}
			}
			if satisfied || same {
				met[n] = true
			}
		}
		for _, d := range dims {
			used := 0.0
			for _, n := range names {
				used += attrs[n].Deserved[d]
			}
			remaining[d] = math.Max(total[d]-used, 0)
		}
		empty := true
		for _, d := range dims {
			if remaining[d] > 1e-6 {
				empty = false
			}
		}
		if empty || !changed {
			break
		}
	}
}

func (a *QueueAttr) updateShare(dims []corev1.ResourceName) {
	a.Share = 0
	for _, d := range dims {
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

// Fits reports whether base+req stays within limit on every resource req asks for.
func Fits(base Vec, req *api.Resource, limit Vec, dims []corev1.ResourceName) (bool, corev1.ResourceName) {
	for _, d := range dims {
		r := float64(req.Get(d))
		if r <= 0 {
			continue
		}
		if base[d]+r > limit[d]+1e-6 {
			return false, d
		}
	}
	for name, v := range req.Scalar {
		if _, known := limit[name]; !known && v > 0 {
			// The cluster offers none of it.
			return false, name
		}
	}
	return true, ""
}

// Format renders an amount of resource d, "unlimited" for +Inf.
func Format(d corev1.ResourceName, v float64) string {
	if math.IsInf(v, 1) {
		return "unlimited"
	}
	return api.FormatAmount(d, int64(math.Floor(v+1e-6)))
}

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	total, shared := ssn.TotalResource.Clone(), ssn.SharedResource.Clone()
	dims := Dims(&total)
	attrs := Attrs(ssn.Queues, ssn.Snapshot.Usage, &total, &shared, p.elastic)
	p.attrs = attrs
	parents := cappedAncestors(ssn.Queues)
	allocated := func(a *QueueAttr, d corev1.ResourceName) float64 { return a.Allocated[d] }
	admitted := func(a *QueueAttr, d corev1.ResourceName) float64 { return a.Allocated[d] + a.Inqueue[d] - a.Elastic[d] }

	ssn.AddQueueOrderFn(Name, func(l, r *api.QueueInfo) int {
		if l.Priority != r.Priority {
			if l.Priority > r.Priority {
				return -1
			}
			return 1
		}
		la, ra := attrs[l.Name], attrs[r.Name]
		if la == nil || ra == nil || la.Share == ra.Share {
			return 0
		}
		if la.Share < ra.Share {
			return -1
		}
		return 1
	})
	ssn.AddOverusedFn(Name, func(q *api.QueueInfo) bool {
		a := attrs[q.Name]
		if a == nil {
			return false
		}
		for _, d := range dims {
			if a.Deserved[d] > a.Allocated[d]+1e-6 {
				return false
			}
		}
		for _, d := range dims {
			if a.Request[d] > a.Allocated[d]+1e-6 {
				ssn.NoteQueue(q.Name, shareMessage(ssn.Queues, a, q, d, len(attrs), &total, &shared, p.elastic))
				break
			}
		}
		return true
	})
	allocatable := func(q *api.QueueInfo, t *api.TaskInfo) bool {
		if !q.IsOpen() {
			ssn.Explain(t.Job, fmt.Sprintf("queue %s is %s and places no new pods; open the queue or move the job to an open one", q.Name, q.State))
			return false
		}
		a := attrs[q.Name]
		if a == nil {
			return true
		}
		ok, d := Fits(a.Allocated, t.Resreq, a.Deserved, dims)
		if !ok {
			ssn.ExplainShare(t.Job, shareMessage(ssn.Queues, a, q, d, len(attrs), &total, &shared, p.elastic)+
				fmt.Sprintf(" (pod %s requests %s)", t.Name, api.FormatAmount(d, t.Resreq.Get(d))))
			return false
		}
		if anc, d, held := parents.over(q.Name, t.Resreq, attrs, dims, allocated); anc != nil {
			ssn.ExplainShare(t.Job, parentFullMessage(q.Name, anc, d, held)+
				fmt.Sprintf(" (pod %s requests %s)", t.Name, api.FormatAmount(d, t.Resreq.Get(d))))
			return false
		}
		return true
	}
	ssn.AddAllocatableFn(Name, allocatable)
	ssn.AddPreemptiveFn(Name, func(q *api.QueueInfo, t *api.TaskInfo) bool {
		a := attrs[q.Name]
		if a == nil {
			return false
		}
		ok, _ := Fits(a.Allocated, t.Resreq, a.Deserved, dims)
		return ok
	})
	ssn.AddReclaimableFn(Name, func(reclaimer *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
		left := map[string]Vec{}
		var victims []*api.TaskInfo
		for _, c := range candidates {
			j := ssn.Jobs[c.Job]
			if j == nil {
				continue
			}
			a := attrs[j.Queue]
			if a == nil {
				continue
			}
			alloc, ok := left[j.Queue]
			if !ok {
				alloc = Vec{}
				for _, d := range dims {
					alloc[d] = a.Allocated[d]
				}
				left[j.Queue] = alloc
			}
			over := false
			for _, d := range dims {
				if alloc[d] > a.Deserved[d]+1e-6 {
					over = true
				}
			}
			if !over {
				continue
			}
			for _, d := range dims {
				alloc[d] -= float64(c.Resreq.Get(d))
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
		if !q.IsOpen() {
			ssn.ExplainReason(j.UID, schedulingv1beta1.QueueNotOpenReason,
				fmt.Sprintf("queue %s is %s and admits no new PodGroups; open the queue or submit to an open one", q.Name, q.State))
			return framework.Reject
		}
		a := attrs[q.Name]
		if a == nil || j.MinResources == nil {
			return framework.Permit
		}
		base := Vec{}
		for _, d := range dims {
			base[d] = a.Allocated[d] + a.Inqueue[d] - a.Elastic[d]
		}
		if ok, d := Fits(base, j.MinResources, a.Capability, dims); !ok {
			var others string
			if cutByGuarantees(a, q, d, &total, p.elastic) {
				others = GuaranteedTo(ssn.Queues, q.Name, d)
			}
			ssn.Explain(j.UID, QuotaMessage(q.Name, d, a.Capability[d], base[d], Needs(j), j.MinResources.Get(d), total.Get(d), others))
			return framework.Reject
		}
		if anc, d, held := parents.over(q.Name, j.MinResources, attrs, dims, admitted); anc != nil {
			ssn.Explain(j.UID, parentQuotaMessage(q.Name, anc, d, held, Needs(j), j.MinResources.Get(d)))
			return framework.Reject
		}
		return framework.Permit
	})
	ssn.AddJobEnqueuedFn(Name, func(j *api.JobInfo) {
		a := attrs[j.Queue]
		if a == nil || j.MinResources == nil {
			return
		}
		for _, d := range dims {
			a.Inqueue[d] += float64(j.MinResources.Get(d))
		}
	})
	ssn.AddEventHandler(&framework.EventHandler{
		AllocateFunc: func(e *framework.Event) {
			if j := ssn.Jobs[e.Task.Job]; j != nil {
				if a := attrs[j.Queue]; a != nil {
					for _, d := range dims {
						a.Allocated[d] += float64(e.Task.Resreq.Get(d))
					}
					a.updateShare(dims)
				}
			}
		},
		DeallocateFunc: func(e *framework.Event) {
			if j := ssn.Jobs[e.Task.Job]; j != nil {
				if a := attrs[j.Queue]; a != nil {
					for _, d := range dims {
						a.Allocated[d] -= float64(e.Task.Resreq.Get(d))
					}
					a.updateShare(dims)
				}
			}
		},
	})
}

// OnSessionClose records every queue's amounts, as they stand after the cycle's placements, in
// the metrics.
func (p *plugin) OnSessionClose(ssn *framework.Session) {
	metrics.UpdateQueues(QueueMetrics(ssn.Queues, p.attrs))
}

// QueueMetrics returns what the metrics show of every queue: the attributes of the queues with
// jobs, and zero amounts for the others.
func QueueMetrics(queues map[string]*api.QueueInfo, attrs map[string]*QueueAttr) []metrics.Queue {
	out := make([]metrics.Queue, 0, len(queues))
	for name, q := range queues {
		m := metrics.Queue{Name: name, Weight: float64(q.Weight)}
		if a := attrs[name]; a != nil {
			m.Share, m.Allocated, m.Deserved, m.Request = a.Share, a.Allocated, a.Deserved, a.Request
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Needs names what a job asks for to be admitted: a PodGroup's minResources, a lone pod's requests.
func Needs(j *api.JobInfo) string {
	if j.PodOnly {
		return "this pod's requests"
	}
	return "this PodGroup's minResources"
}

// QuotaMessage says why queue q admits no job asking need of resource d (Volcano's "queue resource
// quota insufficient"): the queue can hold capability of it and holds base for running and
// admitted jobs. guaranteedTo, when the capability is what the guarantees of other queues leave
// of the cluster's total, names those guarantees (see GuaranteedTo).
func QuotaMessage(q string, d corev1.ResourceName, capability, base float64, what string, need, total int64, guaranteedTo string) string {
	if guaranteedTo == "" {
		return fmt.Sprintf("queue resource quota insufficient: queue %s can hold %s of %s and already holds %s for running and admitted jobs; "+
			"%s need %s more; wait for the queue's jobs to finish, or raise the queue's capability, or lower minResources",
			q, Format(d, capability), d, Format(d, base), what, api.FormatAmount(d, need))
	}
	return fmt.Sprintf("queue resource quota insufficient: queue %s can hold %s of %s, the cluster's %s less %s, "+
		"and already holds %s for running and admitted jobs; %s need %s more; "+
		"wait for the queue's jobs to finish, or lower those queues' spec.guarantee, or add nodes, or lower minResources",
		q, Format(d, capability), d, api.FormatAmount(d, total), guaranteedTo, Format(d, base), what, api.FormatAmount(d, need))
}

// shareMessage is ShareMessage, naming the guarantees of other queues when they cap q.
func shareMessage(queues map[string]*api.QueueInfo, a *QueueAttr, q *api.QueueInfo, d corev1.ResourceName, n int, total, shared *api.Resource, elastic bool) string {
	var others string
	if cutByGuarantees(a, q, d, total, elastic) {
		others = GuaranteedTo(queues, q.Name, d)
	}
	return ShareMessage(a, q, d, n, total, shared, elastic, others)
}

// ShareMessage says why a queue has no more of resource d to give, naming what limits it: the
// guarantees of other queues (guaranteedTo names them when they set its capability, see
// GuaranteedTo), its capability, the cluster (when it is the only queue with work) or the other
// queues' weights.
func ShareMessage(a *QueueAttr, q *api.QueueInfo, d corev1.ResourceName, queues int, total, shared *api.Resource, elastic bool, guaranteedTo string) string {
	atCapability := a.Deserved[d] >= a.Capability[d]-1e-6 && !math.IsInf(a.Capability[d], 1)
	switch {
	case atCapability && guaranteedTo != "":
		return fmt.Sprintf("queue %s holds %s of %s, all it may hold: the cluster's %s less %s; "+
			"wait for the queue's pods to finish, or lower those queues' spec.guarantee, or add nodes",
			q.Name, Format(d, a.Allocated[d]), d, api.FormatAmount(d, total.Get(d)), guaranteedTo)
	case atCapability && (elastic || a.Capability[d] < float64(total.Get(d))):
		return fmt.Sprintf("queue %s has reached its capability of %s: %s allocated of %s; raise spec.capability or wait for the queue's pods to finish",
			q.Name, d, Format(d, a.Allocated[d]), Format(d, a.Capability[d]))
	case queues == 1:
		return fmt.Sprintf("the cluster's %s is all in use: queue %s holds %s of the %s that the nodes offer to queues; add nodes or wait for running pods to finish",
			d, q.Name, Format(d, a.Allocated[d]), api.FormatAmount(d, shared.Get(d)))
	default:
		return fmt.Sprintf("queue %s holds its deserved share of %s, %s of the %s the queues share by its weight %d against the other queues with work; "+
			"wait for its pods to finish or raise its weight", q.Name, d, Format(d, a.Deserved[d]), api.FormatAmount(d, shared.Get(d)), q.Weight)
	}
}

// String renders a queue's attributes for logs.
func (a *QueueAttr) String() string {
	var parts []string
	for _, d := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		parts = append(parts, fmt.Sprintf("%s deserved=%s allocated=%s", d, Format(d, a.Deserved[d]), Format(d, a.Allocated[d])))
	}
	return a.Name + ": " + strings.Join(parts, ", ")
}
