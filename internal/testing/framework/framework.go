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

// Package framework is the one test framework of Caldera's integration and e2e suites: it
// starts a real kube-apiserver and etcd (envtest) with Caldera's CRDs, optionally KWOK with
// fake nodes, runs managers, and gives each spec its own namespace.
package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/caldera-sh/caldera/internal/scheme"
	"github.com/caldera-sh/caldera/internal/testing/kubelet"
)

// Framework is a running control plane for tests.
type Framework struct {
	// CRDPaths are extra folders of CRDs to install beside Caldera's own.
	CRDPaths []string
	// WithoutCalderaCRDs leaves Caldera's CRDs out, for tests that install them (or another
	// version of them) themselves.
	WithoutCalderaCRDs bool
	// Policies makes Start also apply the ValidatingAdmissionPolicies of config/policy and
	// their bindings, which config/default and the chart ship with the CRDs (for example: the
	// default queue, and a queue that holds unfinished PodGroups, are not deleted).
	Policies bool
	// APIServerFlags are extra kube-apiserver flags, name to value.
	APIServerFlags map[string]string
	// Webhooks are admission webhook configurations the API server calls. A test's manager serves
	// them on Webhooks.LocalServingHost and LocalServingPort with the certificates in
	// LocalServingCertDir, which Start fills in.
	Webhooks envtest.WebhookInstallOptions
	// KWOK makes Start also run KWOK with Caldera's stages (StagesPath) against the API server.
	// KWOK manages only the nodes annotated KWOKNodeAnnotation=KWOKNodeAnnotationValue, such as
	// those CreateNodes and NewKWOKNode make; pods bound to them run as the stages describe.
	// Beside KWOK runs the simulated kubelet step of package kubelet: a pod whose containers'
	// commands are small shell forms (sleep 5, sleep 10s && exit 3, false, ...) ends as a
	// kubelet would end it.
	KWOK bool
	// PodStartDelay makes KWOK wait that long before a bound pod becomes Running, as a kubelet
	// pulling images and starting containers does; zero starts pods at once.
	PodStartDelay time.Duration
	// Autoscaler makes Start also install Karpenter's CRDs and run Karpenter with its KWOK cloud
	// provider (built by hack/kube-binaries.sh), which needs KWOK. Karpenter adds nodes for pods
	// marked PodScheduled=False reason Unschedulable once a NodePool exists (ApplyNodePool), and
	// removes them when they are empty. Its nodes carry KWOKNodeAnnotation, so KWOK runs them.
	Autoscaler bool
	// WithoutControllerManager leaves kube-controller-manager out. By default Start runs it with
	// its default controllers, so that the control plane behaves like a cluster: a deleted object
	// takes what it owns with it (garbage collection, foreground deletion), namespaces are emptied
	// when deleted, claims bind to volumes, every namespace gets its ServiceAccount "default" (the
	// API server's ServiceAccount admission is on, as in a cluster). Suites that measure the
	// scheduler alone, or need none of it, set this.
	WithoutControllerManager bool
	// KubeScheduler makes Start also run kube-scheduler (default-scheduler), for suites whose
	// workloads mix Caldera's pods with pods of the cluster's default scheduler.
	KubeScheduler bool
	// Dir, when set, is an existing folder that holds everything the control plane writes: etcd's
	// data (etcd/), the API server's certificates (apiserver/), etcd.log, kube-apiserver.log,
	// kube-controller-manager.log, KWOK's kubeconfig and kwok.log, and Karpenter's karpenter.log. Stop leaves it in place. When empty, the processes use
	// temporary folders that Stop removes.
	Dir string

	// AuditLog, when set, is a file the API server writes an audit record to (JSON lines, level
	// Metadata) for every request that writes (create, update, patch, delete, deletecollection),
	// with the verb, the resource and subresource, the object's name, the response code and the
	// client's user agent: what benchmarks count writes with, and what tells who deleted a pod.
	AuditLog string

	// ManagerCache are the cache options of the managers StartManager makes; suites that run
	// Caldera's controllers set controllers.CacheOptions(), as cmd/manager does.
	ManagerCache cache.Options

	// Config reaches the API server as an administrator; set by Start.
	Config *rest.Config
	// Client is a client on Config with Scheme; set by Start.
	Client client.Client
	// Scheme is Caldera's runtime scheme (internal/scheme); set by Start.
	Scheme *k8sruntime.Scheme

	env               *envtest.Environment
	kwok              *Process
	controllerManager *Process
	autoscaler        *Process
	// tempDir is the folder Start made for KWOK and kube-controller-manager when Dir is empty,
	// removed by Stop.
	tempDir string
	// kubeScheduler is kube-scheduler, when KubeScheduler is set.
	kubeScheduler *Process
	// kubelet is the simulated kubelet step that runs beside KWOK.
	kubelet *kubelet.Kubelet
	// closers are the log files Stop closes.
	closers []io.Closer
}

