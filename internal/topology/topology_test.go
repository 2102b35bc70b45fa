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

package topology_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/topology"
)

func hyperNode(name string, tier int, tierName string, members ...topologyv1alpha1.MemberSpec) *topologyv1alpha1.HyperNode {
	return &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: topologyv1alpha1.HyperNodeSpec{Tier: tier, TierName: tierName, Members: members}}
}

func exact(typ topologyv1alpha1.MemberType, name string) topologyv1alpha1.MemberSpec {
	return topologyv1alpha1.MemberSpec{Type: typ, Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: name}}}
}

func regex(typ topologyv1alpha1.MemberType, pattern string) topologyv1alpha1.MemberSpec {
	return topologyv1alpha1.MemberSpec{Type: typ, Selector: topologyv1alpha1.MemberSelector{RegexMatch: &topologyv1alpha1.RegexMatch{Pattern: pattern}}}
}

func labelled(k, v string) topologyv1alpha1.MemberSpec {
	return topologyv1alpha1.MemberSpec{Type: topologyv1alpha1.MemberTypeNode,
		Selector: topologyv1alpha1.MemberSelector{LabelMatch: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}}}
}

const (
	node = topologyv1alpha1.MemberTypeNode
	hn   = topologyv1alpha1.MemberTypeHyperNode
)

func TestBuild(t *testing.T) {
	nodes := []topology.Node{
		{Name: "a-0", Labels: map[string]string{"rack": "a"}}, {Name: "a-1", Labels: map[string]string{"rack": "a"}},
		{Name: "b-0", Labels: map[string]string{"rack": "b"}}, {Name: "b-1", Labels: map[string]string{"rack": "b"}},
	}
	type domain struct {
		Tier  int
		Nodes []string
	}
	cases := map[string]struct {
		hyperNodes []*topologyv1alpha1.HyperNode
		want       map[string]domain
		problems   map[string]string
		top        int
	}{
		"no HyperNodes: the whole cluster is tier 1": {want: map[string]domain{}, problems: map[string]string{}, top: 1},
		"exact, regex and label members; a block made of racks by regex": {
			hyperNodes: []*topologyv1alpha1.HyperNode{
				hyperNode("rack-a", 1, "rack", exact(node, "a-0"), exact(node, "a-1"), exact(node, "gone")),
				hyperNode("rack-b", 1, "rack", labelled("rack", "b")),
				hyperNode("rack-x", 1, "rack", regex(node, "^x-")),
				hyperNode("block", 2, "block", regex(hn, "^rack-")),
			},
			want: map[string]domain{
				"rack-a": {1, []string{"a-0", "a-1"}}, "rack-b": {1, []string{"b-0", "b-1"}}, "rack-x": {1, []string{}},
				"block": {2, []string{"a-0", "a-1", "b-0", "b-1"}},
			},
			problems: map[string]string{}, top: 3,
		},
		"a bad pattern, a label selector on HyperNodes, a cycle: said, and left out": {
			hyperNodes: []*topologyv1alpha1.HyperNode{
				hyperNode("r", 1, "", regex(node, "(")),
				hyperNode("p", 2, "", exact(hn, "q"), topologyv1alpha1.MemberSpec{Type: hn, Selector: topologyv1alpha1.MemberSelector{
					LabelMatch: &metav1.LabelSelector{MatchLabels: map[string]string{"rack": "a"}}}}),
				hyperNode("q", 3, "", exact(hn, "p"), exact(node, "a-0")),
			},
			want: map[string]domain{"r": {1, []string{}}, "p": {2, []string{"a-0"}}, "q": {3, []string{"a-0"}}},
			problems: map[string]string{
				"r": "spec.members[0].selector.regexMatch.pattern: Invalid value: \"(\": is not a regular expression (error parsing regexp: missing closing ): `(`): fix the pattern",
				"p": `spec.members[1].selector.labelMatch: Invalid value: "rack=a": selects nodes, not HyperNodes: use exactMatch or regexMatch in members of type HyperNode`,
				"q": "member HyperNode p contains this one (p -> q -> p) and is left out: HyperNodes form a tree",
			},
			top: 4,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			topo := topology.Build(tc.hyperNodes, nodes)
			got := map[string]domain{}
			for _, d := range topo.Domains {
				got[d.Name] = domain{d.Tier, d.Nodes}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("domains (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.problems, topo.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if got := topo.TopTier(); got != tc.top {
				t.Errorf("TopTier = %d, want %d", got, tc.top)
			}
		})
	}
}

