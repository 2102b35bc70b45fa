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
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	// KWOKNodeAnnotation marks a node as simulated. KWOK started by the framework manages exactly
	// the nodes that carry it with the value KWOKNodeAnnotationValue.
	KWOKNodeAnnotation = "kwok.x-k8s.io/node"
	// KWOKNodeAnnotationValue is the value of KWOKNodeAnnotation on simulated nodes.
	KWOKNodeAnnotationValue = "fake"
	// KWOKNodeLabel is a label on every node NewKWOKNode builds, with the value "kwok", so that
	// pods and tools can select simulated nodes.
	KWOKNodeLabel = "type"

	// kwokPodCIDR is the range KWOK gives pod IPs from: 2^20 addresses, enough for any test.
	kwokPodCIDR = "10.64.0.1/12"
)

// StagesPath is the file of Caldera's KWOK stages (node and pod lifecycles, pod outcomes scripted
// through annotations). See the comment at its top.
func StagesPath() string {
	return filepath.Join(RepoRoot(), "config", "kwok", "stages.yaml")
}

// ConfigurationPath is the file of KWOK's own options for Caldera's control planes.
func ConfigurationPath() string {
	return filepath.Join(RepoRoot(), "config", "kwok", "configuration.yaml")
}

// startKWOK starts kwok from the assets folder against the API server of cfg, with the stages of
// StagesPath and the options of ConfigurationPath, managing the nodes annotated KWOKNodeAnnotation=KWOKNodeAnnotationValue. Its
// kubeconfig and log go into dir.
func startKWOK(assets, dir string, cfg *rest.Config, podStartDelay time.Duration, attachOutput bool) (*Process, error) {
	binary := filepath.Join(assets, "kwok")
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("kwok is not in the assets folder %s: run hack/kube-binaries.sh (make kube-binaries) to build it: %w", assets, err)
	}
	stages := StagesPath()
	data, err := os.ReadFile(stages)
	if err != nil {
		return nil, fmt.Errorf("reading KWOK stages: %w", err)
	}
	if podStartDelay > 0 {
		if data, err = delayPodStart(data, podStartDelay); err != nil {
			return nil, err
		}
		stages = filepath.Join(dir, "stages.yaml")
		if err := os.WriteFile(stages, data, 0o600); err != nil {
			return nil, fmt.Errorf("writing KWOK stages: %w", err)
		}
	}
	kubeconfig := filepath.Join(dir, "kwok.kubeconfig")
	if err := WriteKubeconfig(cfg, kubeconfig); err != nil {
		return nil, err
	}
	cmd := exec.Command(binary,
		"--kubeconfig", kubeconfig,
		"--config", stages,
		"--config", ConfigurationPath(),
		"--manage-nodes-with-annotation-selector", KWOKNodeAnnotation+"="+KWOKNodeAnnotationValue,
		"--cidr", kwokPodCIDR,
	)
	// kwok reads ~/.kwok when it has no config; keep it inside dir so runs never share state.
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+kubeconfig)
	cmd.Dir = dir
	return StartProcess("kwok", cmd, filepath.Join(dir, "kwok.log"), attachOutput)
}

// podReadyStage is how the stage that starts pods begins in StagesPath.
const podReadyStage = "  name: caldera-pod-ready\nspec:\n"

// delayPodStart returns the stages with the pod-ready stage delayed by d, as a kubelet takes a
// while to pull images and start containers.
func delayPodStart(stages []byte, d time.Duration) ([]byte, error) {
	if !bytes.Contains(stages, []byte(podReadyStage)) {
		return nil, fmt.Errorf("%s has no stage caldera-pod-ready to delay", StagesPath())
	}
	delay := fmt.Sprintf("%s  delay:\n    durationMilliseconds: %d\n", podReadyStage, d.Milliseconds())
	return bytes.Replace(stages, []byte(podReadyStage), []byte(delay), 1), nil
}

// tail returns the last n lines of the file at path, or a note why it cannot.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// WriteKubeconfig writes a kubeconfig for cfg (server, CA, client certificate or token, all
// embedded) to path, readable only by its owner.
func WriteKubeconfig(cfg *rest.Config, path string) error {
	data, err := Kubeconfig(cfg)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

// Kubeconfig returns a kubeconfig for cfg with its server, CA, client certificate or token embedded.
func Kubeconfig(cfg *rest.Config) ([]byte, error) {
	const name = "caldera"
	cluster := &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
		CertificateAuthority:     cfg.CAFile,
		InsecureSkipTLSVerify:    cfg.Insecure,
		TLSServerName:            cfg.ServerName,
	}
	user := &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
		ClientCertificate:     cfg.CertFile,
		ClientKey:             cfg.KeyFile,
		Token:                 cfg.BearerToken,
		TokenFile:             cfg.BearerTokenFile,
		Username:              cfg.Username,
		Password:              cfg.Password,
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = cluster
	kc.AuthInfos[name] = user
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	kc.CurrentContext = name
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, fmt.Errorf("encoding kubeconfig: %w", err)
	}
	return data, nil
}

// kwokRunning reports whether KWOK was started and has not failed; waiting helpers use it to fail
// fast with KWOK's log instead of timing out.
func (f *Framework) kwokRunning(context.Context) error {
	if f.kwok == nil {
		return errors.New("KWOK is not running: set Framework.KWOK before Start")
	}
	return f.kwok.Exited()
}
