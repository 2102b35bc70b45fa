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

// Package version holds the version Caldera's binaries were built as. `make build`, `make image`
// and the Dockerfile stamp it with the linker:
//
//	-ldflags "-X github.com/caldera-sh/caldera/internal/version.Version=v0.2.0
//	          -X github.com/caldera-sh/caldera/internal/version.GitCommit=<sha>
//	          -X github.com/caldera-sh/caldera/internal/version.BuildDate=2026-03-01T12:00:00Z"
//
// A binary built without them (go build, go run, go install) reports what the Go toolchain
// recorded instead: the module version and the VCS revision and time, when known.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set with -ldflags -X; see the package documentation.
var (
	// Version is the release version, for example v0.2.0, or `git describe` output.
	Version = ""
	// GitCommit is the full commit hash the binary was built from.
	GitCommit = ""
	// BuildDate is the build's source date (the commit time, for reproducible builds), RFC 3339.
	BuildDate = ""
)

// Info is the version of this binary. Unknown fields are empty.
type Info struct {
	Version   string
	GitCommit string
	BuildDate string
	GoVersion string
	Platform  string
}

// Get returns the stamped version, falling back to the build information the Go toolchain
// recorded for fields that were not stamped.
func Get() Info {
	v := Info{
		Version:   Version,
		GitCommit: GitCommit,
		BuildDate: BuildDate,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if v.Version == "" && info.Main.Version != "(devel)" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && v.GitCommit == "":
			v.GitCommit = s.Value
		case s.Key == "vcs.time" && v.BuildDate == "":
			v.BuildDate = s.Value
		}
	}
	return v
}

// String is the version on one line, for logs and --version: for example
// "v0.2.0 (commit 1939636..., built 2026-03-01T12:00:00Z, go1.26.8 linux/amd64)".
func (v Info) String() string {
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	return fmt.Sprintf("%s (commit %s, built %s, %s %s)",
		unknown(v.Version), unknown(v.GitCommit), unknown(v.BuildDate), v.GoVersion, v.Platform)
}

// String is Get().String().
func String() string {
	return Get().String()
}
