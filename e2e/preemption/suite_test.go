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

// Package preemption holds the end-to-end suite of priority and fair share making room for
// gangs: a real kube-apiserver, etcd and kube-controller-manager, two KWOK nodes of 32 CPUs,
// and Caldera's controllers and scheduler with the default configuration, driven by vcjobs as a
// user submits them (their pods exist only once the scheduler admits their PodGroup). Each
// spec fills the whole cluster, so the suite has a control plane of its own and its specs
// leave it empty.
package preemption

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/caldera"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// nodeCount is how many KWOK nodes (32 CPUs each) the cluster has.
const nodeCount = 2

var fw *framework.Framework

func TestPreemption(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "e2e preemption")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(GinkgoLogr)
	fw = &framework.Framework{KWOK: true, ManagerCache: controllers.CacheOptions()}
	Expect(fw.Start()).To(Succeed())
	nodes, err := fw.CreateNodes(ctx, nodeCount, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())
	stop, err := fw.StartManager(ctx, caldera.Setup(controllers.Options{}, scheduler.Options{}))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })
}, NodeTimeout(2*framework.StartTimeout))

var _ = AfterSuite(func() {
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
})
