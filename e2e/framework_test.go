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

package e2e

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

var _ = Describe("StartManager", func() {
	It("runs a manager with a synced cache until its stop function is called", func(ctx SpecContext) {
		ns := fw.SpecNamespace("manager")
		pod := boundPod(ns, "seen", nodes[0], nil)
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())

		started := make(chan struct{})
		stopped := make(chan struct{})
		var mgrClient client.Client
		stop, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
			mgrClient = mgr.GetClient()
			return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				close(started)
				<-ctx.Done()
				close(stopped)
				return nil
			}))
		})
		Expect(err).NotTo(HaveOccurred())
		Eventually(started).WithTimeout(framework.Timeout).Should(BeClosed())

		// The manager's client reads from its cache.
		Eventually(func() error {
			return mgrClient.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{})
		}).WithContext(ctx).WithTimeout(framework.Timeout).WithPolling(framework.Interval).Should(Succeed())

		Expect(stopped).NotTo(BeClosed())
		Expect(stop()).To(Succeed())
		Expect(stopped).To(BeClosed())
	}, SpecTimeout(framework.Timeout))
})
