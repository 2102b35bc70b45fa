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
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInvocationName(t *testing.T) {
	cases := map[string]string{
		"vcctl":                           "vcctl",
		"/usr/local/bin/vcctl":            "vcctl",
		"./bin/kubectl-vc":                "kubectl vc",
		"/home/u/.krew/bin/kubectl-vc":    "kubectl vc",
		`C:\krew\bin\kubectl-vc.exe`:      "kubectl vc",
		"kubectl-volcano_ctl":             "kubectl volcano-ctl",
		"kubectl-":                        "vcctl",
		"/tmp/go-build123/exe/vcctl-test": "vcctl",
	}
	for arg0, want := range cases {
		if got := InvocationName(strings.ReplaceAll(arg0, `\`, "/")); got != want {
			t.Errorf("InvocationName(%q) = %q, want %q", arg0, got, want)
		}
	}
}

// TestPluginHelp checks that help, usage and flag errors name `kubectl vc` when vcctl runs as
// the kubectl plugin.
func TestPluginHelp(t *testing.T) {
	var out bytes.Buffer
	root := NewRootCommand(Options{Name: "kubectl vc", Out: &out, ErrOut: &out})
	root.SetArgs([]string{"job", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  kubectl vc job [command]", "  why         Say in plain words why a job is not running or not finished",
		`Use "kubectl vc job [command] --help" for more information about a command.`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}

	root = NewRootCommand(Options{Name: "kubectl vc", Out: &out, ErrOut: &out})
	root.SetArgs([]string{"job", "list", "-x"})
	want := "unknown shorthand flag: 'x' in -x: see `kubectl vc job list --help` for the flags"
	if diff := cmp.Diff(want, errText(root.Execute())); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}
