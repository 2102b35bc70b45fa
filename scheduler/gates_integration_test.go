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
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

const testGate = "example.com/hold"

// gateSecond puts testGate on the pod whose name ends in "-1".
func gateSecond(p *corev1.Pod) {
	if strings.HasSuffix(p.Name, "-1") {
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: testGate}}
	}
}

// unschedulableMessage returns the message of a PodGroup's True Unschedulable condition, or "".
func unschedulableMessage(ns, name string) func() string {
	return func() string {
		c := condition(getPodGroup(ns, name)(), schedulingv1beta1.PodGroupUnschedulableType)
		if c == nil || c.Status != corev1.ConditionTrue {
			return ""
		}
		return c.Message
	}
}

// failedBindings counts the FailedBinding events recorded in a namespace.
func failedBindings(ns string) func() int {
	return func() int {
		var list corev1.EventList
		if err := k8s.List(context.Background(), &list); err != nil {
			return -1
		}
		n := 0
		for _, e := range list.Items {
			if e.Namespace == ns && e.Reason == "FailedBinding" {
				n++
			}
		}
		return n
	}
}

var _ = Describe("Scheduling gates", func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("gates")
	})

	It("binds nothing of a gang of 2 whose second pod is gated, and names the gate", func() {
		startScheduler(scheduler.Options{})
		createNode(uniqueName("gates"), resources("cpu", "4", "memory", "8Gi"), nil)
		podGroup(ns, "held", "default", 2)
		pods(ns, "held", "held", 2, resources("cpu", "1"), gateSecond)

		Eventually(unschedulableMessage(ns, "held"), framework.Timeout, framework.Interval).Should(
			ContainSubstring("2 of 2 pods wait: 1 pod is held by scheduling gates (" + testGate + ")"))
		Consistently(boundCount(ns, "held"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(0))
		c := condition(getPodGroup(ns, "held")(), schedulingv1beta1.PodGroupUnschedulableType)
		Expect(c.Reason).To(Equal(schedulingv1beta1.NotEnoughPodsReason))
	})

	It("sends no bind for a gated pod while it stays gated", func() {
		var binds, cycles atomic.Int64
		startScheduler(scheduler.Options{OnCycle: func(st scheduler.CycleStats) {
			binds.Add(int64(st.Binds))
			cycles.Add(1)
		}})
		createNode(uniqueName("gates"), resources("cpu", "4", "memory", "8Gi"), nil)
		podGroup(ns, "quiet", "default", 2)
		pods(ns, "quiet", "quiet", 2, resources("cpu", "1"), gateSecond)
		Eventually(getPodGroup(ns, "quiet"), framework.Timeout, framework.Interval).Should(
			HaveField("Status.Phase", Not(Equal(schedulingv1beta1.PodGroupPending))), "the PodGroup is admitted")

		// A few seconds of cycles (at least every 200ms): not one bind handed to the API server
		// (every bind the scheduler hands over is one pods/binding request).
		start := cycles.Load()
		Consistently(binds.Load, 3*time.Second, framework.Interval).Should(BeZero())
		Expect(cycles.Load()-start).To(BeNumerically(">=", 5), "cycles ran meanwhile")
		Expect(failedBindings(ns)()).To(BeZero())
		Expect(boundCount(ns, "quiet")()).To(BeZero())
	})

	It("binds the whole gang at once when the gate is removed", func() {
		// A long period: only the pod update can bring the held gang back in time.
		startScheduler(scheduler.Options{SchedulePeriod: time.Minute})
		createNode(uniqueName("gates"), resources("cpu", "4", "memory", "8Gi"), nil)
		podGroup(ns, "open", "default", 2)
		pods(ns, "open", "open", 2, resources("cpu", "1"), gateSecond)
		Eventually(getPodGroup(ns, "open"), framework.Timeout, framework.Interval).Should(
			HaveField("Status.Phase", Not(Equal(schedulingv1beta1.PodGroupPending))), "the PodGroup is admitted")
		Consistently(boundCount(ns, "open"), time.Second, framework.Interval).Should(BeZero(), "nothing is bound while a pod is gated")

		Eventually(func() error {
			p := &corev1.Pod{}
			if err := k8s.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "open-1"}, p); err != nil {
				return err
			}
			p.Spec.SchedulingGates = nil
			return k8s.Update(context.Background(), p)
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Eventually(boundCount(ns, "open"), 10*time.Second, framework.Interval).Should(Equal(2))
		Expect(failedBindings(ns)()).To(BeZero())
	})
})