// RepoRoot is the root of the Caldera repository.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Assets returns the folder holding kube-apiserver, kube-controller-manager, etcd, kubectl, kwok
// and helm: KUBEBUILDER_ASSETS
// when set, otherwise the cache that hack/kube-binaries.sh fills (building what is missing).
func Assets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	cmd := exec.Command("bash", filepath.Join(RepoRoot(), "hack", "kube-binaries.sh"))
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the control-plane binaries with hack/kube-binaries.sh: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// Start starts etcd and kube-apiserver with Caldera's CRDs installed, sets Config, Client and
// Scheme, starts kube-controller-manager unless f.WithoutControllerManager, KWOK when f.KWOK
// is set, and Karpenter (with its CRDs) when f.Autoscaler is set, returning once it is ready. On
// error, whatever was started is stopped again.
func (f *Framework) Start() error {
	assets, err := Assets()
	if err != nil {
		return err
	}
	f.Scheme = scheme.New()
	crdPaths := f.CRDPaths
	if !f.WithoutCalderaCRDs {
		crdPaths = append([]string{filepath.Join(RepoRoot(), "config", "crd", "bases")}, crdPaths...)
	}
	if f.Autoscaler {
		if !f.KWOK {
			return errors.New("the framework's autoscaler needs KWOK to run its nodes: set KWOK too")
		}
		dir, err := karpenterCRDs(assets)
		if err != nil {
			return err
		}
		crdPaths = append(crdPaths, dir)
	}
	f.env = &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDDirectoryPaths:        crdPaths,
		ErrorIfCRDPathMissing:    true,
		Scheme:                   f.Scheme,
		ControlPlaneStartTimeout: StartTimeout,
		ControlPlaneStopTimeout:  StartTimeout,
		AttachControlPlaneOutput: os.Getenv("CALDERA_ATTACH_CONTROL_PLANE_OUTPUT") != "",
		CRDInstallOptions:        envtest.CRDInstallOptions{Scheme: f.Scheme},
		WebhookInstallOptions:    f.Webhooks,
	}
	apiServer := f.env.ControlPlane.GetAPIServer()
	if !f.WithoutControllerManager {
		// envtest turns the ServiceAccount admission plugin off because nothing would make the
		// "default" ServiceAccounts; kube-controller-manager does, so it is on as in a cluster.
		apiServer.Configure().Set("disable-admission-plugins", "")
	}
	if f.AuditLog != "" {
		policy, err := f.writeAuditPolicy()
		if err != nil {
			return err
		}
		apiServer.Configure().Set("audit-policy-file", policy)
		apiServer.Configure().Set("audit-log-path", f.AuditLog)
		apiServer.Configure().Set("audit-log-format", "json")
	}
	for name, value := range f.APIServerFlags {
		apiServer.Configure().Set(name, value)
	}
	if f.Dir != "" {
		if err := f.keepControlPlaneIn(f.Dir); err != nil {
			return errors.Join(err, f.Stop())
		}
	}
	cfg, err := f.env.Start()
	if err != nil {
		return errors.Join(fmt.Errorf("starting the control plane: %w", err), f.Stop())
	}
	f.Webhooks = f.env.WebhookInstallOptions
	cfg.QPS = 1000
	cfg.Burst = 2000
	f.Config = cfg
	f.Client, err = client.New(cfg, client.Options{Scheme: f.Scheme})
	if err != nil {
		return errors.Join(fmt.Errorf("creating a client: %w", err), f.Stop())
	}
	if f.Policies {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		err := ApplyPolicies(ctx, f.Client)
		cancel()
		if err != nil {
			return errors.Join(err, f.Stop())
		}
	}
	if !f.KWOK && f.WithoutControllerManager && !f.KubeScheduler {
		return nil
	}
	dir := f.Dir
	if dir == "" {
		if f.tempDir, err = os.MkdirTemp("", "caldera-control-plane-"); err != nil {
			return errors.Join(fmt.Errorf("creating a folder for KWOK and kube-controller-manager: %w", err), f.Stop())
		}
		dir = f.tempDir
	}
	if !f.WithoutControllerManager {
		f.controllerManager, err = startControllerManager(controllerManagerConfig{
			assets:           assets,
			dir:              dir,
			apiServerCertDir: apiServer.CertDir,
			config:           cfg,
			attachOutput:     f.env.AttachControlPlaneOutput,
		})
		if err != nil {
			return errors.Join(err, f.Stop())
		}
	}
	if f.KWOK {
		if f.kwok, err = startKWOK(assets, dir, cfg, f.PodStartDelay, f.env.AttachControlPlaneOutput); err != nil {
			return errors.Join(err, f.Stop())
		}
		if f.kubelet, err = kubelet.Start(cfg, clock.RealClock{}); err != nil {
			return errors.Join(err, f.Stop())
		}
	}
	if f.KubeScheduler {
		if f.kubeScheduler, err = startKubeScheduler(assets, dir, cfg, f.env.AttachControlPlaneOutput); err != nil {
			return errors.Join(err, f.Stop())
		}
	}
	if f.Autoscaler {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		defer cancel()
		if f.autoscaler, err = startKarpenter(ctx, assets, dir, cfg, f.env.AttachControlPlaneOutput); err != nil {
			return errors.Join(err, f.Stop())
		}
	}
	if !f.WithoutControllerManager {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		defer cancel()
		if err := f.waitForControllerManager(ctx); err != nil {
			return errors.Join(err, f.Stop())
		}
	}
	return nil
}

