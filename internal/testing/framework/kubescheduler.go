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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"k8s.io/client-go/rest"
)

// startKubeScheduler starts kube-scheduler from the assets folder against the API server of cfg,
// with its default profile (scheduler name default-scheduler), so that pods which are not
// Caldera's are placed as in a cluster. It serves no port and takes no lease: it is the only one.
func startKubeScheduler(assets, dir string, cfg *rest.Config, attachOutput bool) (*Process, error) {
	binary := filepath.Join(assets, "kube-scheduler")
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("kube-scheduler is not in the assets folder %s: run hack/kube-binaries.sh (make kube-binaries) to build it: %w", assets, err)
	}
	kubeconfig := filepath.Join(dir, "kube-scheduler.kubeconfig")
	if err := WriteKubeconfig(cfg, kubeconfig); err != nil {
		return nil, err
	}
	cmd := exec.Command(binary,
		"--kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--v=1",
	)
	cmd.Dir = dir
	return StartProcess("kube-scheduler", cmd, filepath.Join(dir, "kube-scheduler.log"), attachOutput)
}
