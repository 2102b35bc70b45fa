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

// Package gitops holds the end-to-end suite of Caldera under GitOps tools: it runs jobs, flows
// and CronJobs to each phase on a local control plane (kube-apiserver, etcd,
// kube-controller-manager, KWOK) and reads the live Jobs, PodGroups, Queues, JobFlows,
// JobTemplates and CronJobs as Argo CD (the Lua health checks of
// config/argocd/resource_customizations), kstatus and Flux (the healthCheckExprs of
// samples/flux/kustomization.yaml) read them, and runs the Argo Workflows of
// samples/argo-workflows and Volcano's own Argo example through their resource templates.
package gitops

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/caldera"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// nodeCount is how many KWOK nodes (the framework's default capacity) the suite runs on.
const nodeCount = 2

var (
	fw *framework.Framework
	// stopCaldera stops the manager running Caldera's controllers and scheduler; nil when none
	// runs.
	stopCaldera func() error
)

func TestGitOps(t *testing.T) {
	if testing.Short() {
		t.Skip("the gitops suite needs a control plane; run without -short")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "e2e gitops")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

// startCaldera starts what cmd/manager runs: the controllers and the scheduler.
func startCaldera(ctx context.Context) {
	GinkgoHelper()
	stop, err := fw.StartManager(ctx, caldera.Setup(controllers.Options{}, scheduler.Options{}))
	Expect(err).NotTo(HaveOccurred())
	stopCaldera = stop
}

// stopCalderaNow stops the manager, if one runs.
func stopCalderaNow() {
	GinkgoHelper()
	if stopCaldera != nil {
		Expect(stopCaldera()).To(Succeed())
		stopCaldera = nil
	}
}

var _ = BeforeSuite(func(ctx context.Context) {
	fw = &framework.Framework{
		KWOK:         true,
		ManagerCache: controllers.CacheOptions(),
		CRDPaths:     []string{filepath.Join(framework.RepoRoot(), "e2e", "gitops", "testdata", "crds")},
	}
	Expect(fw.Start()).To(Succeed())
	nodes, err := fw.CreateNodes(ctx, nodeCount, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())
	startCaldera(ctx)
}, NodeTimeout(framework.StartTimeout))

var _ = AfterSuite(func() {
	stopCalderaNow()
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
})
