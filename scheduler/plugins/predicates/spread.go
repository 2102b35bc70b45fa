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

package predicates

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/caldera-sh/caldera/scheduler/api"
)

// Topology indexes nodes by topology domain, for the filters and scores that count pods by
// domain.
type Topology struct {
	nodes map[string]*api.NodeInfo
	// domains indexes the nodes by topology key and label value, built per key when first asked.
	domains map[string]map[string][]*api.NodeInfo
}

// NewTopology returns the index of nodes; it assumes node labels do not change while it is used.
func NewTopology(nodes map[string]*api.NodeInfo) *Topology {
	return &Topology{nodes: nodes, domains: map[string]map[string][]*api.NodeInfo{}}
}

// Domain returns the nodes in the same topology domain as n for key (n alone for the hostname),
// or nil when n has no such label: it is then in no domain of that key.
func (tp *Topology) Domain(key string, n *api.NodeInfo) []*api.NodeInfo {
	if key == corev1.LabelHostname {
		return []*api.NodeInfo{n}
	}
	if n.Node == nil {
		return nil
	}
	value, ok := n.Node.Labels[key]
	if !ok {
		return nil
	}
	byValue, ok := tp.domains[key]
	if !ok {
		byValue = map[string][]*api.NodeInfo{}
		for _, m := range tp.nodes {
			if m.Node == nil {
				continue
			}
			if v, ok := m.Node.Labels[key]; ok {
				byValue[v] = append(byValue[v], m)
			}
		}
		tp.domains[key] = byValue
	}
	return byValue[value]
}

// AnyMatch reports whether a pod other than t that counts (present) in n's domain of the term's
// topology key matches the term.
func (tp *Topology) AnyMatch(t *api.TaskInfo, term corev1.PodAffinityTerm, n *api.NodeInfo, present func(*api.NodeTask) bool) bool {
	for _, m := range tp.Domain(term.TopologyKey, n) {
		for _, nt := range m.Tasks {
			if present(nt) && nt.UID != t.UID && MatchesTerm(t.Pod, term, nt.Pod) {
				return true
			}
		}
	}
	return false
}

// SpreadCount is one topology spread constraint of a pod with the number of matching pods in
// each of its domains.
type SpreadCount struct {
	Key     string
	MaxSkew int32
	// Counts are the matching pods per value of Key, over the domains with an eligible node.
	Counts map[string]int32
	// Min is the smallest count, or 0 while fewer domains than minDomains exist; Max the
	// largest.
	Min, Max int32
	// Self is 1 when the pod matches its own selector (it counts once placed), else 0.
	Self int32
}

// topologySpread checks the pod's DoNotSchedule topology spread constraints on n as
// kube-scheduler's PodTopologySpread filter does: n must have each constraint's topology key,
// and placing the pod there must not make its domain hold more than maxSkew matching pods above
// the least-loaded eligible domain (0 while there are fewer domains than minDomains).
func (f *Filter) topologySpread(t *api.TaskInfo, n *api.NodeInfo) string {
	constraints, ok := f.spread[t.UID]
	if !ok {
		constraints = f.SpreadCounts(t.Pod, corev1.DoNotSchedule)
		f.spread[t.UID] = constraints
	}
	for _, c := range constraints {
		if n.Node == nil {
			return ReasonSpreadLabel
		}
		value, ok := n.Node.Labels[c.Key]
		if !ok {
			return ReasonSpreadLabel
		}
		if c.Counts[value]+c.Self-c.Min > c.MaxSkew {
			return ReasonSpread
		}
	}
	return ""
}

// SpreadCounts counts, for each constraint of pod with the given whenUnsatisfiable, the matching
// pods of its namespace per domain, on the nodes the constraint's node policies make eligible.
// Pods on their way out do not count, as in kube-scheduler.
func (tp *Topology) SpreadCounts(pod *corev1.Pod, when corev1.UnsatisfiableConstraintAction) []SpreadCount {
	var out []SpreadCount
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	for _, tsc := range pod.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable != when {
			continue
		}
		sel := spreadSelector(pod, tsc)
		c := SpreadCount{Key: tsc.TopologyKey, MaxSkew: tsc.MaxSkew, Counts: map[string]int32{}}
		if sel.Matches(labels.Set(pod.Labels)) {
			c.Self = 1
		}
		for _, n := range tp.nodes {
			if n.Node == nil || !eligibleForSpread(pod, tsc, required, n.Node) {
				continue
			}
			value, ok := n.Node.Labels[tsc.TopologyKey]
			if !ok {
				continue
			}
			count := c.Counts[value]
			for _, nt := range n.Tasks {
				if nt.Pod == nil || nt.Status == api.Releasing || nt.Pod.DeletionTimestamp != nil || nt.UID == pod.UID ||
					nt.Pod.Namespace != pod.Namespace || !sel.Matches(labels.Set(nt.Pod.Labels)) {
					continue
				}
				count++
			}
			c.Counts[value] = count
		}
		c.Min = math.MaxInt32
		for _, v := range c.Counts {
			c.Min, c.Max = min(c.Min, v), max(c.Max, v)
		}
		if len(c.Counts) == 0 || (tsc.MinDomains != nil && int32(len(c.Counts)) < *tsc.MinDomains) {
			c.Min = 0
		}
		out = append(out, c)
	}
	return out
}

// spreadSelector is the constraint's labelSelector (nothing when it has none) with the pod's own
// values of its matchLabelKeys added.
func spreadSelector(pod *corev1.Pod, tsc corev1.TopologySpreadConstraint) labels.Selector {
	if tsc.LabelSelector == nil {
		return labels.Nothing()
	}
	sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
	if err != nil {
		return labels.Nothing()
	}
	for _, key := range tsc.MatchLabelKeys {
		if value, ok := pod.Labels[key]; ok {
			if r, err := labels.NewRequirement(key, selection.Equals, []string{value}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	return sel
}

// eligibleForSpread reports whether a node's domain counts for a constraint: the pod's node
// affinity and selector must match it unless nodeAffinityPolicy is Ignore, and its taints must
// be tolerated when nodeTaintsPolicy is Honor.
func eligibleForSpread(pod *corev1.Pod, tsc corev1.TopologySpreadConstraint, required nodeaffinity.RequiredNodeAffinity, node *corev1.Node) bool {
	if tsc.NodeAffinityPolicy == nil || *tsc.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		if match, err := required.Match(node); err != nil || !match {
			return false
		}
	}
	if tsc.NodeTaintsPolicy != nil && *tsc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, hardTaint, false); untolerated {
			return false
		}
	}
	return true
}
