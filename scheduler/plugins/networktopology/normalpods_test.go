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
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

func members(typ topologyv1alpha1.MemberType, names ...string) []topologyv1alpha1.MemberSpec {
	var out []topologyv1alpha1.MemberSpec
	for _, n := range names {
		out = append(out, topologyv1alpha1.MemberSpec{Type: typ, Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: n}}})
	}
	return out
}

// racks is racks r1 {n1, n2} and r2 {n3, n4} in block b1; n5 is in no HyperNode. Every node has
// 4 cpu and 8Gi; n1 has 2 cpu used.
func racks() (*topology.Topology, map[string]*api.NodeInfo) {
	hn := func(name string, tier int, typ topologyv1alpha1.MemberType, m ...string) *topologyv1alpha1.HyperNode {
		return &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: topologyv1alpha1.HyperNodeSpec{Tier: tier, Members: members(typ, m...)}}
	}
	nodes := map[string]*api.NodeInfo{}
	var names []topology.Node
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5"} {
		nodes[n] = &api.NodeInfo{Name: n, Ready: true, Allocatable: api.Resource{MilliCPU: 4000, Memory: 8 << 30}}
		names = append(names, topology.Node{Name: n})
	}
	nodes["n1"].Used = api.Resource{MilliCPU: 2000}
	topo := topology.Build([]*topologyv1alpha1.HyperNode{
		hn("r1", 1, topologyv1alpha1.MemberTypeNode, "n1", "n2"),
		hn("r2", 1, topologyv1alpha1.MemberTypeNode, "n3", "n4"),
		hn("b1", 2, topologyv1alpha1.MemberTypeHyperNode, "r1", "r2"),
	}, names)
	return topo, nodes
}

func TestNormalPodScores(t *testing.T) {
	w, err := ParseWeights(conf.Arguments{})
	if err != nil {
		t.Fatal(err)
	}
	topo, nodes := racks()
	s := newNormalScorer(w, NormalPods{Enable: true, Fading: 0.8}, topo, nodes)
	task := &api.TaskInfo{Resreq: &api.Resource{MilliCPU: 1000}}
	scores := func() map[string]float64 {
		out := map[string]float64{}
		for n := range nodes {
			out[n] = s.score(task, n)
		}
		return out
	}
	approx := cmpopts.EquateApprox(0, 1e-9)
	// Tier 1 weighs 1, tier 2 0.8: r1 is 3/8 full with the pod, r2 1/8, b1 3/16; n5 is in no
	// HyperNode and scores full at every tier.
	want := map[string]float64{
		"n1": (3.0/8 + 0.8*3/16) / 1.8 * 100, "n2": (3.0/8 + 0.8*3/16) / 1.8 * 100,
		"n3": (1.0/8 + 0.8*3/16) / 1.8 * 100, "n4": (1.0/8 + 0.8*3/16) / 1.8 * 100,
		"n5": 100,
	}
	if diff := cmp.Diff(want, scores(), approx); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}

	// A pod placed on n3 fills r2 and b1; undone, it leaves them as they were.
	placed := &api.TaskInfo{Resreq: &api.Resource{MilliCPU: 2000}}
	s.placed(placed, "n3", 1)
	if got, want := s.score(task, "n4"), (3.0/8+0.8*5/16)/1.8*100; math.Abs(got-want) > 1e-9 {
		t.Errorf("n4 with 2 cpu placed on n3 = %v, want %v", got, want)
	}
	s.placed(placed, "n3", -1)
	if diff := cmp.Diff(want, scores(), approx); diff != "" {
		t.Errorf("scores once the placement is undone (-want +got):\n%s", diff)
	}

	// A pod that does not fit a HyperNode scores 0 there.
	big := &api.TaskInfo{Resreq: &api.Resource{MilliCPU: 7000}}
	if got, want := s.score(big, "n1"), (0+0.8*9.0/16)/1.8*100; math.Abs(got-want) > 1e-9 {
		t.Errorf("n1 for 7 cpu = %v, want %v", got, want)
	}

	// Fading 0 counts tier 1 alone.
	s = newNormalScorer(w, NormalPods{Enable: true, Fading: 0}, topo, nodes)
	if got, want := s.score(task, "n1"), 3.0/8*100; math.Abs(got-want) > 1e-9 {
		t.Errorf("n1 with fading 0 = %v, want %v", got, want)
	}
	if newNormalScorer(w, NormalPods{Enable: true, Fading: 0.8}, topology.Build(nil, nil), nodes) != nil {
		t.Error("a scorer without HyperNodes")
	}
}

func TestParseNormalPods(t *testing.T) {
	cases := map[string]struct {
		args    conf.Arguments
		want    NormalPods
		wantErr string
	}{
		"defaults":          {want: NormalPods{Enable: true, Fading: 0.8}},
		"off":               {args: conf.Arguments{NormalPodArgument: false, NormalPodFadingArgument: 0.5}, want: NormalPods{Fading: 0.5}},
		"a negative fading": {args: conf.Arguments{NormalPodFadingArgument: -1}, wantErr: "hypernode.binpack.normal-pod.fading: must be a number of 0 or more"},
		"not a boolean":     {args: conf.Arguments{NormalPodArgument: "yes please"}, wantErr: NormalPodArgument},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseNormalPods(tc.args)
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
