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
	"sync"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
	"github.com/caldera-sh/caldera/scheduler"
)

// testScheduler is the scheduler name of the suite's jobs: the one the suite's managers serve with
// the in-tree scheduler, so that every job goes through its PodGroup's admission (Inqueue) before
// the controller makes its pods, as users' jobs do.
const testScheduler = "volcano"

var (
	fw    *framework.Framework
	nodes []string
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controllers suite")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

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

// startControllers starts a manager with Caldera's controllers and the in-tree scheduler for the
// rest of the spec.
func startControllers(ctx context.Context) {
	GinkgoHelper()
	stop, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
		if err := controllers.Setup(mgr, controllers.Options{SchedulerNames: []string{testScheduler}}); err != nil {
			return err
		}
		return addScheduler(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })
}

// startControllersOnly starts a manager with Caldera's controllers and no scheduler: PodGroups stay
// Pending unless the spec admits them. It returns a stop function, also called at the end of the
// spec.
func startControllersOnly(ctx context.Context) (stop func()) {
	GinkgoHelper()
	stopMgr, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
		return controllers.Setup(mgr, controllers.Options{SchedulerNames: []string{testScheduler}})
	})
	Expect(err).NotTo(HaveOccurred())
	var once sync.Once
	stop = func() { once.Do(func() { Expect(stopMgr()).To(Succeed()) }) }
	DeferCleanup(stop)
	return stop
}

// addScheduler adds the in-tree scheduler, serving testScheduler, to mgr.
func addScheduler(mgr ctrl.Manager) error {
	s, err := scheduler.New(mgr, scheduler.Options{SchedulerNames: []string{testScheduler}, WaitForPodGroups: true})
	if err != nil {
		return err
	}
	return mgr.Add(s)
}
