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
	"time"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestParse(t *testing.T) {
	cases := map[string]struct {
		in       string
		want     *SchedulerConfiguration
		wantErrs []string
	}{
		"volcano helm default": {
			in: `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
    arguments:
      binpack.weight: 10
      binpack.resources: nvidia.com/gpu
configurations:
- name: allocate
  arguments:
    predicateErrorCacheEnable: true
`,
			want: &SchedulerConfiguration{
				Actions: "enqueue, allocate, backfill",
				Tiers: []Tier{
					{Plugins: []PluginOption{{Name: "priority"}, {Name: "gang", EnabledPreemptable: ptr(false)}, {Name: "conformance"}}},
					{Plugins: []PluginOption{
						{Name: "drf", EnabledPreemptable: ptr(false)}, {Name: "predicates"}, {Name: "proportion"}, {Name: "nodeorder"},
						{Name: "binpack", Arguments: Arguments{"binpack.weight": float64(10), "binpack.resources": "nvidia.com/gpu"}},
					}},
				},
				Configurations: []Configuration{{Name: "allocate", Arguments: Arguments{"predicateErrorCacheEnable": true}}},
			},
		},
		"sla argument": {
			in: "actions: enqueue, allocate\ntiers:\n- plugins:\n  - name: sla\n    arguments:\n      sla-waiting-time: 1h2m3s\n",
			want: &SchedulerConfiguration{
				Actions: "enqueue, allocate",
				Tiers:   []Tier{{Plugins: []PluginOption{{Name: "sla", Arguments: Arguments{"sla-waiting-time": "1h2m3s"}}}}},
			},
		},
		"empty":             {in: "  \n", wantErrs: []string{"the configuration is empty"}},
		"not yaml":          {in: "actions: [\n", wantErrs: []string{"not valid YAML"}},
		"not a mapping":     {in: "- a\n- b\n", wantErrs: []string{"must be a YAML mapping"}},
		"missing actions":   {in: "tiers: []\n", wantErrs: []string{"actions: required"}},
		"actions not text":  {in: "actions: [enqueue]\n", wantErrs: []string{"actions: must be a comma-separated string"}},
		"no action named":   {in: "actions: \" , \"\n", wantErrs: []string{"actions: no action is named"}},
		"unknown top field": {in: "actions: allocate\ntier: []\n", wantErrs: []string{"tier: unknown field"}},
		"typo in switch": {
			in:       "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrdr: false\n",
			wantErrs: []string{"tiers[0].plugins[0].enableJobOrdr: unknown field"},
		},
		"switch not boolean": {
			in:       "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrder: nope\n",
			wantErrs: []string{"tiers[0].plugins[0].enableJobOrder: must be true or false"},
		},
		"plugin without name": {
			in:       "actions: allocate\ntiers:\n- plugins:\n  - arguments: {}\n",
			wantErrs: []string{"tiers[0].plugins[0].name: required"},
		},
		"arguments as list": {
			in:       "actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n    - binpack.weight: 10\n",
			wantErrs: []string{"tiers[0].plugins[0].arguments: must be a mapping of argument names to values (not a list)"},
		},
		"tier without plugins": {
			in:       "actions: allocate\ntiers:\n- {}\n",
			wantErrs: []string{"tiers[0].plugins: required"},
		},
		"several problems at once": {
			in:       "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    bogus: 1\nconfigurations:\n- arguments: {}\n",
			wantErrs: []string{"tiers[0].plugins[0].bogus: unknown field", "configurations[0].name: required"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse([]byte(tc.in))
			if len(tc.wantErrs) > 0 {
				if err == nil {
					t.Fatalf("Parse() = %+v, want an error", got)
				}
				for _, want := range tc.wantErrs {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Parse() error = %q, want it to contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse() error = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultConfigurationParses(t *testing.T) {
	cfg, err := Parse([]byte(DefaultConfiguration))
	if err != nil {
		t.Fatalf("Parse(DefaultConfiguration) error = %v", err)
	}
	if diff := cmp.Diff([]string{"enqueue", "allocate", "preempt", "reclaim", "backfill"}, cfg.ActionNames()); diff != "" {
		t.Errorf("actions mismatch (-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	known := Known{
		Actions: []string{"enqueue", "allocate", "backfill"},
		Plugins: map[string]func(Arguments) error{
			"gang": nil,
			"sla": func(a Arguments) error {
				_, err := a.Duration("sla-waiting-time", 0)
				return err
			},
		},
		ActionArguments: map[string]func(Arguments) error{
			"allocate": func(a Arguments) error { return a.CheckKeys([]string{"predicateErrorCacheEnable"}) },
		},
	}
	cases := map[string]struct {
		cfg      SchedulerConfiguration
		wantErrs []string
	}{
		"valid": {cfg: SchedulerConfiguration{Actions: "enqueue, allocate", Tiers: []Tier{{Plugins: []PluginOption{{Name: "gang"}}}}}},
		"unknown action": {
			cfg:      SchedulerConfiguration{Actions: "enqueue, alocate"},
			wantErrs: []string{`actions: unknown action "alocate"; the actions are enqueue, allocate, backfill`},
		},
		"duplicate action": {
			cfg:      SchedulerConfiguration{Actions: "allocate, allocate"},
			wantErrs: []string{`action "allocate" is listed twice`},
		},
		"unknown plugin": {
			cfg:      SchedulerConfiguration{Actions: "allocate", Tiers: []Tier{{Plugins: []PluginOption{{Name: "gnag"}}}}},
			wantErrs: []string{`tiers[0].plugins[0].name: unknown plugin "gnag"; the plugins are gang, sla`},
		},
		"duplicate plugin": {
			cfg:      SchedulerConfiguration{Actions: "allocate", Tiers: []Tier{{Plugins: []PluginOption{{Name: "gang"}}}, {Plugins: []PluginOption{{Name: "gang"}}}}},
			wantErrs: []string{`tiers[1].plugins[0].name: plugin "gang" is already configured at tiers[0].plugins[0]`},
		},
		"bad plugin argument": {
			cfg:      SchedulerConfiguration{Actions: "allocate", Tiers: []Tier{{Plugins: []PluginOption{{Name: "sla", Arguments: Arguments{"sla-waiting-time": "soon"}}}}}},
			wantErrs: []string{`tiers[0].plugins[0].arguments: sla-waiting-time: must be a duration such as "30m" or "1h2m3s", got "soon"`},
		},
		"bad action argument": {
			cfg:      SchedulerConfiguration{Actions: "allocate", Configurations: []Configuration{{Name: "allocate", Arguments: Arguments{"predicateErrorCache": true}}}},
			wantErrs: []string{"configurations[0].arguments: predicateErrorCache: unknown argument; the arguments are predicateErrorCacheEnable"},
		},
		"configuration of unknown action": {
			cfg:      SchedulerConfiguration{Actions: "allocate", Configurations: []Configuration{{Name: "shuffle"}}},
			wantErrs: []string{`configurations[0].name: unknown action "shuffle"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := Validate(&tc.cfg, known)
			if len(tc.wantErrs) == 0 {
				if err != nil {
					t.Fatalf("Validate() error = %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, want := range tc.wantErrs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Validate() error = %q, want it to contain %q", err, want)
				}
			}
		})
	}
}

func TestArguments(t *testing.T) {
	args := Arguments{
		"int": float64(10), "intString": "7", "float": 1.5, "bool": true, "boolString": "false",
		"duration": "1h2m3s", "string": "nvidia.com/gpu", "notInt": 2.5, "badDuration": "-1s",
	}
	type result struct {
		Int, IntString, Missing int
		Float                   float64
		Bool, BoolString        bool
		Duration                time.Duration
		String                  string
	}
	var got result
	var errs []error
	collect := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	got.Int, err = args.Int("int", 0)
	collect(err)
	got.IntString, err = args.Int("intString", 0)
	collect(err)
	got.Missing, err = args.Int("missing", 3)
	collect(err)
	got.Float, err = args.Float("float", 0)
	collect(err)
	got.Bool, err = args.Bool("bool", false)
	collect(err)
	got.BoolString, err = args.Bool("boolString", true)
	collect(err)
	got.Duration, err = args.Duration("duration", 0)
	collect(err)
	got.String, err = args.String("string", "")
	collect(err)
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	want := result{Int: 10, IntString: 7, Missing: 3, Float: 1.5, Bool: true, BoolString: false, Duration: time.Hour + 2*time.Minute + 3*time.Second, String: "nvidia.com/gpu"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("arguments mismatch (-want +got):\n%s", diff)
	}
	if _, err := args.Int("notInt", 0); err == nil || !strings.Contains(err.Error(), "notInt: must be a whole number") {
		t.Errorf("Int(notInt) error = %v, want a whole-number error", err)
	}
	if _, err := args.Duration("badDuration", 0); err == nil || !strings.Contains(err.Error(), "must be a positive duration") {
		t.Errorf("Duration(badDuration) error = %v, want a positive-duration error", err)
	}
	if err := args.CheckKeys([]string{"int"}, "b"); err == nil || !strings.Contains(err.Error(), "duration: unknown argument") {
		t.Errorf("CheckKeys() error = %v, want duration reported", err)
	}
}
