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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// The corpus: every file under testdata/invalid must be rejected by the API server with a
// message that contains the substring on its first line ("# expect: ..."); every file under
// testdata/valid and samples/ must be accepted as it is.
const (
	invalidDir   = "testdata/invalid"
	validDir     = "testdata/valid"
	expectPrefix = "# expect:"
)

// defaultRule is a default the schema must fill in: wherever the path exists in the stored
// object and the sent manifest left the last field out, the stored value is want.
type defaultRule struct {
	path string
	want any
}

// schemaDefaults are the defaults each kind's schema carries (JSON numbers decode as float64).
var schemaDefaults = map[string][]defaultRule{
	"CronJob": {
		{"spec.concurrencyPolicy", "Allow"},
		{"spec.suspend", false},
		{"spec.successfulJobsHistoryLimit", float64(3)},
		{"spec.failedJobsHistoryLimit", float64(1)},
		{"spec.jobTemplate.spec.queue", "default"},
		{"spec.jobTemplate.spec.maxRetry", float64(3)},
		{"spec.jobTemplate.spec.tasks[*].maxRetry", float64(3)},
	},
	"Job": {
		{"spec.queue", "default"},
		{"spec.maxRetry", float64(3)},
		{"spec.networkTopology.mode", "hard"},
		{"spec.tasks[*].maxRetry", float64(3)},
		{"spec.tasks[*].partitionPolicy.minPartitions", float64(0)},
		{"spec.tasks[*].partitionPolicy.networkTopology.mode", "hard"},
	},
	"JobTemplate": {
		{"spec.queue", "default"},
		{"spec.maxRetry", float64(3)},
		{"spec.tasks[*].maxRetry", float64(3)},
	},
	"JobFlow": {
		{"spec.jobRetainPolicy", "retain"},
	},
	"PodGroup": {
		{"spec.queue", "default"},
		{"spec.networkTopology.mode", "hard"},
		{"spec.subGroupPolicy[*].subGroupSize", float64(1)},
		{"spec.subGroupPolicy[*].minSubGroups", float64(0)},
	},
	"Queue": {
		{"spec.weight", float64(1)},
		{"spec.reclaimable", true},
		{"spec.dequeueStrategy", "traverse"},
	},
}

var _ = Describe("CRD validation", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		ns, err := fw.CreateNamespace(ctx, "crd")
		Expect(err).NotTo(HaveOccurred())
		namespace = ns.Name
	})

	DescribeTable("rejects bad input with a message that names the field",
		func(ctx SpecContext, file string) {
			raw, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			expect := expectation(raw)
			Expect(expect).NotTo(BeEmpty(), "%s must start with a %q line", file, expectPrefix)

			doc, err := parseDocument(raw)
			Expect(err).NotTo(HaveOccurred())
			target, err := resourcePathFor(doc, namespace)
			Expect(err).NotTo(HaveOccurred())

			_, err = create(ctx, target, raw)
			if err == nil {
				DeferCleanup(remove, target, doc.name)
			}
			Expect(err).To(HaveOccurred(), "the API server accepted %s", file)
			status, ok := err.(apierrors.APIStatus)
			Expect(ok).To(BeTrue(), "want an API status error, got %v", err)
			Expect(status.Status().Code).To(BeNumerically(">=", 400))
			Expect(status.Status().Code).To(BeNumerically("<", 500), "a server error is not a rejection: %v", err)
			Expect(err.Error()).To(ContainSubstring(expect))
		},
		corpusEntries(invalidDir),
	)

	DescribeTable("accepts valid manifests unchanged and fills in the schema's defaults",
		func(ctx SpecContext, file string) {
			raw, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			docs := splitDocuments(raw)
			Expect(docs).NotTo(BeEmpty(), "%s holds no manifest", file)

			for _, rawDoc := range docs {
				doc, err := parseDocument(rawDoc)
				Expect(err).NotTo(HaveOccurred())
				target, err := resourcePathFor(doc, namespace)
				Expect(err).NotTo(HaveOccurred())

				_, err = create(ctx, target, rawDoc)
				Expect(err).NotTo(HaveOccurred(), "%s: %s %s was rejected", file, doc.kind, doc.name)
				if !target.namespaced {
					DeferCleanup(remove, target, doc.name)
				}

				storedJSON, err := restClient.Get().AbsPath(target.path, doc.name).Do(ctx).Raw()
				Expect(err).NotTo(HaveOccurred())
				var stored map[string]any
				Expect(json.Unmarshal(storedJSON, &stored)).To(Succeed())

				for _, field := range sortedKeys(doc.object) {
					if field == "metadata" || field == "status" {
						continue
					}
					Expect(missing(doc.object[field], stored[field], field)).To(BeEmpty(),
						"%s: %s %s was changed by the API server", file, doc.kind, doc.name)
				}
				for _, rule := range schemaDefaults[doc.kind] {
					Expect(checkDefault(doc.object, stored, strings.Split(rule.path, "."), rule.want, "")).To(BeEmpty(),
						"%s: %s %s lacks a schema default", file, doc.kind, doc.name)
				}
			}
		},
		append(corpusEntries(validDir), sampleEntries()...),
	)
})

