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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// TestManifestsNameOneImage checks that config/ and the Helm chart deploy the same image, the one
// `make manifests` writes from IMG (hack/image/set-image.sh), and that kustomize's images: entry
// matches the Deployment's image so that it takes effect.
func TestManifestsNameOneImage(t *testing.T) {
	root := framework.RepoRoot()
	read := func(path string, into any) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, into); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}

	var kustomization struct {
		Images []struct {
			Name    string `json:"name"`
			NewName string `json:"newName"`
			NewTag  string `json:"newTag"`
		} `json:"images"`
	}
	read("config/manager/kustomization.yaml", &kustomization)
	if len(kustomization.Images) != 1 {
		t.Fatalf("config/manager/kustomization.yaml has %d images entries, want 1", len(kustomization.Images))
	}
	entry := kustomization.Images[0]
	var deployment appsv1.Deployment
	read("config/manager/manager.yaml", &deployment)
	if len(deployment.Spec.Template.Spec.Containers) == 0 {
		t.Fatal("config/manager/manager.yaml has no container")
	}
	base, _, _ := strings.Cut(deployment.Spec.Template.Spec.Containers[0].Image, "@")
	if i := strings.LastIndex(base, ":"); i > strings.LastIndex(base, "/") {
		base = base[:i]
	}
	if entry.Name != base {
		t.Errorf("kustomize's images entry is for %q, the Deployment's image is %q: kustomize would not replace it", entry.Name, base)
	}

	var values struct {
		Image struct {
			Repository string `json:"repository"`
			Tag        string `json:"tag"`
		} `json:"image"`
	}
	read("charts/caldera/values.yaml", &values)
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	read("charts/caldera/Chart.yaml", &chart)
	chartTag := values.Image.Tag
	if chartTag == "" {
		chartTag = chart.AppVersion
	}
	configImage := entry.NewName + ":" + entry.NewTag
	chartImage := values.Image.Repository + ":" + chartTag
	if configImage != chartImage {
		t.Errorf("config/ deploys %s, the chart %s: run make manifests", configImage, chartImage)
	}

	out, err := exec.Command("bash", filepath.Join(root, "hack", "image", "set-image.sh"), "--current").Output()
	if err != nil {
		t.Fatalf("set-image.sh --current: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != configImage {
		t.Errorf("IMG defaults to %s, config/ deploys %s", got, configImage)
	}
}
