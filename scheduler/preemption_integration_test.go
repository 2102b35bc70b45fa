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
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// gang creates a PodGroup of n one-cpu pods asking minResources for all of them, in a queue
// and priority class, with labels on its pods.
func gang(ns, name, queueName, class string, n int, min int32, mutate ...func(*corev1.Pod)) {
	GinkgoHelper()
	podGroup(ns, name, queueName, min, func(pg *schedulingv1beta1.PodGroup) {
		pg.Spec.PriorityClassName = class
		minResources := resources("cpu", fmt.Sprint(min))
		pg.Spec.MinResources = &minResources
	})
	withClass := func(p *corev1.Pod) {
		p.Spec.PriorityClassName = class
		p.Labels = map[string]string{"gang": name}
	}
	pods(ns, name, name, n, resources("cpu", "1"), append([]func(*corev1.Pod){withClass}, mutate...)...)
}

func hold(p *corev1.Pod) { p.Finalizers = append(p.Finalizers, holdFinalizer) }

func getPod(ns, name string) func() *corev1.Pod {
	return func() *corev1.Pod {
		p := &corev1.Pod{}
		if err := k8s.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, p); err != nil {
			return nil
		}
		return p
	}
}

func priorityClasses() (low, high string) {
	GinkgoHelper()
	low, high = uniqueName("low"), uniqueName("high")
	createAndCleanup(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: low}, Value: 10})
	createAndCleanup(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: high}, Value: 1000})
	return low, high
}

var _ = Describe("Gang-aware preemption and reclaim with the default configuration", func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("room")
		startScheduler(scheduler.Options{})
	})

	It("takes a whole lower-priority gang for a gang of its queue, evicting through the API and nominating nodes", func() {
		low, high := priorityClasses()
		node := uniqueName("full")
		createNode(node, resources("cpu", "4", "memory", "8Gi"), nil)
		gang(ns, "low", "default", low, 4, 4, hold)
		DeferCleanup(func() { release(ns, "low") })
		Eventually(boundCount(ns, "low"), framework.Timeout, framework.Interval).Should(Equal(4))

		// overcommit and proportion refuse it (the cluster is full): it is admitted for preempt.
		gang(ns, "high", "default", high, 4, 4)
		for i := 0; i < 4; i++ {
			Eventually(func(g Gomega) {
				p := getPod(ns, fmt.Sprintf("low-%d", i))()
				g.Expect(p).NotTo(BeNil())
				g.Expect(p.DeletionTimestamp).NotTo(BeNil())
				// The scheduler's reason, or the Eviction API's as it evicts.
				g.Expect(p.Status.Conditions).To(ContainElement(And(
					HaveField("Type", corev1.DisruptionTarget), HaveField("Status", corev1.ConditionTrue),
					HaveField("Reason", BeElementOf(corev1.PodReasonPreemptionByScheduler, "EvictionByEvictionAPI")))))
			}, framework.Timeout, framework.Interval).Should(Succeed())
			Eventually(func() string {
				if p := getPod(ns, fmt.Sprintf("high-%d", i))(); p != nil {
					return p.Status.NominatedNodeName
				}
				return ""
			}, framework.Timeout, framework.Interval).Should(Equal(node))
		}
		Eventually(func() string {
			if c := condition(getPodGroup(ns, "high")(), schedulingv1beta1.PodGroupUnschedulableType); c != nil {
				return c.Message
			}
			return ""
		}, framework.Timeout, framework.Interval).Should(ContainSubstring("preempting 4 pod(s) of lower priority (job " + ns + "/low)"))
		Eventually(eventsAbout(ns, "low-0"), framework.Timeout, framework.Interval).Should(ContainElement(ContainSubstring("Preempted: preempted by job " + ns + "/high")))

		release(ns, "low")
		Eventually(boundCount(ns, "high"), framework.Timeout, framework.Interval).Should(Equal(4))
	})

	It("reclaims a queue's deserved share with overcommit in the tiers, taking surplus pods only", func() {
		qa, qb := uniqueName("qa"), uniqueName("qb")
		queue(qa, 1)
		queue(qb, 1)
		createNode(uniqueName("shared"), resources("cpu", "4", "memory", "8Gi"), nil)
		gang(ns, "a", qa, "", 4, 1)
		Eventually(boundCount(ns, "a"), framework.Timeout, framework.Interval).Should(Equal(4))

		gang(ns, "b", qb, "", 2, 2)
		Eventually(boundCount(ns, "b"), framework.Timeout, framework.Interval).Should(Equal(2))
		Expect(boundCount(ns, "a")()).To(Equal(2))
	})

	It("leaves a victim whose PodDisruptionBudget allows no disruption and takes another gang", func() {
		low, high := priorityClasses()
		createNode(uniqueName("first"), resources("cpu", "4", "memory", "8Gi"), nil)
		gang(ns, "older", "default", low, 4, 4)
		Eventually(boundCount(ns, "older"), framework.Timeout, framework.Interval).Should(Equal(4))
		createNode(uniqueName("second"), resources("cpu", "4", "memory", "8Gi"), nil)
		// The younger gang would go first; its budget keeps it.
		gang(ns, "younger", "default", low, 4, 4)
		Eventually(boundCount(ns, "younger"), framework.Timeout, framework.Interval).Should(Equal(4))
		minAvailable := intstr.FromInt32(4)
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "younger"},
			Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"gang": "younger"}}},
		}
		Expect(k8s.Create(context.Background(), pdb)).To(Succeed())
		// No disruption controller runs here: write the status it would.
		pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0, CurrentHealthy: 4, DesiredHealthy: 4, ExpectedPods: 4}
		Expect(k8s.Status().Update(context.Background(), pdb)).To(Succeed())

		gang(ns, "high", "default", high, 4, 4)
		Eventually(boundCount(ns, "high"), framework.Timeout, framework.Interval).Should(Equal(4))
		Expect(boundCount(ns, "younger")()).To(Equal(4))
		Expect(boundCount(ns, "older")()).To(Equal(0))
	})

	It("says what protects the work a gang could take, and evicts nothing", func() {
		low, high := priorityClasses()
		createNode(uniqueName("kept"), resources("cpu", "4", "memory", "8Gi"), nil)
		gang(ns, "low", "default", low, 4, 4, func(p *corev1.Pod) {
			p.Annotations[schedulingv1beta1.PodPreemptable] = "false"
		})
		Eventually(boundCount(ns, "low"), framework.Timeout, framework.Interval).Should(Equal(4))
		gang(ns, "high", "default", high, 4, 4)
		Eventually(func() string {
			if c := condition(getPodGroup(ns, "high")(), schedulingv1beta1.PodGroupUnschedulableType); c != nil {
				return c.Message
			}
			return ""
		}, framework.Timeout, framework.Interval).Should(ContainSubstring("preemption cannot make room for the gang: the work it could take is protected: 4 pod(s) marked volcano.sh/preemptable=false"))
		Consistently(boundCount(ns, "low"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(4))
	})
})
