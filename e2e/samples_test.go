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
	"bytes"
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/caldera"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// startCaldera starts what cmd/manager runs: the controllers and the scheduler, for the spec.
func startCaldera(ctx context.Context) {
	GinkgoHelper()
	stop, err := fw.StartManager(ctx, caldera.Setup(controllers.Options{}, scheduler.Options{}))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })
}

// applySample creates the Job of a sample file in namespace ns and returns it.
func applySample(ctx context.Context, path, ns string) *batchv1alpha1.Job {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(framework.RepoRoot(), path))
	Expect(err).NotTo(HaveOccurred())
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			break
		}
		if obj.GetKind() != "Job" {
			continue
		}
		obj.SetNamespace(ns)
		Expect(fw.Client.Create(ctx, obj)).To(Succeed())
		job := &batchv1alpha1.Job{}
		Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(obj), job)).To(Succeed())
		return job
	}
	Fail("no Job in " + path)
	return nil
}

// applyAll creates every object of a sample file in namespace ns.
func applyAll(ctx context.Context, path, ns string) {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(framework.RepoRoot(), path))
	Expect(err).NotTo(HaveOccurred())
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			break
		}
		if len(obj.Object) == 0 {
			continue
		}
		obj.SetNamespace(ns)
		Expect(fw.Client.Create(ctx, obj)).To(Succeed())
	}
}

func jobPhase(ctx context.Context, g Gomega, job *batchv1alpha1.Job) *batchv1alpha1.Job {
	cur := &batchv1alpha1.Job{}
	g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)).To(Succeed())
	return cur
}

var _ = Describe("Seed samples on the whole manager", Label("e2e:samples"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("samples")
		startCaldera(ctx)
	})

	It("runs tensorflow ps/worker to Completed: TaskCompleted -> CompleteJob stops the ps", func(ctx SpecContext) {
		job := applySample(ctx, "samples/batch/tensorflow-ps-worker.yaml", ns)
		Eventually(func(g Gomega) {
			cur := jobPhase(ctx, g, job)
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			ps := &corev1.Pod{}
			err := fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: job.Name + "-ps-0"}, ps)
			g.Expect(client.IgnoreNotFound(err)).To(Succeed())
			if err == nil {
				g.Expect(ps.DeletionTimestamp).NotTo(BeNil(), "the running ps is stopped when the job completes")
			}
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("restarts mindspore when one of its pods is evicted, then runs it to Completed", func(ctx SpecContext) {
		job := applySample(ctx, "samples/batch/mindspore.yaml", ns)
		var victim corev1.Pod
		Eventually(func(g Gomega) {
			cur := jobPhase(ctx, g, job)
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Running))
			pods := &corev1.PodList{}
			g.Expect(fw.Client.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{batchv1alpha1.JobNameKey: job.Name})).To(Succeed())
			g.Expect(pods.Items).NotTo(BeEmpty())
			victim = pods.Items[0]
		}, framework.LongTimeout, framework.Interval).Should(Succeed())

		Expect(fw.Client.Delete(ctx, &victim)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := jobPhase(ctx, g, job)
			g.Expect(cur.Status.Version).To(BeNumerically(">=", 1), "the eviction restarted the job")
			g.Expect(cur.Status.RetryCount).To(BeZero(), "an eviction does not use a retry")
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			cur := jobPhase(ctx, g, job)
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("runs Volcano's JobFlow example (samples/flow) to Succeed and deletes its jobs", func(ctx SpecContext) {
		applyAll(ctx, "samples/flow/jobtemplates.yaml", ns)
		applyAll(ctx, "samples/flow/jobflow.yaml", ns)
		jf := &flowv1alpha1.JobFlow{}
		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "test"}, jf)).To(Succeed())
			g.Expect(jf.Status.State.Phase).To(Equal(flowv1alpha1.Succeed))
			g.Expect(jf.Status.CompletedJobs).To(ConsistOf("test-a", "test-b", "test-c", "test-d", "test-e"))
		}, 2*framework.LongTimeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			jobs := &batchv1alpha1.JobList{}
			g.Expect(fw.Client.List(ctx, jobs, client.InNamespace(ns))).To(Succeed())
			for _, j := range jobs.Items {
				g.Expect(j.DeletionTimestamp).NotTo(BeNil(), "jobRetainPolicy delete removes job %s", j.Name)
			}
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})
})
