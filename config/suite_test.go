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

// Package config_test checks that the deployment manifests in config/ build with kustomize and
// are accepted by a real API server, as `kubectl apply --server-side -k config/default` would.
package config_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

func TestConfig(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Deployment manifests suite")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var fw *framework.Framework

var _ = BeforeSuite(func(ctx context.Context) {
	fw = &framework.Framework{KWOK: true}
	Expect(fw.Start()).To(Succeed())
	nodes, err := fw.CreateNodes(ctx, 2, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())
}, NodeTimeout(framework.StartTimeout))

var _ = AfterSuite(func() {
	if fw != nil {
		Expect(fw.Stop()).To(Succeed())
	}
})

var _ = Describe("config/default", Label("config"), func() {
	It("builds with kustomize and applies server-side", func(ctx context.Context) {
		assets, err := framework.Assets()
		Expect(err).NotTo(HaveOccurred())
		out, err := exec.Command(filepath.Join(assets, "kubectl"), "kustomize", filepath.Join(framework.RepoRoot(), "config", "default")).Output()
		Expect(err).NotTo(HaveOccurred(), "kubectl kustomize config/default")

		kinds := map[string]int{}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := dec.Decode(&obj.Object); err != nil {
				break
			}
			if len(obj.Object) == 0 {
				continue
			}
			kinds[obj.GetKind()]++
			Expect(fw.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("kubectl"), client.ForceOwnership)).
				To(Succeed(), "applying %s %s", obj.GetKind(), obj.GetName())
		}
		Expect(kinds).To(HaveKeyWithValue("CustomResourceDefinition", 8))
		Expect(kinds).To(HaveKeyWithValue("Deployment", 1))
		Expect(kinds).To(HaveKeyWithValue("ValidatingWebhookConfiguration", 1))
		Expect(kinds).To(HaveKey("ClusterRole"))
		Expect(kinds).To(HaveKeyWithValue("ValidatingAdmissionPolicy", 1))
		Expect(kinds).To(HaveKeyWithValue("ValidatingAdmissionPolicyBinding", 1))
	})
})
