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

package cli

import (
	"io"

	"github.com/spf13/cobra"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/version"
)

// versionInfo is what `vcctl version` prints.
type versionInfo struct {
	apiVersion string
	version    string
	commit     string
	buildTime  string
	goVersion  string
	platform   string
}

// currentVersion reads the version of this binary: what `make build` stamped into
// internal/version, or what the Go toolchain recorded.
func currentVersion() versionInfo {
	v := version.Get()
	return versionInfo{
		apiVersion: batchv1alpha1.GroupVersion.Version,
		version:    v.Version,
		commit:     v.GitCommit,
		buildTime:  v.BuildDate,
		goVersion:  v.GoVersion,
		platform:   v.Platform,
	}
}

// formatVersion renders `vcctl version`; unknown values show as <unknown>.
func formatVersion(v versionInfo) string {
	unknown := func(s string) string {
		if s == "" || s == "(devel)" {
			return "<unknown>"
		}
		return s
	}
	return formatFields("", []field{
		{"API Version", v.apiVersion},
		{"Version", unknown(v.version)},
		{"Git SHA", unknown(v.commit)},
		{"Built At", unknown(v.buildTime)},
		{"Go Version", v.goVersion},
		{"Go OS/Arch", v.platform},
	})
}

func newVersionCommand(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of vcctl",
		Args:  noArgs("version takes no arguments"),
		RunE: func(*cobra.Command, []string) error {
			_, err := io.WriteString(e.Out, formatVersion(currentVersion()))
			return err
		},
	}
}
