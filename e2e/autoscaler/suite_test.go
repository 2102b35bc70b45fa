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

// Package autoscaler holds the end-to-end suite of Caldera in a cluster that grows: a real
// kube-apiserver, etcd and kube-controller-manager, KWOK, and Karpenter with its KWOK cloud
// provider adding and removing nodes, with Caldera's controllers and scheduler configured for
// autoscaled clusters (config/scheduler/autoscaler.conf). Nodes come and go here, so the suite
// has a control plane of its own.
package autoscaler

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

// nodeCount is how many KWOK nodes (32 CPUs each) the cluster has before Karpenter adds any.
const nodeCount = 2

var (
	fw *framework.Framework
	// stopCaldera stops the manager running Caldera's controllers and scheduler.
	stopCaldera func() error
)

func TestAutoscaler(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "e2e autoscaler")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(GinkgoLogr)
	fw = &framework.Framework{KWOK: true, Autoscaler: true, ManagerCache: controllers.CacheOptions()}
	Expect(fw.Start()).To(Succeed())
	nodes, err := fw.CreateNodes(ctx, nodeCount, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())
	Expect(fw.ApplyNodePool(ctx)).To(Succeed())
	stopCaldera, err = fw.StartManager(ctx, caldera.Setup(controllers.Options{}, scheduler.Options{ConfigFile: framework.AutoscalerSchedulerConfigPath()}))
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(2*framework.StartTimeout))

var _ = AfterSuite(func() {
	if stopCaldera != nil {
		Expect(stopCaldera()).To(Succeed())
	}
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
})
