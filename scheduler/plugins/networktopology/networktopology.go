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

// Package networktopology is Volcano's network-topology-aware plugin: it scores the network
// domains (HyperNodes) a job with a network topology fits in, so that the allocate action
// chooses, among the domains of the lowest tier that hold the job's gang, the fullest one once
// the job is in it (the weighted mean of the domain's used fractions of cpu, memory and the
// listed resources), leaving whole domains free for larger gangs. Holding a job within its
// domain is the allocate action's, whether or not this plugin is configured.
//
// Arguments (Volcano's): weight (1), hypernode.binpack.cpu (1), hypernode.binpack.memory (1),
// hypernode.binpack.resources (a comma-separated list of other resources) and
// hypernode.binpack.resources.<name> (each one's weight, 1). With hypernode.binpack.normal-pod.enable
// (true) it also scores nodes for pods without a network topology by how full their HyperNodes
// would be with the pod, tier by tier, tier t weighing hypernode.binpack.normal-pod.fading^(t-1)
// (0.8), so that such pods fill the domains in use. hypernode.gradient.evict.max-hypernodes (for
// Volcano's topology-aware gang preemption) is accepted and reported as having no effect.
package networktopology

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/plugins/binpack"
)

// Name is the plugin's name.
const Name = "network-topology-aware"

// Arguments.
const (
	WeightArgument          = "weight"
	CPUArgument             = "hypernode.binpack.cpu"
	MemoryArgument          = "hypernode.binpack.memory"
	ResourcesArgument       = "hypernode.binpack.resources"
	NormalPodArgument       = "hypernode.binpack.normal-pod.enable"
	NormalPodFadingArgument = "hypernode.binpack.normal-pod.fading"
	EvictMaxArgument        = "hypernode.gradient.evict.max-hypernodes"
	resourcePrefix          = "hypernode.binpack.resources."
)

// Ignored are the arguments accepted with no effect, each with what it would turn on.
var Ignored = map[string]string{
	EvictMaxArgument: "Volcano's topology-aware gang preemption search",
}

// Weights are the plugin's weights.
type Weights struct {
	// Weight multiplies the whole score.
	Weight int
	// Resources weighs each resource.
	Resources map[corev1.ResourceName]int
}

type plugin struct {
	w  Weights
	np NormalPods
}

// New builds the plugin from its arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	w, err := ParseWeights(args)
	if err != nil {
		return nil, err
	}
	np, err := ParseNormalPods(args)
	if err != nil {
		return nil, err
	}
	return &plugin{w: w, np: np}, nil
}

// ParseWeights reads the plugin's arguments.
func ParseWeights(args conf.Arguments) (Weights, error) {
	if err := args.CheckKeys([]string{WeightArgument, CPUArgument, MemoryArgument, ResourcesArgument,
		NormalPodArgument, NormalPodFadingArgument, EvictMaxArgument}, resourcePrefix); err != nil {
		return Weights{}, err
	}
	var w Weights
	var err error
	if w.Weight, err = args.Int(WeightArgument, 1); err != nil {
		return w, err
	}
	if w.Weight < 0 {
		return w, fmt.Errorf("%s: must be 0 or more, got %d", WeightArgument, w.Weight)
	}
	w.Resources, err = binpack.ResourceWeights(args, CPUArgument, MemoryArgument, ResourcesArgument, resourcePrefix)
	return w, err
}

func (p *plugin) Name() string { return Name }

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	ssn.AddHyperNodeOrderFn(Name,
		func(_ *api.JobInfo, nodes []*api.NodeInfo) float64 { return Score(p.w, nodes) },
		func(_ *api.JobInfo, nodes []*api.NodeInfo, add *api.Resource) float64 { return Bound(p.w, nodes, add) })
	if !p.np.Enable || p.w.Weight == 0 {
		return
	}
	s := newNormalScorer(p.w, p.np, ssn.Topology(), ssn.Nodes)
	if s == nil {
		return
	}
	ssn.AddNodeOrderFn(Name, func(t *api.TaskInfo, n *api.NodeInfo) float64 {
		if withTopology(ssn, t) {
			return 0
		}
		return s.score(t, n.Name)
	})
	ssn.AddEventHandler(&framework.EventHandler{
		AllocateFunc:   func(e *framework.Event) { s.placed(e.Task, e.Node, 1) },
		DeallocateFunc: func(e *framework.Event) { s.placed(e.Task, e.Node, -1) },
	})
	ssn.MarkScoresSpanNodes()
}

// withTopology reports whether a task's job or subgroup has a network topology: its domain is
// chosen by the domain score, not node by node.
func withTopology(ssn *framework.Session, t *api.TaskInfo) bool {
	j, ok := ssn.Jobs[t.Job]
	if !ok {
		return false
	}
	if j.PodGroup != nil && j.PodGroup.Spec.NetworkTopology != nil {
		return true
	}
	if sg, ok := j.SubGroupOf(t); ok {
		return j.SubGroups[sg.Policy].NetworkTopology != nil
	}
	return false
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Score is 100 × weight × the weighted mean, over the weighted resources the domain's nodes
// offer, of the domain's used fraction (its Ready nodes' Used over their Allocatable).
func Score(w Weights, nodes []*api.NodeInfo) float64 { return Bound(w, nodes, nil) }

// Bound is Score with add more used in the domain. Score only grows with what the domain's nodes
// use (the weights are not negative), so Bound is the most Score can be once tasks asking for add
// together, or for part of it, are placed on the domain's nodes.
func Bound(w Weights, nodes []*api.NodeInfo, add *api.Resource) float64 {
	if w.Weight == 0 {
		return 0
	}
	var used, alloc api.Resource
	for _, n := range nodes {
		if !n.Ready {
			continue
		}
		used.Add(&n.Used)
		alloc.Add(&n.Allocatable)
	}
	if add != nil {
		used.Add(add)
	}
	var sum float64
	var weights int
	// In name order: domains that score the same mathematically score the same to the last bit.
	for _, name := range slices.Sorted(maps.Keys(w.Resources)) {
		rw := w.Resources[name]
		a := alloc.Get(name)
		if a <= 0 || rw == 0 {
			continue
		}
		sum += float64(rw) * float64(min(used.Get(name), a)) / float64(a)
		weights += rw
	}
	if weights == 0 {
		return 0
	}
	return sum / float64(weights) * 100 * float64(w.Weight)
}
