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
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/yaml"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// The tests of this package run the manager binary, as shipped, against a control plane started
// on first use and stopped when they end.
var (
	binDir string
	fw     *framework.Framework
	fwErr  error
	fwOnce sync.Once
)

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "caldera-manager-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if fw != nil {
		if err := fw.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
		}
	}
	_ = os.RemoveAll(binDir)
	os.Exit(code)
}

// controlPlane starts kube-apiserver and etcd once for the package.
func controlPlane(t testing.TB) *framework.Framework {
	t.Helper()
	fwOnce.Do(func() {
		fw = &framework.Framework{WithoutControllerManager: true}
		fwErr = fw.Start()
	})
	if fwErr != nil {
		t.Fatalf("starting the control plane: %v", fwErr)
	}
	return fw
}

var buildBinary = sync.OnceValues(func() (string, error) {
	return framework.BuildManager(context.Background(), binDir)
})

// managerBinary builds ./cmd/manager once for the package.
func managerBinary(t testing.TB) string {
	t.Helper()
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// adminKubeconfig writes a kubeconfig of the control plane's administrator into dir.
func adminKubeconfig(t testing.TB, f *framework.Framework, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "kubeconfig")
	if err := framework.WriteKubeconfig(f.Config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// startManager runs the binary with args, its log in dir, and stops it when the test ends.
func startManager(t testing.TB, dir string, args ...string) *framework.Process {
	t.Helper()
	cmd := exec.Command(managerBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "POD_NAMESPACE=default")
	p, err := framework.StartProcess("manager", cmd, filepath.Join(dir, "manager.log"), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("manager log:\n%s", p.Tail(40))
		}
		if err := p.Stop(); err != nil {
			t.Errorf("stopping the manager: %v", err)
		}
	})
	return p
}

// namespace creates a namespace named name for the test and deletes it when the test ends.
func namespace(t testing.TB, f *framework.Framework, name string) *corev1.Namespace {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := f.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Client.Delete(context.Background(), ns) })
	return ns
}

