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

package argocd

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// repoRoot is the root of the Caldera repository.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// checks are Caldera's health checks, as group/kind.
var checks = []string{
	"batch.volcano.sh/Job", "batch.volcano.sh/CronJob", "flow.volcano.sh/JobFlow", "flow.volcano.sh/JobTemplate",
	"scheduling.volcano.sh/PodGroup", "scheduling.volcano.sh/Queue",
}

// TestHealthTests runs each check's health_test.yaml as Argo CD's harness does: every case's
// input must give the status and message the file names.
func TestHealthTests(t *testing.T) {
	root := filepath.Join(repoRoot(), CustomizationsDir)
	for _, check := range checks {
		dir := filepath.Join(root, check)
		tf, err := ReadTests(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range tf.Tests {
			t.Run(check+"/"+tc.InputPath, func(t *testing.T) {
				obj, err := ReadObject(filepath.Join(dir, tc.InputPath))
				if err != nil {
					t.Fatal(err)
				}
				group, kind, _ := strings.Cut(check, "/")
				got, err := RunFile(ScriptPath(root, group, kind), obj)
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.HealthStatus {
					t.Errorf("got %+v, want %+v", got, tc.HealthStatus)
				}
			})
		}
	}
}

// TestConfigMapPatch checks that config/argocd/argocd-cm-patch.yaml installs each health.lua
// verbatim under resource.customizations.health.<group>_<kind>.
func TestConfigMapPatch(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "config", "argocd", "argocd-cm-patch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(raw, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Name != "argocd-cm" || len(cm.Data) != len(checks) {
		t.Fatalf("want argocd-cm with %d scripts, got %s with %d", len(checks), cm.Name, len(cm.Data))
	}
	for _, check := range checks {
		group, kind, _ := strings.Cut(check, "/")
		script, err := os.ReadFile(ScriptPath(filepath.Join(repoRoot(), CustomizationsDir), group, kind))
		if err != nil {
			t.Fatal(err)
		}
		key := "resource.customizations.health." + group + "_" + kind
		if cm.Data[key] != string(script) {
			t.Errorf("%s differs from %s/health.lua: regenerate the patch", key, check)
		}
	}
}
