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

package overcommit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

func TestFits(t *testing.T) {
	total := api.Resource{MilliCPU: 10000, Memory: 100}
	type result struct {
		Fits bool
		Dim  corev1.ResourceName
	}
	cases := map[string]struct {
		min, inqueue, used api.Resource
		factor             float64
		want               result
	}{
		"fits in an idle cluster":          {min: api.Resource{MilliCPU: 12000}, factor: 1.2, want: result{Fits: true}},
		"beyond the overcommitted cluster": {min: api.Resource{MilliCPU: 12001}, factor: 1.2, want: result{Dim: corev1.ResourceCPU}},
		"used and admitted count":          {min: api.Resource{MilliCPU: 4000}, used: api.Resource{MilliCPU: 5000}, inqueue: api.Resource{MilliCPU: 3001}, factor: 1.2, want: result{Dim: corev1.ResourceCPU}},
		"memory checked as well":           {min: api.Resource{MilliCPU: 1, Memory: 101}, factor: 1.0, want: result{Dim: corev1.ResourceMemory}},
		"resources not asked for are free": {min: api.Resource{Memory: 10}, used: api.Resource{MilliCPU: 99999}, factor: 1.0, want: result{Fits: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, ok := Fits(&tc.min, &tc.inqueue, &total, &tc.used, tc.factor)
			if diff := cmp.Diff(tc.want, result{Fits: ok, Dim: d}); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArguments(t *testing.T) {
	cases := map[string]struct {
		args    conf.Arguments
		want    float64
		wantErr string
	}{
		"default":      {want: DefaultFactor},
		"given":        {args: conf.Arguments{"overcommit-factor": 1.5}, want: 1.5},
		"below one":    {args: conf.Arguments{"overcommit-factor": 0.5}, wantErr: "overcommit-factor: must be 1.0 or more, got 0.5"},
		"not a number": {args: conf.Arguments{"overcommit-factor": "lots"}, wantErr: `overcommit-factor: must be a number, got "lots"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := New(tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("New() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New() error = %v", err)
			}
			if diff := cmp.Diff(tc.want, p.(*plugin).factor); diff != "" {
				t.Errorf("factor mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
