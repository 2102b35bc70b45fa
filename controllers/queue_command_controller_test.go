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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

var _ = Describe("Queue commands", Label("controller:queue"), func() {
	It("closes and opens a queue once per Command, as vcctl queue operate does", func(ctx SpecContext) {
		ns := fw.SpecNamespace("queuecmd")
		startControllers(ctx)
		name := "ops-" + ns
		queue := wrappers.MakeQueue(name).Obj()
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
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the Command is deleted when it is taken")
			}, framework.Timeout, framework.Interval).Should(Succeed())
		}
		state := func(g Gomega) schedulingv1beta1.QueueState {
			cur := &schedulingv1beta1.Queue{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Name: queue.Name}, cur)).To(Succeed())
			return cur.Status.State
		}

		issue("close", busv1alpha1.CloseQueueAction)
		Eventually(state, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateClosed))
		issue("open", busv1alpha1.OpenQueueAction)
		Eventually(state, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateOpen))
	})
})
