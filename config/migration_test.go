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

package config_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/install"
	"github.com/caldera-sh/caldera/scheduler"
)

// volcanoObjects are a queue, a job and an operator's PodGroup as a Volcano cluster stores them:
// the job as Volcano's mutating webhook left it (queue, maxRetry, minAvailable and the tasks'
// minAvailable written in) and not yet started, the PodGroup as the Spark operator makes one.
const volcanoObjects = `
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: legacy
spec:
  weight: 2
  reclaimable: true
  capability:
    cpu: "16"
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: legacy-job
  namespace: migration
spec:
  schedulerName: volcano
  queue: legacy
  minAvailable: 2
  maxRetry: 3
  policies:
  - event: PodEvicted
    action: RestartJob
  tasks:
  - name: worker
    replicas: 2
    minAvailable: 2
    template:
      metadata:
        annotations:
          caldera.sh/simulate-run-time: 3s
      spec:
        restartPolicy: OnFailure
        containers:
        - name: main
          image: busybox
          resources:
            requests:
              cpu: "1"
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: spark-pi-pg
  namespace: migration
spec:
  minMember: 1
  queue: legacy
---
apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata:
  name: legacy-cron
  namespace: migration
spec:
  schedule: "0 3 * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      queue: legacy
      tasks:
      - name: worker
        replicas: 1
        template:
          spec:
            containers:
            - name: worker
              image: busybox:1.36
  minResources:
    cpu: "1"
`

var _ = Describe("Migrating from Volcano", Label("config", "migration"), func() {
	It("adopts the jobs, queues and PodGroups of Volcano's CRDs once Caldera's are applied over them", func(ctx context.Context) {
		By("installing Volcano " + install.VolcanoModuleVersion + "'s CRDs and objects")
		volcanoCRDs, err := install.VolcanoCRDs(ctx, install.VolcanoModuleVersion)
		Expect(err).NotTo(HaveOccurred())
		applyCRDs(ctx, volcanoCRDs, "volcano")
		Expect(fw.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "migration"}})).To(Succeed())
		objs, err := install.Decode([]byte(volcanoObjects))
		Expect(err).NotTo(HaveOccurred())
		for i := range objs {
			Expect(fw.Client.Create(ctx, &objs[i])).To(Succeed(), "creating %s under Volcano's CRD", objs[i].GetKind())
		}
		DeferCleanup(func(ctx context.Context) {
			for i := range objs {
				Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, &objs[i]))).To(Succeed())
			}
		})

		By("applying Caldera's CRDs over them, as the README says")
		calderaCRDs := readCRDs(filepath.Join(framework.RepoRoot(), "config", "crd", "bases"))
		applyCRDs(ctx, calderaCRDs, "caldera")

		job := &batchv1alpha1.Job{}
		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: "migration", Name: "legacy-job"}, job)).To(Succeed())
			g.Expect(job.Spec.Queue).To(Equal("legacy"))
			g.Expect(job.Spec.MinAvailable).To(Equal(int32(2)))
			g.Expect(job.Spec.Tasks).To(HaveLen(1))
			g.Expect(job.Spec.Tasks[0].Template.Annotations).To(HaveKey("caldera.sh/simulate-run-time"), "pod template metadata survives the new schema")
			queue := &schedulingv1beta1.Queue{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Name: "legacy"}, queue)).To(Succeed())
			g.Expect(queue.Spec.Capability.Cpu().Equal(resource.MustParse("16"))).To(BeTrue())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		By("starting Caldera, which runs the job and admits the PodGroup")
		stop, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
			if err := controllers.Setup(mgr, controllers.Options{}); err != nil {
				return err
			}
			s, err := scheduler.New(mgr, scheduler.Options{})
			if err != nil {
				return err
			}
			return mgr.Add(s)
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(stop()).To(Succeed()) })
		// While Caldera still runs: the queue-deletion policy (applied with config/default) lets
		// the queue go once the scheduler has counted its PodGroups gone.
		DeferCleanup(func(ctx context.Context) {
			for i := len(objs) - 1; i >= 0; i-- {
				Eventually(func() error { return client.IgnoreNotFound(fw.Client.Delete(ctx, &objs[i])) }, framework.Timeout, framework.Interval).
					Should(Succeed(), "deleting %s %s", objs[i].GetKind(), objs[i].GetName())
			}
		})

		Eventually(func(g Gomega) {
			cur := &batchv1alpha1.Job{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)).To(Succeed())
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
			g.Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())

		cron := &batchv1alpha1.CronJob{}
		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: "migration", Name: "legacy-cron"}, cron)).To(Succeed())
			g.Expect(cron.Spec.ConcurrencyPolicy).To(Equal(batchv1alpha1.ForbidConcurrent))
			g.Expect(meta.IsStatusConditionTrue(cron.Status.Conditions, "Ready")).To(BeTrue(), "the CronJob made under Volcano's CRD is scheduled by Caldera")
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			pg := &schedulingv1beta1.PodGroup{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: "migration", Name: "spark-pi-pg"}, pg)).To(Succeed())
			g.Expect(pg.Status.Phase).To(Equal(schedulingv1beta1.PodGroupInqueue))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			q := &schedulingv1beta1.Queue{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Name: "legacy"}, q)).To(Succeed())
			g.Expect(q.Status.State).To(Equal(schedulingv1beta1.QueueStateOpen))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})
})

// readCRDs returns the CRDs of the YAML files in dir.
func readCRDs(dir string) []unstructured.Unstructured {
	GinkgoHelper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(files).NotTo(BeEmpty())
	var all []unstructured.Unstructured
	for _, file := range files {
		data, err := os.ReadFile(file)
		Expect(err).NotTo(HaveOccurred())
		objs, err := install.Decode(data)
		Expect(err).NotTo(HaveOccurred())
		all = append(all, objs...)
	}
	return all
}

// applyCRDs applies the CRDs server-side as fieldOwner, taking over every field, and waits until
// the API server serves them.
func applyCRDs(ctx context.Context, crds []unstructured.Unstructured, fieldOwner string) {
	GinkgoHelper()
	Expect(crds).NotTo(BeEmpty())
	for i := range crds {
		crd := crds[i].DeepCopy()
		crd.SetResourceVersion("")
		Expect(fw.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(crd), client.FieldOwner(fieldOwner), client.ForceOwnership)).
			To(Succeed(), "applying CRD %s", crd.GetName())
	}
	for i := range crds {
		Eventually(func(g Gomega) {
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(crds[i].GroupVersionKind())
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Name: crds[i].GetName()}, cur)).To(Succeed())
			conditions, _, err := unstructured.NestedSlice(cur.Object, "status", "conditions")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(conditions).To(ContainElement(And(HaveKeyWithValue("type", "Established"), HaveKeyWithValue("status", "True"))), "CRD %s is established", cur.GetName())
		}, framework.Timeout, framework.Interval).Should(Succeed())
	}
}
