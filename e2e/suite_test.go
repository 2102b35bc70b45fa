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

// Package e2e holds Caldera's end-to-end suites: a real kube-apiserver and etcd, KWOK with fake
// nodes running Caldera's stages (config/kwok/stages.yaml), and the controllers under test.
package e2e

import (
	"context"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// nodeCount is how many KWOK nodes the suite runs on.
const nodeCount = 3

var (
	fw    *framework.Framework
	nodes []string
	// suiteDir is a folder for the suite's files, removed at its end.
	suiteDir string
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "e2e")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	suiteDir, err = os.MkdirTemp("", "caldera-e2e-")
	Expect(err).NotTo(HaveOccurred())
	fw = &framework.Framework{KWOK: true, ManagerCache: controllers.CacheOptions()}
	Expect(fw.Start()).To(Succeed())
	nodes, err = fw.CreateNodes(ctx, nodeCount, nil)
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(framework.StartTimeout))

var _ = AfterSuite(func() {
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
	if suiteDir != "" {
		Expect(os.RemoveAll(suiteDir)).To(Succeed())
	}
})
