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

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// startChild starts binary with args in dir, with KUBECONFIG set to kubeconfig and its output
// in logPath, in its own process group (and killed if dev dies, on Linux).
func startChild(binary, logPath, dir, kubeconfig string, args ...string) (*framework.Process, error) {
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	return framework.StartProcess(binary, cmd, logPath, false)
}
