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

package topology

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
)

// SourceLabel marks the HyperNodes made from node labels (value SourceNodeLabels), as Volcano's
// discovery does; those and only those are kept in step with the nodes.
const (
	SourceLabel      = "volcano.sh/network-topology-source"
	SourceNodeLabels = "label"
)

// DiscoveryType is one network topology read from node labels: Labels are node label keys from
// the top tier down, the last one naming the node itself (kubernetes.io/hostname), as Volcano's
// networkTopologyTypes list them. The label right above the last is tier 1.
type DiscoveryType struct {
	Name   string
	Labels []string
}

// ParseDiscoveryType reads "<name>=<label>,<label>,...", e.g.
// "rack=topology.example.com/block,topology.example.com/rack,kubernetes.io/hostname".
func ParseDiscoveryType(s string) (DiscoveryType, error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return DiscoveryType{}, fmt.Errorf("%q: want <name>=<label>,<label>,... (top tier first, the node's own label last)", s)
	}
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return DiscoveryType{}, fmt.Errorf("%q: name %q: %s", s, name, strings.Join(errs, "; "))
	}
	t := DiscoveryType{Name: name}
	for _, l := range strings.Split(list, ",") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if errs := validation.IsQualifiedName(l); len(errs) > 0 {
			return DiscoveryType{}, fmt.Errorf("%q: label %q: %s", s, l, strings.Join(errs, "; "))
		}
		if slices.Contains(t.Labels, l) {
			return DiscoveryType{}, fmt.Errorf("%q: label %q is listed twice", s, l)
		}
		t.Labels = append(t.Labels, l)
	}
	if len(t.Labels) < 2 {
		return DiscoveryType{}, fmt.Errorf("%q: list at least two labels: the tiers from the top, then the node's own (kubernetes.io/hostname)", s)
	}
	return t, nil
}

// Discover returns the HyperNodes the discovery types make from the nodes' labels, sorted by
// name: for each type and tier, one HyperNode per value of the tier's label, holding the nodes
// (tier 1) or the tier-below HyperNodes (higher tiers) of the nodes that carry that value. A node
// that lacks a tier's label is in no HyperNode of that tier or above. Names are
// hypernode-<type>-tier<N>-<value>, the same for the same labels whenever they are made.
func Discover(types []DiscoveryType, nodes []Node) []*topologyv1alpha1.HyperNode {
	sorted := slices.Clone(nodes)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	out := map[string]*topologyv1alpha1.HyperNode{}
	members := map[string]map[string]bool{}
	for _, t := range types {
		tiers := slices.Clone(t.Labels[:len(t.Labels)-1])
		slices.Reverse(tiers)
		for _, n := range sorted {
			below := ""
			for i, key := range tiers {
				value := n.Labels[key]
				if value == "" {
					break
				}
				name := discoveredName(t.Name, i+1, value)
				hn, ok := out[name]
				if !ok {
					hn = &topologyv1alpha1.HyperNode{
						ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{SourceLabel: SourceNodeLabels, key: value}},
						Spec:       topologyv1alpha1.HyperNodeSpec{Tier: i + 1, TierName: key},
					}
					out[name] = hn
					members[name] = map[string]bool{}
				}
				member := n.Name
				if i > 0 {
					member = below
				}
				members[name][member] = true
				below = name
			}
		}
	}
	list := make([]*topologyv1alpha1.HyperNode, 0, len(out))
	for name, hn := range out {
		typ := topologyv1alpha1.MemberTypeNode
		if hn.Spec.Tier > 1 {
			typ = topologyv1alpha1.MemberTypeHyperNode
		}
		names := make([]string, 0, len(members[name]))
		for m := range members[name] {
			names = append(names, m)
		}
		sort.Strings(names)
		for _, m := range names {
			hn.Spec.Members = append(hn.Spec.Members, topologyv1alpha1.MemberSpec{Type: typ,
				Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: m}}})
		}
		list = append(list, hn)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}

// discoveredName is hypernode-<type>-tier<tier>-<value>, made a valid object name: lower case,
// other characters turned to '-', with a hash of the exact value when that changed it or it is
// long, so that two values never share a name.
func discoveredName(typ string, tier int, value string) string {
	clean := func(s string) string {
		var b strings.Builder
		for _, r := range strings.ToLower(s) {
			if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' || r == '.' {
				b.WriteRune(r)
			} else {
				b.WriteRune('-')
			}
		}
		return strings.Trim(b.String(), "-.")
	}
	v := clean(value)
	if v != value || len(v) > 100 {
		h := fnv.New32a()
		_, _ = h.Write([]byte(value))
		if len(v) > 100 {
			v = v[:100]
		}
		v = fmt.Sprintf("%s-%08x", strings.Trim(v, "-."), h.Sum32())
	}
	return fmt.Sprintf("hypernode-%s-tier%d-%s", clean(typ), tier, strings.Trim(v, "-."))
}
