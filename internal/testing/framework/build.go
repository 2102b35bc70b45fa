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

package framework

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// BuildManager builds the manager binary (./cmd/manager), as shipped, into dir and returns its
// path.
func BuildManager(ctx context.Context, dir string) (string, error) {
	binary := filepath.Join(dir, "manager")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", binary, "./cmd/manager")
	cmd.Dir = RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/manager: %w\n%s", err, out)
	}
	return binary, nil
}
