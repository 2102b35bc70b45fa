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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// corpus lists testdata files with the message substring each must be rejected with, read from
// the file's first line `# expect: <substring>`.
func corpus(dir string) []TableEntry {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		panic(err)
	}
	var entries []TableEntry
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		expect, ok := strings.CutPrefix(first, "# expect: ")
		if !ok {
			panic(fmt.Sprintf("%s: the first line must be `# expect: <substring of the error>`", f))
		}
		entries = append(entries, Entry(filepath.Base(f), data, strings.TrimSpace(expect)))
	}
	if len(entries) == 0 {
		panic(fmt.Sprintf("%s holds no .yaml file: the corpus table would test nothing", dir))
	}
	return entries
}

// documents splits a YAML stream into objects.
func documents(data []byte) []*unstructured.Unstructured {
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			break
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
	return objs
}

var _ = Describe("Job admission", Label("webhook"), func() {
	var ns *corev1.Namespace

	BeforeEach(func() {
		var err error
		ns, err = fw.CreateNamespace(ctx, "webhook")
		Expect(err).NotTo(HaveOccurred())
		// The webhook's server starts with the manager: wait until it answers.
		Eventually(func(g Gomega) {
			obj := documents([]byte(`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"probe"},"spec":{"queue":"no-such-queue","tasks":[{"name":"a","replicas":1,"template":{"spec":{"containers":[{"name":"a","image":"busybox"}]}}}]}}`))[0]
			obj.SetNamespace(ns.Name)
			g.Expect(fw.Client.Create(ctx, obj)).To(MatchError(ContainSubstring("no-such-queue")))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	DescribeTable("rejects what the CRD rules cannot state, naming the field",
		func(data []byte, expect string) {
			objs := documents(data)
			Expect(objs).To(HaveLen(1))
			namespaced, err := fw.Client.IsObjectNamespaced(objs[0])
			Expect(err).NotTo(HaveOccurred())
			if namespaced {
				objs[0].SetNamespace(ns.Name)
			}
			err = fw.Client.Create(ctx, objs[0])
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring("denied the request"))
			Expect(err.Error()).To(ContainSubstring(expect))
		},
		corpus(filepath.Join("testdata", "invalid")),
	)

	It("accepts every sample unchanged", func() {
		files, err := filepath.Glob(filepath.Join(framework.RepoRoot(), "samples", "*", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var jobs []*unstructured.Unstructured
		for _, f := range files {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			for _, obj := range documents(data) {
				if obj.GetKind() == "Job" && obj.GetAPIVersion() == "batch.volcano.sh/v1alpha1" {
					obj.SetNamespace(ns.Name)
					jobs = append(jobs, obj)
					continue
				}
				// What the jobs need (queues, priority classes, HyperNodes) goes in first.
				if obj.GetKind() == "Queue" || obj.GetKind() == "PriorityClass" || obj.GetKind() == "HyperNode" {
					if err := fw.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
						Fail(fmt.Sprintf("sample %s: %v", f, err))
					}
				}
			}
		}
		Expect(jobs).NotTo(BeEmpty(), "no sample jobs found under samples/")
		for _, job := range jobs {
			Expect(fw.Client.Create(ctx, job)).To(Succeed(), "sample job %s", job.GetName())
		}
	})

	It("checks the queue again only when an update changes it", func() {
		job := documents([]byte(`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"edit"},"spec":{"tasks":[{"name":"a","replicas":1,"template":{"spec":{"containers":[{"name":"a","image":"busybox"}]}}}]}}`))[0]
		job.SetNamespace(ns.Name)
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		Expect(unstructured.SetNestedField(job.Object, int64(2), "spec", "minAvailable")).To(Succeed())
		Expect(unstructured.SetNestedSlice(job.Object, []interface{}{map[string]interface{}{
			"name": "a", "replicas": int64(2),
			"template": map[string]interface{}{"spec": map[string]interface{}{"containers": []interface{}{map[string]interface{}{"name": "a", "image": "busybox"}}}},
		}}, "spec", "tasks")).To(Succeed())
		Expect(fw.Client.Update(ctx, job)).To(Succeed())

		Expect(unstructured.SetNestedField(job.Object, "webhook-closed", "spec", "queue")).To(Succeed())
		err := fw.Client.Update(ctx, job)
		Expect(err).To(MatchError(ContainSubstring("status is `Closed`")))
	})

	It("refuses a queue that does not fit in the queues above it, and deleting a queue with queues below it", func() {
		queue := func(name, parent, capability, guarantee string) *schedulingv1beta1.Queue {
			q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: schedulingv1beta1.QueueSpec{Parent: parent}}
			if capability != "" {
				q.Spec.Capability = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(capability)}
			}
			if guarantee != "" {
				q.Spec.Guarantee.Resource = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(guarantee)}
				q.Spec.Deserved = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(guarantee)}
			}
			return q
		}
		parent, child := queue("webhook-tree-p", "", "8", "4"), queue("webhook-tree-a", "webhook-tree-p", "4", "3")
		for _, q := range []*schedulingv1beta1.Queue{parent, child} {
			Expect(fw.Client.Create(ctx, q)).To(Succeed())
		}
		DeferCleanup(func() {
			_ = fw.Client.Delete(ctx, child)
			_ = fw.Client.Delete(ctx, parent)
		})
		err := fw.Client.Create(ctx, queue("webhook-tree-b", "webhook-tree-p", "16", ""))
		Expect(err).To(MatchError(ContainSubstring(`spec.capability[cpu]: Invalid value: "16": exceeds the capability of queue webhook-tree-p above it (8)`)))
		err = fw.Client.Create(ctx, queue("webhook-tree-c", "webhook-tree-p", "", "2"))
		Expect(err).To(MatchError(ContainSubstring(`the spec.guarantee.resource of the queues below queue webhook-tree-p add up to 5 of cpu, more than queue webhook-tree-p's spec.guarantee.resource (4)`)))
		err = fw.Client.Delete(ctx, parent)
		Expect(err).To(MatchError(ContainSubstring("queue webhook-tree-p has 1 queues below it (webhook-tree-a): delete them first")))
	})
})
