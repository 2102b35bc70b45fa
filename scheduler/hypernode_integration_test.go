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
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// rackLayout makes four racks of two 4-cpu nodes, each rack a tier-1 HyperNode choosing its
// nodes by a rack label, and two blocks of two racks each a tier-2 HyperNode naming its racks.
// It returns the racks' node names by rack HyperNode name, and the blocks' rack names.
func rackLayout(prefix string) (racks map[string][]string, blocks map[string][]string) {
	GinkgoHelper()
	ctx := context.Background()
	racks, blocks = map[string][]string{}, map[string][]string{}
	for r := 0; r < 4; r++ {
		rack := uniqueName(prefix + "-rack")
		for i := 0; i < 2; i++ {
			n := createNode(uniqueName(prefix+"-node"), resources("cpu", "4", "memory", "16Gi"), map[string]string{"example.com/rack": rack})
			racks[rack] = append(racks[rack], n.Name)
		}
		Expect(k8s.Create(ctx, &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: rack},
			Spec: topologyv1alpha1.HyperNodeSpec{Tier: 1, TierName: "rack", Members: []topologyv1alpha1.MemberSpec{{
				Type: topologyv1alpha1.MemberTypeNode, Selector: topologyv1alpha1.MemberSelector{
					LabelMatch: &metav1.LabelSelector{MatchLabels: map[string]string{"example.com/rack": rack}}}}}}})).To(Succeed())
		block := prefix + "-block-" + []string{"a", "b"}[r/2]
		blocks[block] = append(blocks[block], rack)
	}
	for block, members := range blocks {
		hn := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: uniqueName(block)}, Spec: topologyv1alpha1.HyperNodeSpec{Tier: 2, TierName: "block"}}
		for _, m := range members {
			hn.Spec.Members = append(hn.Spec.Members, topologyv1alpha1.MemberSpec{Type: topologyv1alpha1.MemberTypeHyperNode,
				Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: m}}})
		}
		Expect(k8s.Create(ctx, hn)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(context.Background(), hn))).To(Succeed()) })
	}
	DeferCleanup(func() {
		for rack := range racks {
			hn := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: rack}}
			Expect(client.IgnoreNotFound(k8s.Delete(context.Background(), hn))).To(Succeed())
		}
	})
	return racks, blocks
}

// nodesOf returns the nodes the bound pods of a namespace are on.
func nodesOf(ns string) []string {
	var list corev1.PodList
	Expect(k8s.List(context.Background(), &list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, p := range list.Items {
		if p.Spec.NodeName != "" {
			out = append(out, p.Spec.NodeName)
		}
	}
	return out
}

var _ = Describe("Gangs within HyperNodes (networkTopology)", func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("hypernode")
		startScheduler(scheduler.Options{})
	})

	hard := func(tier int32) func(*schedulingv1beta1.PodGroup) {
		return func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.NetworkTopology = &schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierAllowed: ptr.To(tier)}
		}
	}

	It("places a hard tier-1 gang of 8 within one rack, and one of 12 within one block", func() {
		racks, _ := rackLayout("hn")
		podGroup(ns, "rack", "default", 8, hard(1))
		pods(ns, "rack", "rack", 8, resources("cpu", "1"))
		Eventually(boundCount(ns, "rack"), framework.Timeout, framework.Interval).Should(Equal(8))
		Expect(nodesOf(ns)).To(SatisfyAny(
			func() []OmegaMatcher {
				var ms []OmegaMatcher
				for _, nodes := range racks {
					ms = append(ms, HaveEach(BeElementOf(nodes)))
				}
				return ms
			}()...), "all 8 pods in one rack")
	})

	It("holds a hard tier-1 gang no rack has room for, and says so on the PodGroup", func() {
		rackLayout("hw")
		podGroup(ns, "big", "default", 12, hard(1))
		pods(ns, "big", "big", 12, resources("cpu", "1"))
		Eventually(func() string {
			if c := condition(getPodGroup(ns, "big")(), schedulingv1beta1.PodGroupUnschedulableType); c != nil {
				return c.Message
			}
			return ""
		}, framework.Timeout, framework.Interval).Should(ContainSubstring("hard network topology: within one HyperNode of tier 1 or lower"))
		Consistently(boundCount(ns, "big"), framework.ConsistentlyDuration, framework.Interval).Should(BeZero())
	})
})

var _ = Describe("Pods without a network topology among HyperNodes (hypernode.binpack.normal-pod)", func() {
	It("fills the rack in use, then its block, before starting another", func() {
		ns := fw.SpecNamespace("normal-pods")
		// network-topology-aware is the only node score, so the HyperNodes' fill decides.
		startScheduler(scheduler.Options{ConfigFile: writeConfig(`actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: proportion
  - name: network-topology-aware
`)})
		racks, blocks := rackLayout("np")
		// The rack in use is the one whose nodes come last by name, where a search in node order
		// would come last.
		var inUse, last string
		for rack, nodes := range racks {
			for _, n := range nodes {
				if n > last {
					inUse, last = rack, n
				}
			}
		}
		var sameBlock []string
		for _, members := range blocks {
			if slices.Contains(members, inUse) {
				for _, r := range members {
					sameBlock = append(sameBlock, racks[r]...)
				}
			}
		}
		podGroup(ns, "seed", "default", 1)
		pods(ns, "seed", "seed", 1, resources("cpu", "1"), func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{"example.com/rack": inUse}
		})
		Eventually(boundCount(ns, "seed"), framework.Timeout, framework.Interval).Should(Equal(1))

		// Three pods of 3 cpu, one a node: two fit the rack in use, the third goes to its block.
		for i := 0; i < 3; i++ {
			name := fmt.Sprintf("single-%d", i)
			podGroup(ns, name, "default", 1)
			pods(ns, name, name, 1, resources("cpu", "3"))
			Eventually(boundCount(ns, name), framework.Timeout, framework.Interval).Should(Equal(1))
		}
		onRack := 0
		for _, n := range nodesOf(ns) {
			if slices.Contains(racks[inUse], n) {
				onRack++
			}
		}
		Expect(onRack).To(Equal(3), "the seed and two pods in the rack in use")
		Expect(nodesOf(ns)).To(HaveEach(BeElementOf(sameBlock)), "every pod in the block in use")
	})
})
