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

// Package install renders Caldera's two ways of installing, the Helm chart (charts/caldera) and
// the kustomize configuration (config/default), into objects that tests check or apply. It runs
// helm and kubectl from the folder of control-plane binaries (framework.Assets()); it needs no
// API server.
package install

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// ChartDir is the Helm chart's folder, charts/caldera.
func ChartDir() string {
	return filepath.Join(framework.RepoRoot(), "charts", "caldera")
}

// KustomizeDir is the kustomize configuration for a real cluster, config/default.
func KustomizeDir() string {
	return filepath.Join(framework.RepoRoot(), "config", "default")
}

// Helm runs the helm binary of assets with args and returns its standard output. Helm's own
// configuration, cache and data folders are kept in a temporary folder, so that the user's
// repositories and plugins play no part. The error carries helm's standard error.
func Helm(ctx context.Context, assets string, args ...string) ([]byte, error) {
	home, err := os.MkdirTemp("", "caldera-helm-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(home) }()
	return run(ctx, assets, "helm", []string{
		"HELM_CONFIG_HOME=" + filepath.Join(home, "config"),
		"HELM_CACHE_HOME=" + filepath.Join(home, "cache"),
		"HELM_DATA_HOME=" + filepath.Join(home, "data"),
	}, args...)
}

// Kubectl runs the kubectl binary of assets with args and returns its standard output.
func Kubectl(ctx context.Context, assets string, args ...string) ([]byte, error) {
	return run(ctx, assets, "kubectl", nil, args...)
}

func run(ctx context.Context, assets, name string, env []string, args ...string) ([]byte, error) {
	bin := filepath.Join(assets, name)
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%s is not in %s (hack/kube-binaries.sh builds it; with KUBEBUILDER_ASSETS set, run `bash hack/kube-binaries.sh` once to add it): %w", name, assets, err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = framework.RepoRoot()
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes(), nil
}

// ChartArgs are the helm arguments that pass values to a chart: one values file holding values
// (JSON is YAML), written into dir. With nil or empty values, no argument.
func ChartArgs(dir string, values map[string]any) ([]string, error) {
	if len(values) == 0 {
		return nil, nil
	}
	data, err := json.Marshal(values)
	if err != nil {
		return nil, fmt.Errorf("encoding the chart values: %w", err)
	}
	file := filepath.Join(dir, "values.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return nil, err
	}
	return []string{"--values", file}, nil
}

// RenderChart renders the chart as `helm install` would install it, CRDs first, as release
// releaseName in namespace, with values over the chart's values.yaml (nested maps, as in a values
// file; nil means the defaults). The objects come in Helm's install order (CRDs, ServiceAccount,
// RBAC, ConfigMap, Services, Deployment, ...) and carry their namespace where namespaced, so
// applying them in order installs Caldera.
func RenderChart(ctx context.Context, assets, releaseName, namespace string, values map[string]any) ([]unstructured.Unstructured, error) {
	out, err := TemplateChart(ctx, assets, releaseName, namespace, values, "--include-crds")
	if err != nil {
		return nil, err
	}
	return Decode(out)
}

// TemplateChart runs `helm template releaseName charts/caldera --namespace namespace` with values
// and the extra helm arguments, and returns the rendered YAML.
func TemplateChart(ctx context.Context, assets, releaseName, namespace string, values map[string]any, extra ...string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "caldera-values-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	valueArgs, err := ChartArgs(dir, values)
	if err != nil {
		return nil, err
	}
	args := append([]string{"template", releaseName, ChartDir(), "--namespace", namespace}, valueArgs...)
	return Helm(ctx, assets, append(args, extra...)...)
}

// LintChart runs `helm lint --strict charts/caldera` with values and returns its output.
func LintChart(ctx context.Context, assets string, values map[string]any) ([]byte, error) {
	dir, err := os.MkdirTemp("", "caldera-values-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	valueArgs, err := ChartArgs(dir, values)
	if err != nil {
		return nil, err
	}
	return Helm(ctx, assets, append([]string{"lint", "--strict", ChartDir()}, valueArgs...)...)
}

// RenderKustomize renders the kustomize folder dir (such as KustomizeDir()) with the kubectl of
// assets, as `kubectl apply -k dir` would apply it.
func RenderKustomize(ctx context.Context, assets, dir string) ([]unstructured.Unstructured, error) {
	out, err := Kubectl(ctx, assets, "kustomize", dir)
	if err != nil {
		return nil, err
	}
	return Decode(out)
}

// Decode splits a multi-document YAML (or JSON) stream into objects, skipping empty documents.
// Numbers decode as in client-go (int64 for integers), so the objects can be converted to typed
// ones with runtime.DefaultUnstructuredConverter.
func Decode(data []byte) ([]unstructured.Unstructured, error) {
	var objs []unstructured.Unstructured
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading document %d: %w", i, err)
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if t := bytes.TrimSpace(js); bytes.Equal(t, []byte("null")) || bytes.Equal(t, []byte("{}")) {
			continue
		}
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("decoding document %d: %w\n%s", i, err, doc)
		}
		objs = append(objs, u)
	}
}
