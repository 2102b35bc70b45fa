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

package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/cli"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

var (
	fw         *framework.Framework
	ctx        context.Context
	cancel     context.CancelFunc
	kubeconfig string
	// clk is the time vcctl measures ages from.
	clk = clocktesting.NewFakePassiveClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
)

func TestVcctl(t *testing.T) {
	if testing.Short() {
		t.Skip("the vcctl suite runs against a real API server; skipped with -short")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "vcctl suite")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var _ = BeforeSuite(func() {
	ctx, cancel = context.WithCancel(context.Background())
	// The cache options are those of the manager, for the specs that run the controllers.
	fw = &framework.Framework{ManagerCache: controllers.CacheOptions()}
	Expect(fw.Start()).To(Succeed())

	// vcctl reaches the API server the way a user's does: through a kubeconfig file given by -k.
	cfg := fw.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
	}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	dir, err := os.MkdirTemp("", "vcctl-suite-")
	Expect(err).NotTo(HaveOccurred())
	kubeconfig = filepath.Join(dir, "kubeconfig")
	Expect(clientcmd.WriteToFile(*kc, kubeconfig)).To(Succeed())
	DeferCleanup(os.RemoveAll, dir)
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
})

// vcctl runs the vcctl command tree in this process against the suite's API server and
// returns what it printed and its error.
func vcctl(args ...string) (string, error) {
	GinkgoHelper()
	var out, errOut bytes.Buffer
	root := cli.NewRootCommand(cli.Options{Out: &out, ErrOut: &errOut, Clock: clk})
	root.SetArgs(append(args, "--kubeconfig", kubeconfig))
	err := root.ExecuteContext(ctx)
	GinkgoWriter.Printf("vcctl %v\n%s%s", args, out.String(), errOut.String())
	return out.String(), err
}

// vcctlWithWarnings is vcctl that also returns what the command printed to its error stream
// (warnings).
func vcctlWithWarnings(args ...string) (string, string, error) {
	GinkgoHelper()
	var out, errOut bytes.Buffer
	root := cli.NewRootCommand(cli.Options{Out: &out, ErrOut: &errOut, Clock: clk})
	root.SetArgs(append(args, "--kubeconfig", kubeconfig))
	err := root.ExecuteContext(ctx)
	GinkgoWriter.Printf("vcctl %v\n%s%s", args, out.String(), errOut.String())
	return out.String(), errOut.String(), err
}
