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

package controllers_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/topology"
)

func member(typ topologyv1alpha1.MemberType, sel topologyv1alpha1.MemberSelector) topologyv1alpha1.MemberSpec {
	return topologyv1alpha1.MemberSpec{Type: typ, Selector: sel}
}

// hyperNodeStatus returns a HyperNode's node count and Ready condition as "<count> nodes, Ready
// <status> <reason>: <message>".
func hyperNodeStatus(ctx context.Context, name string) func() string {
	return func() string {
		hn := &topologyv1alpha1.HyperNode{}
		if err := fw.Client.Get(ctx, types.NamespacedName{Name: name}, hn); err != nil {
			return err.Error()
		}
		c := apimeta.FindStatusCondition(hn.Status.Conditions, topologyv1alpha1.ConditionReady)
		if c == nil || c.ObservedGeneration != hn.Generation {
			return fmt.Sprintf("%d nodes, Ready not observed", hn.Status.NodeCount)
		}
		return fmt.Sprintf("%d nodes, Ready %s %s: %s", hn.Status.NodeCount, c.Status, c.Reason, c.Message)
	}
}

var _ = Describe("HyperNode status", func() {
	BeforeEach(func(ctx SpecContext) {
		startControllersOnly(ctx)
	})

	It("counts the nodes of each HyperNode through its members, follows node labels, and names a member it cannot read", func(ctx SpecContext) {
		create := func(name string, tier int, members ...topologyv1alpha1.MemberSpec) {
			hn := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: topologyv1alpha1.HyperNodeSpec{Tier: tier, Members: members}}
			Expect(fw.Client.Create(ctx, hn)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, hn))).To(Succeed()) })
		}
		create("status-rack-a", 1,
			member(topologyv1alpha1.MemberTypeNode, topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: nodes[0]}}),
			member(topologyv1alpha1.MemberTypeNode, topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: nodes[1]}}))
		create("status-rack-b", 1, member(topologyv1alpha1.MemberTypeNode, topologyv1alpha1.MemberSelector{
			LabelMatch: &metav1.LabelSelector{MatchLabels: map[string]string{"example.com/status-rack": "b"}}}))
		create("status-block", 2, member(topologyv1alpha1.MemberTypeHyperNode, topologyv1alpha1.MemberSelector{
			RegexMatch: &topologyv1alpha1.RegexMatch{Pattern: "^status-rack-"}}))
		create("status-bad", 1, member(topologyv1alpha1.MemberTypeNode, topologyv1alpha1.MemberSelector{
			RegexMatch: &topologyv1alpha1.RegexMatch{Pattern: "kwok-node-[0-"}}))

		Eventually(hyperNodeStatus(ctx, "status-rack-a"), framework.Timeout, framework.Interval).Should(Equal("2 nodes, Ready True MembersResolved: tier 1, 2 nodes"))
		Eventually(hyperNodeStatus(ctx, "status-block"), framework.Timeout, framework.Interval).Should(Equal("2 nodes, Ready True MembersResolved: tier 2, 2 nodes"))
		Eventually(hyperNodeStatus(ctx, "status-bad"), framework.Timeout, framework.Interval).Should(Equal("0 nodes, Ready " +
			"False InvalidMember: spec.members[0].selector.regexMatch.pattern: Invalid value: \"kwok-node-[0-\": is not a regular expression " +
			"(error parsing regexp: missing closing ]: `[0-`): fix the pattern"))

		By("labelling two nodes into rack b")
		for _, name := range nodes[2:4] {
			node := &corev1.Node{}
			Expect(fw.Client.Get(ctx, types.NamespacedName{Name: name}, node)).To(Succeed())
			patch := client.MergeFrom(node.DeepCopy())
			node.Labels["example.com/status-rack"] = "b"
			Expect(fw.Client.Patch(ctx, node, patch)).To(Succeed())
			DeferCleanup(func(ctx context.Context) {
				Expect(fw.Client.Get(ctx, types.NamespacedName{Name: name}, node)).To(Succeed())
				patch := client.MergeFrom(node.DeepCopy())
				delete(node.Labels, "example.com/status-rack")
				Expect(fw.Client.Patch(ctx, node, patch)).To(Succeed())
			})
		}
		Eventually(hyperNodeStatus(ctx, "status-rack-b"), framework.Timeout, framework.Interval).Should(Equal("2 nodes, Ready True MembersResolved: tier 1, 2 nodes"))
		Eventually(hyperNodeStatus(ctx, "status-block"), framework.Timeout, framework.Interval).Should(Equal("4 nodes, Ready True MembersResolved: tier 2, 4 nodes"))
	})
})

