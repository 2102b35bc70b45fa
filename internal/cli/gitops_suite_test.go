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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

var _ = Describe("vcctl queue operate -a update on a queue Git keeps", Label("vcctl"), func() {
	var queue string

	BeforeEach(func() {
		queue = "gitops-" + rand.String(6)
		DeferCleanup(func() {
			q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: queue}}
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, q))).To(Succeed())
		})
	})

	// applyQueue server-side applies the queue with weight as manager, as a GitOps tool does.
	applyQueue := func(manager string, weight int64, annotations map[string]string) {
		GinkgoHelper()
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(schedulingv1beta1.GroupVersion.String())
		u.SetKind("Queue")
		u.SetName(queue)
		u.SetAnnotations(annotations)
		Expect(unstructured.SetNestedField(u.Object, weight, "spec", "weight")).To(Succeed())
		Expect(fw.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
			client.FieldOwner(manager), client.ForceOwnership)).To(Succeed())
	}
	weight := func() int32 {
		GinkgoHelper()
		q := &schedulingv1beta1.Queue{}
		Expect(fw.Client.Get(ctx, client.ObjectKey{Name: queue}, q)).To(Succeed())
		return q.Spec.Weight
	}

	It("refuses a queue Flux's kustomize-controller applied, naming it; --force applies as vcctl and warns", func() {
		applyQueue("kustomize-controller", 2, nil)

		_, err := vcctl("queue", "operate", "-n", queue, "-a", "update", "-w", "5")
		Expect(err).To(MatchError(And(
			ContainSubstring("queue "+queue+": spec.weight is kept by field manager kustomize-controller (server-side apply)"),
			ContainSubstring("change spec.weight where kustomize-controller takes it from (for a GitOps tool, in Git)"),
			ContainSubstring("pass --force"))))
		Expect(weight()).To(Equal(int32(2)), "a refused update changes nothing")

		out, warnings, err := vcctlWithWarnings("queue", "operate", "-n", queue, "-a", "update", "-w", "5", "--force")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("update queue " + queue + " weight to 5 successfully\n"))
		Expect(warnings).To(And(ContainSubstring("field manager kustomize-controller"),
			ContainSubstring("as field manager vcctl, and Git will revert it at the next sync")))
		Expect(weight()).To(Equal(int32(5)))

		q := &schedulingv1beta1.Queue{}
		Expect(fw.Client.Get(ctx, client.ObjectKey{Name: queue}, q)).To(Succeed())
		var managers []string
		for _, e := range q.ManagedFields {
			if e.Operation == metav1.ManagedFieldsOperationApply && e.FieldsV1 != nil &&
				len(e.FieldsV1.GetRawBytes()) > 0 && e.Subresource == "" {
				managers = append(managers, e.Manager)
			}
		}
		Expect(managers).To(ContainElement("vcctl"), "vcctl server-side applied the weight under its own name")

		// And Git does revert it: the tool's next forced apply sets the weight back.
		applyQueue("kustomize-controller", 2, nil)
		Expect(weight()).To(Equal(int32(2)))
	})

	It("refuses a queue carrying Argo CD's tracking annotation, naming the application", func() {
		applyQueue("argocd-controller", 3, map[string]string{
			"argocd.argoproj.io/tracking-id": "team-queues:scheduling.volcano.sh/Queue:/" + queue,
		})

		_, err := vcctl("queue", "operate", "-n", queue, "-a", "update", "-w", "9")
		Expect(err).To(MatchError(And(
			ContainSubstring("Argo CD application team-queues (annotation argocd.argoproj.io/tracking-id="),
			ContainSubstring("change spec.weight in the Git source of Argo CD application team-queues and let it sync"),
			ContainSubstring("pass --force"))))
		Expect(weight()).To(Equal(int32(3)))

		out, warnings, err := vcctlWithWarnings("queue", "operate", "-n", queue, "-a", "update", "-w", "9", "--force")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("update queue " + queue + " weight to 9 successfully\n"))
		Expect(warnings).To(ContainSubstring("Argo CD application team-queues"))
		Expect(weight()).To(Equal(int32(9)))
	})

	It("updates a queue vcctl created without --force or warning", func() {
		_, err := vcctl("queue", "create", "-n", queue, "-w", "2")
		Expect(err).NotTo(HaveOccurred())
		out, warnings, err := vcctlWithWarnings("queue", "operate", "-n", queue, "-a", "update", "-w", "4")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("update queue " + queue + " weight to 4 successfully\n"))
		Expect(warnings).To(BeEmpty())
		Expect(weight()).To(Equal(int32(4)))
	})

	It("does not create a queue that does not exist", func() {
		_, err := vcctl("queue", "operate", "-n", queue, "-a", "update", "-w", "4", "--force")
		Expect(err).To(MatchError("queue " + queue + " not found: check -n/--name (`vcctl queue list` lists the queues)"))
		q := &schedulingv1beta1.Queue{}
		Expect(fw.Client.Get(ctx, client.ObjectKey{Name: queue}, q)).NotTo(Succeed())
	})
})
