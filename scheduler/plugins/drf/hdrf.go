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

package drf

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/plugins/proportion"
)

// Queue annotations of Volcano's hierarchical DRF.
const (
	// HierarchyAnnotation is a queue's place in the hierarchy, from the root: root/eng/prod.
	HierarchyAnnotation = "volcano.sh/hierarchy"
	// HierarchyWeightsAnnotation are the weights of the levels of HierarchyAnnotation, in the
	// same order: 100/50/50. A missing, unreadable or smaller than 1 weight is 1.
	HierarchyWeightsAnnotation = "volcano.sh/hierarchy-weights"
)

// hnode is a node of the hierarchy: a level of the queues' paths, or a job (a leaf).
type hnode struct {
	weight   float64
	children map[string]*hnode
	names    []string
	// job is set on leaves: their allocation and request are the job's.
	job       bool
	request   proportion.Vec
	allocated proportion.Vec
	share     float64
	saturated bool
}

func (n *hnode) child(name string, weight float64) *hnode {
	if c, ok := n.children[name]; ok {
		return c
	}
	c := &hnode{weight: weight, children: map[string]*hnode{}, allocated: proportion.Vec{}}
	n.children[name] = c
	i, _ := slices.BinarySearch(n.names, name)
	n.names = slices.Insert(n.names, i, name)
	return c
}

func (n *hnode) clone() *hnode {
	c := *n
	c.allocated = maps.Clone(n.allocated)
	if n.children != nil {
		c.children = make(map[string]*hnode, len(n.children))
		for name, ch := range n.children {
			c.children[name] = ch.clone()
		}
	}
	return &c
}

// Hierarchy is Volcano's hierarchical DRF: queues are placed in a tree by their
// volcano.sh/hierarchy annotation, each level weighted by volcano.sh/hierarchy-weights, with the
// jobs as leaves. A level's share is the dominant share of what its children hold, the children
// that still want more scaled to the smallest of their shares (so a level's share grows only
// as its least served demanding child does); children that hold all they ask for, or want a
// resource the cluster has no more of, are saturated and count as they are. Queues are compared
// level by level from the root by share over weight, unsaturated before saturated.
type Hierarchy struct {
	total proportion.Vec
	dims  []corev1.ResourceName
	// allocated is what every job holds.
	allocated proportion.Vec
	root      *hnode
	leaves    map[api.JobID]*hnode
	paths     map[string][]string
	// stale is set when an allocation changed since the shares were worked out.
	stale bool
}

// NewHierarchy builds the tree of the queues and jobs of a cycle.
func NewHierarchy(total *api.Resource, queues map[string]*api.QueueInfo, jobs map[api.JobID]*api.JobInfo) *Hierarchy {
	h := &Hierarchy{allocated: proportion.Vec{}, leaves: map[api.JobID]*hnode{}, paths: map[string][]string{},
		root: &hnode{weight: 1, children: map[string]*hnode{}, allocated: proportion.Vec{}}, stale: true}
	for _, d := range append([]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}, slices.Collect(maps.Keys(total.Scalar))...) {
		if total.Get(d) > 0 {
			h.dims = append(h.dims, d)
		}
	}
	slices.Sort(h.dims)
	h.total = proportion.VecOf(total, h.dims)
	names := make([]string, 0, len(queues))
	for name := range queues {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		h.place(queues[name])
	}
	ids := make([]api.JobID, 0, len(jobs))
	for id := range jobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		j := jobs[id]
		parent := h.nodeOf(j.Queue)
		if parent == nil {
			continue
		}
		leaf := parent.child(string(id), 1)
		leaf.job, leaf.children, leaf.request = true, nil, proportion.Vec{}
		for _, t := range j.Tasks {
			h.add(leaf.request, t.Resreq, 1)
		}
		leaf.allocated = proportion.VecOf(&j.Allocated, h.dims)
		for k, x := range leaf.allocated {
			h.allocated[k] += x
		}
		h.leaves[id] = leaf
	}
	return h
}

// place makes the levels of a queue's path.
func (h *Hierarchy) place(q *api.QueueInfo) {
	var path, weights []string
	if q.Queue != nil {
		if p := q.Queue.Annotations[HierarchyAnnotation]; p != "" {
			path = strings.Split(p, "/")
		}
		weights = strings.Split(q.Queue.Annotations[HierarchyWeightsAnnotation], "/")
	}
	n := h.root
	var below []string
	// The first element is the root.
	for i := 1; i < len(path); i++ {
		w := 1.0
		if i < len(weights) {
			if f, err := strconv.ParseFloat(weights[i], 64); err == nil && f >= 1 {
				w = f
			}
		}
		n = n.child(path[i], w)
		below = append(below, path[i])
	}
	h.paths[q.Name] = below
}