// Stop stops Karpenter, KWOK, kube-controller-manager, kube-apiserver and etcd, and removes the files the
// framework wrote. It is safe to call more than once and after a failed Start.
func (f *Framework) Stop() error {
	var errs []error
	if f.autoscaler != nil {
		errs = append(errs, f.autoscaler.Stop())
		f.autoscaler = nil
	}
	if f.kubeScheduler != nil {
		errs = append(errs, f.kubeScheduler.Stop())
		f.kubeScheduler = nil
	}
	if f.kubelet != nil {
		f.kubelet.Stop()
		f.kubelet = nil
	}
	if f.kwok != nil {
		errs = append(errs, f.kwok.Stop())
		f.kwok = nil
	}
	if f.controllerManager != nil {
		errs = append(errs, f.controllerManager.Stop())
		f.controllerManager = nil
	}
	if f.env != nil {
		errs = append(errs, f.env.Stop())
		f.env = nil
	}
	for _, c := range f.closers {
		errs = append(errs, c.Close())
	}
	f.closers = nil
	if f.tempDir != "" {
		errs = append(errs, os.RemoveAll(f.tempDir))
		f.tempDir = ""
	}
	return errors.Join(errs...)
}

// keepControlPlaneIn points etcd's data, the API server's certificates and both processes' output
// into dir.
func (f *Framework) keepControlPlaneIn(dir string) error {
	if f.env.ControlPlane.Etcd == nil {
		f.env.ControlPlane.Etcd = &envtest.Etcd{}
	}
	etcd := f.env.ControlPlane.Etcd
	etcd.DataDir = filepath.Join(dir, "etcd")
	apiServer := f.env.ControlPlane.GetAPIServer()
	apiServer.CertDir = filepath.Join(dir, "apiserver")
	for _, sub := range []string{etcd.DataDir, apiServer.CertDir} {
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", sub, err)
		}
	}
	etcdLog, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		return fmt.Errorf("creating etcd's log: %w", err)
	}
	f.closers = append(f.closers, etcdLog)
	apiServerLog, err := os.Create(filepath.Join(dir, "kube-apiserver.log"))
	if err != nil {
		return fmt.Errorf("creating the API server's log: %w", err)
	}
	f.closers = append(f.closers, apiServerLog)
	etcd.Out, etcd.Err = etcdLog, etcdLog
	apiServer.Out, apiServer.Err = apiServerLog, apiServerLog
	return nil
}

// CreateNamespace makes a fresh namespace for one spec. With kube-controller-manager running, it
// returns once the namespace has its ServiceAccount "default", as pods need it.
func (f *Framework) CreateNamespace(ctx context.Context, prefix string) (*corev1.Namespace, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := f.Client.Create(ctx, ns); err != nil {
		return nil, fmt.Errorf("creating namespace: %w", err)
	}
	if f.controllerManager != nil {
		if err := f.waitForServiceAccount(ctx, ns.Name, Timeout); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

// ControllerManagerRunning reports whether Start started kube-controller-manager.
func (f *Framework) ControllerManagerRunning() bool {
	return f.controllerManager != nil
}
