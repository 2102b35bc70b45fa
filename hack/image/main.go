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

// Command image builds Caldera's container image without a container daemon (`make image`):
// a static manager binary on an empty base, with CA certificates and a non-root user, written as
// an OCI image layout (all platforms in one index) and as one docker-loadable tarball per
// platform; and vcctl as a tar.gz archive per platform. Everything it needs comes from the Go
// module proxy: the binaries are cross-compiled with the local Go toolchain, the CA bundle is
// golang.org/x/crypto/x509roots/fallback's copy of Mozilla's trust store.
//
// The output is reproducible: every timestamp is the source date (--source-date-epoch, the commit
// time in `make image`), so the same commit built with the same Go toolchain gives the same
// digests.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// NonRoot is the user and group the manager runs as, the same as distroless's nonroot.
const NonRoot = 65532

// Paths inside the image.
const (
	ManagerPath = "/manager"
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
)

// Options say what to build.
type Options struct {
	// Image is the name and tag of the manager image, for example ghcr.io/caldera-sh/caldera:0.1.0
	// (the Makefile's IMG).
	Image string
	// Version, Commit and Created are stamped into the image's labels. Created is also the time of
	// every file and of the image config, so that the build is reproducible.
	Version string
	Commit  string
	Created time.Time
	// Source is the repository URL for org.opencontainers.image.source.
	Source string
	// Platforms are os/arch pairs such as linux/amd64.
	Platforms []string
	// LDFlags are passed to go build (the Makefile's LDFLAGS, which stamp internal/version).
	LDFlags string
	// RepoRoot is the folder holding the main module; go build runs there.
	RepoRoot string
	// OutDir receives everything: bin/image in `make image`.
	OutDir string
	// VCCTL also builds vcctl archives.
	VCCTL bool
	// Log receives progress lines; nil means none.
	Log io.Writer
}

// Result says what Build wrote.
type Result struct {
	// Layout is the OCI image layout folder; its index.json names one image index (all platforms).
	Layout string
	// Index is the digest of that image index: the digest to deploy by.
	Index v1.Hash
	// Images are the per-platform images, by platform (os/arch).
	Images map[string]v1.Image
	// Tarballs are the docker-loadable tarballs (docker load, kind load image-archive), by platform.
	Tarballs map[string]string
	// Archives are vcctl's tar.gz archives, by platform.
	Archives map[string]string
	// Binaries are the compiled binaries, by platform then name (manager, vcctl).
	Binaries map[string]map[string]string
}

func main() {
	o := Options{Log: os.Stdout}
	var platforms, epoch string
	flag.StringVar(&o.Image, "image", "", "Image name and tag, for example ghcr.io/caldera-sh/caldera:0.1.0 (required).")
	flag.StringVar(&o.Version, "version", "0.0.0-dev", "Version for the org.opencontainers.image.version label.")
	flag.StringVar(&o.Commit, "commit", "", "Commit for the org.opencontainers.image.revision label.")
	flag.StringVar(&epoch, "source-date-epoch", os.Getenv("SOURCE_DATE_EPOCH"), "Unix time of every timestamp in the image (default $SOURCE_DATE_EPOCH, else 0).")
	flag.StringVar(&o.Source, "source", "https://github.com/caldera-sh/caldera", "Repository URL for the org.opencontainers.image.source label.")
	flag.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "Comma-separated os/arch platforms to build.")
	flag.StringVar(&o.LDFlags, "ldflags", "", "Flags for the Go linker (-ldflags).")
	flag.StringVar(&o.RepoRoot, "repo-root", ".", "Folder of the main module.")
	flag.StringVar(&o.OutDir, "out", "bin/image", "Output folder.")
	flag.BoolVar(&o.VCCTL, "vcctl", true, "Also build vcctl archives.")
	flag.Parse()

	if err := func() error {
		secs, err := parseEpoch(epoch)
		if err != nil {
			return err
		}
		o.Created = time.Unix(secs, 0).UTC()
		o.Platforms = splitList(platforms)
		start := time.Now()
		res, err := Build(context.Background(), o)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Log, "built %s (index %s) in %s\n", o.Image, res.Index, time.Since(start).Round(100*time.Millisecond))
		return nil
	}(); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func parseEpoch(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	secs, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--source-date-epoch %q is not a Unix time: %w", s, err)
	}
	return secs, nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// Build compiles the binaries for every platform and writes the image and archives.
func Build(ctx context.Context, o Options) (*Result, error) {
	if len(o.Platforms) == 0 {
		return nil, errors.New("no platform to build")
	}
	binaries := map[string]map[string]string{}
	for _, platform := range o.Platforms {
		bins, err := compile(ctx, o, platform)
		if err != nil {
			return nil, err
		}
		binaries[platform] = bins
	}
	res, err := Assemble(o, binaries)
	if err != nil {
		return nil, err
	}
	res.Binaries = binaries
	return res, nil
}

