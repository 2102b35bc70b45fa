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

// Command e2e-volcano is `make e2e-volcano`: it runs Volcano's own end-to-end suites against
// Caldera. build.sh builds the suites (Volcano's code as released, with lower wait constants)
// into the tool cache. For each suite, as Volcano's CI gives each suite its own kind cluster,
// this command brings up a local control plane (etcd, kube-apiserver with Caldera's CRDs,
// kube-controller-manager, kube-scheduler for default-scheduler pods,
// KWOK nodes and the simulated kubelet step) and starts the shipped manager, with its optional
// validating webhook (the counterpart of Volcano's admission webhooks) and Volcano's CI scheduler
// configuration (kept in the ConfigMap the suites edit, volcano-system/integration-scheduler-configmap,
// and written to the manager's --scheduler-conf file whenever it changes, as a kubelet updates a
// mounted ConfigMap). It runs the suite with the specs of skip.txt left out, and at the end
// prints a table.
//
//	go run ./hack/e2e-volcano [-suites jobp,jobseq] [-part all|ci] [-focus regexp] [-nodes 4] [-keep]
//
// It exits 1 when a spec that is not on the skip list fails.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// The suites make e2e-volcano runs, in order, and the ConfigMap their configuration lives in.
var allSuites = []string{"schedulingbase", "jobp", "jobseq", "schedulingaction", "gangevict", "schedulinggates", "vcctl", "hypernode", "cronjob"}

// nodeShape is a suite's KWOK nodes: how many, each one's capacity, and whether each runs the
// pod of a networking DaemonSet, as every node of a kind cluster does.
type nodeShape struct {
	count    int
	capacity corev1.ResourceList
	daemon   bool
}

// kindnetRequests are what kind's kindnet DaemonSet pod requests on every node (kube-proxy, the
// other one, requests nothing): the suites that fill nodes to a level count on it.
var kindnetRequests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("50Mi")}

// suiteNodes are the nodes of suites whose specs name nodes or fill them to a given level, as
// Volcano's CI makes them for the suite: the hypernode suite's three-tier topology is eight
// KWOK nodes kwok-node-0..7 of 8 CPUs and 8Gi (run-e2e-kind.sh, E2E_TYPE=HYPERNODE).
var suiteNodes = map[string]nodeShape{
	"hypernode": {count: 8, capacity: func() corev1.ResourceList {
		c := framework.DefaultNodeCapacity()
		c[corev1.ResourceCPU] = resource.MustParse("8")
		c[corev1.ResourceMemory] = resource.MustParse("8Gi")
		return c
	}(), daemon: true},
}

const (
	configNamespace = "volcano-system"
	configMapName   = "integration-scheduler-configmap"
	configKey       = "volcano-scheduler-ci.conf"
	// ciConfig is Volcano's CI scheduler configuration in the module's tree.
	ciConfig = "installer/helm/chart/volcano/config/volcano-scheduler-ci.conf"
)

type options struct {
	suites []string
	part   string
	focus  string
	nodes  int
	cpus   int
	keep   bool
}

func main() {
	os.Exit(run())
}

