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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// NodePoolLabel is the label Karpenter puts on the nodes it adds: the name of their NodePool.
	NodePoolLabel = "karpenter.sh/nodepool"
	// autoscalerFieldOwner is the field manager ApplyNodePool applies with.
	autoscalerFieldOwner = "caldera-framework"
)

// NodeClaimGVK is Karpenter's NodeClaim, one per node it adds or is adding.
var NodeClaimGVK = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodeClaim"}

// NodePoolPath is the file of the local control plane's KWOKNodeClass and NodePool, which
// ApplyNodePool applies.
func NodePoolPath() string {
	return filepath.Join(RepoRoot(), "config", "kwok", "karpenter.yaml")
}

// AutoscalerSchedulerConfigPath is the scheduler configuration for clusters that grow, in
// Volcano's format: the one the autoscaler e2e suite and `make dev DEV_FLAGS=-autoscaler` use.
func AutoscalerSchedulerConfigPath() string {
	return filepath.Join(RepoRoot(), "config", "scheduler", "autoscaler.conf")
}

// karpenterCRDs is the folder of Karpenter's CRDs (NodePool, NodeClaim, NodeOverlay,
// KWOKNodeClass) that hack/kube-binaries.sh copies from Karpenter's module and links into the
// assets folder.
func karpenterCRDs(assets string) (string, error) {
	dir := filepath.Join(assets, "karpenter-crds")
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("the CRDs of Karpenter are not in the assets folder %s: run hack/kube-binaries.sh (make kube-binaries) to copy them there: %w", assets, err)
	}
	return dir, nil
}

// startKarpenter starts Karpenter with its KWOK cloud provider from the assets folder against
// the API server of cfg: no leader election, its metrics and health probes on free ports, its
// kubeconfig and log in dir. It returns once Karpenter reports ready (its caches synced and its
// CRDs served), or an error with the end of its log.
func startKarpenter(ctx context.Context, assets, dir string, cfg *rest.Config, attachOutput bool) (*Process, error) {
	binary := filepath.Join(assets, "karpenter")
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("karpenter is not in the assets folder %s: run hack/kube-binaries.sh (make kube-binaries) to build it: %w", assets, err)
	}
	kubeconfig := filepath.Join(dir, "karpenter.kubeconfig")
	if err := WriteKubeconfig(cfg, kubeconfig); err != nil {
		return nil, err
	}
	metricsPort, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	healthPort, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+kubeconfig,
		"DISABLE_LEADER_ELECTION=true",
		"METRICS_PORT="+metricsPort,
		"HEALTH_PROBE_PORT="+healthPort,
		// Pods that arrive together (a gang) are taken in one batch: the batch ends after a
		// second without new pending pods, or after BATCH_MAX_DURATION.
		"BATCH_IDLE_DURATION=1s",
		"BATCH_MAX_DURATION=3s",
		"LOG_LEVEL=debug",
	)
	cmd.Dir = dir
	p, err := StartProcess("karpenter", cmd, filepath.Join(dir, "karpenter.log"), attachOutput)
	if err != nil {
		return nil, err
	}
	if err := waitForReady(ctx, p, "http://127.0.0.1:"+healthPort+"/readyz"); err != nil {
		return nil, errors.Join(err, p.Stop())
	}
	return p, nil
}

// freeLoopbackPort returns a port nothing listens on right now on the loopback address.
func freeLoopbackPort() (string, error) {
	addr, err := FreeLoopbackAddress()
	if err != nil {
		return "", err
	}
	_, port, err := net.SplitHostPort(addr)
	return port, err
}

// waitForReady polls url until it answers 200, for at most StartTimeout, failing at once when p
// exits.
func waitForReady(ctx context.Context, p *Process, url string) error {
	httpClient := &http.Client{Timeout: time.Second}
	var last string
	err := wait.PollUntilContextTimeout(ctx, 2*Interval, StartTimeout, true, func(ctx context.Context) (bool, error) {
		if err := p.Exited(); err != nil {
			return false, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		_ = resp.Body.Close()
		last = resp.Status
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || wait.Interrupted(err)) {
		return fmt.Errorf("%s not ready after %s (last answer of %s: %s); the end of %s:\n%s", p.name, StartTimeout, url, last, p.LogPath(), p.Tail(20))
	}
	return err
}

// ApplyNodePool applies, server-side, the KWOKNodeClass and NodePool of NodePoolPath, from which
// Karpenter adds nodes.
func (f *Framework) ApplyNodePool(ctx context.Context) error {
	objs, err := readObjects(NodePoolPath())
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := f.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(autoscalerFieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// readObjects decodes every object of a YAML file.
func readObjects(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}

// AutoscalerRunning reports whether Start started Karpenter.
func (f *Framework) AutoscalerRunning() bool {
	return f.autoscaler != nil
}
