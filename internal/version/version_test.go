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

package version

import (
	"runtime"
	"testing"
)

func TestString(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	cases := []struct {
		name string
		info Info
		want string
	}{
		{
			name: "stamped",
			info: Info{Version: "v0.2.0", GitCommit: "abc123", BuildDate: "2026-03-01T12:00:00Z", GoVersion: "go1.26.8", Platform: "linux/amd64"},
			want: "v0.2.0 (commit abc123, built 2026-03-01T12:00:00Z, go1.26.8 linux/amd64)",
		},
		{
			name: "unstamped",
			info: Info{GoVersion: "go1.26.8", Platform: "darwin/arm64"},
			want: "unknown (commit unknown, built unknown, go1.26.8 darwin/arm64)",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.info.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}

	t.Run("stamped variables win", func(t *testing.T) {
		defer func(v, c, d string) { Version, GitCommit, BuildDate = v, c, d }(Version, GitCommit, BuildDate)
		Version, GitCommit, BuildDate = "v9.9.9", "deadbeef", "2026-01-02T03:04:05Z"
		want := "v9.9.9 (commit deadbeef, built 2026-01-02T03:04:05Z, " + runtime.Version() + " " + platform + ")"
		if got := String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	})
}
