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

// Command dev is `make dev`: it brings up a local control plane (etcd, kube-apiserver with
// Caldera's CRDs, kube-controller-manager, KWOK with fake nodes, and with -autoscaler Karpenter), builds and starts the
// manager, applies manifests and prints every phase change of the Jobs, PodGroups and pods they make (and of the nodes
// Karpenter adds), until Ctrl-C. Everything
// it writes lives in one temporary data folder, removed at the end unless -keep is given.
//
//	go run ./hack/dev [-f samples/dev/] [-nodes 4] [-gpu-nodes 0] [-autoscaler] [-exit-when-done] [-timeout 5m] [-keep] [-manager=false]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// localDisksPerNode is how many local volumes each node gets.
const localDisksPerNode = 2

// options are the command-line flags.
type options struct {
	files        string
	nodes        int
	gpuNodes     int
	gpusPerNode  int
	exitWhenDone bool
	timeout      time.Duration
	keep         bool
	manager      bool
	autoscaler   bool
}

func parseFlags() (*options, error) {
	o := &options{}
	flag.StringVar(&o.files, "f", "samples/dev/", "Manifest file or folder (its *.yaml, *.yml and *.json files, in name order) to apply with server-side apply.")
	flag.IntVar(&o.nodes, "nodes", 4, "Number of KWOK nodes (32 CPUs, 256Gi of memory, 1Ti of ephemeral storage, 110 pods each), spread over three zones.")
	flag.IntVar(&o.gpuNodes, "gpu-nodes", 0, "Number of extra KWOK nodes that also offer nvidia.com/gpu (see -gpus-per-node).")
	flag.IntVar(&o.gpusPerNode, "gpus-per-node", 8, "With -gpu-nodes: the nvidia.com/gpu capacity of each GPU node.")
	flag.BoolVar(&o.exitWhenDone, "exit-when-done", false, "Exit 0 once every applied batch.volcano.sh Job is Completed; exit 1 when one ends Failed, Terminated or Aborted, or after -timeout.")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "With -exit-when-done: how long the Jobs have to complete.")
	flag.BoolVar(&o.keep, "keep", false, "Keep the data folder (etcd data, kubeconfig, logs) at the end.")
	flag.BoolVar(&o.autoscaler, "autoscaler", false, "Also run Karpenter with its KWOK cloud provider and the NodePool of config/kwok/karpenter.yaml, and start the manager with the scheduler configuration for clusters that grow (config/scheduler/autoscaler.conf): gangs larger than the nodes make Karpenter add nodes, removed again once empty.")
	flag.BoolVar(&o.manager, "manager", true, "Build and start ./cmd/manager; with -manager=false, run your own (for example in a debugger) against the printed KUBECONFIG.")
	flag.Parse()
	if flag.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: manifests are given with -f", flag.Args())
	}
	if o.nodes < 1 {
		return nil, fmt.Errorf("-nodes %d: must be at least 1", o.nodes)
	}
	if o.gpuNodes < 0 {
		return nil, fmt.Errorf("-gpu-nodes %d: must be 0 or more", o.gpuNodes)
	}
	if o.gpusPerNode < 1 {
		return nil, fmt.Errorf("-gpus-per-node %d: must be at least 1", o.gpusPerNode)
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("-timeout %s: must be positive, for example -timeout 5m", o.timeout)
	}
	return o, nil
}

func main() {
	os.Exit(run())
}

// run returns the exit code: 0 on a clean Ctrl-C or when -exit-when-done saw every Job complete.
func run() int {
	o, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dev:", err)
		return 2
	}
	// The first SIGINT or SIGTERM cancels ctx and starts the teardown; later ones are caught and
	// ignored, so the teardown always finishes and leaves no process behind.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		first := true
		for range signals {
			if first {
				first = false
				cancel()
				continue
			}
			fmt.Fprintln(os.Stderr, "dev: tearing down, please wait")
		}
	}()

	dataDir, err := os.MkdirTemp("", "caldera-dev-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "dev: creating the data folder:", err)
		return 1
	}
	d := &dev{opts: o, dataDir: dataDir, clock: clock.RealClock{}}
	d.say("data folder %s", dataDir)
	// Client-side logs (watch retries and the like) go to dev.log, not between the status lines.
	devLog, err := os.Create(filepath.Join(dataDir, "dev.log"))
	if err != nil {
		d.say("creating dev.log: %v", err)
		return 1
	}
	logger := zap.New(zap.WriteTo(devLog))
	ctrllog.SetLogger(logger)
	klog.SetLogger(logger)

	code := d.run(ctx)
	if err := d.teardown(); err != nil {
		d.say("teardown: %v", err)
		if code == 0 {
			code = 1
		}
	}
	cancel()
	signal.Stop(signals)
	_ = devLog.Close()
	return code
}