func (h *Hierarchy) nodeOf(queue string) *hnode {
	path, ok := h.paths[queue]
	if !ok {
		return nil
	}
	n := h.root
	for _, p := range path {
		n = n.children[p]
	}
	return n
}

// add counts (sign 1) or takes back (sign -1) r in v, over the cluster's resources.
func (h *Hierarchy) add(v proportion.Vec, r *api.Resource, sign float64) {
	for _, d := range h.dims {
		v[d] += sign * float64(r.Get(d))
	}
}

// Add counts (sign 1) or takes back (sign -1) r in what a job holds.
func (h *Hierarchy) Add(job api.JobID, r *api.Resource, sign float64) {
	leaf, ok := h.leaves[job]
	if !ok {
		return
	}
	h.add(leaf.allocated, r, sign)
	h.add(h.allocated, r, sign)
	h.stale = true
}

// dominant is the largest fraction of a cluster resource v holds.
func (h *Hierarchy) dominant(v proportion.Vec) float64 {
	var s float64
	for _, d := range h.dims {
		s = math.Max(s, v[d]/h.total[d])
	}
	return s
}

// update works out every level's share, from the leaves up.
func (h *Hierarchy) update(root *hnode, allocated proportion.Vec) {
	demanding := map[corev1.ResourceName]bool{}
	for _, d := range h.dims {
		if allocated[d] < h.total[d] {
			demanding[d] = true
		}
	}
	h.updateNode(root, demanding)
}

func (h *Hierarchy) updateNode(n *hnode, demanding map[corev1.ResourceName]bool) {
	if n.job {
		n.share = h.dominant(n.allocated)
		n.saturated = false
		for name, a := range n.allocated {
			req := n.request[name]
			if a > 0 && req > 0 && a >= req || req > 0 && a > 0 && !demanding[name] {
				n.saturated = true
			}
		}
		return
	}
	least := 1.0
	for _, name := range n.names {
		c := n.children[name]
		h.updateNode(c, demanding)
		if c.share != 0 && !c.saturated {
			least = math.Min(least, c.share)
		}
	}
	n.allocated = proportion.Vec{}
	n.saturated = true
	for _, name := range n.names {
		c := n.children[name]
		if !c.saturated {
			n.saturated = false
		}
		if c.share == 0 {
			continue
		}
		scale := 1.0
		if !c.saturated {
			scale = least / c.share
		}
		for k, x := range c.allocated {
			n.allocated[k] += x * scale
		}
	}
	n.share = h.dominant(n.allocated)
}

// Compare orders two queues: negative when l comes first.
func (h *Hierarchy) Compare(l, r string) float64 {
	if h.stale {
		h.update(h.root, h.allocated)
		h.stale = false
	}
	return h.compare(h.root, l, r)
}

func (h *Hierarchy) compare(root *hnode, l, r string) float64 {
	lp, lok := h.paths[l]
	rp, rok := h.paths[r]
	if !lok || !rok {
		return 0
	}
	ln, rn := root, root
	for i := 0; ; i++ {
		switch {
		case !ln.saturated && rn.saturated:
			return -1
		case ln.saturated && !rn.saturated:
			return 1
		}
		if ls, rs := ln.share/ln.weight, rn.share/rn.weight; ls != rs {
			return ls - rs
		}
		if i >= len(lp) || i >= len(rp) {
			return 0
		}
		ln, rn = ln.children[lp[i]], rn.children[rp[i]]
	}
}

// Reclaimable returns the candidates whose queue, were the candidate gone and the reclaimer
// placed, would come after the reclaimer's queue.
func (h *Hierarchy) Reclaimable(reclaimer *api.TaskInfo, reclaimerQueue string, candidates []*api.TaskInfo, queueOf func(*api.TaskInfo) string) []*api.TaskInfo {
	root := h.root.clone()
	leaves := map[api.JobID]*hnode{}
	var index func(n *hnode)
	index = func(n *hnode) {
		for name, c := range n.children {
			if c.job {
				leaves[api.JobID(name)] = c
				continue
			}
			index(c)
		}
	}
	index(root)
	allocated := maps.Clone(h.allocated)
	lleaf, ok := leaves[reclaimer.Job]
	if !ok {
		return nil
	}
	h.add(lleaf.allocated, reclaimer.Resreq, 1)
	h.add(allocated, reclaimer.Resreq, 1)
	var victims []*api.TaskInfo
	for _, c := range candidates {
		rleaf, ok := leaves[c.Job]
		if !ok {
			continue
		}
		h.add(rleaf.allocated, c.Resreq, -1)
		h.add(allocated, c.Resreq, -1)
		h.update(root, allocated)
		ret := h.compare(root, reclaimerQueue, queueOf(c))
		h.add(rleaf.allocated, c.Resreq, 1)
		h.add(allocated, c.Resreq, 1)
		if ret < 0 {
			victims = append(victims, c)
		}
	}
	return victims
}
