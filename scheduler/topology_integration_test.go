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

package scheduler_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// zonesOf returns, for the namespace's bound pods whose names start with prefix, how many are in
// each zone.
func zonesOf(ns, prefix string) func() map[string]int {
	return boundBy(ns, prefix, corev1.LabelTopologyZone)
}

// hostsOf returns, for the namespace's bound pods whose names start with prefix, how many are on
// each node.
func hostsOf(ns, prefix string) func() map[string]int { return boundBy(ns, prefix, "") }

// boundBy counts the namespace's bound pods whose names start with prefix by their node's value
// of the label key, or by node when key is "".
func boundBy(ns, prefix, key string) func() map[string]int {
	return func() map[string]int {
		var list corev1.PodList
		if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return nil
		}
		out := map[string]int{}
		for _, p := range list.Items {
			if !strings.HasPrefix(p.Name, prefix) || p.Spec.NodeName == "" {
				continue
			}
			if key == "" {
				out[p.Spec.NodeName]++
				continue
			}
			node := &corev1.Node{}
			if err := k8s.Get(context.Background(), client.ObjectKey{Name: p.Spec.NodeName}, node); err != nil {
				return nil
			}
			out[node.Labels[key]]++
		}
		return out
	}
}

// labelled labels a pod app=<app>.
func labelled(app string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Labels = map[string]string{"app": app} }
}

var _ = Describe("Topology", func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("topology")
	})

	// Zones a (two nodes), b and c, of 2 cpu a node; it returns the nodes' names by a1, a2, b1, c1.
	zonedCluster := func() map[string]string {
		names := map[string]string{}
		for _, n := range [][2]string{{"a1", "a"}, {"a2", "a"}, {"b1", "b"}, {"c1", "c"}} {
			name := uniqueName("zone-" + n[0])
			names[n[0]] = createNode(name, resources("cpu", "2", "memory", "4Gi"), map[string]string{corev1.LabelTopologyZone: n[1], corev1.LabelHostname: name}).Name
		}
		return names
	}
	term := func(app string) corev1.PodAffinityTerm {
		return corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: corev1.LabelTopologyZone}
	}

	It("places a gang one pod per zone by zone anti-affinity, and binds nothing of one with more pods than zones, saying why", func() {
		startScheduler(scheduler.Options{})
		zonedCluster()
		apart := func(app string) func(*corev1.Pod) {
			return func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term(app)}}}
			}
		}
		podGroup(ns, "three", "default", 3)
		pods(ns, "three", "three", 3, resources("cpu", "1"), labelled("three"), apart("three"))
		Eventually(zonesOf(ns, "three"), framework.Timeout, framework.Interval).Should(Equal(map[string]int{"a": 1, "b": 1, "c": 1}))

		podGroup(ns, "four", "default", 4)
		pods(ns, "four", "four", 4, resources("cpu", "1"), labelled("four"), apart("four"))
		Eventually(func() string {
			c := condition(getPodGroup(ns, "four")(), schedulingv1beta1.PodGroupUnschedulableType)
			if c == nil {
				return ""
			}
			return c.Message
		}, framework.Timeout, framework.Interval).Should(ContainSubstring("4 node(s) didn't match pod anti-affinity rules"))
		Eventually(podScheduled(ns, "four-3"), framework.Timeout, framework.Interval).Should(
			And(HavePrefix("False/Unschedulable: "), ContainSubstring("didn't match pod anti-affinity rules")))
		Eventually(eventsAbout(ns, "four-3"), framework.Timeout, framework.Interval).Should(ContainElement(
			And(HavePrefix("FailedScheduling: "), ContainSubstring("didn't match pod anti-affinity rules"))))
		Eventually(eventsAbout(ns, "four"), framework.Timeout, framework.Interval).Should(ContainElement(
			And(HavePrefix("Unschedulable: 4 of 4 pods wait: "), ContainSubstring("didn't match pod anti-affinity rules"))))
		Consistently(boundCount(ns, "four"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(0))
	})

	It("gathers a gang in one zone by zone affinity", func() {
		startScheduler(scheduler.Options{})
		zonedCluster()
		podGroup(ns, "together", "default", 4)
		pods(ns, "together", "together", 4, resources("cpu", "1"), labelled("together"), func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("together")}}}
		})
		// Only zone a has room for four.
		Eventually(zonesOf(ns, "together"), framework.Timeout, framework.Interval).Should(Equal(map[string]int{"a": 4}))
	})

	It("spreads a gang with maxSkew 1 over the zones", func() {
		startScheduler(scheduler.Options{})
		zonedCluster()
		podGroup(ns, "even", "default", 6)
		pods(ns, "even", "even", 6, resources("cpu", "500m"), labelled("even"), func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "even"}}}}
		})
		Eventually(zonesOf(ns, "even"), framework.Timeout, framework.Interval).Should(Equal(map[string]int{"a": 2, "b": 2, "c": 2}))
	})

	It("spreads a gang with maxSkew 1 over zones and hosts at once", func() {
		startScheduler(scheduler.Options{})
		names := zonedCluster()
		podGroup(ns, "both", "default", 6)
		pods(ns, "both", "both", 6, resources("cpu", "500m"), labelled("both"), func(p *corev1.Pod) {
			for _, key := range []string{corev1.LabelTopologyZone, corev1.LabelHostname} {
				p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: key,
					WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "both"}}})
			}
		})
		// Two pods a zone; zone a's two go to its two nodes, which the hostname skew allows.
		Eventually(zonesOf(ns, "both"), framework.Timeout, framework.Interval).Should(Equal(map[string]int{"a": 2, "b": 2, "c": 2}))
		Expect(hostsOf(ns, "both")()).To(Equal(map[string]int{names["a1"]: 1, names["a2"]: 1, names["b1"]: 2, names["c1"]: 2}))
	})

	It("puts a pod beside the pods its preferred affinity names, and away from those its preferred anti-affinity names", func() {
		startScheduler(scheduler.Options{})
		names := zonedCluster()
		// A cache pod fills half of b1, which the least-allocated score shuns.
		pods(ns, "cache", "", 1, resources("cpu", "1"), labelled("cache"), func(p *corev1.Pod) { p.Spec.NodeName = names["b1"] })
		// A filler fills half of a1; a small noisy pod is on a2, the emptier node of zone a.
		pods(ns, "filler", "", 1, resources("cpu", "1"), func(p *corev1.Pod) { p.Spec.NodeName = names["a1"] })
		pods(ns, "noisy", "", 1, resources("cpu", "100m"), labelled("noisy"), func(p *corev1.Pod) { p.Spec.NodeName = names["a2"] })
		preferred := func(app string) corev1.WeightedPodAffinityTerm {
			return corev1.WeightedPodAffinityTerm{Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
		}
		podGroup(ns, "near", "default", 1)
		pods(ns, "near", "near", 1, resources("cpu", "500m"), func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{preferred("cache")}}}
		})
		Eventually(hostsOf(ns, "near"), framework.Timeout, framework.Interval).Should(Equal(map[string]int{names["b1"]: 1}))

		// In zone a, preferred anti-affinity to the noisy pod picks the fuller a1.
		podGroup(ns, "quiet", "default", 1)
		pods(ns, "quiet", "quiet", 1, resources("cpu", "500m"), func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{corev1.LabelTopologyZone: "a"}
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{preferred("noisy")}}}
		})
		Eventually(hostsOf(ns, "quiet"), framework.Timeout, framework.Interval).Should(Equal(map[string]int{names["a1"]: 1}))
	})
})
