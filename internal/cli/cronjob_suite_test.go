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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

var _ = Describe("vcctl cronjob", Label("vcctl"), func() {
	var ns string

	BeforeEach(func() {
		n, err := fw.CreateNamespace(ctx, "cronjob")
		Expect(err).NotTo(HaveOccurred())
		ns = n.Name
	})

	suspended := func(name string) bool {
		GinkgoHelper()
		cj := &batchv1alpha1.CronJob{}
		Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cj)).To(Succeed())
		return cj.Spec.Suspend != nil && *cj.Spec.Suspend
	}

	It("lists, gets, suspends and resumes a CronJob created by update (kubectl create), whose defaulted spec.suspend Git does not keep", func() {
		job := wrappers.MakeJob("", ns).Task("worker", 1).Obj()
		cj := wrappers.MakeCronJob("nightly", ns, "0 2 * * *", job).Obj()
		cj.Spec.Suspend = nil // defaulted by the schema
		Expect(fw.Client.Create(ctx, cj)).To(Succeed())

		out, err := vcctl("cronjob", "list", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchRegexp(`(?m)^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$`))
		Expect(out).To(MatchRegexp(`(?m)^nightly\s+0 2 \* \* \*\s+<none>\s+false\s+0\s+<none>\s+\S+$`))

		out, err = vcctl("cronjob", "suspend", "-N", "nightly", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("suspend cronjob " + ns + "/nightly successfully\n"))
		Expect(suspended("nightly")).To(BeTrue())

		out, err = vcctl("cronjob", "get", "-N", "nightly", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchRegexp(`(?m)^nightly\s+0 2 \* \* \*\s+<none>\s+true\s+0`))
		Expect(out).To(ContainSubstring("Concurrency Policy:  Allow"))

		_, err = vcctl("cronjob", "resume", "-N", "nightly", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(suspended("nightly")).To(BeFalse())

		_, err = vcctl("cronjob", "get", "-N", "missing", "-n", ns)
		Expect(err).To(MatchError(ContainSubstring("cronjob " + ns + "/missing not found")))
	})

	It("refuses to suspend a CronJob whose spec.suspend Flux applied, naming it; --force takes the field and warns", func() {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(batchv1alpha1.GroupVersion.String())
		u.SetKind("CronJob")
		u.SetNamespace(ns)
		u.SetName("git-kept")
		u.SetLabels(map[string]string{"kustomize.toolkit.fluxcd.io/name": "jobs", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"})
		job := wrappers.MakeJob("", ns).Task("worker", 1).Obj()
		spec, err := runtimeToUnstructured(wrappers.MakeCronJob("git-kept", ns, "@hourly", job).Obj())
		Expect(err).NotTo(HaveOccurred())
		Expect(unstructured.SetNestedField(u.Object, spec, "spec")).To(Succeed())
		Expect(fw.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
			client.FieldOwner("kustomize-controller"), client.ForceOwnership)).To(Succeed())

		_, err = vcctl("cronjob", "suspend", "-N", "git-kept", "-n", ns)
		Expect(err).To(MatchError(And(
			ContainSubstring("spec.suspend is kept by Flux Kustomization flux-system/jobs"),
			ContainSubstring("field manager kustomize-controller (server-side apply)"),
			ContainSubstring("pass --force"))))
		Expect(suspended("git-kept")).To(BeFalse(), "a refused suspend changes nothing")

		out, warnings, err := vcctlWithWarnings("cronjob", "suspend", "-N", "git-kept", "-n", ns, "--force")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("suspend cronjob " + ns + "/git-kept successfully\n"))
		Expect(warnings).To(ContainSubstring("Git will revert it at the next sync"))
		Expect(suspended("git-kept")).To(BeTrue())
	})
})

// runtimeToUnstructured is the spec of cj as an unstructured map, for a server-side apply.
func runtimeToUnstructured(cj *batchv1alpha1.CronJob) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cj)
	if err != nil {
		return nil, err
	}
	spec, _, err := unstructured.NestedMap(m, "spec")
	return spec, err
}