// freeAddress returns a loopback address nothing listens on now.
func freeAddress(t testing.TB) string {
	t.Helper()
	addr, err := framework.FreeLoopbackAddress()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// A scheduler configuration that does not load stops the manager at start-up with a message that
// names the line and the plugin, instead of scheduling with Volcano's default configuration.
func TestInvalidSchedulerConfigurationStopsTheManager(t *testing.T) {
	f := controlPlane(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "volcano-scheduler.conf")
	// A plugin Caldera does not implement is left out with a warning; an unknown action is a
	// malformed configuration, which stops the manager at start.
	text := "actions: \"enqueue, alocate, backfill\"\n" +
		"tiers:\n" +
		"- plugins:\n" +
		"  - name: priority\n" +
		"  - name: gang\n" +
		"- plugins:\n" +
		"  - name: binpak\n" +
		"  - name: predicates\n"
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, managerBinary(t),
		"--kubeconfig="+adminKubeconfig(t, f, dir), "--scheduler-conf="+conf,
		"--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the manager ran on with the invalid configuration until the test's deadline; output:\n%s", out)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("the manager ended with %v, want a non-zero exit; output:\n%s", err, out)
	}
	for _, want := range []string{conf, `unknown action "alocate"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// /readyz answers an error (500, as controller-runtime's readiness handler does) until the
// caches have synced and, on the leader, the scheduler has run its first cycle; then 200.
func TestReadyzWaitsForTheCachesAndTheFirstCycle(t *testing.T) {
	var synced, cycled atomic.Bool
	elected := make(chan struct{})
	r := &readiness{
		cacheSynced: func(ctx context.Context) bool {
			if synced.Load() {
				return true
			}
			<-ctx.Done()
			return false
		},
		elected: elected,
		cycled:  cycled.Load,
	}
	srv := httptest.NewServer(http.StripPrefix("/readyz", &healthz.Handler{Checks: map[string]healthz.Checker{
		"caches": r.caches, "scheduler": r.scheduler,
	}}))
	defer srv.Close()
	status := func() int {
		t.Helper()
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"before the caches synced", func() {}, http.StatusInternalServerError},
		{"synced, not leading: the leader schedules", func() { synced.Store(true) }, http.StatusOK},
		{"leading, before the first cycle", func() { close(elected) }, http.StatusInternalServerError},
		{"after the first cycle", func() { cycled.Store(true) }, http.StatusOK},
	}
	for _, s := range steps {
		s.do()
		if got := status(); got != s.want {
			t.Errorf("%s: /readyz = %d, want %d", s.name, got, s.want)
		}
	}
}

// The shipped binary with its default flags answers /readyz 200 only once it has scheduled.
func TestReadyzOfTheBinary(t *testing.T) {
	f := controlPlane(t)
	dir := t.TempDir()
	probe := freeAddress(t)
	p := startManager(t, dir, "--kubeconfig="+adminKubeconfig(t, f, dir), "--leader-election-namespace=default",
		"--metrics-bind-address=0", "--health-probe-bind-address="+probe)
	deadline := time.Now().Add(framework.Timeout)
	for {
		if err := p.Exited(); err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get("http://" + probe + "/readyz?verbose")
		if err == nil {
			body := make([]byte, 4096)
			n, _ := resp.Body.Read(body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				for _, check := range []string{"caches ok", "scheduler ok"} {
					if !strings.Contains(string(body[:n]), check) {
						t.Errorf("/readyz?verbose lacks %q:\n%s", check, body[:n])
					}
				}
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz did not answer 200 within %s (last: %v)", framework.Timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A replica that does not lead yet is ready too (it only stands by): wait for the lease.
	for {
		log, err := os.ReadFile(p.LogPath())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(string(log)), "successfully acquired lease") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the manager did not elect itself leader within %s (--leader-elect defaults to true)", framework.Timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A manager that stops gives up its leader-election lease, so that the replica replacing it (a
// rolling update, a drained node) leads at once instead of waiting out the lease.
func TestStoppedManagerGivesUpItsLease(t *testing.T) {
	f := controlPlane(t)
	ctx := context.Background()
	dir := t.TempDir()
	ns := namespace(t, f, "lease-release")
	p := startManager(t, dir, "--kubeconfig="+adminKubeconfig(t, f, dir), "--leader-election-namespace="+ns.Name,
		"--metrics-bind-address=0", "--health-probe-bind-address=0")
	key := client.ObjectKey{Namespace: ns.Name, Name: controllers.LeaderElectionID}
	holder := func() string {
		t.Helper()
		var lease coordinationv1.Lease
		if err := f.Client.Get(ctx, key, &lease); err != nil {
			if apierrors.IsNotFound(err) {
				return ""
			}
			t.Fatal(err)
		}
		return ptr.Deref(lease.Spec.HolderIdentity, "")
	}
	deadline := time.Now().Add(framework.Timeout)
	for holder() == "" {
		if err := p.Exited(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the manager took no lease %s within %s", key, framework.Timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if h := holder(); h != "" {
		t.Errorf("after the manager stopped, lease %s is still held by %q; want it given up", key, h)
	}
}

// A manager that does not lead still makes the default queue as it starts, so that the leader
// it may become finds the queue in its cache instead of making it before its first cycle.
func TestManagerThatDoesNotLeadMakesTheDefaultQueue(t *testing.T) {
	f := controlPlane(t)
	ctx := context.Background()
	dir := t.TempDir()
	ns := namespace(t, f, "early-default-queue")
	// Another replica holds the lease for the whole test.
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: controllers.LeaderElectionID},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("another-replica"), LeaseDurationSeconds: ptr.To[int32](3600),
			AcquireTime: ptr.To(metav1.NewMicroTime(time.Now())), RenewTime: ptr.To(metav1.NewMicroTime(time.Now()))},
	}
	if err := f.Client.Create(ctx, lease); err != nil {
		t.Fatal(err)
	}
	const queue = "early-default"
	t.Cleanup(func() {
		_ = f.Client.Delete(context.Background(), &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: queue}})
	})
	p := startManager(t, dir, "--kubeconfig="+adminKubeconfig(t, f, dir), "--leader-election-namespace="+ns.Name,
		"--default-queue="+queue, "--metrics-bind-address=0", "--health-probe-bind-address=0")
	deadline := time.Now().Add(framework.Timeout)
	for {
		err := f.Client.Get(ctx, client.ObjectKey{Name: queue}, &schedulingv1beta1.Queue{})
		if err == nil {
			break
		}
		if !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		if err := p.Exited(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the manager made no queue %q within %s", queue, framework.Timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var got coordinationv1.Lease
	if err := f.Client.Get(ctx, client.ObjectKeyFromObject(lease), &got); err != nil {
		t.Fatal(err)
	}
	if h := ptr.Deref(got.Spec.HolderIdentity, ""); h != "another-replica" {
		t.Errorf("lease held by %q; want it still held by another-replica, so that the queue was made by a manager that does not lead", h)
	}
}

// /metrics is served over HTTPS only to tokens allowed to get it: 401 without a token, 403 with
// the token of a ServiceAccount without the metrics-reader role, 200 with one bound to it.
func TestMetricsNeedAnAllowedToken(t *testing.T) {
	f := controlPlane(t)
	ctx := t.Context()
	ns, err := f.CreateNamespace(ctx, "metrics")
	if err != nil {
		t.Fatal(err)
	}
	reader := &rbacv1.ClusterRole{}
	data, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "config", "rbac", "metrics_reader_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, reader); err != nil {
		t.Fatal(err)
	}
	reader.Name = ns.Name + "-metrics-reader"
	objs := []client.Object{
		reader,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "prometheus"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "nobody"}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ns.Name + "-metrics-reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader.Name},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns.Name, Name: "prometheus"}},
		},
	}
	for _, obj := range objs {
		if err := f.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Client.Delete(context.Background(), obj) })
	}
	token := func(sa string) string {
		cfg, err := f.ServiceAccountConfig(ctx, ns.Name, sa, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.BearerToken
	}

	dir := t.TempDir()
	addr := freeAddress(t)
	p := startManager(t, dir, "--kubeconfig="+adminKubeconfig(t, f, dir), "--leader-elect=false",
		"--enable-scheduler=false", "--metrics-bind-address="+addr, "--health-probe-bind-address=0")
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	scrape := func(token string) (int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if err != nil {
			return 0, err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	deadline := time.Now().Add(framework.Timeout)
	for {
		if err := p.Exited(); err != nil {
			t.Fatal(err)
		}
		_, err := scrape("")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no HTTPS metrics endpoint at %s within %s: %v", addr, framework.Timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range []struct {
		name  string
		token string
		want  int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"a token not allowed to get /metrics", token("nobody"), http.StatusForbidden},
		{"a token bound to metrics-reader", token("prometheus"), http.StatusOK},
	} {
		got, err := scrape(c.token)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: GET /metrics = %d, want %d", c.name, got, c.want)
		}
	}
}