// otherToolsSamples are the folders of samples/ that hold other tools' objects (operators that
// create PodGroups, Flux, Argo Workflows), which need those tools' CRDs: their own suites apply
// them.
var otherToolsSamples = []string{"integrations", "flux", "argo-workflows"}

// sampleEntries lists the samples of Caldera's own kinds, one table entry per file.
func sampleEntries() []TableEntry {
	root := filepath.Join("..", "samples")
	files, err := corpusFiles(root)
	if err != nil {
		panic(err.Error())
	}
	var out []TableEntry
	for _, p := range files {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			panic(err.Error())
		}
		if !slices.Contains(otherToolsSamples, strings.Split(filepath.ToSlash(rel), "/")[0]) {
			out = append(out, Entry(filepath.ToSlash(p), p))
		}
	}
	return out
}

// corpusEntries lists one table entry per YAML file under dir, in lexical order.
func corpusEntries(dir string) []TableEntry {
	files, err := corpusFiles(dir)
	if err != nil {
		panic(err.Error())
	}
	entries := make([]TableEntry, 0, len(files))
	for _, p := range files {
		entries = append(entries, Entry(filepath.ToSlash(p), p))
	}
	return entries
}

// corpusFiles lists the YAML files under dir; a folder without any is an error, so a table
// built from it can never pass by testing nothing.
func corpusFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no .yaml file: the corpus table would test nothing", dir)
	}
	return files, nil
}

// expectation returns the substring named on the file's first line, "# expect: <substring>".
func expectation(raw []byte) string {
	first, _, _ := bytes.Cut(raw, []byte("\n"))
	line := strings.TrimSpace(string(first))
	if !strings.HasPrefix(line, expectPrefix) {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(line, expectPrefix))
}

// splitDocuments splits a multi-document YAML file at its "---" lines, dropping documents that
// hold only comments or blank lines.
func splitDocuments(raw []byte) [][]byte {
	var docs [][]byte
	for _, part := range regexp.MustCompile(`(?m)^---[ \t]*$`).Split(string(raw), -1) {
		for _, line := range strings.Split(part, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				docs = append(docs, []byte(part))
				break
			}
		}
	}
	return docs
}

// document is one manifest of a test file and what the test needs to know to send it.
type document struct {
	apiVersion, kind string
	namespace, name  string
	object           map[string]any // nil when the document is not valid YAML
}

var (
	apiVersionLine = regexp.MustCompile(`(?m)^apiVersion:[ \t]*["']?([^"'\s]+)`)
	kindLine       = regexp.MustCompile(`(?m)^kind:[ \t]*["']?([^"'\s]+)`)
)

// parseDocument reads the apiVersion and kind from their top-level lines, so that a document
// the API server is meant to reject as malformed YAML still goes to the right resource, and
// the rest from the parsed document when it parses.
func parseDocument(raw []byte) (document, error) {
	var doc document
	if m := apiVersionLine.FindSubmatch(raw); m != nil {
		doc.apiVersion = string(m[1])
	}
	if m := kindLine.FindSubmatch(raw); m != nil {
		doc.kind = string(m[1])
	}
	if doc.apiVersion == "" || doc.kind == "" {
		return doc, fmt.Errorf("the document has no top-level apiVersion and kind lines")
	}
	asJSON, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return doc, nil // malformed on purpose: the API server must say so
	}
	if err := json.Unmarshal(asJSON, &doc.object); err != nil {
		return doc, nil
	}
	if md, ok := doc.object["metadata"].(map[string]any); ok {
		doc.name, _ = md["name"].(string)
		doc.namespace, _ = md["namespace"].(string)
	}
	return doc, nil
}

// resource is where documents of one kind are created.
type resource struct {
	path       string // the collection, for example /apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs
	namespaced bool
}

