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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

var _ = Describe("Queues", Label("queue"), func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("queues")
	})

	getQueue := func(name string) func(g Gomega) *schedulingv1beta1.Queue {
		return func(g Gomega) *schedulingv1beta1.Queue {
			q := &schedulingv1beta1.Queue{}
			g.Expect(k8s.Get(context.Background(), types.NamespacedName{Name: name}, q)).To(Succeed())
			return q
		}
	}

	It("makes the default queue again when it is deleted, as it makes it at start-up", func() {
		startScheduler(scheduler.Options{})
		var first *schedulingv1beta1.Queue
		Eventually(func(g Gomega) { first = getQueue(schedulingv1beta1.DefaultQueue)(g) }, framework.Timeout, framework.Interval).Should(Succeed())

		Expect(k8s.Delete(context.Background(), first)).To(Succeed())
		Eventually(func(g Gomega) {
			q := getQueue(schedulingv1beta1.DefaultQueue)(g)
			g.Expect(q.UID).NotTo(Equal(first.UID), "a new queue, not the deleted one")
			g.Expect(q.Spec.Weight).To(Equal(scheduler.NewDefaultQueue("default").Spec.Weight))
			g.Expect(ptr.Deref(q.Spec.Reclaimable, false)).To(BeTrue())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		// Jobs that name no queue are scheduled again.
		createNode(uniqueName("default-queue"), resources("cpu", "2", "memory", "4Gi"), nil)
		podGroup(ns, "after", schedulingv1beta1.DefaultQueue, 1)
		pods(ns, "after", "after", 1, resources("cpu", "1"))
		Eventually(boundCount(ns, "after"), framework.Timeout, framework.Interval).Should(Equal(1))
	})

	It("lets a closing queue's running PodGroup keep its pods, and admits no new PodGroup into it", func() {
		startScheduler(scheduler.Options{})
		name := uniqueName("closing")
		queue(name, 1)
		createNode(uniqueName("closing"), resources("cpu", "4", "memory", "8Gi"), nil)
		podGroup(ns, "running", name, 2)
		pods(ns, "running", "running", 2, resources("cpu", "1"))
		Eventually(boundCount(ns, "running"), framework.Timeout, framework.Interval).Should(Equal(2))

		// Close the queue as a CloseQueue Command does: the queue-command controller records the
		// request, and the scheduler, the one writer of Queue status, carries it out.
		Eventually(func() error {
			q := &schedulingv1beta1.Queue{}
			if err := k8s.Get(context.Background(), types.NamespacedName{Name: name}, q); err != nil {
				return err
			}
			patch := client.MergeFrom(q.DeepCopy())
			if q.Annotations == nil {
				q.Annotations = map[string]string{}
			}
			q.Annotations[schedulingv1beta1.QueueRequestedStateAnnotationKey] = string(schedulingv1beta1.QueueStateClosed)
			return k8s.Patch(context.Background(), q, patch)
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) schedulingv1beta1.QueueState { return getQueue(name)(g).Status.State },
			framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateClosing), "Closing while it holds a PodGroup")

		podGroup(ns, "late", name, 1)
		pods(ns, "late", "late", 1, resources("cpu", "1"))
		Eventually(func() string {
			c := condition(getPodGroup(ns, "late")(), schedulingv1beta1.PodGroupUnschedulableType)
			if c == nil {
				return ""
			}
			return c.Message
		}, framework.Timeout, framework.Interval).Should(ContainSubstring("queue " + name + " is Closing and admits no new PodGroups"))

		// The running PodGroup keeps its pods: nothing is evicted because the queue closed.
		Consistently(func(g Gomega) {
			g.Expect(boundCount(ns, "running")()).To(Equal(2))
			var list corev1.PodList
			g.Expect(k8s.List(context.Background(), &list, client.InNamespace(ns))).To(Succeed())
			for _, p := range list.Items {
				g.Expect(p.DeletionTimestamp).To(BeNil(), "pod %s is being deleted", p.Name)
			}
			g.Expect(getPodGroup(ns, "running")().Status.Phase).To(Equal(schedulingv1beta1.PodGroupRunning))
			g.Expect(getPodGroup(ns, "late")().Status.Phase).To(Equal(schedulingv1beta1.PodGroupPending))
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
		Expect(boundCount(ns, "late")()).To(Equal(0))
	})

	It("closes a parent's children with it, keeps them closed under it, and reopens them with it", func() {
		startScheduler(scheduler.Options{})
		parent, child := uniqueName("parent"), uniqueName("child")
		queue(parent, 1)
		queue(child, 1, func(q *schedulingv1beta1.Queue) { q.Spec.Parent = parent })
		request := func(name string, state schedulingv1beta1.QueueState) {
			GinkgoHelper()
			// As the queue-command controller records an OpenQueue or CloseQueue Command.
			Eventually(func() error {
				q := &schedulingv1beta1.Queue{}
				if err := k8s.Get(context.Background(), types.NamespacedName{Name: name}, q); err != nil {
					return err
				}
				patch := client.MergeFrom(q.DeepCopy())
				if q.Annotations == nil {
					q.Annotations = map[string]string{}
				}
				q.Annotations[schedulingv1beta1.QueueRequestedStateAnnotationKey] = string(state)
				return k8s.Patch(context.Background(), q, patch)
			}, framework.Timeout, framework.Interval).Should(Succeed())
		}
		state := func(name string) func(g Gomega) schedulingv1beta1.QueueState {
			return func(g Gomega) schedulingv1beta1.QueueState { return getQueue(name)(g).Status.State }
		}

		request(parent, schedulingv1beta1.QueueStateClosed)
		Eventually(state(child), framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateClosed))

		request(child, schedulingv1beta1.QueueStateOpen)
		Consistently(state(child), framework.ConsistentlyDuration, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateClosed),
			"a child is not opened under a closed parent")

		request(parent, schedulingv1beta1.QueueStateOpen)
		Eventually(state(parent), framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateOpen))
		Eventually(state(child), framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateOpen))
	})
})
