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

// Package nodeorder scores nodes for a task as kube-scheduler's scoring plugins do, each score
// 0..100 times its weight: least requested (spread; weight 1), most requested (pack; 0),
// balanced resource use (1), preferred node affinity (2), preferred inter-pod affinity and
// anti-affinity (2), topology spread constraints with whenUnsatisfiable: ScheduleAnyway (2) and
// PreferNoSchedule taints tolerated (3). Volcano's other weight arguments are accepted and have
// no effect.
package nodeorder

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "nodeorder"

// Weight arguments, with Volcano's names.
const (
	LeastRequestedWeight    = "leastrequested.weight"
	MostRequestedWeight     = "mostrequested.weight"
	BalancedResourceWeight  = "balancedresource.weight"
	NodeAffinityWeight      = "nodeaffinity.weight"
	TaintTolerationWeight   = "tainttoleration.weight"
	PodAffinityWeight       = "podaffinity.weight"
	PodTopologySpreadWeight = "podtopologyspread.weight"
)

var acceptedKeys = []string{
	LeastRequestedWeight, MostRequestedWeight, BalancedResourceWeight, NodeAffinityWeight, TaintTolerationWeight,
	PodAffinityWeight, PodTopologySpreadWeight, "imagelocality.weight", "selectorspread.weight", "volumebinding.weight",
}

// Weights are the scores' weights.
type Weights struct {
	LeastRequested, MostRequested, BalancedResource, NodeAffinity, TaintToleration, PodAffinity, PodTopologySpread int
}

// DefaultWeights are Volcano's defaults.
var DefaultWeights = Weights{LeastRequested: 1, MostRequested: 0, BalancedResource: 1, NodeAffinity: 2, TaintToleration: 3,
	PodAffinity: 2, PodTopologySpread: 2}

type plugin struct{ w Weights }

// New builds the plugin from its arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	if err := args.CheckKeys(acceptedKeys); err != nil {
		return nil, err
	}
	w := DefaultWeights
	var err error
	for _, f := range []struct {
		key string
		dst *int
	}{{LeastRequestedWeight, &w.LeastRequested}, {MostRequestedWeight, &w.MostRequested}, {BalancedResourceWeight, &w.BalancedResource},
		{NodeAffinityWeight, &w.NodeAffinity}, {TaintTolerationWeight, &w.TaintToleration},
		{PodAffinityWeight, &w.PodAffinity}, {PodTopologySpreadWeight, &w.PodTopologySpread}} {
		if *f.dst, err = args.Int(f.key, *f.dst); err != nil {
			return nil, err
		}
	}
	return &plugin{w: w}, nil
}

func (p *plugin) Name() string { return Name }

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	s := NewScorer(p.w)
	s.Placement = NewPlacementScorer(ssn.Nodes)
	ssn.AddNodeOrderFn(Name, s.Score)
	// A placement made or undone in the cycle changes where other pods are.
	forget := func(*framework.Event) { s.Placement.Forget() }
	ssn.AddEventHandler(&framework.EventHandler{AllocateFunc: forget, DeallocateFunc: forget})
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Scorer scores nodes; it remembers per task what it parsed.
type Scorer struct {
	w Weights
	// Placement scores by where other pods are; nil scores nothing.
	Placement *PlacementScorer
	preferred map[api.TaskID]*preferred
	last      *api.TaskInfo
	lastPref  *preferred
}

type preferred struct {
	terms *nodeaffinity.PreferredSchedulingTerms
	max   int64
}

// NewScorer returns a scorer with the given weights.
func NewScorer(w Weights) *Scorer { return &Scorer{w: w, preferred: map[api.TaskID]*preferred{}} }

