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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

var _ = Describe("Job controller with the manager's cache", Label("controller:job"), func() {
	var ns string

	BeforeEach(func() {
		Expect(fw.ManagerCache.ByObject).To(HaveLen(len(controllers.CacheOptions().ByObject)), "the suite caches as cmd/manager does")
		ns = fw.SpecNamespace("cache")
	})

	It("finds, labels and updates the plugin Secret and ConfigMap of a job made before plugins labelled their objects", func(ctx SpecContext) {
		job := wrappers.MakeJob("legacy", ns).Scheduler(testScheduler).Plugin("ssh").Plugin("svc").Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		owner := metav1.OwnerReference{
			APIVersion: batchv1alpha1.GroupVersion.String(), Kind: "Job", Name: job.Name, UID: job.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}
		// As an older manager left them: the job's own, without the job's labels, with stale data.
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "legacy-ssh", OwnerReferences: []metav1.OwnerReference{owner}},
			Data:       map[string][]byte{"stale": []byte("x")},
		}
		configMap := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "legacy-svc", OwnerReferences: []metav1.OwnerReference{owner}},
			Data:       map[string]string{"stale": "x"},
		}
		Expect(fw.Client.Create(ctx, secret)).To(Succeed())
		Expect(fw.Client.Create(ctx, configMap)).To(Succeed())

		startControllers(ctx)
		Eventually(func(g Gomega) {
			g.Expect(getJob(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Running))
			for _, o := range []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}} {
				key := client.ObjectKeyFromObject(secret)
				if _, ok := o.(*corev1.ConfigMap); ok {
					key = client.ObjectKeyFromObject(configMap)
				}
				g.Expect(fw.Client.Get(ctx, key, o)).To(Succeed())
				g.Expect(o.GetLabels()).To(HaveKeyWithValue(batchv1alpha1.JobNameKey, job.Name), "%T %s is labelled, so the cache holds it from now on", o, key.Name)
			}
			cur := &corev1.Secret{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(secret), cur)).To(Succeed())
			g.Expect(cur.Data).NotTo(HaveKey("stale"), "the ssh keys replaced the stale data")
			g.Expect(cur.Data).To(HaveKey("id_rsa"))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})
})