func run() int {
	o := &options{}
	suites := flag.String("suites", strings.Join(allSuites, ","), "Comma-separated suites to run.")
	flag.StringVar(&o.part, "part", "all", "all: every spec not on skip.txt; ci: only the specs of ci.txt (what CI runs on every change).")
	flag.StringVar(&o.focus, "focus", "", "Run only the specs whose full text matches this regular expression (Ginkgo's -focus), for working on one spec.")
	flag.IntVar(&o.nodes, "nodes", 4, "Number of KWOK nodes, as Volcano's kind cluster has four workers (the hypernode suite has its own eight, see suiteNodes).")
	flag.IntVar(&o.cpus, "cpus", 4, "CPUs of each KWOK node (with 4Gi of memory per CPU), as a kind node of Volcano's CI shows its runner's 4 CPUs and 16Gi.")
	flag.BoolVar(&o.keep, "keep", false, "Keep the data folder (logs, kubeconfig, reports) at the end.")
	flag.Parse()
	for _, s := range strings.Split(*suites, ",") {
		if !slices.Contains(allSuites, s) {
			fmt.Fprintf(os.Stderr, "e2e-volcano: -suites: unknown suite %q; the suites are %s\n", s, strings.Join(allSuites, ", "))
			return 2
		}
		o.suites = append(o.suites, s)
	}
	if _, err := regexp.Compile(o.focus); err != nil {
		fmt.Fprintf(os.Stderr, "e2e-volcano: -focus: %v\n", err)
		return 2
	}
	if o.nodes < 1 || o.cpus < 1 {
		fmt.Fprintf(os.Stderr, "e2e-volcano: -nodes %d -cpus %d: both must be 1 or more\n", o.nodes, o.cpus)
		return 2
	}
	if o.part != "all" && o.part != "ci" {
		fmt.Fprintf(os.Stderr, "e2e-volcano: -part %q: use all or ci\n", o.part)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	here := filepath.Join(framework.RepoRoot(), "hack", "e2e-volcano")
	skips, err := readList(filepath.Join(here, "skip.txt"), true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-volcano:", err)
		return 2
	}
	last, err := readList(filepath.Join(here, "last.txt"), true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-volcano:", err)
		return 2
	}
	var focus []listEntry
	if o.part == "ci" {
		if focus, err = readList(filepath.Join(here, "ci.txt"), false); err != nil {
			fmt.Fprintln(os.Stderr, "e2e-volcano:", err)
			return 2
		}
		o.suites = slices.DeleteFunc(o.suites, func(s string) bool { return len(forSuite(focus, s)) == 0 })
		if len(o.suites) == 0 {
			say("ci.txt names no spec of the suites asked for: nothing to run")
			return 0
		}
	}

	built, err := build(ctx, here, o.suites)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-volcano:", err)
		return 1
	}
	dataDir, err := os.MkdirTemp("", "caldera-e2e-volcano-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-volcano:", err)
		return 1
	}
	e := &env{opts: o, dataDir: dataDir, src: filepath.Join(built, "src"), bin: filepath.Join(built, "bin")}
	say("data folder %s", dataDir)
	// Client-side logs (envtest, watch retries) go to a file, not between the progress lines.
	clientLog, err := os.Create(filepath.Join(dataDir, "e2e-volcano.log"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-volcano:", err)
		return 1
	}
	defer clientLog.Close()
	logger := zap.New(zap.WriteTo(clientLog))
	ctrllog.SetLogger(logger)
	klog.SetLogger(logger)
	e.last = last
	code := e.run(ctx, skips, focus)
	if err := e.teardown(); err != nil {
		say("teardown: %v", err)
	}
	return code
}

