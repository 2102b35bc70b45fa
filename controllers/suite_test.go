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
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// testScheduler is the scheduler name of pods the suite's binder places; the job controller
// creates them at once, as for any scheduler it does not serve.
const testScheduler = "test-binder"

var (
	fw    *framework.Framework
	nodes []string
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controllers suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	fw = &framework.Framework{KWOK: true, ManagerCache: controllers.CacheOptions()}
	Expect(fw.Start()).To(Succeed())
	var err error
	nodes, err = fw.CreateNodes(ctx, 4, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())
	Expect(fw.Client.Create(ctx, wrappers.MakeQueue(schedulingv1beta1.DefaultQueue).Obj())).To(Succeed())
}, NodeTimeout(framework.StartTimeout))

var _ = AfterSuite(func() {
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
})

// startControllers starts a manager with Caldera's controllers and the suite's binder for the
// rest of the spec.
func startControllers(ctx context.Context) {
	GinkgoHelper()
	stop, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
		if err := controllers.Setup(mgr, controllers.Options{SchedulerNames: []string{"volcano"}}); err != nil {
			return err
		}
		return mgr.Add(&binder{client: mgr.GetClient(), nodes: nodes})
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })
}

// binder stands in for a scheduler in these specs: it binds every unbound pod, round-robin over
// the KWOK nodes, through the pods/binding subresource. Scheduling itself is tested in scheduler/.
type binder struct {
	client client.Client
	nodes  []string
	next   atomic.Int64
}

var _ manager.Runnable = &binder{}

func (b *binder) Start(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		pods := &corev1.PodList{}
		if err := b.client.List(ctx, pods); err != nil {
			continue
		}
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
				continue
			}
			node := b.nodes[int(b.next.Add(1))%len(b.nodes)]
			_ = b.client.SubResource("binding").Create(ctx, p, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
				Target:     corev1.ObjectReference{Kind: "Node", Name: node},
			})
		}
	}
}
