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

package webhook_test

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/webhook"
)

var (
	fw     *framework.Framework
	ctx    context.Context
	cancel context.CancelFunc
)

func TestWebhook(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Admission webhook suite")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	fw = &framework.Framework{
		Webhooks: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join(framework.RepoRoot(), "config", "webhook")},
		},
	}
	Expect(fw.Start()).To(Succeed())

	opts := fw.Webhooks
	mgr, err := ctrl.NewManager(fw.Config, ctrl.Options{
		Scheme:  fw.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{
			Host:    opts.LocalServingHost,
			Port:    opts.LocalServingPort,
			CertDir: opts.LocalServingCertDir,
		}),
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(webhook.Setup(ctx, mgr, webhook.Options{
		DefaultSchedulerName: "volcano",
	})).To(Succeed())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()

	// The queues the corpus refers to.
	for _, q := range []struct {
		name, parent string
		state        schedulingv1beta1.QueueState
	}{
		{"default", "", schedulingv1beta1.QueueStateOpen},
		{"webhook-closed", "", schedulingv1beta1.QueueStateClosed},
		{"webhook-closing", "", schedulingv1beta1.QueueStateClosing},
		{"webhook-parent", "", schedulingv1beta1.QueueStateOpen},
		{"webhook-child", "webhook-parent", schedulingv1beta1.QueueStateOpen},
	} {
		queue := &schedulingv1beta1.Queue{
			ObjectMeta: metav1.ObjectMeta{Name: q.name},
			Spec:       schedulingv1beta1.QueueSpec{Parent: q.parent},
		}
		Expect(fw.Client.Create(ctx, queue)).To(Succeed())
		queue.Status.State = q.state
		Expect(fw.Client.Status().Update(ctx, queue)).To(Succeed())
	}
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
})