// compile builds static binaries for one platform into OutDir/bin/<os>-<arch>/.
func compile(ctx context.Context, o Options, platform string) (map[string]string, error) {
	goos, goarch, ok := strings.Cut(platform, "/")
	if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
		return nil, fmt.Errorf("platform %q is not os/arch, for example linux/amd64", platform)
	}
	dir, err := filepath.Abs(filepath.Join(o.OutDir, "bin", goos+"-"+goarch))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pkgs := []string{"./cmd/manager"}
	if o.VCCTL {
		pkgs = append(pkgs, "./cmd/vcctl")
	}
	args := append([]string{"build", "-trimpath", "-ldflags", o.LDFlags, "-o", dir + string(filepath.Separator)}, pkgs...)
	o.logf("go %s (GOOS=%s GOARCH=%s CGO_ENABLED=0)", strings.Join(args, " "), goos, goarch)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = o.RepoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building for %s: %w", platform, err)
	}
	bins := map[string]string{}
	for _, pkg := range pkgs {
		bins[filepath.Base(pkg)] = filepath.Join(dir, filepath.Base(pkg))
	}
	return bins, nil
}

// Assemble writes the image layout, the tarballs and the vcctl archives from already compiled
// binaries (by platform, then manager and vcctl).
func Assemble(o Options, binaries map[string]map[string]string) (*Result, error) {
	tag, err := name.NewTag(o.Image, name.StrictValidation)
	if err != nil {
		return nil, fmt.Errorf("image %q must be a repository and a tag, such as ghcr.io/caldera-sh/caldera:0.1.0: %w", o.Image, err)
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, err
	}
	// Leave no tarball or archive of an earlier build for other platforms beside this one's.
	for _, pattern := range []string{"manager-*.tar", "vcctl-*.tar.gz"} {
		stale, err := filepath.Glob(filepath.Join(o.OutDir, pattern))
		if err != nil {
			return nil, err
		}
		for _, path := range stale {
			if err := os.Remove(path); err != nil {
				return nil, err
			}
		}
	}
	certs, err := caBundle()
	if err != nil {
		return nil, err
	}
	res := &Result{
		Layout:   filepath.Join(o.OutDir, "oci"),
		Images:   map[string]v1.Image{},
		Tarballs: map[string]string{},
		Archives: map[string]string{},
	}

	refs := []name.Reference{tag}
	if vt := versionTag(tag, o.Version); vt != nil {
		refs = append(refs, vt)
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, platform := range o.Platforms {
		goos, goarch, _ := strings.Cut(platform, "/")
		manager, ok := binaries[platform]["manager"]
		if !ok {
			return nil, fmt.Errorf("no manager binary for %s", platform)
		}
		img, err := managerImage(o, goos, goarch, manager, certs)
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", platform, err)
		}
		res.Images[platform] = img
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: goos, Architecture: goarch}},
		})

		path := filepath.Join(o.OutDir, fmt.Sprintf("manager-%s-%s.tar", goos, goarch))
		byRef := map[name.Reference]v1.Image{}
		for _, ref := range refs {
			byRef[ref] = img
		}
		if err := tarball.MultiRefWriteToFile(path, byRef); err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		res.Tarballs[platform] = path
		o.logf("wrote %s", path)

		if vcctl, ok := binaries[platform]["vcctl"]; ok && o.VCCTL {
			path := filepath.Join(o.OutDir, fmt.Sprintf("vcctl-%s-%s.tar.gz", goos, goarch))
			if err := writeArchive(path, vcctl, o.Created); err != nil {
				return nil, err
			}
			res.Archives[platform] = path
			o.logf("wrote %s", path)
		}
	}
	idx = mutate.Annotations(idx, annotations(o)).(v1.ImageIndex)
	if res.Index, err = idx.Digest(); err != nil {
		return nil, err
	}

	if err := os.RemoveAll(res.Layout); err != nil {
		return nil, err
	}
	lp, err := layout.Write(res.Layout, empty.Index)
	if err != nil {
		return nil, fmt.Errorf("writing the OCI layout: %w", err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		// The tag, as skopeo and the OCI image-layout spec name it (oci:bin/image/oci:<tag>) ...
		"org.opencontainers.image.ref.name": tag.TagStr(),
		// ... and the full name, as containerd's import names it.
		"io.containerd.image.name": tag.Name(),
	})); err != nil {
		return nil, fmt.Errorf("writing the OCI layout: %w", err)
	}
	o.logf("wrote %s (index %s)", res.Layout, res.Index)

	if err := writeChecksums(o.OutDir, res); err != nil {
		return nil, err
	}
	return res, nil
}

