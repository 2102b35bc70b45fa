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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// holdFinalizer keeps an evicted pod in the API (deleting) until the spec lets it go.
const holdFinalizer = "test.caldera.sh/hold"

// podsNamed lists the namespace's pods whose names start with prefix.
func podsNamed(ns, prefix string) []corev1.Pod {
	var list corev1.PodList
	Expect(k8s.List(context.Background(), &list, client.InNamespace(ns))).To(Succeed())
	var out []corev1.Pod
	for _, p := range list.Items {
		if strings.HasPrefix(p.Name, prefix) {
			out = append(out, p)
		}
	}
	return out
}

// release takes holdFinalizer off the namespace's pods whose names start with prefix.
func release(ns, prefix string) {
	GinkgoHelper()
	for _, p := range podsNamed(ns, prefix) {
		if len(p.Finalizers) == 0 {
			continue
		}
		base := p.DeepCopy()
		p.Finalizers = nil
		Expect(client.IgnoreNotFound(k8s.Patch(context.Background(), &p, client.MergeFrom(base)))).To(Succeed())
	}
}

var _ = Describe("Scheduler evictions", func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("evict")
	})

	It("evicts victims through the Eviction API, marked as disruption targets, and writes the preemptor's nominated node", func() {
		startScheduler(scheduler.Options{ConfigFile: writeConfig(preemptConf)})
		low, high := uniqueName("low"), uniqueName("high")
		createAndCleanup(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: low}, Value: 10})
		createAndCleanup(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: high}, Value: 1000})
		node := uniqueName("evict")
		createNode(node, resources("cpu", "4", "memory", "8Gi"), nil)
		// Evicted victims stay (deleting) until released, so that the preemptor waits for the
		// room it was promised and what the eviction wrote can be read.
		for i := 0; i < 4; i++ {
			name := fmt.Sprintf("low%d", i)
			podGroup(ns, name, "default", 1, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = low })
			pods(ns, name, name, 1, resources("cpu", "1"), func(p *corev1.Pod) {
				p.Spec.PriorityClassName = low
				p.Finalizers = []string{holdFinalizer}
			})
		}
		DeferCleanup(func() { release(ns, "low") })
		Eventually(boundCount(ns, "low"), framework.Timeout, framework.Interval).Should(Equal(4))

		podGroup(ns, "urgent", "default", 2, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = high })
		pods(ns, "urgent", "urgent", 2, resources("cpu", "1"), func(p *corev1.Pod) { p.Spec.PriorityClassName = high })

		victims := func() []string {
			var out []string
			for _, p := range podsNamed(ns, "low") {
				if p.DeletionTimestamp != nil {
					out = append(out, p.Name)
				}
			}
			return out
		}
		Eventually(victims, framework.Timeout, framework.Interval).Should(HaveLen(2))
		for _, p := range podsNamed(ns, "low") {
			if p.DeletionTimestamp == nil {
				continue
			}
			var target *corev1.PodCondition
			for i := range p.Status.Conditions {
				if p.Status.Conditions[i].Type == corev1.DisruptionTarget {
					target = &p.Status.Conditions[i]
				}
			}
			Expect(target).NotTo(BeNil(), "victim %s has no DisruptionTarget condition", p.Name)
			Expect(target.Status).To(Equal(corev1.ConditionTrue))
			// The scheduler's reason, or the one the Eviction API words it with as it evicts.
			Expect(target.Reason).To(BeElementOf(corev1.PodReasonPreemptionByScheduler, "EvictionByEvictionAPI"))
			Eventually(eventsAbout(ns, p.Name), framework.Timeout, framework.Interval).Should(ContainElement(
				And(HavePrefix("Preempted: "), ContainSubstring("urgent"))))
		}
		Eventually(func() []string {
			var out []string
			for _, p := range podsNamed(ns, "urgent") {
				out = append(out, p.Status.NominatedNodeName)
			}
			return out
		}, framework.Timeout, framework.Interval).Should(Equal([]string{node, node}))
		Expect(boundCount(ns, "urgent")()).To(Equal(0))

		release(ns, "low")
		Eventually(boundCount(ns, "urgent"), framework.Timeout, framework.Interval).Should(Equal(2))
		Expect(boundCount(ns, "low")()).To(Equal(2))
	})
})
