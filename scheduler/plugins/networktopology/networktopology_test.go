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

package networktopology

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

func node(cpuUsed, memUsed int64, ready bool) *api.NodeInfo {
	return &api.NodeInfo{Ready: ready, Allocatable: api.Resource{MilliCPU: 4000, Memory: 8 << 30}, Used: api.Resource{MilliCPU: cpuUsed, Memory: memUsed}}
}

func TestScore(t *testing.T) {
	w, err := ParseWeights(conf.Arguments{"weight": 2, "hypernode.binpack.memory": 3})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		nodes []*api.NodeInfo
		want  float64
	}{
		"an empty domain scores 0":              {nodes: []*api.NodeInfo{node(0, 0, true), node(0, 0, true)}, want: 0},
		"the domain's used share, weighted":     {nodes: []*api.NodeInfo{node(4000, 0, true), node(0, 8<<30, true)}, want: (1*0.5 + 3*0.5) / 4 * 100 * 2},
		"nodes that are not Ready do not count": {nodes: []*api.NodeInfo{node(4000, 8<<30, false), node(2000, 4<<30, true)}, want: 0.5 * 100 * 2},
		"no nodes scores nothing":               {want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Score(w, tc.nodes)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Bound is the score once add is used in the domain (up to what it offers), and so never below
// the score once part of add is placed there.
func TestBound(t *testing.T) {
	w, err := ParseWeights(conf.Arguments{"weight": 2, "hypernode.binpack.memory": 3})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		nodes []*api.NodeInfo
		add   *api.Resource
		want  float64
	}{
		"nothing added: the score":       {nodes: []*api.NodeInfo{node(4000, 0, true), node(0, 8<<30, true)}, want: (1*0.5 + 3*0.5) / 4 * 100 * 2},
		"added to the used share":        {nodes: []*api.NodeInfo{node(0, 0, true), node(0, 0, true)}, add: &api.Resource{MilliCPU: 4000, Memory: 4 << 30}, want: (1*0.5 + 3*0.25) / 4 * 100 * 2},
		"no more than the domain offers": {nodes: []*api.NodeInfo{node(4000, 8<<30, true), node(0, 0, true)}, add: &api.Resource{MilliCPU: 40000, Memory: 80 << 30}, want: 100 * 2},
		"nodes that are not Ready add nothing": {
			nodes: []*api.NodeInfo{node(0, 0, false), node(0, 0, true)}, add: &api.Resource{MilliCPU: 2000, Memory: 4 << 30}, want: (1*0.5 + 3*0.5) / 4 * 100 * 2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Bound(w, tc.nodes, tc.add)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if tc.add == nil {
				return
			}
			// Placing half of add on the first Ready node scores no more than the bound.
			half := api.Resource{MilliCPU: tc.add.MilliCPU / 2, Memory: tc.add.Memory / 2}
			for _, n := range tc.nodes {
				if n.Ready {
					n.Used.Add(&half)
					break
				}
			}
			if got := Score(w, tc.nodes); got > tc.want {
				t.Errorf("score with half of add placed = %v, above the bound %v", got, tc.want)
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
		"defaults": {want: Weights{Weight: 1, Resources: map[corev1.ResourceName]int{corev1.ResourceCPU: 1, corev1.ResourceMemory: 1}}},
		"listed resources": {
			args: conf.Arguments{"hypernode.binpack.resources": "nvidia.com/gpu", "hypernode.binpack.resources.nvidia.com/gpu": 5, "hypernode.binpack.normal-pod.enable": false},
			want: Weights{Weight: 1, Resources: map[corev1.ResourceName]int{corev1.ResourceCPU: 1, corev1.ResourceMemory: 1, "nvidia.com/gpu": 5}},
		},
		"a weight of a resource not listed": {args: conf.Arguments{"hypernode.binpack.resources.nvidia.com/gpu": 5}, wantErr: "is not in hypernode.binpack.resources"},
		"a negative weight":                 {args: conf.Arguments{"weight": -1}, wantErr: "weight: must be 0 or more"},
		"an unknown argument":               {args: conf.Arguments{"hypernode.binpak.cpu": 1}, wantErr: "hypernode.binpak.cpu"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseWeights(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
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
