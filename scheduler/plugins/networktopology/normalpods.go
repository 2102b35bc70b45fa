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

package networktopology

import (
	"fmt"
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

// NormalPods are the arguments of the scoring of pods without a network topology.
type NormalPods struct {
	// Enable is hypernode.binpack.normal-pod.enable (true).
	Enable bool
	// Fading is hypernode.binpack.normal-pod.fading (0.8): tier t weighs Fading^(t-1), so the
	// lowest tiers count most; 0 counts tier 1 alone.
	Fading float64
}

// ParseNormalPods reads the normal-pod arguments.
func ParseNormalPods(args conf.Arguments) (NormalPods, error) {
	enable, err := args.Bool(NormalPodArgument, true)
	if err != nil {
		return NormalPods{}, err
	}
	fading, err := args.Float(NormalPodFadingArgument, 0.8)
	if err != nil {
		return NormalPods{}, err
	}
	if fading < 0 || math.IsNaN(fading) || math.IsInf(fading, 0) {
		return NormalPods{}, fmt.Errorf("%s: must be a number of 0 or more, got %v", NormalPodFadingArgument, fading)
	}
	return NormalPods{Enable: enable, Fading: fading}, nil
}

// load is what a HyperNode's nodes offer and what is placed on them.
type load struct{ alloc, used api.Resource }

// normalScorer scores nodes for pods without a network topology by how full their HyperNodes
// would be with the pod, tier by tier, so that such pods fill the domains already in use and
// leave whole domains to the gangs that need one. Each tier from the lowest to the highest
// HyperNode tier weighs Fading^(tier-1); a node's score at a tier is that of its HyperNode there
// (the weighted mean of the used fractions of the resources the pod requests, with the pod; 0
// when the pod would not fit its HyperNode), 1 when no HyperNode of the tier holds it.
type normalScorer struct {
	w Weights
	// resources are the weighted resources by name, so sums come out the same every time.
	resources []corev1.ResourceName
	// weights are the tiers' weights, lowest tier first, and total their sum.
	weights []float64
	total   float64
	minTier int
	// domains are, per node, the index in loads of the HyperNode holding it at each tier
	// (lowest first), or -1.
	domains map[string][]int
	// holding are, per node, the indexes in loads of every HyperNode holding it.
	holding map[string][]int
	loads   []load
}

// newNormalScorer takes the HyperNodes' loads from the nodes; nil when there are no HyperNodes.
func newNormalScorer(w Weights, np NormalPods, topo *topology.Topology, nodes map[string]*api.NodeInfo) *normalScorer {
	if topo.Empty() {
		return nil
	}
	s := &normalScorer{w: w, resources: slices.Sorted(maps.Keys(w.Resources)), minTier: topo.Domains[0].Tier, domains: map[string][]int{}, holding: map[string][]int{}}
	maxTier := topo.Domains[len(topo.Domains)-1].Tier
	for t := s.minTier; t <= maxTier; t++ {
		weight := math.Pow(np.Fading, float64(t-1))
		s.weights = append(s.weights, weight)
		s.total += weight
	}
	s.loads = make([]load, len(topo.Domains))
	// Domains are sorted by tier, then name: at a tier a node's HyperNode is the first by name.
	for i, d := range topo.Domains {
		for _, name := range d.Nodes {
			n, ok := nodes[name]
			if !ok {
				continue
			}
			s.loads[i].alloc.Add(&n.Allocatable)
			s.loads[i].used.Add(&n.Used)
			s.holding[name] = append(s.holding[name], i)
			at := s.domains[name]
			if at == nil {
				at = make([]int, len(s.weights))
				for k := range at {
					at[k] = -1
				}
				s.domains[name] = at
			}
			if k := d.Tier - s.minTier; at[k] < 0 {
				at[k] = i
			}
		}
	}
	return s
}

// placed counts a task's request in the HyperNodes holding node (sign -1 takes it out).
func (s *normalScorer) placed(t *api.TaskInfo, node string, sign int) {
	for _, i := range s.holding[node] {
		if sign > 0 {
			s.loads[i].used.Add(t.Resreq)
		} else {
			s.loads[i].used.Sub(t.Resreq)
		}
	}
}

// score is 100 × weight × the tiers' weighted mean of the node's HyperNode scores for the task.
func (s *normalScorer) score(t *api.TaskInfo, node string) float64 {
	if s.w.Weight == 0 || s.total <= 0 {
		return 0
	}
	at := s.domains[node]
	var sum float64
	for k, weight := range s.weights {
		tierScore := 1.0
		if at != nil && at[k] >= 0 {
			tierScore = s.fill(t, &s.loads[at[k]])
		}
		sum += weight * tierScore
	}
	return sum / s.total * 100 * float64(s.w.Weight)
}

// fill is the weighted mean, over the weighted resources the task requests, of the HyperNode's
// used fraction with the task; 0 when the task would not fit it.
func (s *normalScorer) fill(t *api.TaskInfo, l *load) float64 {
	var sum float64
	var weights int
	for _, name := range s.resources {
		rw := s.w.Resources[name]
		req := t.Resreq.Get(name)
		if req <= 0 {
			continue
		}
		alloc := l.alloc.Get(name)
		used := l.used.Get(name) + req
		if used > alloc {
			return 0
		}
		sum += float64(rw) * float64(used) / float64(alloc)
		weights += rw
	}
	if weights == 0 {
		return 0
	}
	return sum / float64(weights)
}
