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

package binpack

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

const gpu = corev1.ResourceName("nvidia.com/gpu")

func node(cpuUsed, gpuUsed int64) *api.NodeInfo {
	return &api.NodeInfo{
		Allocatable: api.Resource{MilliCPU: 4000, Memory: 8 << 30, Scalar: map[corev1.ResourceName]int64{gpu: 4}},
		Used:        api.Resource{MilliCPU: cpuUsed, Scalar: map[corev1.ResourceName]int64{gpu: gpuUsed}},
	}
}

func TestScore(t *testing.T) {
	w, err := ParseWeights(conf.Arguments{"binpack.weight": 2, "binpack.resources": "nvidia.com/gpu", "binpack.resources.nvidia.com/gpu": 3})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		req  api.Resource
		node *api.NodeInfo
		want float64
	}{
		"an empty node scores low":       {req: api.Resource{MilliCPU: 1000}, node: node(0, 0), want: 50},
		"a fuller node scores higher":    {req: api.Resource{MilliCPU: 1000}, node: node(3000, 0), want: 200},
		"weights mix the resources":      {req: api.Resource{MilliCPU: 1000, Scalar: map[corev1.ResourceName]int64{gpu: 1}}, node: node(1000, 3), want: (1*0.5 + 3*1.0) / 4 * 100 * 2},
		"a resource that overflows is 0": {req: api.Resource{MilliCPU: 2000}, node: node(3000, 0), want: 0},
		"nothing asked scores nothing":   {node: node(0, 0), want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Score(w, &tc.req, tc.node)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseWeights(t *testing.T) {
	cases := map[string]struct {
		args    conf.Arguments
		want    Weights
		wantErr string
	}{
		"defaults": {want: Weights{Weight: 1, Resources: map[corev1.ResourceName]int{"cpu": 1, "memory": 1}}},
		"volcano's example": {args: conf.Arguments{"binpack.weight": 10, "binpack.cpu": 5, "binpack.memory": 1,
			"binpack.resources": "nvidia.com/gpu, example.com/foo", "binpack.resources.nvidia.com/gpu": 2},
			want: Weights{Weight: 10, Resources: map[corev1.ResourceName]int{"cpu": 5, "memory": 1, "nvidia.com/gpu": 2, "example.com/foo": 1}}},
		"a weight for an unlisted resource": {args: conf.Arguments{"binpack.resources.nvidia.com/gpu": 2},
			wantErr: `binpack.resources.nvidia.com/gpu: resource "nvidia.com/gpu" is not in binpack.resources; add it there or remove this weight`},
		"a negative weight": {args: conf.Arguments{"binpack.cpu": -1}, wantErr: "weight of cpu: must be 0 or more, got -1"},
		"a misspelt name":   {args: conf.Arguments{"binpack.wieght": 1}, wantErr: "binpack.wieght: unknown argument"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseWeights(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseWeights() error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
