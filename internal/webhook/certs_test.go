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
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/webhook"
)

func freePort() int {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var _ = Describe("Self-managed webhook certificates", Label("webhook"), func() {
	It("makes a serving certificate, writes it for the server and injects its CA", func(ctx SpecContext) {
		ns, err := fw.CreateNamespace(ctx, "certs")
		Expect(err).NotTo(HaveOccurred())
		// A configuration of its own that matches nothing, so the suite's webhook is untouched.
		config := &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "caldera-certs-test"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:                    "validate.nothing.caldera.sh",
				AdmissionReviewVersions: []string{"v1"},
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
					Namespace: ns.Name, Name: "caldera-webhook-service", Path: ptr.To(webhook.JobValidatePath),
				}},
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{
						APIGroups: []string{"nothing.caldera.sh"}, APIVersions: []string{"v1"}, Resources: []string{"nothings"},
					},
				}},
			}},
		}
		Expect(fw.Client.Create(ctx, config)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(fw.Client.Delete(ctx, config)).To(Succeed()) })

		certDir := GinkgoT().TempDir()
		port := freePort()
		mgr, err := ctrl.NewManager(fw.Config, ctrl.Options{
			Scheme:        fw.Scheme,
			Metrics:       metricsserver.Options{BindAddress: "0"},
			WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: certDir}),
		})
		Expect(err).NotTo(HaveOccurred())
		mctx, stop := context.WithCancel(context.Background())
		DeferCleanup(stop)
		Expect(webhook.Setup(mctx, mgr, webhook.Options{
			ManageCerts: true, CertDir: certDir, Namespace: ns.Name,
			ServiceName: "caldera-webhook-service", SecretName: "caldera-webhook-server-cert",
			ConfigName: config.Name, DefaultSchedulerName: "volcano",
		})).To(Succeed())
		go func() {
			defer GinkgoRecover()
			Expect(mgr.Start(mctx)).To(Succeed())
		}()

		secret := &corev1.Secret{}
		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: "caldera-webhook-server-cert"}, secret)).To(Succeed())
			g.Expect(secret.Data).To(HaveKey("ca.crt"))
			g.Expect(secret.Data).To(HaveKey("tls.crt"))
			g.Expect(secret.Data).To(HaveKey("tls.key"))
			cur := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Name: config.Name}, cur)).To(Succeed())
			g.Expect(cur.Webhooks[0].ClientConfig.CABundle).To(Equal(secret.Data["ca.crt"]))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())

		// In a cluster the kubelet mounts the Secret at the certificate folder; here the spec does.
		for _, key := range []string{"ca.crt", "tls.crt", "tls.key"} {
			Expect(os.WriteFile(filepath.Join(certDir, key), secret.Data[key], 0o600)).To(Succeed())
		}
		pool := x509.NewCertPool()
		Expect(pool.AppendCertsFromPEM(secret.Data["ca.crt"])).To(BeTrue())
		Eventually(func(g Gomega) {
			conn, err := tls.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), &tls.Config{
				RootCAs:    pool,
				ServerName: "caldera-webhook-service." + ns.Name + ".svc",
				MinVersion: tls.VersionTLS12,
			})
			g.Expect(err).NotTo(HaveOccurred(), "the webhook serves the rotated certificate once it is mounted")
			_ = conn.Close()
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})
})
