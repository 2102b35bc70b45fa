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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// fieldOwner is the server-side apply field manager of what dev applies.
const fieldOwner = "caldera-dev"

// manifest is one object read from a file.
type manifest struct {
	source string
	obj    *unstructured.Unstructured
}

// applied is what apply sent to the API server.
type applied struct {
	// namespaces are the namespaces of the namespaced objects, sorted.
	namespaces []string
	// jobs are the batch.volcano.sh Jobs.
	jobs []types.NamespacedName
}

// apply reads the manifests at path (a file, or a folder's *.yaml, *.yml and *.json files in name
// order) and server-side applies them, Namespaces first, creating missing namespaces. It applies
// what it can and reports every failure.
func (d *dev) apply(ctx context.Context, path string) (*applied, error) {
	result := &applied{}
	files, err := manifestFiles(path)
	if err != nil {
		return result, err
	}
	if len(files) == 0 {
		d.say("%s holds no manifests (*.yaml, *.yml, *.json): nothing applied", path)
		return result, nil
	}
	var manifests []manifest
	for _, file := range files {
		objs, err := readManifests(file)
		if err != nil {
			return result, err
		}
		manifests = append(manifests, objs...)
	}
	// Namespaces go first so that the objects in them can be applied.
	slices.SortStableFunc(manifests, func(a, b manifest) int {
		return boolRank(!isNamespace(a.obj)) - boolRank(!isNamespace(b.obj))
	})

	var errs []error
	namespaces := map[string]bool{}
	for _, m := range manifests {
		namespaced, err := d.fw.Client.IsObjectNamespaced(m.obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s %s: %w (is its CRD installed?)", m.source, m.obj.GetKind(), m.obj.GetName(), err))
			continue
		}
		if namespaced {
			if m.obj.GetNamespace() == "" {
				m.obj.SetNamespace(corev1.NamespaceDefault)
			}
			if err := d.ensureNamespace(ctx, m.obj.GetNamespace()); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if err := d.fw.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(m.obj), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			errs = append(errs, fmt.Errorf("%s: applying %s %s: %w", m.source, m.obj.GetKind(), objectName(m.obj), err))
			continue
		}
		d.say("applied %s %s (%s)", strings.ToLower(m.obj.GetKind()), objectName(m.obj), m.source)
		if namespaced {
			namespaces[m.obj.GetNamespace()] = true
		}
		if gvk := m.obj.GroupVersionKind(); gvk.Group == batchv1alpha1.GroupVersion.Group && gvk.Kind == "Job" {
			result.jobs = append(result.jobs, types.NamespacedName{Namespace: m.obj.GetNamespace(), Name: m.obj.GetName()})
		}
	}
	for ns := range namespaces {
		result.namespaces = append(result.namespaces, ns)
	}
	slices.Sort(result.namespaces)
	return result, errors.Join(errs...)
}

// ensureNamespace creates the namespace name unless it exists.
func (d *dev) ensureNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{}
	ns.Name = name
	err := d.fw.Client.Create(ctx, ns)
	switch {
	case err == nil:
		d.say("created namespace %s", name)
		return nil
	case apierrors.IsAlreadyExists(err):
		return nil
	default:
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
}

// manifestFiles lists the manifest files at path: path itself when it is a file, otherwise the
// *.yaml, *.yml and *.json files directly in the folder, in name order.
func manifestFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("-f %s: %w", path, err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("-f %s: %w", path, err)
	}
	var files []string
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	slices.Sort(files)
	return files, nil
}

// readManifests decodes every object of a YAML (multi-document) or JSON file; List kinds are
// expanded into their items.
func readManifests(file string) ([]manifest, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var out []manifest
	for doc := 1; ; doc++ {
		var raw map[string]any
		if err := decoder.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: document %d: %w", file, doc, err)
		}
		if len(raw) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{Object: raw}
		if obj.GetAPIVersion() == "" || obj.GetKind() == "" {
			return nil, fmt.Errorf("%s: document %d: apiVersion and kind are required", file, doc)
		}
		if obj.IsList() {
			err := obj.EachListItem(func(item runtime.Object) error {
				out = append(out, manifest{source: file, obj: item.(*unstructured.Unstructured)})
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", file, doc, err)
			}
			continue
		}
		out = append(out, manifest{source: file, obj: obj})
	}
}

func isNamespace(obj *unstructured.Unstructured) bool {
	return obj.GetAPIVersion() == "v1" && obj.GetKind() == "Namespace"
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// objectName is namespace/name, or name for cluster-scoped objects.
func objectName(obj client.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}
