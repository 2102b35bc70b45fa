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

package conf

import (
	"errors"
	"strings"
	"testing"
)

// TestWithLines checks that every problem of a configuration names the line it is about and, for
// a plugin, the plugin: what the manager prints when it refuses to start.
func TestWithLines(t *testing.T) {
	known := Known{
		Actions: []string{"enqueue", "allocate", "backfill"},
		Plugins: map[string]func(Arguments) error{
			"gang": nil, "drf": nil,
			"sla": func(a Arguments) error {
				_, err := a.Duration("sla-waiting-time", 0)
				return err
			},
		},
	}
	cases := map[string]struct {
		in   string
		want []string
	}{
		"unknown plugin": {
			in:   "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n- plugins:\n  - name: drf\n  - name: binpak\n",
			want: []string{`line 7: tiers[1].plugins[1].name: unknown plugin "binpak"`},
		},
		"unknown action": {
			in:   "# comment\nactions: \"enqueue, alocate\"\ntiers:\n- plugins:\n  - name: gang\n",
			want: []string{`line 2: actions: unknown action "alocate"`},
		},
		"duplicate plugin": {
			in:   "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n- plugins:\n  - name: gang\n",
			want: []string{`line 6: tiers[1].plugins[0].name: plugin "gang" is already configured at tiers[0].plugins[0]`},
		},
		"bad plugin argument": {
			in:   "actions: allocate\ntiers:\n- plugins:\n  - name: sla\n    arguments:\n      sla-waiting-time: soon\n",
			want: []string{`line 6: tiers[0].plugins[0].arguments: sla-waiting-time: must be a duration`},
		},
		"unknown switch of a plugin": {
			in:   "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrdr: true\n",
			want: []string{`line 5: tiers[0].plugins[0].enableJobOrdr: unknown field`},
		},
		"switch not a boolean": {
			in:   "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: drf\n    enablePreemptable: maybe\n",
			want: []string{`line 6: tiers[0].plugins[1].enablePreemptable: must be true or false`},
		},
		"plugin without a name": {
			in:   "actions: allocate\ntiers:\n- plugins:\n  - enableJobOrder: true\n",
			want: []string{`line 4: tiers[0].plugins[0].name: required`},
		},
		"several problems, each with its line": {
			in: "actions: \"enqueue, shuffle\"\ntiers:\n- plugins:\n  - name: gang\n  - name: nodeordr\n",
			want: []string{
				`line 1: actions: unknown action "shuffle"`,
				`line 5: tiers[0].plugins[1].name: unknown plugin "nodeordr"`,
			},
		},
		"not yaml keeps the parser's line": {
			in:   "actions: allocate\ntiers:\n- plugins: [\n",
			want: []string{"not valid YAML", "line"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, err := Parse([]byte(tc.in))
			if err == nil {
				err = Validate(cfg, known)
			}
			if err == nil {
				t.Fatal("the configuration was accepted, want an error")
			}
			got := WithLines([]byte(tc.in), err).Error()
			for _, want := range tc.want {
				if !strings.Contains(got, want) {
					t.Errorf("WithLines() = %q, want it to contain %q", got, want)
				}
			}
		})
	}
	if WithLines([]byte("actions: allocate\n"), nil) != nil {
		t.Error("WithLines(nil) != nil")
	}
	plain := errors.New("the configuration is empty")
	if got := WithLines([]byte(""), plain); got != plain {
		t.Errorf("WithLines of a text that is no document = %v, want the error unchanged", got)
	}
}