var _ = Describe("HyperNodes made from node labels", func() {
	It("makes a rack HyperNode per rack label value and a block above them, follows relabelling, and deletes what the labels no longer make", func(ctx SpecContext) {
		typ, err := topology.ParseDiscoveryType("dc=example.com/disc-block,example.com/disc-rack,kubernetes.io/hostname")
		Expect(err).NotTo(HaveOccurred())
		stop, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
			return controllers.Setup(mgr, controllers.Options{SchedulerNames: []string{testScheduler}, HyperNodeDiscovery: []topology.DiscoveryType{typ}})
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(stop()).To(Succeed()) })
		relabel := func(ctx context.Context, name string, set map[string]string) {
			node := &corev1.Node{}
			Expect(fw.Client.Get(ctx, types.NamespacedName{Name: name}, node)).To(Succeed())
			patch := client.MergeFrom(node.DeepCopy())
			for k, v := range set {
				if v == "" {
					delete(node.Labels, k)
				} else {
					node.Labels[k] = v
				}
			}
			Expect(fw.Client.Patch(ctx, node, patch)).To(Succeed())
		}
		for i, name := range nodes[:3] {
			relabel(ctx, name, map[string]string{"example.com/disc-block": "b0", "example.com/disc-rack": fmt.Sprintf("r%d", i/2)})
		}
		DeferCleanup(func(ctx context.Context) {
			for _, name := range nodes[:3] {
				relabel(ctx, name, map[string]string{"example.com/disc-block": "", "example.com/disc-rack": ""})
			}
			Expect(fw.Client.DeleteAllOf(ctx, &topologyv1alpha1.HyperNode{}, client.MatchingLabels{topology.SourceLabel: topology.SourceNodeLabels})).To(Succeed())
		})
		discovered := func(g Gomega) map[string]string {
			var list topologyv1alpha1.HyperNodeList
			g.Expect(fw.Client.List(ctx, &list, client.MatchingLabels{topology.SourceLabel: topology.SourceNodeLabels})).To(Succeed())
			out := map[string]string{}
			for _, hn := range list.Items {
				out[hn.Name] = fmt.Sprintf("tier %d, %d members, %d nodes", hn.Spec.Tier, len(hn.Spec.Members), hn.Status.NodeCount)
			}
			return out
		}
		Eventually(discovered, framework.Timeout, framework.Interval).Should(Equal(map[string]string{
			"hypernode-dc-tier1-r0": "tier 1, 2 members, 2 nodes",
			"hypernode-dc-tier1-r1": "tier 1, 1 members, 1 nodes",
			"hypernode-dc-tier2-b0": "tier 2, 2 members, 3 nodes",
		}))

		By("moving the third node into the first rack")
		relabel(ctx, nodes[2], map[string]string{"example.com/disc-rack": "r0"})
		Eventually(discovered, framework.Timeout, framework.Interval).Should(Equal(map[string]string{
			"hypernode-dc-tier1-r0": "tier 1, 3 members, 3 nodes",
			"hypernode-dc-tier2-b0": "tier 2, 1 members, 3 nodes",
		}))
	})
})
