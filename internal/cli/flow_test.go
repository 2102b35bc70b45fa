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
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

var _ = Describe("vcctl jobflow and jobtemplate", Label("vcctl"), func() {
	var ns string

	BeforeEach(func() {
		namespace, err := fw.CreateNamespace(ctx, "vcctl-flow")
		Expect(err).NotTo(HaveOccurred())
		ns = namespace.Name
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, namespace))).To(Succeed())
		})
	})

	// sample copies a file of samples/flow into a temporary file with namespace ns set on
	// every document.
	sample := func(name string) string {
		GinkgoHelper()
		data, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "samples", "flow", name))
		Expect(err).NotTo(HaveOccurred())
		out := []byte{}
		for _, line := range splitLines(string(data)) {
			out = append(out, line...)
			out = append(out, '\n')
			if line == "metadata:" {
				out = append(out, []byte("  namespace: "+ns+"\n")...)
			}
		}
		p := filepath.Join(GinkgoT().TempDir(), name)
		Expect(os.WriteFile(p, out, 0o600)).To(Succeed())
		return p
	}

	It("creates, lists, gets, describes and deletes JobTemplates and JobFlows in Volcano's columns", func() {
		out, err := vcctl("jobtemplate", "create", "-f", sample("jobtemplates.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(lines(out)).To(Equal([]string{
			"Created JobTemplate: " + ns + "/a", "Created JobTemplate: " + ns + "/b", "Created JobTemplate: " + ns + "/c",
			"Created JobTemplate: " + ns + "/d", "Created JobTemplate: " + ns + "/e",
		}))
		out, err = vcctl("jobtemplate", "list", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(lines(out)).To(Equal([]string{"Name Namespace", "a " + ns, "b " + ns, "c " + ns, "d " + ns, "e " + ns}))

		out, err = vcctl("jobflow", "create", "-f", sample("jobflow.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(lines(out)).To(Equal([]string{"Created JobFlow: " + ns + "/test"}))
		out, err = vcctl("jobflow", "get", "-N", "test", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(lines(out)[0]).To(Equal("Name Namespace Phase Age"))
		Expect(lines(out)[1]).To(HavePrefix("test " + ns + " "))
		out, err = vcctl("jobflow", "list", "--all-namespaces")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("test"))

		out, err = vcctl("jobflow", "describe", "-N", "test", "-n", ns, "-o", "json")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring(`"kind": "JobFlow"`))
		Expect(out).To(ContainSubstring(`"jobRetainPolicy": "delete"`))
		Expect(out).NotTo(ContainSubstring("managedFields"))
		out, err = vcctl("jobtemplate", "describe", "-N", "a", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("kind: JobTemplate"))

		_, err = vcctl("jobflow", "get", "-N", "nope", "-n", ns)
		Expect(err).To(MatchError(ContainSubstring("JobFlow " + ns + "/nope not found")))

		out, err = vcctl("jobflow", "delete", "-N", "test", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(lines(out)).To(Equal([]string{"Deleted JobFlow: " + ns + "/test"}))
		err = fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "test"}, &flowv1alpha1.JobFlow{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue())
		out, err = vcctl("jobtemplate", "delete", "-f", sample("jobtemplates.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(lines(out)).To(HaveLen(5))
		out, err = vcctl("jobtemplate", "list", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("No resources found\n"))
	})

	It("refuses a file of another kind, naming it", func() {
		_, err := vcctl("jobflow", "create", "-f", sample("jobtemplates.yaml"))
		Expect(err).To(MatchError(ContainSubstring(`kind "JobTemplate" is not a JobFlow`)))
	})
})

// splitLines splits s at newlines.
func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
