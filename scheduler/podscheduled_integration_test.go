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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// podScheduled returns a pod's PodScheduled condition as "Status/Reason: Message", or "" when the
// pod has none.
func podScheduled(ns, name string) func() string {
	return func() string {
		p := &corev1.Pod{}
		if err := k8s.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, p); err != nil {
			return ""
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled {
				return fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
			}
		}
		return ""
	}
}

var _ = Describe("PodScheduled condition", func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("podsched")
	})

	It("marks a pod no node fits Unschedulable in kube-scheduler's words", func() {
		startScheduler(scheduler.Options{})
		createNode(uniqueName("small"), resources("cpu", "4", "memory", "8Gi"), nil)
		podGroup(ns, "huge", "default", 1)
		pods(ns, "huge", "huge", 1, resources("cpu", "64"))

		Eventually(podScheduled(ns, "huge-0"), framework.Timeout, framework.Interval).Should(
			MatchRegexp(`^False/Unschedulable: 0/\d+ nodes are available: .*Insufficient cpu`))
	})

	It("never marks a pod held only by its queue's capability Unschedulable", func() {
		startScheduler(scheduler.Options{})
		capped := uniqueName("capped")
		queue(capped, 1, func(q *schedulingv1beta1.Queue) { q.Spec.Capability = resources("cpu", "1") })
		createNode(uniqueName("roomy"), resources("cpu", "8", "memory", "8Gi"), nil)
		podGroup(ns, "held", capped, 1)
		pods(ns, "held", "held", 1, resources("cpu", "2"))

		Eventually(podScheduled(ns, "held-0"), framework.Timeout, framework.Interval).Should(
			And(HavePrefix("False/"+scheduler.WaitingForQueueReason+": waiting for queue "+capped), ContainSubstring(capped)))
		Consistently(podScheduled(ns, "held-0"), framework.ConsistentlyDuration, framework.Interval).ShouldNot(
			ContainSubstring(corev1.PodReasonUnschedulable))
		Expect(boundCount(ns, "held")()).To(BeZero())
	})

	It("binds the pod and sets PodScheduled True once a node that fits is added", func() {
		startScheduler(scheduler.Options{})
		createNode(uniqueName("small"), resources("cpu", "4", "memory", "8Gi"), nil)
		podGroup(ns, "grow", "default", 1)
		pods(ns, "grow", "grow", 1, resources("cpu", "16"))
		Eventually(podScheduled(ns, "grow-0"), framework.Timeout, framework.Interval).Should(
			HavePrefix("False/Unschedulable: "))

		createNode(uniqueName("big"), resources("cpu", "32", "memory", "64Gi"), nil)
		Eventually(boundCount(ns, "grow"), framework.Timeout, framework.Interval).Should(Equal(1))
		Eventually(podScheduled(ns, "grow-0"), framework.Timeout, framework.Interval).Should(HavePrefix("True/"))
	})

	It("in an elastic cluster admits a gang larger than the nodes and marks all of it Unschedulable, then binds it when nodes are added", func() {
		startScheduler(scheduler.Options{ConfigFile: writeConfig(elasticConf)})
		pool := uniqueName("pool")
		selector := map[string]string{"pool": pool}
		for i := 0; i < 2; i++ {
			createNode(uniqueName("now"), resources("cpu", "32", "memory", "64Gi"), selector)
		}
		podGroup(ns, "gang", "default", 8, func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.MinResources = &corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("128")}
		})
		pods(ns, "gang", "gang", 8, resources("cpu", "16"), func(p *corev1.Pod) { p.Spec.NodeSelector = selector })

		for i := 0; i < 8; i++ {
			Eventually(podScheduled(ns, fmt.Sprintf("gang-%d", i)), framework.Timeout, framework.Interval).Should(
				HavePrefix("False/Unschedulable: "))
		}
		Expect(boundCount(ns, "gang")()).To(BeZero())

		for i := 0; i < 2; i++ {
			createNode(uniqueName("added"), resources("cpu", "32", "memory", "64Gi"), selector)
		}
		Eventually(boundCount(ns, "gang"), framework.Timeout, framework.Interval).Should(Equal(8))
	})

	It("by default holds a gang larger than the nodes in its queue, never Unschedulable", func() {
		startScheduler(scheduler.Options{})
		pool := uniqueName("pool")
		selector := map[string]string{"pool": pool}
		createNode(uniqueName("now"), resources("cpu", "32", "memory", "64Gi"), selector)
		podGroup(ns, "held", "default", 4, func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.MinResources = &corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000")}
		})
		pods(ns, "held", "held", 4, resources("cpu", "250"), func(p *corev1.Pod) { p.Spec.NodeSelector = selector })

		Eventually(podScheduled(ns, "held-0"), framework.Timeout, framework.Interval).Should(
			HavePrefix("False/" + scheduler.WaitingForQueueReason + ": "))
		Consistently(podScheduled(ns, "held-0"), framework.ConsistentlyDuration, framework.Interval).ShouldNot(
			ContainSubstring(corev1.PodReasonUnschedulable))
	})
})

// elasticConf is the scheduler configuration for a cluster an autoscaler grows: no overcommit
// plugin, and the proportion plugin's elastic-cluster argument.
const elasticConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
    arguments:
      elastic-cluster: true
  - name: nodeorder
`

var _ = Describe("PodGroup phases", func() {
	It("marks a running gang that lost a member Unknown, as Volcano does", func() {
		ns := fw.SpecNamespace("phases")
		startScheduler(scheduler.Options{})
		createNode(uniqueName("phases"), resources("cpu", "4", "memory", "8Gi"), nil)
		podGroup(ns, "gang", "default", 2)
		created := pods(ns, "gang", "gang", 2, resources("cpu", "1"))
		Eventually(boundCount(ns, "gang"), framework.Timeout, framework.Interval).Should(Equal(2))
		for _, p := range created {
			cur := &corev1.Pod{}
			Expect(k8s.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: p.Name}, cur)).To(Succeed())
			cur.Status.Phase = corev1.PodRunning
			Expect(k8s.Status().Update(context.Background(), cur)).To(Succeed())
		}
		phase := func() schedulingv1beta1.PodGroupPhase {
			if pg := getPodGroup(ns, "gang")(); pg != nil {
				return pg.Status.Phase
			}
			return ""
		}
		Eventually(phase, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.PodGroupRunning))

		Expect(k8s.Delete(context.Background(), created[1], client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(phase, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.PodGroupUnknown))
	})
})
