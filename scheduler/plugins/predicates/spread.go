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

// spreadCounts is one DoNotSchedule topology spread constraint of a pod with the number of
// matching pods in each of its domains.
type spreadCounts struct {
	key     string
	maxSkew int32
	// counts are the matching pods per value of key, over the domains with an eligible node.
	counts map[string]int32
	// min is the smallest count, or 0 while fewer domains than minDomains exist.
	min int32
	// self is 1 when the pod matches its own selector (it counts once placed), else 0.
	self int32
}

// topologySpread checks the pod's DoNotSchedule topology spread constraints on n as
// kube-scheduler's PodTopologySpread filter does: n must have each constraint's topology key,
// and placing the pod there must not make its domain hold more than maxSkew matching pods above
// the least-loaded eligible domain (0 while there are fewer domains than minDomains).
func (f *Filter) topologySpread(t *api.TaskInfo, n *api.NodeInfo) string {
	constraints, ok := f.spread[t.UID]
	if !ok {
		constraints = f.spreadCounts(t.Pod)
		f.spread[t.UID] = constraints
	}
	for _, c := range constraints {
		if n.Node == nil {
			return ReasonSpreadLabel
		}
		value, ok := n.Node.Labels[c.key]
		if !ok {
			return ReasonSpreadLabel
		}
		if c.counts[value]+c.self-c.min > c.maxSkew {
			return ReasonSpread
		}
	}
	return ""
}

// spreadCounts counts, for each DoNotSchedule constraint of pod, the matching pods of its
// namespace per domain, on the nodes the constraint's node policies make eligible. Pods on their
// way out do not count, as in kube-scheduler.
func (f *Filter) spreadCounts(pod *corev1.Pod) []spreadCounts {
	var out []spreadCounts
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	for _, tsc := range pod.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		sel := spreadSelector(pod, tsc)
		c := spreadCounts{key: tsc.TopologyKey, maxSkew: tsc.MaxSkew, counts: map[string]int32{}}
		if sel.Matches(labels.Set(pod.Labels)) {
			c.self = 1
		}
		for _, n := range f.nodes {
			if n.Node == nil || !eligibleForSpread(pod, tsc, required, n.Node) {
				continue
			}
			value, ok := n.Node.Labels[tsc.TopologyKey]
			if !ok {
				continue
			}
			count := c.counts[value]
			for _, nt := range n.Tasks {
				if nt.Pod == nil || nt.Status == api.Releasing || nt.Pod.DeletionTimestamp != nil || nt.UID == pod.UID ||
					nt.Pod.Namespace != pod.Namespace || !sel.Matches(labels.Set(nt.Pod.Labels)) {
					continue
				}
				count++
			}
			c.counts[value] = count
		}
		c.min = math.MaxInt32
		for _, v := range c.counts {
			c.min = min(c.min, v)
		}
		if len(c.counts) == 0 || (tsc.MinDomains != nil && int32(len(c.counts)) < *tsc.MinDomains) {
			c.min = 0
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
