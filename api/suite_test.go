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
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

var (
	fw *framework.Framework
	// restClient sends raw manifests to the API server, so that the server, not a client-side
	// decoder, parses and validates them.
	restClient rest.Interface
)

// TestCRDValidation checks the CRDs' schemas, defaults and CEL rules against a real kube-apiserver.
func TestCRDValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("the CRD validation suite needs a kube-apiserver; run without -short")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "CRD validation suite")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var _ = BeforeSuite(func() {
	fw = &framework.Framework{}
	Expect(fw.Start()).To(Succeed(), "the CRDs in config/crd/bases must install: a rule over its CEL cost budget fails here")
	DeferCleanup(fw.Stop)

	cfg := rest.CopyConfig(fw.Config)
	cfg.APIPath = "/"
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	cfg.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
	var err error
	restClient, err = rest.UnversionedRESTClientFor(cfg)
	Expect(err).NotTo(HaveOccurred())
})
