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

package install

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// VolcanoModuleVersion is the release of Volcano whose CRDs migration tests install before
// Caldera's, read from its Go module (the module proxy serves it; nothing of it is kept in this
// repository).
const VolcanoModuleVersion = "v1.15.0"

// VolcanoCRDFiles are the CRDs of the kinds Caldera serves, as Volcano's module ships them,
// relative to its config/crd folder.
var VolcanoCRDFiles = []string{
	"volcano/bases/batch.volcano.sh_cronjobs.yaml",
	"volcano/bases/batch.volcano.sh_jobs.yaml",
	"volcano/bases/bus.volcano.sh_commands.yaml",
	"volcano/bases/scheduling.volcano.sh_podgroups.yaml",
	"volcano/bases/scheduling.volcano.sh_queues.yaml",
	"jobflow/bases/flow.volcano.sh_jobflows.yaml",
	"jobflow/bases/flow.volcano.sh_jobtemplates.yaml",
}

// VolcanoCRDs downloads Volcano's module at version into the module cache (a no-op when it is
// there) and returns the objects of its CRDs for the kinds Caldera serves.
func VolcanoCRDs(ctx context.Context, version string) ([]unstructured.Unstructured, error) {
	dir, err := VolcanoModuleDir(ctx, version)
	if err != nil {
		return nil, err
	}
	var all []byte
	for _, name := range VolcanoCRDFiles {
		data, err := os.ReadFile(filepath.Join(dir, "config", "crd", filepath.FromSlash(name)))
		if err != nil {
			return nil, fmt.Errorf("reading Volcano's CRD %s: %w", name, err)
		}
		all = append(append(all, data...), []byte("\n---\n")...)
	}
	return Decode(all)
}

// VolcanoFile downloads Volcano's module at version into the module cache (a no-op when it is
// there) and returns one of its files, path relative to the module's root (for example
// example/cronjob/cronjob.yaml), for specs that apply Volcano's own examples unchanged.
func VolcanoFile(ctx context.Context, version, path string) ([]byte, error) {
	dir, err := VolcanoModuleDir(ctx, version)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
}

// VolcanoModuleDir downloads Volcano's module at version into the module cache (a no-op when it
// is there) and returns its folder.
func VolcanoModuleDir(ctx context.Context, version string) (string, error) {
	tmp, err := os.MkdirTemp("", "caldera-volcano-module-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	// Outside any module, so that this repository's go.mod and go.sum stay as they are.
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "volcano.sh/volcano@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=on")
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jsonErr := json.Unmarshal(out, &info); jsonErr != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download volcano.sh/volcano@%s: %v %s %s", version, err, info.Error, out)
	}
	return info.Dir, nil
}
