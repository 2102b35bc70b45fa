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

package autoscaler

import (
	"context"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/plugins/proportion"
)

// scaledUp records that a spec saw pods run on nodes Karpenter added, for the scale-down spec.
var scaledUp bool

// cpus is a request of n CPUs and a little memory.
func cpus(n int64) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(n, resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse("1Gi"),
	}
}

// nodeClaims returns the names of Karpenter's NodeClaims.
func nodeClaims(ctx context.Context, g Gomega) []string {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(framework.NodeClaimGVK.GroupVersion().WithKind(framework.NodeClaimGVK.Kind + "List"))
	g.Expect(fw.Client.List(ctx, list)).To(Succeed())
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		names = append(names, item.GetName())
	}
	return names
}

// addedNodes returns the names of the nodes Karpenter added (those of a NodePool).
func addedNodes(ctx context.Context, g Gomega) []string {
	var list corev1.NodeList
	g.Expect(fw.Client.List(ctx, &list, client.HasLabels{framework.NodePoolLabel})).To(Succeed())
	names := make([]string, 0, len(list.Items))
	for _, node := range list.Items {
		names = append(names, node.Name)
	}
	return names
}

// jobPods returns the pods of job.
func jobPods(ctx context.Context, g Gomega, job *batchv1alpha1.Job) []corev1.Pod {
	var list corev1.PodList
	g.Expect(fw.Client.List(ctx, &list, client.InNamespace(job.Namespace),
		client.MatchingLabels{batchv1alpha1.JobNameKey: job.Name})).To(Succeed())
	return list.Items
}

// expectRunsOnAddedNodes waits for job to complete with every pod bound, some of them to nodes
// Karpenter added.
func expectRunsOnAddedNodes(ctx context.Context, job *batchv1alpha1.Job, pods int) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		cur := &batchv1alpha1.Job{}
		g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)).To(Succeed())
		g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
	}, framework.LongTimeout, framework.Interval).Should(Succeed())
	added := map[string]bool{}
	for _, name := range addedNodes(ctx, Default) {
		added[name] = true
	}
	bound, onAdded := 0, 0
	for _, pod := range jobPods(ctx, Default, job) {
		if pod.Spec.NodeName != "" {
			bound++
		}
		if added[pod.Spec.NodeName] {
			onAdded++
		}
	}
	Expect(bound).To(Equal(pods), "every pod of the gang was bound")
	Expect(onAdded).To(BeNumerically(">", 0), "some pods ran on nodes Karpenter added")
	scaledUp = true
}

// createJob creates the Job of a manifest file of the repository in namespace ns.
func createJob(ctx context.Context, path, ns string) *batchv1alpha1.Job {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(framework.RepoRoot(), path))
	Expect(err).NotTo(HaveOccurred())
	job := &batchv1alpha1.Job{}
	Expect(yaml.UnmarshalStrict(data, job)).To(Succeed())
	job.Namespace = ns
	Expect(fw.Client.Create(ctx, job)).To(Succeed())
	return job
}

// elasticCluster reports whether the proportion plugin takes the argument elastic-cluster,
// without which a gang larger than today's cluster is held by its queue's share.
func elasticCluster() bool {
	_, err := proportion.New(conf.Arguments{"elastic-cluster": true})
	return err == nil
}

var _ = Describe("Karpenter adds the nodes a gang needs and removes them afterwards", Ordered, Label("e2e:autoscaler"), func() {
	It("adds nodes for a gang whose pods fit no node of today's cluster, and the gang runs", func(ctx SpecContext) {
		ns := fw.SpecNamespace("autoscaled")
		// The gang fits the cluster's CPUs, but only the nodes of the NodePool it selects,
		// which do not exist yet: its pods are marked Unschedulable and Karpenter adds them.
		job := wrappers.MakeJob("selects-pool", ns).Task("worker", 2).Requests(cpus(16)).
			NodeSelector(map[string]string{framework.NodePoolLabel: "caldera"}).
			RunFor(2 * time.Second).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		expectRunsOnAddedNodes(ctx, job, 2)
	})

	It("adds the nodes a gang of 8 pods x 16 CPUs needs on 2 nodes of 32 CPUs, and the gang runs", func(ctx SpecContext) {
		if !elasticCluster() {
			Skip("the proportion plugin has no argument elastic-cluster yet: without it the queue's share holds a gang larger than today's cluster")
		}
		ns := fw.SpecNamespace("autoscaled")
		job := createJob(ctx, "samples/autoscaler/gang.yaml", ns)
		Expect(job.Spec.MinAvailable).To(BeEquivalentTo(8))
		expectRunsOnAddedNodes(ctx, job, 8)
	})

	It("adds no node for a gang its queue's capability holds, and says why", func(ctx SpecContext) {
		ns := fw.SpecNamespace("held")
		queue := wrappers.MakeQueue(ns).Capability(cpus(32)).Obj()
		Expect(fw.Client.Create(ctx, queue)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(fw.DeleteQueue(ctx, queue.Name)).To(Succeed()) })
		before := map[string]bool{}
		for _, name := range nodeClaims(ctx, Default) {
			before[name] = true
		}

		job := wrappers.MakeJob("held", ns).Queue(queue.Name).MinAvailable(4).Task("worker", 4).Requests(cpus(16)).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			var groups schedulingv1beta1.PodGroupList
			g.Expect(fw.Client.List(ctx, &groups, client.InNamespace(ns))).To(Succeed())
			g.Expect(groups.Items).To(HaveLen(1))
			g.Expect(groups.Items[0].Status.Phase).To(Equal(schedulingv1beta1.PodGroupPending))
			g.Expect(groups.Items[0].Status.Conditions).To(ContainElement(And(
				HaveField("Type", schedulingv1beta1.PodGroupUnschedulableType),
				HaveField("Status", corev1.ConditionTrue),
				// 4 pods of 16 cpus ask for more than the queue can ever hold: no point waiting.
				HaveField("Reason", schedulingv1beta1.UnsatisfiableReason),
				HaveField("Message", ContainSubstring("more than queue "+queue.Name+"'s capability of 32 cpu")),
			)))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			for _, name := range nodeClaims(ctx, g) {
				g.Expect(before).To(HaveKey(name), "Karpenter added a node for a gang its queue holds")
			}
			g.Expect(jobPods(ctx, g, job)).To(BeEmpty())
		}, framework.AutoscalerQuietPeriod, framework.Interval).Should(Succeed())
	})

	It("removes the nodes it added once their jobs finished", func(ctx SpecContext) {
		Expect(scaledUp).To(BeTrue(), "an earlier spec had Karpenter add nodes")
		Eventually(func(g Gomega) {
			g.Expect(nodeClaims(ctx, g)).To(BeEmpty())
			g.Expect(addedNodes(ctx, g)).To(BeEmpty())
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		var nodes corev1.NodeList
		Expect(fw.Client.List(ctx, &nodes)).To(Succeed())
		Expect(nodes.Items).To(HaveLen(nodeCount), "the nodes the cluster started with stay")
	})
})
