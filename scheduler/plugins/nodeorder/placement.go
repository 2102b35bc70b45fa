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

package nodeorder

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/plugins/predicates"
)

// PlacementScorer scores nodes by where other pods are: a pod's preferred inter-pod affinity and
// anti-affinity terms, and its topology spread constraints with whenUnsatisfiable:
// ScheduleAnyway. It remembers each task's spread counts until Forget.
type PlacementScorer struct {
	topology *predicates.Topology
	spread   map[api.TaskID][]predicates.SpreadCount
}

// NewPlacementScorer returns a scorer over the nodes.
func NewPlacementScorer(nodes map[string]*api.NodeInfo) *PlacementScorer {
	return &PlacementScorer{topology: predicates.NewTopology(nodes), spread: map[api.TaskID][]predicates.SpreadCount{}}
}

// Forget drops the counts kept, after a placement was made or undone.
func (p *PlacementScorer) Forget() { clear(p.spread) }

// Score returns, each 0..100, how well n meets t's preferred inter-pod terms (the weight of the
// affinity terms with a matching pod in n's domain and of the anti-affinity terms without one,
// over the weight of all terms) and its ScheduleAnyway spread constraints (100 in the
// least-loaded domain down to 0 in the most loaded, averaged over the constraints; 0 on a node
// without the topology key).
func (p *PlacementScorer) Score(t *api.TaskInfo, n *api.NodeInfo) (affinity, spread float64) {
	return p.affinity(t, n), p.spreadScore(t, n)
}

func (p *PlacementScorer) affinity(t *api.TaskInfo, n *api.NodeInfo) float64 {
	a := t.Pod.Spec.Affinity
	if a == nil {
		return 0
	}
	var met, total int32
	if a.PodAffinity != nil {
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			total += w.Weight
			if p.anyInDomain(t, w.PodAffinityTerm, n) {
				met += w.Weight
			}
		}
	}
	if a.PodAntiAffinity != nil {
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			total += w.Weight
			if !p.anyInDomain(t, w.PodAffinityTerm, n) {
				met += w.Weight
			}
		}
	}
	if total <= 0 {
		return 0
	}
	return float64(met) / float64(total) * 100
}

func (p *PlacementScorer) anyInDomain(t *api.TaskInfo, term corev1.PodAffinityTerm, n *api.NodeInfo) bool {
	return p.topology.AnyMatch(t, term, n, func(nt *api.NodeTask) bool { return nt.Pod != nil && nt.Status != api.Releasing })
}

func (p *PlacementScorer) spreadScore(t *api.TaskInfo, n *api.NodeInfo) float64 {
	if len(t.Pod.Spec.TopologySpreadConstraints) == 0 {
		return 0
	}
	counts, ok := p.spread[t.UID]
	if !ok {
		counts = p.topology.SpreadCounts(t.Pod, corev1.ScheduleAnyway)
		p.spread[t.UID] = counts
	}
	if len(counts) == 0 {
		return 0
	}
	var sum float64
	for _, c := range counts {
		if n.Node == nil {
			continue
		}
		value, ok := n.Node.Labels[c.Key]
		if !ok {
			continue
		}
		if c.Max == c.Min {
			sum += 100
			continue
		}
		sum += float64(c.Max-c.Counts[value]) / float64(c.Max-c.Min) * 100
	}
	return sum / float64(len(counts))
}
