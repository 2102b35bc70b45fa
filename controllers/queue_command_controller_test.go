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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
	"github.com/caldera-sh/caldera/scheduler"
)

var _ = Describe("Queue commands", Label("controller:queue"), func() {
	It("records a queue Command for the scheduler, the one writer of Queue status, which closes and opens the queue", func(ctx SpecContext) {
		ns := fw.SpecNamespace("queuecmd")
		name := "ops-" + ns
		queue := wrappers.MakeQueue(name).Obj()
		queue.Status = schedulingv1beta1.QueueStatus{}
		Expect(fw.Client.Create(ctx, queue)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { _ = fw.Client.Delete(ctx, queue) })

		issue := func(cmdName string, action busv1alpha1.Action) {
			GinkgoHelper()
			cmd := &busv1alpha1.Command{
				ObjectMeta: metav1.ObjectMeta{Name: cmdName, Namespace: ns},
				Action:     string(action),
				TargetObject: &metav1.OwnerReference{
					APIVersion: schedulingv1beta1.GroupVersion.String(), Kind: "Queue", Name: queue.Name, UID: queue.UID,
				},
			}
			Expect(fw.Client.Create(ctx, cmd)).To(Succeed())
			Eventually(func(g Gomega) {
				err := fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: cmdName}, &busv1alpha1.Command{})
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the Command is deleted once recorded")
			}, framework.Timeout, framework.Interval).Should(Succeed())
		}
		get := func(g Gomega) *schedulingv1beta1.Queue {
			cur := &schedulingv1beta1.Queue{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Name: queue.Name}, cur)).To(Succeed())
			return cur
		}
		state := func(g Gomega) schedulingv1beta1.QueueState { return get(g).Status.State }

		// Without the scheduler, the command controller records the request and writes no status.
		stop := startControllersOnly(ctx)
		issue("close", busv1alpha1.CloseQueueAction)
		Eventually(func(g Gomega) {
			g.Expect(get(g).Annotations).To(HaveKeyWithValue(schedulingv1beta1.QueueRequestedStateAnnotationKey, "Closed"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Consistently(state, framework.ConsistentlyDuration, framework.Interval).Should(BeEmpty(),
			"only the scheduler writes a Queue's status")
		stop()

		// The scheduler then makes it Closing while it holds a PodGroup, Closed once drained.
		pg := &schedulingv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: ns},
			Spec:       schedulingv1beta1.PodGroupSpec{Queue: queue.Name, MinMember: 1},
		}
		Expect(fw.Client.Create(ctx, pg)).To(Succeed())
		startCalderaWithScheduler(ctx)
		Eventually(state, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateClosing))
		Expect(fw.Client.Delete(ctx, pg)).To(Succeed())
		Eventually(state, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateClosed))
		issue("open", busv1alpha1.OpenQueueAction)
		Eventually(state, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateOpen))
	})
})

// startCalderaWithScheduler starts what cmd/manager runs: the controllers and the in-tree
// scheduler (serving "volcano"), for the rest of the spec.
func startCalderaWithScheduler(ctx context.Context) {
	GinkgoHelper()
	stop, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
		if err := controllers.Setup(mgr, controllers.Options{SchedulerNames: []string{"volcano"}}); err != nil {
			return err
		}
		s, err := scheduler.New(mgr, scheduler.Options{})
		if err != nil {
			return err
		}
		return mgr.Add(s)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })
}
