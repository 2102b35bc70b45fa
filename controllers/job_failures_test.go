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
	"errors"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// noWatch makes a manager's client a client.WithWatch for interceptor.NewClient; the
// controllers never watch through their client.
type noWatch struct{ client.Client }

func (noWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("watch is not supported")
}

// startControllersWith starts a manager with Caldera's controllers, using the manager's client
// wrapped by funcs (nil: unwrapped), and the in-tree scheduler. It returns a stop function, also
// called at the end of the spec.
func startControllersWith(ctx context.Context, funcs *interceptor.Funcs) (stop func()) {
	GinkgoHelper()
	stopMgr, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
		opts := controllers.Options{SchedulerNames: []string{"volcano"}}
		if funcs != nil {
			opts.Client = interceptor.NewClient(noWatch{mgr.GetClient()}, *funcs)
		}
		if err := controllers.Setup(mgr, opts); err != nil {
			return err
		}
		return addScheduler(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	var stopped atomic.Bool
	stop = func() {
		if stopped.CompareAndSwap(false, true) {
			Expect(stopMgr()).To(Succeed())
		}
	}
	DeferCleanup(stop)
	return stop
}

// once returns true the first time it is called after arm, and false otherwise.
type once struct{ armed, fired atomic.Bool }

func (o *once) arm()       { o.armed.Store(true) }
func (o *once) take() bool { return o.armed.Load() && o.fired.CompareAndSwap(false, true) }

var errInjected = apierrors.NewServiceUnavailable("injected by the spec")

var _ = Describe("Job controller under failures", Label("controller:job"), func() {
	var ns string

	BeforeEach(func() {
		ns = fw.SpecNamespace("fail")
	})

	It("carries out a Command exactly once when the status write and the Command's deletion fail", func(ctx SpecContext) {
		job := wrappers.MakeJob("cmd", ns).Scheduler(testScheduler).Task("worker", 2).Obj()
		var failStatus, failDelete once
		startControllersWith(ctx, &interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				if j, ok := obj.(*batchv1alpha1.Job); ok && j.Namespace == ns && sub == "status" && failStatus.take() {
					return errInjected
				}
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				if _, ok := obj.(*busv1alpha1.Command); ok && obj.GetNamespace() == ns && failDelete.take() {
					return errInjected
				}
				return c.Delete(ctx, obj, opts...)
			},
		})
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
		Eventually(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(HaveLen(2))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		failStatus.arm()
		failDelete.arm()
		cmd := wrappers.Command("restart", job, busv1alpha1.RestartJobAction)
		Expect(fw.Client.Create(ctx, cmd)).To(Succeed())
		Eventually(func(g Gomega) {
			err := fw.Client.Get(ctx, client.ObjectKeyFromObject(cmd), &busv1alpha1.Command{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the Command is deleted once carried out")
			cur := getJob(ctx, g, job)
			g.Expect(cur.Status.Version).To(Equal(int32(1)), "the restart took effect")
			g.Expect(cur.Status.HandledCommands).To(ContainElement(string(cmd.UID)))
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Running))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		Expect(failStatus.fired.Load()).To(BeTrue(), "a status write failed")
		Expect(failDelete.fired.Load()).To(BeTrue(), "a deletion of the Command failed")
		Consistently(func(g Gomega) {
			g.Expect(getJob(ctx, g, job).Status.Version).To(Equal(int32(1)), "the restart took effect once")
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
	})

	It("still restarts the job on PodFailed when deleting the failed pod is refused once", func(ctx SpecContext) {
		job := wrappers.MakeJob("act", ns).Scheduler(testScheduler).MaxRetry(5).
			Task("ps", 1).
			Task("worker", 1).RunFor(time.Second).ExitCode(1).
			Policy(wrappers.OnEvent(busv1alpha1.PodFailedEvent, busv1alpha1.RestartJobAction)).Obj()
		var refuse once
		refuse.arm()
		startControllersWith(ctx, &interceptor.Funcs{
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				if _, ok := obj.(*corev1.Pod); ok && obj.GetNamespace() == ns && obj.GetName() == "act-worker-0" && refuse.take() {
					return errInjected
				}
				return c.Delete(ctx, obj, opts...)
			},
		})
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(refuse.fired.Load()).To(BeTrue(), "the failed pod's deletion was refused")
			g.Expect(getJob(ctx, g, job).Status.Version).To(BeNumerically(">=", 1), "RestartJob fired")
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("restarts the job on PodEvicted for a pod deleted while no manager ran", func(ctx SpecContext) {
		job := wrappers.MakeJob("gone", ns).Scheduler(testScheduler).Task("worker", 2).
			Policy(wrappers.OnEvent(busv1alpha1.PodEvictedEvent, busv1alpha1.RestartJobAction)).Obj()
		stop := startControllersWith(ctx, nil)
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Running))
			g.Expect(cur.Status.Running).To(Equal(int32(2)))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		stop()

		victim := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gone-worker-1"}}
		Expect(fw.Client.Delete(ctx, victim, client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(func(g Gomega) {
			err := fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: victim.Name}, &corev1.Pod{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		startControllersWith(ctx, nil)
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(cur.Status.Version).To(Equal(int32(1)), "RestartJob fired for the eviction")
			g.Expect(cur.Status.RetryCount).To(Equal(int32(0)), "an eviction does not count a retry")
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Running))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("reports a failing reconcile in Ready with the error, as Flux does", func(ctx SpecContext) {
		job := wrappers.MakeJob("refused", ns).Scheduler(testScheduler).Task("worker", 1).Obj()
		startControllersWith(ctx, &interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if _, ok := obj.(*corev1.Pod); ok && obj.GetNamespace() == ns {
					return errInjected
				}
				return c.Create(ctx, obj, opts...)
			},
		})
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			ready := condition(cur, batchv1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(batchv1alpha1.ReconcileErrorReason))
			g.Expect(ready.Message).To(ContainSubstring("creating pod refused-worker-0"))
			g.Expect(ready.Message).To(ContainSubstring("injected by the spec"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("stalls a job whose Service name is taken by an object it does not own, naming the owner", func(ctx SpecContext) {
		startControllersWith(ctx, nil)
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken"},
			Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Name: "x", Port: 80}}},
		}
		Expect(fw.Client.Create(ctx, svc, client.FieldOwner("kustomize-controller"))).To(Succeed())
		job := wrappers.MakeJob("taken", ns).Scheduler(testScheduler).Plugin("svc").Task("worker", 1).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			s := condition(cur, batchv1alpha1.StalledCondition)
			g.Expect(s).NotTo(BeNil())
			g.Expect(s.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(s.Reason).To(Equal(batchv1alpha1.NameTakenReason))
			g.Expect(s.Message).To(ContainSubstring("Service " + ns + "/taken"))
			g.Expect(s.Message).To(ContainSubstring("managed by kustomize-controller"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})
})