func TestLimitOf(t *testing.T) {
	topo := topology.Build([]*topologyv1alpha1.HyperNode{
		hyperNode("r", 1, "rack", exact(node, "n")), hyperNode("b", 2, "block", exact(hn, "r")),
	}, []topology.Node{{Name: "n"}})
	cases := map[string]struct {
		nt       schedulingv1beta1.NetworkTopologySpec
		want     topology.Limit
		confines bool
	}{
		"soft allows the whole cluster":     {nt: schedulingv1beta1.NetworkTopologySpec{Mode: "soft", HighestTierAllowed: ptr.To[int32](1)}, want: topology.Limit{Tier: 3}},
		"hard by tier":                      {nt: schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierAllowed: ptr.To[int32](1)}, want: topology.Limit{Tier: 1, Hard: true}, confines: true},
		"hard by tier name":                 {nt: schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierName: "block"}, want: topology.Limit{Tier: 2, Hard: true}, confines: true},
		"hard with neither: every tier":     {nt: schedulingv1beta1.NetworkTopologySpec{Mode: "hard"}, want: topology.Limit{Tier: 3, Hard: true}},
		"hard above every HyperNode's tier": {nt: schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierAllowed: ptr.To[int32](5)}, want: topology.Limit{Tier: 5, Hard: true}},
		"hard with an unknown tier name": {nt: schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierName: "pod"}, want: topology.Limit{Hard: true,
			Problem: `its networkTopology.highestTierName "pod" is the tierName of no HyperNode: create HyperNodes of that tierName, or name another tier`}, confines: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := topology.LimitOf(&tc.nt, topo)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("LimitOf (-want +got):\n%s", diff)
			}
			if c := got.Confines(topo); c != tc.confines {
				t.Errorf("Confines = %v, want %v", c, tc.confines)
			}
		})
	}
}

func TestDiscover(t *testing.T) {
	typ, err := topology.ParseDiscoveryType("dc=example.com/block, example.com/rack, kubernetes.io/hostname")
	if err != nil {
		t.Fatal(err)
	}
	nodes := []topology.Node{
		{Name: "n0", Labels: map[string]string{"example.com/block": "b0", "example.com/rack": "r0"}},
		{Name: "n1", Labels: map[string]string{"example.com/block": "b0", "example.com/rack": "r0"}},
		{Name: "n2", Labels: map[string]string{"example.com/block": "b0", "example.com/rack": "R_1"}},
		{Name: "n3", Labels: map[string]string{"example.com/block": "b1"}},
		{Name: "n4"},
	}
	got := map[string]string{}
	for _, hn := range topology.Discover([]topology.DiscoveryType{typ}, nodes) {
		var members []string
		for _, m := range hn.Spec.Members {
			members = append(members, string(m.Type)+":"+m.Selector.ExactMatch.Name)
		}
		got[hn.Name] = fmt.Sprintf("tier %d %s %v %s", hn.Spec.Tier, hn.Spec.TierName, members, hn.Labels[topology.SourceLabel])
	}
	want := map[string]string{
		"hypernode-dc-tier1-r0":           "tier 1 example.com/rack [Node:n0 Node:n1] label",
		"hypernode-dc-tier1-r-1-ecc032bd": "tier 1 example.com/rack [Node:n2] label",
		"hypernode-dc-tier2-b0":           "tier 2 example.com/block [HyperNode:hypernode-dc-tier1-r-1-ecc032bd HyperNode:hypernode-dc-tier1-r0] label",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"dc", "dc=kubernetes.io/hostname", "Bad Name=a,b", "dc=a,a", "dc=a b,c"} {
		if _, err := topology.ParseDiscoveryType(bad); err == nil {
			t.Errorf("ParseDiscoveryType(%q) accepted it", bad)
		}
	}
}