// Score is the weighted sum of the scores of a task on a node.
func (s *Scorer) Score(t *api.TaskInfo, n *api.NodeInfo) float64 {
	var score float64
	if s.w.LeastRequested != 0 {
		score += float64(s.w.LeastRequested) * LeastRequested(t.Resreq, n)
	}
	if s.w.MostRequested != 0 {
		score += float64(s.w.MostRequested) * MostRequested(t.Resreq, n)
	}
	if s.w.BalancedResource != 0 {
		score += float64(s.w.BalancedResource) * BalancedResource(t.Resreq, n)
	}
	if s.w.NodeAffinity != 0 {
		score += float64(s.w.NodeAffinity) * s.nodeAffinity(t, n)
	}
	if s.w.TaintToleration != 0 {
		score += float64(s.w.TaintToleration) * TaintToleration(t.Pod, n.Node)
	}
	if s.Placement != nil && (s.w.PodAffinity != 0 || s.w.PodTopologySpread != 0) && api.HasPlacementRules(t.Pod) {
		affinity, spread := s.Placement.Score(t, n)
		score += float64(s.w.PodAffinity)*affinity + float64(s.w.PodTopologySpread)*spread
	}
	return score
}

func fraction(req, used, alloc int64) float64 {
	if alloc <= 0 {
		return 1
	}
	return math.Min(float64(used+req)/float64(alloc), 1)
}

// LeastRequested scores 100 for an empty node and 0 for a full one, over cpu and memory.
func LeastRequested(req *api.Resource, n *api.NodeInfo) float64 {
	cpu := 1 - fraction(req.MilliCPU, n.Used.MilliCPU, n.Allocatable.MilliCPU)
	mem := 1 - fraction(req.Memory, n.Used.Memory, n.Allocatable.Memory)
	return (cpu + mem) / 2 * 100
}

// MostRequested scores 100 for a node the task fills and 0 for an empty one.
func MostRequested(req *api.Resource, n *api.NodeInfo) float64 {
	cpu := fraction(req.MilliCPU, n.Used.MilliCPU, n.Allocatable.MilliCPU)
	mem := fraction(req.Memory, n.Used.Memory, n.Allocatable.Memory)
	return (cpu + mem) / 2 * 100
}

// BalancedResource scores 100 when cpu, memory (and GPUs, when the task asks for them) would be
// used in equal fractions, less the more they differ.
func BalancedResource(req *api.Resource, n *api.NodeInfo) float64 {
	var fs [3]float64
	fs[0] = fraction(req.MilliCPU, n.Used.MilliCPU, n.Allocatable.MilliCPU)
	fs[1] = fraction(req.Memory, n.Used.Memory, n.Allocatable.Memory)
	k := 2
	const gpu = corev1.ResourceName("nvidia.com/gpu")
	if g := req.Scalar[gpu]; g > 0 {
		fs[2] = fraction(g, n.Used.Scalar[gpu], n.Allocatable.Scalar[gpu])
		k = 3
	}
	var mean float64
	for _, f := range fs[:k] {
		mean += f
	}
	mean /= float64(k)
	var variance float64
	for _, f := range fs[:k] {
		variance += (f - mean) * (f - mean)
	}
	return (1 - math.Sqrt(variance/float64(k))) * 100
}

func (s *Scorer) nodeAffinity(t *api.TaskInfo, n *api.NodeInfo) float64 {
	if s.last == t {
		return s.lastPref.score(n)
	}
	p, ok := s.preferred[t.UID]
	if !ok {
		p = &preferred{}
		if a := t.Pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
			terms := a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			if parsed, err := nodeaffinity.NewPreferredSchedulingTerms(terms); err == nil {
				p.terms = parsed
				for _, term := range terms {
					p.max += int64(term.Weight)
				}
			}
		}
		s.preferred[t.UID] = p
	}
	s.last, s.lastPref = t, p
	return p.score(n)
}

func (p *preferred) score(n *api.NodeInfo) float64 {
	if p.terms == nil || p.max == 0 || n.Node == nil {
		return 0
	}
	return float64(p.terms.Score(n.Node)) / float64(p.max) * 100
}

// TaintToleration scores 100 when the pod tolerates every PreferNoSchedule taint of the node,
// less for each it does not.
func TaintToleration(pod *corev1.Pod, node *corev1.Node) float64 {
	if pod == nil || node == nil || len(node.Spec.Taints) == 0 {
		return 100
	}
	untolerated := 0
	for i := range node.Spec.Taints {
		taint := &node.Spec.Taints[i]
		if taint.Effect != corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(klog.Background(), pod.Spec.Tolerations, taint, false) {
			untolerated++
		}
	}
	return 100 / float64(1+untolerated)
}