func say(format string, args ...any) {
	fmt.Printf("%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// build runs build.sh for the suites and returns the cache folder it printed.
func build(ctx context.Context, here string, suites []string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(here, "build.sh"))
	cmd.Env = append(os.Environ(), "SUITES="+strings.Join(suites, " "))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("building Volcano's suites (hack/e2e-volcano/build.sh): %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// podStartDelay is how long a bound pod takes to become Running on the KWOK nodes, as a kubelet
// takes a moment to start containers: several suites wait to see a job Pending right after
// creating it, which a pod Running at the instant of its bind does not let them see.
const podStartDelay = time.Second

// kubernetesSpecs are the specs of Kubernetes' e2e framework that the suites link in by importing
// it; Volcano's own CI skips them the same way.
var kubernetesSpecs = regexp.MustCompile(`\[sig-.*\]`)

// env is one run: the control plane, the manager, and the suites' results.
type env struct {
	opts    *options
	dataDir string
	src     string
	bin     string

	managerBinary string
	// last are the specs of last.txt: each suite runs them after its other specs.
	last     []listEntry
	fw       *framework.Framework
	manager  *framework.Process
	stopSync context.CancelFunc
}

func (e *env) run(ctx context.Context, skips, focus []listEntry) int {
	var err error
	// The binaries go in a folder of their own: the suites' folders are named after them (vcctl).
	binDir := filepath.Join(e.dataDir, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		say("%v", err)
		return 1
	}
	if e.managerBinary, err = framework.BuildManager(ctx, binDir); err != nil {
		say("%v", err)
		return 1
	}
	vcctl := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(binDir, "vcctl"), "./cmd/vcctl")
	vcctl.Dir = framework.RepoRoot()
	if out, err := vcctl.CombinedOutput(); err != nil {
		say("go build ./cmd/vcctl: %v\n%s", err, out)
		return 1
	}
	var results []suiteResult
	for _, suite := range e.opts.suites {
		if ctx.Err() != nil {
			break
		}
		r := e.runOnFreshCluster(ctx, suite, forSuite(skips, suite), forSuite(focus, suite))
		if r.err != nil {
			say("%s: %v", suite, r.err)
		}
		results = append(results, r)
	}
	printTable(os.Stdout, results)
	for _, r := range results {
		if r.failed > 0 || r.err != nil {
			return 1
		}
	}
	if ctx.Err() != nil || len(results) < len(e.opts.suites) {
		return 1
	}
	return 0
}

// runOnFreshCluster runs one suite on a control plane of its own, as Volcano's CI gives each
// suite its own kind cluster: the suites leave queues behind (a queue's guarantee then holds
// room in every later spec) and assume a clean cluster.
func (e *env) runOnFreshCluster(ctx context.Context, suite string, skips, focus []listEntry) suiteResult {
	dir := filepath.Join(e.dataDir, suite)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return suiteResult{suite: suite, err: err}
	}
	defer func() {
		if err := e.stopCluster(); err != nil {
			say("%s: stopping its control plane: %v", suite, err)
		}
	}()
	shape, ok := suiteNodes[suite]
	if !ok {
		shape = nodeShape{count: e.opts.nodes, capacity: nodeCapacity(e.opts.cpus)}
	}
	kubeconfig, err := e.startCluster(ctx, dir, shape)
	if err != nil {
		return suiteResult{suite: suite, err: err}
	}
	// The specs of last.txt leave objects behind that change the specs after them; they run in
	// a second pass, after the others, on the same control plane.
	var last []listEntry
	userFocus := regexp.MustCompile(e.opts.focus)
	for _, l := range forSuite(e.last, suite) {
		if !listed(skips, l.spec) && (len(focus) == 0 || listed(focus, l.spec)) && userFocus.MatchString(l.spec) {
			last = append(last, l)
		}
	}
	r, _ := e.runSuite(ctx, suite, "report.json", dir, kubeconfig, append(slices.Clone(skips), last...), focus, last, true)
	if len(last) > 0 && r.err == nil && ctx.Err() == nil {
		second, _ := e.runSuite(ctx, suite, "report-last.json", dir, kubeconfig, skips, last, nil, false)
		r.add(second)
	}
	if exited := e.manager.Exited(); exited != nil && r.err == nil {
		r.err = exited
	}
	return r
}

// startCluster brings up a control plane with KWOK nodes, the ConfigMap of the scheduler
// configuration and the manager, with everything they write in dir, and returns the kubeconfig.
func (e *env) startCluster(ctx context.Context, dir string, nodes nodeShape) (string, error) {
	e.fw = &framework.Framework{KWOK: true, KubeScheduler: true, PodStartDelay: podStartDelay, Dir: dir, Policies: true,
		// Volcano runs its admission webhooks; Caldera's optional validating webhook is their
		// counterpart, served by the manager on the address envtest registers.
		Webhooks: envtest.WebhookInstallOptions{Paths: []string{filepath.Join(framework.RepoRoot(), "config", "webhook")}}}
	if err := e.fw.Start(); err != nil {
		return "", fmt.Errorf("starting the control plane: %w", err)
	}
	names, err := e.fw.CreateNodes(ctx, nodes.count, nodes.capacity)
	if err == nil {
		err = e.fw.WaitForNodesReady(ctx, names...)
	}
	if err == nil && nodes.daemon {
		err = e.daemonPods(ctx, names)
	}
	if err != nil {
		return "", fmt.Errorf("bringing up the KWOK nodes: %w", err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := framework.WriteKubeconfig(e.fw.Config, kubeconfig); err != nil {
		return "", err
	}
	schedulerConf := filepath.Join(dir, "scheduler.conf")
	if err := e.installConfig(ctx, schedulerConf); err != nil {
		return "", err
	}
	syncCtx, stopSync := context.WithCancel(ctx)
	e.stopSync = stopSync
	go e.syncConfig(syncCtx, schedulerConf)
	if err := e.startManager(dir, kubeconfig, schedulerConf); err != nil {
		return "", err
	}
	say("control plane with %d KWOK nodes and the manager (Volcano's CI scheduler configuration) are up; KUBECONFIG=%s", len(names), kubeconfig)
	return kubeconfig, nil
}

// daemonPods puts a kindnet pod (kindnetRequests) on each node, bound by name, as kind's
// DaemonSet does.
func (e *env) daemonPods(ctx context.Context, nodes []string) error {
	for _, n := range nodes {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kindnet-" + n, Labels: map[string]string{"app": "kindnet"}},
			Spec: corev1.PodSpec{NodeName: n, Containers: []corev1.Container{{Name: "kindnet-cni", Image: "docker.io/kindest/kindnetd",
				Resources: corev1.ResourceRequirements{Requests: kindnetRequests}}}}}
		if err := e.fw.Client.Create(ctx, pod); err != nil {
			return fmt.Errorf("creating %s: %w", pod.Name, err)
		}
	}
	return nil
}

// nodeCapacity is a KWOK node of cpus CPUs and 4Gi of memory per CPU. The suites size their
// jobs to the cluster (a job of as many half-CPU pods as fit), so the node size sets how many
// pods a spec makes, and with it how long its clean-up takes: Volcano's own clean-up races the
// namespace controller (it waits for one job's foreground deletion while the namespace's
// deletion removes the next job), a race its CI's small nodes win.
func nodeCapacity(cpus int) corev1.ResourceList {
	capacity := framework.DefaultNodeCapacity()
	capacity[corev1.ResourceCPU] = *resource.NewQuantity(int64(cpus), resource.DecimalSI)
	capacity[corev1.ResourceMemory] = *resource.NewQuantity(int64(cpus)*4<<30, resource.BinarySI)
	return capacity
}

// stopCluster stops the manager and the control plane of the last suite.
func (e *env) stopCluster() error {
	var errs []error
	if e.stopSync != nil {
		e.stopSync()
		e.stopSync = nil
	}
	if e.manager != nil {
		errs = append(errs, e.manager.Stop())
		e.manager = nil
	}
	if e.fw != nil {
		errs = append(errs, e.fw.Stop())
		e.fw = nil
	}
	return errors.Join(errs...)
}

// installConfig creates the ConfigMap the suites edit, with Volcano's CI configuration, and
// writes it to path.
func (e *env) installConfig(ctx context.Context, path string) error {
	conf, err := os.ReadFile(filepath.Join(e.src, ciConfig))
	if err != nil {
		return fmt.Errorf("reading Volcano's CI scheduler configuration: %w", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: configNamespace}}
	if err := e.fw.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", configNamespace, err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: configNamespace, Name: configMapName},
		Data: map[string]string{configKey: string(conf)}}
	if err := e.fw.Client.Create(ctx, cm); err != nil {
		return fmt.Errorf("creating ConfigMap %s/%s: %w", configNamespace, configMapName, err)
	}
	return writeFile(path, conf)
}

// syncConfig writes the ConfigMap's configuration to path whenever it changes, as a kubelet
// refreshes a mounted ConfigMap (here within a second).
func (e *env) syncConfig(ctx context.Context, path string) {
	last := ""
	for ctx.Err() == nil {
		var cm corev1.ConfigMap
		if err := e.fw.Client.Get(ctx, client.ObjectKey{Namespace: configNamespace, Name: configMapName}, &cm); err == nil {
			if data := cm.Data[configKey]; data != last {
				if err := writeFile(path, []byte(data)); err != nil {
					say("writing the scheduler configuration: %v", err)
				}
				last = data
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// writeFile replaces path's content in one rename, so the manager never reads half a file.
func writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// startManager starts the shipped manager, logging into dir.
func (e *env) startManager(dir, kubeconfig, schedulerConf string) error {
	hook := e.fw.Webhooks
	cmd := exec.Command(e.managerBinary, "--kubeconfig", kubeconfig, "--leader-elect=false",
		"--metrics-bind-address=0", "--health-probe-bind-address=0", "--scheduler-conf", schedulerConf,
		"--enable-webhook", "--manage-webhook-certs=false", "--webhook-cert-dir", hook.LocalServingCertDir,
		"--webhook-port", strconv.Itoa(hook.LocalServingPort))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	var err error
	e.manager, err = framework.StartProcess("the manager", cmd, filepath.Join(dir, "manager.log"), false)
	return err
}

func (e *env) teardown() error {
	err := e.stopCluster()
	if e.opts.keep {
		say("kept the data folder %s", e.dataDir)
		return err
	}
	return errors.Join(err, os.RemoveAll(e.dataDir))
}

// suiteResult is one suite's outcome.
type suiteResult struct {
	suite                  string
	passed, failed         int
	listed, skippedBySuite int
	failures               []string
	duration               time.Duration
	err                    error
}

// add counts the results of a second pass of the same suite, which focuses on specs the first
// pass left out: its skipped specs were counted by the first pass.
func (r *suiteResult) add(o suiteResult) {
	r.passed += o.passed
	r.failed += o.failed
	r.failures = append(r.failures, o.failures...)
	r.duration += o.duration
	if r.err == nil {
		r.err = o.err
	}
}

// runSuite runs one suite's binary with the skip list (and, for -part ci, the focus list) and
// reads its JSON report, named reportName in dir. The specs of later (skipped in this pass, run
// in another) are not counted; userFocus adds the -focus flag's expression.
func (e *env) runSuite(ctx context.Context, suite, reportName, dir, kubeconfig string, skips, focus, later []listEntry, userFocus bool) (suiteResult, error) {
	r := suiteResult{suite: suite}
	report := filepath.Join(dir, reportName)
	args := []string{"-test.timeout=0", "-ginkgo.no-color", "-ginkgo.v", "-ginkgo.json-report=" + report,
		"-ginkgo.skip=" + kubernetesSpecs.String()}
	for _, s := range skips {
		args = append(args, "-ginkgo.skip="+s.pattern())
	}
	for _, f := range focus {
		args = append(args, "-ginkgo.focus="+f.pattern())
	}
	if e.opts.focus != "" && userFocus {
		args = append(args, "-ginkgo.focus="+e.opts.focus)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(e.bin, suite+".test"), args...)
	cmd.Dir = filepath.Join(e.src, "test", "e2e", suite)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "VC_BIN="+filepath.Join(e.dataDir, "bin"))
	logPath := filepath.Join(dir, strings.TrimSuffix(strings.Replace(reportName, "report", suite, 1), ".json")+".log")
	log, err := os.Create(logPath)
	if err != nil {
		r.err = err
		return r, err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	say("running Volcano's %s suite (log: %s)", suite, logPath)
	started := time.Now()
	runErr := cmd.Run()
	r.duration = time.Since(started).Round(time.Second)
	data, err := os.ReadFile(report)
	if err != nil {
		r.err = fmt.Errorf("no report (%v): %w", runErr, err)
		return r, r.err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		r.err = fmt.Errorf("reading the report: %w", err)
		return r, r.err
	}
	for _, rep := range reports {
		for _, spec := range rep.SpecReports {
			if spec.LeafNodeType != types.NodeTypeIt {
				if spec.State.Is(types.SpecStateFailureStates) {
					r.failures = append(r.failures, fmt.Sprintf("%s: %s", spec.LeafNodeType, firstLine(spec.Failure.Message)))
					r.failed++
				}
				continue
			}
			name := spec.FullText()
			switch {
			case kubernetesSpecs.MatchString(name), listed(later, name):
				// Kubernetes' own specs, not Volcano's, and those of a later pass: not counted.
			case spec.State == types.SpecStatePassed:
				r.passed++
			case spec.State.Is(types.SpecStateFailureStates):
				r.failed++
				r.failures = append(r.failures, fmt.Sprintf("%s: %s", name, firstLine(spec.Failure.Message)))
			case spec.State == types.SpecStateSkipped && listed(skips, name):
				r.listed++
			default:
				r.skippedBySuite++
			}
		}
	}
	say("%s: %d passed, %d failed in %s", suite, r.passed, r.failed, r.duration)
	return r, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// printTable prints one row per suite, a total, and the failed specs.
func printTable(w *os.File, results []suiteResult) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n| suite | passed | failed | on the skip list | skipped by the suite or not focused | time |\n|---|---|---|---|---|---|\n")
	var total suiteResult
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", r.suite, r.passed, r.failed, r.listed, r.skippedBySuite, r.duration)
		total.passed += r.passed
		total.failed += r.failed
		total.listed += r.listed
		total.skippedBySuite += r.skippedBySuite
		total.duration += r.duration
	}
	fmt.Fprintf(&b, "| **total** | **%d** | **%d** | %d | %d | %s |\n", total.passed, total.failed, total.listed, total.skippedBySuite, total.duration)
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(&b, "\n%s did not finish: %v\n", r.suite, r.err)
		}
		for _, f := range r.failures {
			fmt.Fprintf(&b, "FAILED %s: %s\n", r.suite, f)
		}
	}
	_, _ = w.Write(b.Bytes())
}

// listEntry is one line of skip.txt or ci.txt: a spec of a suite (its full text as Ginkgo
// prints it), and for skip.txt the reason it is not run.
type listEntry struct {
	suite, spec, reason string
}

// pattern is the Ginkgo focus or skip expression matching this spec. Ginkgo matches it against
// the suite's description, a space and the spec's full text, so the spec is anchored at the end
// and after a space.
func (l listEntry) pattern() string {
	return " " + regexp.QuoteMeta(l.spec) + "$"
}

func forSuite(list []listEntry, suite string) []listEntry {
	var out []listEntry
	for _, l := range list {
		if l.suite == suite {
			out = append(out, l)
		}
	}
	return out
}

func listed(list []listEntry, name string) bool {
	return slices.ContainsFunc(list, func(l listEntry) bool { return l.spec == name })
}

// readList reads a list file: lines "suite | spec | reason" (the reason only where withReason),
// with # comments and blank lines ignored.
func readList(path string, withReason bool) ([]listEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []listEntry
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, " | ")
		want := 2
		if withReason {
			want = 3
		}
		if len(fields) != want || fields[0] == "" || fields[1] == "" || (withReason && fields[2] == "") {
			return nil, fmt.Errorf("%s:%d: want %d fields separated by \" | \" (suite | spec%s), got %q", path, n, want, map[bool]string{true: " | reason"}[withReason], line)
		}
		if !slices.Contains(allSuites, fields[0]) {
			return nil, fmt.Errorf("%s:%d: unknown suite %q", path, n, fields[0])
		}
		e := listEntry{suite: fields[0], spec: fields[1]}
		if withReason {
			e.reason = fields[2]
		}
		out = append(out, e)
	}
	return out, scanner.Err()
}