// resourcePathFor maps the document's kind to its collection in the given namespace (or the
// document's own, when it names one).
func resourcePathFor(doc document, namespace string) (resource, error) {
	gv, err := schema.ParseGroupVersion(doc.apiVersion)
	if err != nil {
		return resource{}, err
	}
	mapping, err := fw.Client.RESTMapper().RESTMapping(schema.GroupKind{Group: gv.Group, Kind: doc.kind}, gv.Version)
	if err != nil {
		return resource{}, fmt.Errorf("no resource for %s %s: %w", doc.apiVersion, doc.kind, err)
	}
	base := path.Join("/apis", gv.Group, gv.Version)
	if gv.Group == "" {
		base = path.Join("/api", gv.Version)
	}
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		return resource{path: path.Join(base, mapping.Resource.Resource)}, nil
	}
	if doc.namespace != "" {
		namespace = doc.namespace
	}
	return resource{path: path.Join(base, "namespaces", namespace, mapping.Resource.Resource), namespaced: true}, nil
}

// create sends the raw bytes as YAML with strict field validation, as kubectl apply would, and
// returns the server's Status as an API error when it refuses.
func create(ctx context.Context, target resource, raw []byte) ([]byte, error) {
	res := restClient.Post().
		AbsPath(target.path).
		SetHeader("Content-Type", "application/yaml").
		Param("fieldValidation", "Strict").
		Body(raw).
		Do(ctx)
	var code int
	res.StatusCode(&code)
	body, err := res.Raw()
	if code >= 300 {
		var status metav1.Status
		if jsonErr := json.Unmarshal(body, &status); jsonErr == nil && status.Kind == "Status" {
			return nil, &apierrors.StatusError{ErrStatus: status}
		}
	}
	return body, err
}

// remove deletes a cluster-scoped object a spec created, so that specs do not collide.
func remove(ctx SpecContext, target resource, name string) {
	if name == "" {
		return
	}
	err := restClient.Delete().AbsPath(target.path, name).Do(ctx).Error()
	if err != nil && !apierrors.IsNotFound(err) {
		Fail(fmt.Sprintf("deleting %s/%s: %v", target.path, name, err))
	}
}

// missing lists the places where sent is not contained in stored: every field of a sent map must
// be in the stored map with a contained value, a sent list must have the stored list's length with
// contained elements, and scalars must be equal. Fields the server added (defaults) are allowed.
func missing(sent, stored any, at string) []string {
	switch s := sent.(type) {
	case map[string]any:
		st, ok := stored.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: sent an object, stored %v", at, stored)}
		}
		var out []string
		for _, k := range sortedKeys(s) {
			out = append(out, missing(s[k], st[k], at+"."+k)...)
		}
		return out
	case []any:
		st, ok := stored.([]any)
		if !ok || len(st) != len(s) {
			return []string{fmt.Sprintf("%s: sent %d items, stored %v", at, len(s), stored)}
		}
		var out []string
		for i := range s {
			out = append(out, missing(s[i], st[i], fmt.Sprintf("%s[%d]", at, i))...)
		}
		return out
	default:
		if fmt.Sprint(sent) != fmt.Sprint(stored) {
			return []string{fmt.Sprintf("%s: sent %v, stored %v", at, sent, stored)}
		}
		return nil
	}
}

// checkDefault walks path ("[*]" on a segment fans out over a list) through the sent and stored
// objects side by side; where the stored object has the parent of the last field and the sent
// one lacks the field, the stored value must be want.
func checkDefault(sent, stored any, path []string, want any, at string) []string {
	seg := path[0]
	field, each := strings.CutSuffix(seg, "[*]")
	st, ok := stored.(map[string]any)
	if !ok {
		return nil
	}
	se, _ := sent.(map[string]any)
	if len(path) == 1 {
		if _, given := se[field]; given {
			return nil
		}
		if got := st[field]; fmt.Sprint(got) != fmt.Sprint(want) {
			return []string{fmt.Sprintf("%s.%s: want the default %v, stored %v", at, field, want, got)}
		}
		return nil
	}
	if !each {
		return checkDefault(se[field], st[field], path[1:], want, at+"."+field)
	}
	stList, _ := st[field].([]any)
	seList, _ := se[field].([]any)
	var out []string
	for i := range stList {
		var sentItem any
		if i < len(seList) {
			sentItem = seList[i]
		}
		out = append(out, checkDefault(sentItem, stList[i], path[1:], want, fmt.Sprintf("%s.%s[%d]", at, field, i))...)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
