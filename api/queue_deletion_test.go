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

package api_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// The queue-deletion policy of config/policy, as the API server enforces it. The policy is in
// force only while these specs run (they are Ordered), so that the corpus specs may delete the
// queues they make, `default` among them.
var _ = Describe("Queue deletion policy", Label("policy"), Ordered, func() {
	// makeQueue creates a queue and gives it status st (what the scheduler would write).
	makeQueue := func(ctx context.Context, name string, st schedulingv1beta1.QueueStatus) *schedulingv1beta1.Queue {
		GinkgoHelper()
		q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name}}
		Expect(fw.Client.Create(ctx, q)).To(Succeed())
		q.Status = st
		Expect(fw.Client.Status().Update(ctx, q)).To(Succeed())
		return q
	}
	// release empties a queue's status, so that its deletion is allowed, and deletes it.
	release := func(ctx context.Context, q *schedulingv1beta1.Queue) {
		cur := &schedulingv1beta1.Queue{}
		if err := fw.Client.Get(ctx, client.ObjectKeyFromObject(q), cur); err != nil {
			return
		}
		cur.Status = schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateClosed}
		Expect(fw.Client.Status().Update(ctx, cur)).To(Succeed())
		Eventually(func() error { return client.IgnoreNotFound(fw.Client.Delete(ctx, cur)) }, framework.Timeout, framework.Interval).Should(Succeed())
	}
	refused := func(ctx context.Context, q *schedulingv1beta1.Queue) error {
		GinkgoHelper()
		err := fw.Client.Delete(ctx, q)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "deleting queue %s: want Forbidden, got %v", q.Name, err)
		return err
	}

	BeforeAll(func(ctx SpecContext) {
		Expect(framework.ApplyPolicies(ctx, fw.Client)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			// Take the policy away, then the queues it protected once it is no longer enforced.
			binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "queue-deletion"}}
			vap := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "queue-deletion"}}
			Expect(fw.Client.Delete(ctx, binding)).To(Succeed())
			Expect(fw.Client.Delete(ctx, vap)).To(Succeed())
			for _, name := range []string{schedulingv1beta1.DefaultQueue, schedulingv1beta1.RootQueue} {
				q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name}}
				Eventually(func() error { return client.IgnoreNotFound(fw.Client.Delete(ctx, q)) }, framework.Timeout, framework.Interval).Should(Succeed())
			}
		})
		// The API server enforces a policy a moment after it is applied: wait on a probe queue.
		probe := makeQueue(ctx, "policy-probe", schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateOpen, Running: 1})
		Eventually(func(g Gomega) {
			err := fw.Client.Delete(ctx, probe)
			if err == nil {
				probe = makeQueue(ctx, "policy-probe", schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateOpen, Running: 1})
			}
			g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "the policy is not enforced yet: %v", err)
		}, framework.Timeout, framework.Interval).Should(Succeed())
		DeferCleanup(release, probe)
	})

	It("type-checks against the Queue schema with no warning", func(ctx SpecContext) {
		// The API server type-checks a policy in the background and writes the result to its
		// status some time after it enforces it: wait for the result.
		vap := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Name: "queue-deletion"}, vap)).To(Succeed())
			g.Expect(vap.Status.TypeChecking).NotTo(BeNil(), "the API server has not type-checked the policy yet")
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(vap.Status.TypeChecking.ExpressionWarnings).To(BeEmpty())
	})

	It("refuses deleting the default queue, whatever it holds, and the root queue", func(ctx SpecContext) {
		for _, name := range []string{schedulingv1beta1.DefaultQueue, schedulingv1beta1.RootQueue} {
			q := makeQueue(ctx, name, schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateClosed})
			err := refused(ctx, q)
			Expect(err.Error()).To(ContainSubstring("`" + name + "` queue can not be deleted"))
		}
		q := &schedulingv1beta1.Queue{}
		Expect(fw.Client.Get(ctx, client.ObjectKey{Name: schedulingv1beta1.DefaultQueue}, q)).To(Succeed())
		Expect(refused(ctx, q).Error()).To(ContainSubstring("close it (vcctl queue operate -n default -a close)"))
	})

	It("refuses deleting an Open or Closing queue that holds unfinished PodGroups, naming the fix", func(ctx SpecContext) {
		open := makeQueue(ctx, "busy-open", schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateOpen, Pending: 1, Running: 2, Completed: 5})
		DeferCleanup(release, open)
		Expect(refused(ctx, open).Error()).To(And(
			ContainSubstring("queue busy-open can not be deleted because it holds 3 PodGroups that have not finished (pending 1, inqueue 0, running 2, unknown 0)"),
			ContainSubstring("close the queue (vcctl queue operate -n busy-open -a close) and wait for its PodGroups to finish"),
		))

		closing := makeQueue(ctx, "busy-closing", schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateClosing, Inqueue: 1, Unknown: 1})
		DeferCleanup(release, closing)
		Expect(refused(ctx, closing).Error()).To(ContainSubstring("holds 2 PodGroups that have not finished"))
	})

	It("refuses deleting a queue with allocated pods, as Volcano's allocated-pods check does", func(ctx SpecContext) {
		q := makeQueue(ctx, "busy-pods", schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateOpen,
			Allocated: corev1.ResourceList{corev1.ResourcePods: apiresource.MustParse("3")}})
		DeferCleanup(release, q)
		Expect(refused(ctx, q).Error()).To(ContainSubstring("queue busy-pods can not be deleted because it has allocated Pods: 3"))
	})

	It("allows deleting a Closed queue, and an Open one whose PodGroups have all finished, as Volcano does", func(ctx SpecContext) {
		closed := makeQueue(ctx, "idle-closed", schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateClosed})
		Expect(fw.Client.Delete(ctx, closed)).To(Succeed())
		// Closed is written once the queue holds no PodGroup; counters written a moment before
		// that may still be there, and do not hold the queue.
		stale := makeQueue(ctx, "closed-stale", schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateClosed, Running: 1,
			Allocated: corev1.ResourceList{corev1.ResourcePods: apiresource.MustParse("2")}})
		Expect(fw.Client.Delete(ctx, stale)).To(Succeed())
		done := makeQueue(ctx, "idle-open", schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateOpen, Completed: 4,
			Allocated: corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse("0"), corev1.ResourcePods: apiresource.MustParse("0")}})
		Expect(fw.Client.Delete(ctx, done)).To(Succeed())
		fresh := makeQueue(ctx, "fresh", schedulingv1beta1.QueueStatus{})
		Expect(fw.Client.Delete(ctx, fresh)).To(Succeed())
	})
})
