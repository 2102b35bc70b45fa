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

package e2e

import (
	"context"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// rackLabel is the node label samples/topology/hypernodes.yaml chooses racks by.
const rackLabel = "topology.example.com/rack"

// labelRack puts a node in a rack of the sample, until the end of the spec.
func labelRack(ctx context.Context, name, rack string) {
	GinkgoHelper()
	set := func(ctx context.Context, value string) {
		node := &corev1.Node{}
		Expect(fw.Client.Get(ctx, types.NamespacedName{Name: name}, node)).To(Succeed())
		patch := client.MergeFrom(node.DeepCopy())
		if value == "" {
			delete(node.Labels, rackLabel)
		} else {
			node.Labels[rackLabel] = value
		}
		Expect(fw.Client.Patch(ctx, node, patch)).To(Succeed())
	}
	set(ctx, rack)
	DeferCleanup(func(ctx context.Context) { set(ctx, "") })
}

// sampleRacks labels the suite's nodes into the racks of samples/topology/hypernodes.yaml (the
// first node in rack-0, the others in rack-1), applies the sample and waits for its node counts;
// it returns the racks' nodes.
func sampleRacks(ctx context.Context) map[string][]string {
	GinkgoHelper()
	racks := map[string][]string{"rack-0": nodes[:1], "rack-1": nodes[1:]}
	for rack, names := range racks {
		for _, n := range names {
			labelRack(ctx, n, rack)
		}
	}
	applyAll(ctx, "samples/topology/hypernodes.yaml", "")
	DeferCleanup(func(ctx context.Context) {
		for _, name := range []string{"rack-0", "rack-1", "block-0"} {
			hn := &topologyv1alpha1.HyperNode{}
			hn.Name = name
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, hn))).To(Succeed())
		}
	})
	Eventually(func(g Gomega) {
		for name, want := range map[string]int64{"rack-0": 1, "rack-1": int64(len(nodes) - 1), "block-0": int64(len(nodes))} {
			hn := &topologyv1alpha1.HyperNode{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Name: name}, hn)).To(Succeed())
			g.Expect(hn.Status.NodeCount).To(Equal(want), "nodes of %s", name)
		}
	}, framework.Timeout, framework.Interval).Should(Succeed())
	return racks
}

// placedPods waits until n pods of a job are bound and returns their nodes by pod name.
func placedPods(ctx context.Context, ns string, job *batchv1alpha1.Job, n int) map[string]corev1.Pod {
	GinkgoHelper()
	out := map[string]corev1.Pod{}
	Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(fw.Client.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{batchv1alpha1.JobNameKey: job.Name})).To(Succeed())
		clear(out)
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				out[p.Name] = p
			}
		}
		g.Expect(out).To(HaveLen(n))
	}, framework.LongTimeout, framework.Interval).Should(Succeed())
	return out
}

// inOneRack reports whether every node of placed is in one rack.
func inOneRack(placed []string, racks map[string][]string) bool {
	for _, names := range racks {
		if !slices.ContainsFunc(placed, func(n string) bool { return !slices.Contains(names, n) }) {
			return true
		}
	}
	return false
}

var _ = Describe("Network topology on the whole manager", Label("e2e:topology"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("topology")
		startCaldera(ctx)
	})

	It("counts the sample's racks and runs its hard tier-1 job to Completed within one rack", func(ctx SpecContext) {
		racks := sampleRacks(ctx)
		job := applySample(ctx, "samples/topology/job.yaml", ns)
		var placed []string
		for _, p := range placedPods(ctx, ns, job, 4) {
			placed = append(placed, p.Spec.NodeName)
		}
		Expect(inOneRack(placed, racks)).To(BeTrue(), "the pods are on %v, not within one rack of %v", placed, racks)
		Eventually(func(g Gomega) {
			g.Expect(jobPhase(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("runs the sample's partitioned job to Completed, each partition within one rack", func(ctx SpecContext) {
		racks := sampleRacks(ctx)
		job := applySample(ctx, "samples/topology/partitions.yaml", ns)
		byPartition := map[string][]string{}
		for _, p := range placedPods(ctx, ns, job, 8) {
			id := p.Labels[batchv1alpha1.PartitionIDKey]
			byPartition[id] = append(byPartition[id], p.Spec.NodeName)
		}
		Expect(byPartition).To(HaveLen(2))
		for id, placed := range byPartition {
			Expect(placed).To(HaveLen(4), "partition %s", id)
			Expect(inOneRack(placed, racks)).To(BeTrue(), "partition %s is on %v, not within one rack of %v", id, placed, racks)
		}
		Eventually(func(g Gomega) {
			g.Expect(jobPhase(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})
})
