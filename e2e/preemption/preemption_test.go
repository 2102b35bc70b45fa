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

package preemption

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// sixteenCPUs is what each pod of these specs asks: two fill a node.
var sixteenCPUs = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("1Gi")}

// job makes a long-running job of n pods of 16 CPUs, with a gang minimum, in a queue and
// priority class ("" for none).
func job(name, ns, queue, class string, n, min int32) *batchv1alpha1.Job {
	j := wrappers.MakeJob(name, ns).Queue(queue).MinAvailable(min).Task("worker", n).Requests(sixteenCPUs).Obj()
	j.Spec.PriorityClassName = class
	return j
}

// runningPods counts the job's pods that run and are not being deleted.
func runningPods(ctx context.Context, ns, jobName string) func() int {
	return func() int {
		var pods corev1.PodList
		if err := fw.Client.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{batchv1alpha1.JobNameKey: jobName}); err != nil {
			return -1
		}
		n := 0
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				n++
			}
		}
		return n
	}
}

func phaseOf(ctx context.Context, j *batchv1alpha1.Job) func() batchv1alpha1.JobPhase {
	return func() batchv1alpha1.JobPhase {
		got := &batchv1alpha1.Job{}
		if err := fw.Client.Get(ctx, client.ObjectKeyFromObject(j), got); err != nil {
			return ""
		}
		return got.Status.State.Phase
	}
}

// emptyAfter deletes the spec's jobs at its end and waits until their pods are gone, so the
// next spec finds the cluster empty.
func emptyAfter(ns string) {
	DeferCleanup(func(ctx SpecContext) {
		Expect(fw.Client.DeleteAllOf(ctx, &batchv1alpha1.Job{}, client.InNamespace(ns), client.PropagationPolicy(metav1.DeletePropagationForeground))).To(Succeed())
		Eventually(func() int {
			var pods corev1.PodList
			if err := fw.Client.List(ctx, &pods, client.InNamespace(ns)); err != nil {
				return -1
			}
			return len(pods.Items)
		}, framework.LongTimeout, framework.Interval).Should(BeZero())
	})
}

var _ = Describe("Priority and fair share make room for gangs", Label("e2e:preemption"), func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("room")
		emptyAfter(ns)
	})

	It("runs a high-priority gang in place of a low-priority gang of the same queue that fills the cluster", func(ctx SpecContext) {
		low, high := fmt.Sprintf("%s-low", ns), fmt.Sprintf("%s-high", ns)
		for name, value := range map[string]int32{low: 10, high: 1000} {
			pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
			Expect(fw.Client.Create(ctx, pc)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, pc))).To(Succeed()) })
		}
		lowJob := job("low", ns, "default", low, 4, 4)
		Expect(fw.Client.Create(ctx, lowJob)).To(Succeed())
		Eventually(runningPods(ctx, ns, "low"), framework.LongTimeout, framework.Interval).Should(Equal(4))

		highJob := job("high", ns, "default", high, 4, 4)
		Expect(fw.Client.Create(ctx, highJob)).To(Succeed())
		Eventually(phaseOf(ctx, highJob), framework.LongTimeout, framework.Interval).Should(Equal(batchv1alpha1.Running))
		Expect(runningPods(ctx, ns, "high")()).To(Equal(4))
		// The low gang went whole (it would be below its minimum otherwise) and waits again.
		Expect(runningPods(ctx, ns, "low")()).To(BeZero())
		Eventually(phaseOf(ctx, lowJob), framework.LongTimeout, framework.Interval).Should(BeElementOf(batchv1alpha1.Pending, batchv1alpha1.Restarting))
	})

	It("gives a queue below its deserved share its share back with overcommit in the tiers, taking surplus pods only", func(ctx SpecContext) {
		qa, qb := ns+"-qa", ns+"-qb"
		for _, name := range []string{qa, qb} {
			reclaimable := true
			q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: schedulingv1beta1.QueueSpec{Weight: 1, Reclaimable: &reclaimable}}
			Expect(fw.Client.Create(ctx, q)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) {
				Expect(fw.DeleteQueue(ctx, q.Name)).To(Succeed())
			})
		}
		greedy := job("greedy", ns, qa, "", 4, 1)
		Expect(fw.Client.Create(ctx, greedy)).To(Succeed())
		Eventually(runningPods(ctx, ns, "greedy"), framework.LongTimeout, framework.Interval).Should(Equal(4))

		owed := job("owed", ns, qb, "", 2, 2)
		Expect(fw.Client.Create(ctx, owed)).To(Succeed())
		Eventually(phaseOf(ctx, owed), framework.LongTimeout, framework.Interval).Should(Equal(batchv1alpha1.Running))
		Expect(runningPods(ctx, ns, "owed")()).To(Equal(2))
		// Two of greedy's pods were surplus (minAvailable 1); it keeps running with the rest.
		Eventually(runningPods(ctx, ns, "greedy"), framework.LongTimeout, framework.Interval).Should(BeNumerically(">=", 1))
		Expect(phaseOf(ctx, greedy)()).To(Equal(batchv1alpha1.Running))
	})
})