// versionTag is the image's repository tagged with the version, when that is a valid tag other
// than the image's own: a development build is then also tagged with its `git describe`.
func versionTag(tag name.Tag, version string) name.Reference {
	t := regexp.MustCompile(`[^A-Za-z0-9_.-]`).ReplaceAllString(version, "-")
	if t == "" || t == tag.TagStr() || len(t) > 128 || strings.HasPrefix(t, ".") || strings.HasPrefix(t, "-") {
		return nil
	}
	vt, err := name.NewTag(tag.Repository.Name()+":"+t, name.StrictValidation)
	if err != nil {
		return nil
	}
	return vt
}

// annotations are the image's OCI labels, also its manifests' and index's annotations.
func annotations(o Options) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "caldera",
		"org.opencontainers.image.description": "Caldera: a GitOps-native, Volcano-compatible batch operator and gang/queue scheduler",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Commit,
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.url":         o.Source,
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.created":     o.Created.UTC().Format(time.RFC3339),
	}
}

// managerImage is the manager's image for one platform: one layer on an empty base.
func managerImage(o Options, goos, goarch, manager string, certs []byte) (v1.Image, error) {
	bin, err := os.ReadFile(manager)
	if err != nil {
		return nil, err
	}
	layer, err := rootfsLayer(o.Created, []file{{path: ManagerPath, mode: 0o755, data: bin}}, certs)
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: o.Created}
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: goarch,
		OS:           goos,
		Created:      created,
		Config: v1.Config{
			Entrypoint: []string{ManagerPath},
			User:       fmt.Sprintf("%d:%d", NonRoot, NonRoot),
			WorkingDir: "/",
			Env: []string{
				"PATH=/usr/local/bin:/usr/bin:/bin",
				"SSL_CERT_FILE=" + CACertsPath,
			},
			Labels: annotations(o),
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   created,
			CreatedBy: "hack/image: " + ManagerPath + ", CA certificates, nonroot user",
		},
	})
	if err != nil {
		return nil, err
	}
	img = mutate.MediaType(img, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	return mutate.Annotations(img, annotations(o)).(v1.Image), nil
}

type file struct {
	path string
	mode int64
	uid  int
	dir  bool
	data []byte
}

// baseFiles is what distroless/static gives a static binary: CA certificates, the nonroot user
// (65532) and root, a home for nonroot, a writable /tmp and the resolver configuration.
func baseFiles(certs []byte) []file {
	return []file{
		{path: "/etc", mode: 0o755, dir: true},
		{path: "/etc/group", mode: 0o644, data: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n")},
		{path: "/etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{path: "/etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{path: "/etc/ssl", mode: 0o755, dir: true},
		{path: "/etc/ssl/certs", mode: 0o755, dir: true},
		{path: CACertsPath, mode: 0o644, data: certs},
		{path: "/home", mode: 0o755, dir: true},
		{path: "/home/nonroot", mode: 0o700, uid: NonRoot, dir: true},
		{path: "/root", mode: 0o700, dir: true},
		{path: "/tmp", mode: 0o1777, dir: true},
	}
}

// rootfsLayer is a gzip-compressed layer of the base files and extra files, every entry with
// the time created, sorted by path: the same input gives the same bytes.
func rootfsLayer(created time.Time, extra []file, certs []byte) (v1.Layer, error) {
	files := append(baseFiles(certs), extra...)
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.path, b.path) })
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, f := range files {
		hdr := &tar.Header{
			Name:    strings.TrimPrefix(f.path, "/"),
			Mode:    f.mode,
			Uid:     f.uid,
			Gid:     f.uid,
			ModTime: created,
		}
		if f.dir {
			hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	var compressed bytes.Buffer
	zw := gzip.NewWriter(&compressed) // a zero header: no name, no time
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	data := compressed.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// caBundle is Mozilla's trust store as PEM, from golang.org/x/crypto/x509roots/fallback: the
// same on every machine. Roots that carry a constraint PEM cannot express (a distrust-after
// date) are left out rather than trusted without it.
func caBundle() ([]byte, error) {
	var out bytes.Buffer
	n := 0
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		if err := pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate}); err != nil {
			return nil, err
		}
		n++
	}
	if n == 0 {
		return nil, errors.New("the CA bundle is empty")
	}
	return out.Bytes(), nil
}

// writeArchive writes a tar.gz holding vcctl alone, with a fixed time.
func writeArchive(path, binary string, created time.Time) error {
	data, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: "vcctl", Mode: 0o755, Size: int64(len(data)), ModTime: created, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeChecksums writes SHA256SUMS for the tarballs and archives, in sha256sum's format.
func writeChecksums(dir string, res *Result) error {
	var paths []string
	for _, p := range res.Tarballs {
		paths = append(paths, p)
	}
	for _, p := range res.Archives {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out strings.Builder
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&out, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), filepath.Base(p))
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(out.String()), 0o644)
}
