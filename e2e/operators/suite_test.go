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
// Package operators runs other operators, built from the Go module proxy by
// hack/kube-binaries.sh, against a control plane running Caldera's controllers and scheduler on
// KWOK nodes, and checks that the pods they create are gang-scheduled through their PodGroups:
// KubeRay with --batch-scheduler=volcano and the Kubeflow MPI operator with
// --gang-scheduling=volcano.
package operators

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/caldera"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// nodeCount is how many KWOK nodes the suite runs on, each of framework.DefaultNodeCapacity.
const nodeCount = 3

var (
	fw    *framework.Framework
	nodes []string
	// suiteDir holds the operators' kubeconfig and logs; removed at the end of the suite.
	suiteDir string
	// operators are the operators the suite runs, started in BeforeSuite.
	operators []*operator
	// stopCaldera stops the manager running Caldera's controllers and scheduler.
	stopCaldera func() error
)

func TestOperators(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "operators")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var _ = BeforeSuite(func(ctx context.Context) {
	assets, err := operatorAssets()
	Expect(err).NotTo(HaveOccurred())
	suiteDir, err = os.MkdirTemp("", "caldera-operators-")
	Expect(err).NotTo(HaveOccurred())

	fw = &framework.Framework{
		KWOK:         true,
		ManagerCache: controllers.CacheOptions(),
		CRDPaths:     []string{filepath.Join(assets, kuberay.name+"-crds"), filepath.Join(assets, mpiOperator.name+"-crds")},
	}
	Expect(fw.Start()).To(Succeed())
	nodes, err = fw.CreateNodes(ctx, nodeCount, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())

	// What cmd/manager runs: the controllers and the scheduler, serving schedulerName "volcano".
	stopCaldera, err = fw.StartManager(ctx, caldera.Setup(controllers.Options{}, scheduler.Options{}))
	Expect(err).NotTo(HaveOccurred())

	kubeconfig := filepath.Join(suiteDir, "operators.kubeconfig")
	Expect(framework.WriteKubeconfig(fw.Config, kubeconfig)).To(Succeed())
	for _, op := range []*operator{kuberay, mpiOperator} {
		Expect(op.start(assets, suiteDir, kubeconfig)).To(Succeed())
		operators = append(operators, op)
	}
}, NodeTimeout(framework.StartTimeout))

var _ = AfterSuite(func() {
	for _, op := range operators {
		Expect(op.stop()).To(Succeed())
	}
	if stopCaldera != nil {
		Expect(stopCaldera()).To(Succeed())
	}
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
	if suiteDir != "" {
		Expect(os.RemoveAll(suiteDir)).To(Succeed())
	}
})

// The end of every operator's log goes into the output of a failed spec.
var _ = AfterEach(func() {
	if !CurrentSpecReport().Failed() {
		return
	}
	for _, op := range operators {
		GinkgoWriter.Printf("\nThe end of %s:\n%s\n", op.process.LogPath(), op.process.Tail(40))
	}
})