// dev is one run of the development environment.
type dev struct {
	opts    *options
	dataDir string
	clock   clock.Clock

	fw        *framework.Framework
	manager   *framework.Process
	stopWatch func()
}

// say prints a timestamped line.
func (d *dev) say(format string, args ...any) {
	fmt.Printf("%s %s\n", d.clock.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// run brings everything up and waits for Ctrl-C or, with -exit-when-done, for the Jobs.
func (d *dev) run(ctx context.Context) int {
	repo := framework.RepoRoot()
	build := d.buildManager(ctx, repo)

	started := d.clock.Now()
	d.fw = &framework.Framework{KWOK: true, Autoscaler: d.opts.autoscaler, Dir: d.dataDir, Policies: true}
	if err := d.fw.Start(); err != nil {
		d.say("starting the control plane: %v", err)
		return 1
	}
	names, err := d.fw.CreateNodes(ctx, d.opts.nodes, nil)
	if err == nil && d.opts.gpuNodes > 0 {
		var gpuNames []string
		gpuNames, err = d.fw.CreateGPUNodes(ctx, d.opts.gpuNodes, d.opts.gpusPerNode)
		names = append(names, gpuNames...)
	}
	if err == nil {
		err = d.fw.WaitForNodesReady(ctx, names...)
	}
	var disks []string
	if err == nil {
		// Local disks, as a bare-metal cluster has: volumes of the WaitForFirstConsumer class
		// caldera-local, bound to claims once their pods are placed.
		disks, err = d.fw.CreateLocalVolumes(ctx, names, localDisksPerNode, "10Gi")
	}
	if err == nil && d.opts.autoscaler {
		err = d.fw.ApplyNodePool(ctx)
	}
	if ctx.Err() != nil {
		return interrupted(d)
	}
	if err != nil {
		d.say("bringing up the KWOK nodes: %v", err)
		return 1
	}
	d.say("etcd, kube-apiserver (CRDs and admission policies installed), kube-controller-manager and KWOK are up with %d Ready nodes and %d local volumes (StorageClass %s) in %s",
		len(names), len(disks), framework.LocalStorageClassName, d.clock.Since(started).Round(100*time.Millisecond))
	if d.opts.autoscaler {
		d.say("Karpenter is up with the NodePool of %s", framework.NodePoolPath())
	}

	kubeconfig := filepath.Join(d.dataDir, "kubeconfig")
	if err := framework.WriteKubeconfig(d.fw.Config, kubeconfig); err != nil {
		d.say("%v", err)
		return 1
	}
	assets, err := framework.Assets()
	if err != nil {
		d.say("%v", err)
		return 1
	}
	fmt.Printf("\nexport KUBECONFIG=%s\n", kubeconfig)
	fmt.Printf("# kubectl is at %s\n", filepath.Join(assets, "kubectl"))
	logs := "{kwok,kube-apiserver,kube-controller-manager,etcd}.log"
	if d.opts.autoscaler {
		logs = "{karpenter,kwok,kube-apiserver,kube-controller-manager,etcd}.log"
	}
	fmt.Printf("# logs: %s\n\n", filepath.Join(d.dataDir, logs))

	binary, err := build.wait()
	if ctx.Err() != nil {
		return interrupted(d)
	}
	if err != nil {
		d.say("%v", err)
		if d.opts.exitWhenDone {
			return 1
		}
		d.say("going on without a manager: fix the build and restart, or run one yourself against the KUBECONFIG above")
	}
	var managerDied <-chan struct{}
	if binary != "" {
		args := []string{"--kubeconfig", kubeconfig, "--leader-elect=false",
			"--metrics-bind-address=0", "--health-probe-bind-address=0"}
		if d.opts.autoscaler {
			args = append(args, "--scheduler-conf", framework.AutoscalerSchedulerConfigPath())
		}
		d.manager, err = startChild(binary, filepath.Join(d.dataDir, "manager.log"), repo, kubeconfig, args...)
		if err != nil {
			d.say("%v", err)
			return 1
		}
		managerDied = d.manager.Done()
		d.say("manager started (pid %d), logging to %s", d.manager.Pid(), d.manager.LogPath())
	}

	applied, err := d.apply(ctx, d.opts.files)
	if ctx.Err() != nil {
		return interrupted(d)
	}
	if err != nil {
		d.say("applying %s: %v", d.opts.files, err)
		if d.opts.exitWhenDone {
			return 1
		}
	}
	w, err := d.watch(ctx, applied)
	if ctx.Err() != nil {
		return interrupted(d)
	}
	if err != nil {
		d.say("watching: %v", err)
		return 1
	}

	var deadline <-chan time.Time
	if d.opts.exitWhenDone {
		if len(applied.jobs) == 0 {
			d.say("-exit-when-done: the manifests hold no batch.volcano.sh Job to wait for")
			return 1
		}
		deadline = d.clock.After(d.opts.timeout)
		d.say("waiting up to %s for %d Job(s) to complete", d.opts.timeout, len(applied.jobs))
	} else {
		d.say("press Ctrl-C to stop and clean up")
	}
	select {
	case <-ctx.Done():
		return interrupted(d)
	case <-managerDied:
		d.say("the manager exited: %v; the end of %s:\n%s", d.manager.ExitErr(), d.manager.LogPath(), d.manager.Tail(20))
		if d.opts.exitWhenDone {
			return 1
		}
		<-ctx.Done()
		return 0
	case result := <-w.done:
		if result.err != nil {
			d.say("%v", result.err)
			return 1
		}
		d.say("every Job completed")
		return 0
	case <-deadline:
		d.say("timed out after %s: %s", d.opts.timeout, w.pending())
		return 1
	}
}

// interrupted reports a Ctrl-C, after which dev tears down and exits 0.
func interrupted(d *dev) int {
	d.say("interrupted")
	return 0
}

// teardown stops the manager, KWOK, kube-controller-manager, kube-apiserver and etcd, in that order, and removes the data
// folder unless -keep.
func (d *dev) teardown() error {
	var errs []error
	if d.stopWatch != nil {
		d.stopWatch()
	}
	if d.manager != nil {
		errs = append(errs, d.manager.Stop())
		d.say("manager stopped")
	}
	if d.fw != nil {
		errs = append(errs, d.fw.Stop())
		if d.opts.autoscaler {
			d.say("Karpenter, KWOK, kube-controller-manager, kube-apiserver and etcd stopped")
		} else {
			d.say("KWOK, kube-controller-manager, kube-apiserver and etcd stopped")
		}
	}
	if d.opts.keep {
		d.say("kept the data folder %s", d.dataDir)
	} else {
		errs = append(errs, os.RemoveAll(d.dataDir))
		d.say("removed the data folder %s", d.dataDir)
	}
	return errors.Join(errs...)
}

// managerBuild is the build of the manager binary running in the background.
type managerBuild struct {
	done   chan struct{}
	binary string
	err    error
}

// buildManager starts `go build -o <data>/manager ./cmd/manager` in the background. When the
// repository has no ./cmd/manager yet, it says so and the run goes on without a manager.
func (d *dev) buildManager(ctx context.Context, repo string) *managerBuild {
	b := &managerBuild{done: make(chan struct{})}
	if !d.opts.manager {
		d.say("-manager=false: not starting a manager; run your own against the KUBECONFIG printed below")
		close(b.done)
		return b
	}
	if _, err := os.Stat(filepath.Join(repo, "cmd", "manager")); err != nil {
		d.say("./cmd/manager does not exist yet: running without a manager, so nothing will schedule or run the Jobs")
		close(b.done)
		return b
	}
	binary := filepath.Join(d.dataDir, "manager")
	d.say("building ./cmd/manager in the background")
	go func() {
		defer close(b.done)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", binary, "./cmd/manager")
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build ./cmd/manager: %w\n%s", err, out)
			return
		}
		b.binary = binary
	}()
	return b
}

// wait returns the manager binary, empty when there is no ./cmd/manager.
func (b *managerBuild) wait() (string, error) {
	<-b.done
	return b.binary, b.err
}
