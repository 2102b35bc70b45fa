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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// controllerManagerConfig is what kube-controller-manager needs from the control plane.
type controllerManagerConfig struct {
	// assets holds the kube-controller-manager binary.
	assets string
	// dir receives its kubeconfig, the cluster CA and its log.
	dir string
	// apiServerCertDir holds the service-account signing key the API server verifies tokens with.
	apiServerCertDir string
	// config reaches the API server as an administrator.
	config       *rest.Config
	attachOutput bool
}

// startControllerManager starts kube-controller-manager against the API server with its default
// controllers: garbage collection, namespace deletion, the PersistentVolume binder, ServiceAccounts
// and their tokens, ReplicaSets and Deployments, the node lifecycle, the root CA ConfigMap, and the
// rest a cluster runs. It serves no port and takes no lease: it is the only one.
func startControllerManager(c controllerManagerConfig) (*Process, error) {
	binary := filepath.Join(c.assets, "kube-controller-manager")
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("kube-controller-manager is not in the assets folder %s: run hack/kube-binaries.sh (make kube-binaries) to build it: %w", c.assets, err)
	}
	kubeconfig := filepath.Join(c.dir, "kube-controller-manager.kubeconfig")
	if err := WriteKubeconfig(c.config, kubeconfig); err != nil {
		return nil, err
	}
	caFile := filepath.Join(c.dir, "ca.crt")
	if err := os.WriteFile(caFile, c.config.CAData, 0o600); err != nil {
		return nil, fmt.Errorf("writing the cluster CA for kube-controller-manager: %w", err)
	}
	cmd := exec.Command(binary,
		"--kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		"--service-account-private-key-file="+filepath.Join(c.apiServerCertDir, "sa-signer.key"),
		"--root-ca-file="+caFile,
		"--cluster-name=caldera",
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--v=1",
	)
	cmd.Dir = c.dir
	return StartProcess("kube-controller-manager", cmd, filepath.Join(c.dir, "kube-controller-manager.log"), c.attachOutput)
}

// waitForControllerManager waits until kube-controller-manager has made the ServiceAccount
// "default" of the namespace "default", the sign that its controllers are running.
func (f *Framework) waitForControllerManager(ctx context.Context) error {
	err := f.waitForServiceAccount(ctx, corev1.NamespaceDefault, StartTimeout)
	if err != nil {
		return fmt.Errorf("kube-controller-manager did not start its controllers: %w", err)
	}
	return nil
}

// waitForServiceAccount waits up to timeout for the ServiceAccount "default" of namespace, which
// kube-controller-manager makes in every namespace (pods cannot be created before it exists).
func (f *Framework) waitForServiceAccount(ctx context.Context, namespace string, timeout time.Duration) error {
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, Interval, timeout, true, func(ctx context.Context) (bool, error) {
		if err := f.controllerManager.Exited(); err != nil {
			return false, err
		}
		lastErr = f.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "default"}, &corev1.ServiceAccount{})
		if apierrors.IsNotFound(lastErr) {
			return false, nil
		}
		return lastErr == nil, lastErr
	})
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || wait.Interrupted(err)) {
		return fmt.Errorf("no ServiceAccount %s/default after %s (last error: %v); see kube-controller-manager.log", namespace, timeout, lastErr)
	}
	return err
}
