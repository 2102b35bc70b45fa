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

package api_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/caldera-sh/caldera/internal/testing/install"
)

var _ = Describe("Volcano's examples", func() {
	It("accepts Volcano's JobFlow and JobTemplate examples byte for byte", func(ctx SpecContext) {
		dir, err := install.VolcanoModuleDir(ctx, install.VolcanoModuleVersion)
		Expect(err).NotTo(HaveOccurred())
		ns, err := fw.CreateNamespace(ctx, "volcano-examples")
		Expect(err).NotTo(HaveOccurred())
		// JobTemplate.yaml names no namespace; JobFlow.yaml names default.
		for _, file := range []string{"JobTemplate.yaml", "JobFlow.yaml"} {
			raw, err := os.ReadFile(filepath.Join(dir, "example", "jobflow", file))
			Expect(err).NotTo(HaveOccurred())
			docs := splitDocuments(raw)
			Expect(docs).NotTo(BeEmpty())
			for _, rawDoc := range docs {
				doc, err := parseDocument(rawDoc)
				Expect(err).NotTo(HaveOccurred())
				target, err := resourcePathFor(doc, ns.Name)
				Expect(err).NotTo(HaveOccurred())
				_, err = create(ctx, target, rawDoc)
				Expect(err).NotTo(HaveOccurred(), "%s: %s %s was rejected", file, doc.kind, doc.name)
				if doc.namespace != "" {
					DeferCleanup(remove, target, doc.name)
				}
			}
		}
	})
})
