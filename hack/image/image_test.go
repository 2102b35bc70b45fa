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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

const (
	testImage   = "ghcr.io/caldera-sh/caldera:imagetest"
	testVersion = "v0.0.0-imagetest"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
)

var testCreated = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testLDFlags are the Makefile's LDFLAGS for the test's version.
func testLDFlags() string {
	const pkg = "github.com/caldera-sh/caldera/internal/version"
	return fmt.Sprintf("-s -w -X %s.Version=%s -X %s.GitCommit=%s -X %s.BuildDate=%s",
		pkg, testVersion, pkg, testCommit, pkg, testCreated.Format(time.RFC3339))
}

// TestImage builds the image as make image does (for this machine's architecture only), opens it
// with go-containerregistry, checks what a container runtime reads from it, and runs the manager
// taken out of its layer against a real control plane.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the manager and starts a control plane")
	}
	if runtime.GOOS != "linux" {
		t.Skip("runs the linux binary it builds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	platform := "linux/" + runtime.GOARCH
	o := Options{
		Image:     testImage,
		Version:   testVersion,
		Commit:    testCommit,
		Created:   testCreated,
		Source:    "https://github.com/caldera-sh/caldera",
		Platforms: []string{platform},
		LDFlags:   testLDFlags(),
		RepoRoot:  framework.RepoRoot(),
		OutDir:    t.TempDir(),
		VCCTL:     true,
		Log:       testLog{t},
	}
	start := time.Now()
	res, err := Build(ctx, o)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	t.Logf("built in %s", time.Since(start).Round(time.Millisecond))

	img := imageFromLayout(t, res, platform)
	checkImage(t, img)
	manager := checkLayer(t, img)
	checkTarball(t, res.Tarballs[platform], img)

	t.Run("reproducible", func(t *testing.T) {
		again := o
		again.OutDir, again.Log = t.TempDir(), nil
		res2, err := Assemble(again, res.Binaries)
		if err != nil {
			t.Fatalf("Assemble: %v", err)
		}
		if res2.Index != res.Index {
			t.Errorf("the same binaries gave index %s, then %s", res.Index, res2.Index)
		}
	})

	t.Run("manager --version", func(t *testing.T) {
		out, err := exec.CommandContext(ctx, manager, "--version").CombinedOutput()
		if err != nil {
			t.Fatalf("manager --version: %v\n%s", err, out)
		}
		want := fmt.Sprintf("%s (commit %s, built %s, %s %s)\n", testVersion, testCommit, testCreated.Format(time.RFC3339), runtime.Version(), platform)
		if string(out) != want {
			t.Errorf("manager --version printed %q, want %q", out, want)
		}
	})

	t.Run("vcctl archive", func(t *testing.T) {
		vcctl := extractArchive(t, res.Archives[platform])
		out, err := exec.CommandContext(ctx, vcctl, "version").CombinedOutput()
		if err != nil {
			t.Fatalf("vcctl version: %v\n%s", err, out)
		}
		for _, want := range []string{"Version:      " + testVersion, "Git SHA:      " + testCommit} {
			if !strings.Contains(string(out), want) {
				t.Errorf("vcctl version printed\n%s\nwithout %q", out, want)
			}
		}
	})

	t.Run("manager against a control plane", func(t *testing.T) {
		runManager(ctx, t, manager)
	})
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// imageFromLayout opens the OCI layout as a registry client would read it: the top index names
// the image by its tag, and holds one index of per-platform images.
func imageFromLayout(t *testing.T, res *Result, platform string) v1.Image {
	t.Helper()
	lp, err := layout.FromPath(res.Layout)
	if err != nil {
		t.Fatalf("opening the layout: %v", err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatalf("reading index.json: %v", err)
	}
	topManifest, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(topManifest.Manifests) != 1 {
		t.Fatalf("index.json has %d entries, want 1", len(topManifest.Manifests))
	}
	entry := topManifest.Manifests[0]
	if got := entry.Annotations["org.opencontainers.image.ref.name"]; got != "imagetest" {
		t.Errorf("index.json names the image %q, want the tag imagetest", got)
	}
	if got := entry.Annotations["io.containerd.image.name"]; got != testImage {
		t.Errorf("index.json gives containerd the name %q, want %q", got, testImage)
	}
	if entry.MediaType != types.OCIImageIndex || entry.Digest != res.Index {
		t.Errorf("index.json points at %s %s, want %s %s", entry.MediaType, entry.Digest, types.OCIImageIndex, res.Index)
	}
	idx, err := top.ImageIndex(entry.Digest)
	if err != nil {
		t.Fatal(err)
	}
	idxManifest, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if got := idxManifest.Annotations["org.opencontainers.image.version"]; got != testVersion {
		t.Errorf("the index's version annotation is %q, want %q", got, testVersion)
	}
	var platforms []string
	var found *v1.Descriptor
	for i, d := range idxManifest.Manifests {
		if d.Platform == nil {
			t.Fatalf("manifest %s has no platform", d.Digest)
		}
		platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture)
		if d.Platform.OS+"/"+d.Platform.Architecture == platform {
			found = &idxManifest.Manifests[i]
		}
	}
	if found == nil {
		t.Fatalf("the index holds %v, not %s", platforms, platform)
	}
	img, err := idx.Image(found.Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// checkImage checks the config a container runtime reads: entrypoint, user, labels.
func checkImage(t *testing.T, img v1.Image) {
	t.Helper()
	mt, err := img.MediaType()
	if err != nil || mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s (%v), want %s", mt, err, types.OCIManifestSchema1)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s, want linux/%s", cf.OS, cf.Architecture, runtime.GOARCH)
	}
	if !cf.Created.Time.Equal(testCreated) {
		t.Errorf("created %s, want %s", cf.Created.Time, testCreated)
	}
	c := cf.Config
	if diff := cmp.Diff([]string{"/manager"}, c.Entrypoint); diff != "" {
		t.Errorf("entrypoint (-want +got):\n%s", diff)
	}
	if len(c.Cmd) != 0 {
		t.Errorf("cmd %v, want none", c.Cmd)
	}
	if c.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532", c.User)
	}
	if c.WorkingDir != "/" {
		t.Errorf("working dir %q, want /", c.WorkingDir)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.title":       "caldera",
		"org.opencontainers.image.description": "Caldera: a GitOps-native, Volcano-compatible batch operator and gang/queue scheduler",
		"org.opencontainers.image.version":     testVersion,
		"org.opencontainers.image.revision":    testCommit,
		"org.opencontainers.image.source":      "https://github.com/caldera-sh/caldera",
		"org.opencontainers.image.url":         "https://github.com/caldera-sh/caldera",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.created":     "2026-03-01T12:00:00Z",
	}
	if diff := cmp.Diff(wantLabels, c.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantLabels, m.Annotations); diff != "" {
		t.Errorf("manifest annotations (-want +got):\n%s", diff)
	}
}

// checkLayer checks the one layer's files and returns the manager taken out of it.
func checkLayer(t *testing.T, img v1.Image) string {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	if mt, _ := layers[0].MediaType(); mt != types.OCILayer {
		t.Errorf("layer media type %s, want %s", mt, types.OCILayer)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	type entry struct {
		hdr  *tar.Header
		data []byte
	}
	files := map[string]entry{}
	var names []string
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the layer: %v", err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if !hdr.ModTime.Equal(testCreated) {
			t.Errorf("%s has time %s, want %s", hdr.Name, hdr.ModTime, testCreated)
		}
		names = append(names, hdr.Name)
		files[hdr.Name] = entry{hdr, data}
	}
	wantNames := []string{"etc/", "etc/group", "etc/nsswitch.conf", "etc/passwd", "etc/ssl/", "etc/ssl/certs/",
		"etc/ssl/certs/ca-certificates.crt", "home/", "home/nonroot/", "manager", "root/", "tmp/"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("layer entries (-want +got):\n%s", diff)
	}

	mgr := files["manager"]
	if mgr.hdr == nil || mgr.hdr.Typeflag != tar.TypeReg || mgr.hdr.Mode != 0o755 || len(mgr.data) == 0 {
		t.Fatalf("the layer has no executable manager: %+v", mgr.hdr)
	}
	if !bytes.HasPrefix(mgr.data, []byte("\x7fELF")) {
		t.Errorf("manager is not an ELF binary")
	}
	if passwd := string(files["etc/passwd"].data); !strings.Contains(passwd, "\nnonroot:x:65532:65532:nonroot:/home/nonroot:") {
		t.Errorf("etc/passwd has no nonroot user 65532:\n%s", passwd)
	}
	if group := string(files["etc/group"].data); !strings.Contains(group, "\nnonroot:x:65532:") {
		t.Errorf("etc/group has no nonroot group 65532:\n%s", group)
	}
	if home := files["home/nonroot/"].hdr; home == nil || home.Uid != NonRoot || home.Gid != NonRoot {
		t.Errorf("home/nonroot/ is not owned by 65532: %+v", home)
	}
	if tmp := files["tmp/"].hdr; tmp == nil || tmp.Mode != 0o1777 {
		t.Errorf("tmp/ is not world-writable and sticky: %+v", tmp)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(files["etc/ssl/certs/ca-certificates.crt"].data) {
		t.Errorf("the CA bundle holds no certificate")
	}
	if n := bytes.Count(files["etc/ssl/certs/ca-certificates.crt"].data, []byte("-----BEGIN CERTIFICATE-----")); n < 100 {
		t.Errorf("the CA bundle holds %d certificates, want Mozilla's (over 100)", n)
	}

	path := filepath.Join(t.TempDir(), "manager")
	if err := os.WriteFile(path, mgr.data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkTarball opens the docker tarball as docker load would: it holds the same image under the
// image's tag and the version's.
func checkTarball(t *testing.T, path string, want v1.Image) {
	t.Helper()
	for _, ref := range []string{testImage, "ghcr.io/caldera-sh/caldera:" + testVersion} {
		tag, err := name.NewTag(ref)
		if err != nil {
			t.Fatal(err)
		}
		img, err := tarball.ImageFromPath(path, &tag)
		if err != nil {
			t.Errorf("the tarball has no image %s: %v", ref, err)
			continue
		}
		got, err := img.ConfigName()
		if err != nil {
			t.Fatal(err)
		}
		wantConfig, err := want.ConfigName()
		if err != nil {
			t.Fatal(err)
		}
		if got != wantConfig {
			t.Errorf("the tarball's %s has config %s, the layout's %s", ref, got, wantConfig)
		}
	}
}

// extractArchive returns vcctl taken out of its tar.gz archive, which must hold it alone.
func extractArchive(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	hdr, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Name != "vcctl" || hdr.Mode != 0o755 {
		t.Fatalf("the archive starts with %s mode %o, want vcctl mode 755", hdr.Name, hdr.Mode)
	}
	out := filepath.Join(t.TempDir(), "vcctl")
	data, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("the archive holds more than vcctl")
	}
	return out
}

// runManager runs the manager binary against a fresh control plane, waits until it is ready and
// its scheduler has created the default Queue, then stops it with SIGTERM as the kubelet would.
func runManager(ctx context.Context, t *testing.T, manager string) {
	ctrllog.SetLogger(logr.Discard()) // envtest's own logs
	fw := &framework.Framework{}
	if err := fw.Start(); err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := fw.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := framework.WriteKubeconfig(fw.Config, kubeconfig); err != nil {
		t.Fatal(err)
	}
	probeAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	logPath := filepath.Join(dir, "manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(manager, "--kubeconfig="+kubeconfig, "--leader-elect=false", "--metrics-bind-address=0",
		"--health-probe-bind-address="+probeAddr, "--webhook-cert-dir="+filepath.Join(dir, "certs"))
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = framework.ChildProcAttr()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the manager: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			t.Logf("manager killed after the test: %v", <-exited)
		}
		if t.Failed() {
			log, _ := os.ReadFile(logPath)
			t.Logf("manager log:\n%s", log)
		}
	}()

	deadline := time.Now().Add(framework.LongTimeout)
	waitFor := func(what string, cond func() error) {
		t.Helper()
		for {
			select {
			case err := <-exited:
				stopped = true
				t.Fatalf("the manager exited (%v) before %s", err, what)
			default:
			}
			err := cond()
			if err == nil {
				return
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				t.Fatalf("%s: %v", what, err)
			}
			time.Sleep(framework.Interval)
		}
	}
	waitFor("/readyz answers 200", func() error {
		resp, err := http.Get("http://" + probeAddr + "/readyz")
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
	waitFor("the default Queue exists", func() error {
		return fw.Client.Get(ctx, client.ObjectKey{Name: "default"}, &schedulingv1beta1.Queue{})
	})

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("the manager exited with %v after SIGTERM, want 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("the manager did not exit within 30s of SIGTERM")
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(strings.Split(string(log), "\n"), func(line string) bool {
		return strings.Contains(line, "Caldera manager") && strings.Contains(line, testVersion)
	}) {
		t.Errorf("the manager did not log its version %s on start", testVersion)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
