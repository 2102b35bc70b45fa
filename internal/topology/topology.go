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

// Package topology turns HyperNodes into network domains: for each HyperNode, its tier and the
// nodes it holds, through its member HyperNodes too. It is pure: the scheduler builds it from
// its snapshot, and the HyperNode controller from its cache, to count nodes and report the
// member selectors it cannot read.
package topology

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
)

// Node is what the domains need of a node: its name and labels.
type Node struct {
	Name   string
	Labels map[string]string
}

// Domain is one HyperNode with the nodes it holds.
type Domain struct {
	// Name is the HyperNode's name.
	Name string
	// Tier and TierName are the HyperNode's.
	Tier     int
	TierName string
	// Nodes are the names of the nodes the domain holds, directly or through its members, sorted.
	Nodes []string
	// Children are the HyperNodes among its members, by name.
	Children []string

	nodes map[string]struct{}
}

// Holds reports whether the domain holds the node.
func (d *Domain) Holds(node string) bool {
	_, ok := d.nodes[node]
	return ok
}

// HoldsAll reports whether the domain holds every node of names.
func (d *Domain) HoldsAll(names []string) bool {
	for _, n := range names {
		if !d.Holds(n) {
			return false
		}
	}
	return true
}

// Topology is the cluster's network domains.
type Topology struct {
	// Domains are every HyperNode's domain, lowest tier first, then by name.
	Domains []*Domain
	// Problems holds, per HyperNode, what keeps part of it from being read (a regular expression
	// that does not compile, a member that is itself or contains it): the words name the field.
	// Such a member selects nothing; the rest of the HyperNode counts.
	Problems map[string]string

	byName map[string]*Domain
	tiers  map[string]int
}

// Domain returns the domain of a HyperNode, or nil.
func (t *Topology) Domain(name string) *Domain {
	if t == nil {
		return nil
	}
	return t.byName[name]
}

// TopTier is the tier of the whole cluster seen as one domain: one above the highest HyperNode
// tier, 1 when there are no HyperNodes (as Volcano counts it). A job that allows this tier may
// be placed anywhere.
func (t *Topology) TopTier() int {
	top := 0
	if t != nil {
		for _, d := range t.Domains {
			top = max(top, d.Tier)
		}
	}
	return top + 1
}

// Empty reports whether there are no HyperNodes.
func (t *Topology) Empty() bool { return t == nil || len(t.Domains) == 0 }

// TierOf returns the tier of HyperNodes whose tierName is name: the lowest such tier when
// HyperNodes disagree, and false when none has that tierName.
func (t *Topology) TierOf(name string) (int, bool) {
	if t == nil {
		return 0, false
	}
	tier, ok := t.tiers[name]
	return tier, ok
}

// Limit is the highest tier a job's domain may have, as its network topology asks.
type Limit struct {
	// Tier is the highest tier allowed; a tier at or above the topology's top tier allows the
	// whole cluster.
	Tier int
	// Hard is true when the job waits rather than spanning more than Tier.
	Hard bool
	// Problem says why the constraint cannot be read (a tier name no HyperNode has); a hard
	// job then waits.
	Problem string
}

// LimitOf reads a network topology constraint against the domains, as Volcano does: soft
// allows every tier (the lowest tier that fits is preferred); hard allows highestTierAllowed,
// or the tier of the HyperNodes named highestTierName, or every tier when it names neither.
func LimitOf(nt *schedulingv1beta1.NetworkTopologySpec, topo *Topology) Limit {
	top := topo.TopTier()
	if nt.Mode == schedulingv1beta1.NetworkTopologyMode("soft") {
		return Limit{Tier: top}
	}
	switch {
	case nt.HighestTierName != "":
		tier, ok := topo.TierOf(nt.HighestTierName)
		if !ok {
			return Limit{Hard: true, Problem: fmt.Sprintf("its networkTopology.highestTierName %q is the tierName of no HyperNode: "+
				"create HyperNodes of that tierName, or name another tier", nt.HighestTierName)}
		}
		return Limit{Tier: tier, Hard: true}
	case nt.HighestTierAllowed != nil:
		return Limit{Tier: int(*nt.HighestTierAllowed), Hard: true}
	}
	return Limit{Tier: top, Hard: true}
}

// Describe says what a limit asks, e.g. "hard network topology: within one HyperNode of tier
// 1 or lower".
func (l Limit) Describe() string {
	if !l.Hard {
		return "soft network topology: within the HyperNode of the lowest tier that has room"
	}
	return fmt.Sprintf("hard network topology: within one HyperNode of tier %d or lower", l.Tier)
}

// Confines reports whether the limit keeps a job from the whole cluster: it is hard and below
// the top tier.
func (l Limit) Confines(topo *Topology) bool {
	return l.Hard && (l.Problem != "" || l.Tier < topo.TopTier())
}

// Build resolves the HyperNodes' member selectors against the nodes and each other.
func Build(hyperNodes []*topologyv1alpha1.HyperNode, nodes []Node) *Topology {
	t := &Topology{Problems: map[string]string{}, byName: map[string]*Domain{}, tiers: map[string]int{}}
	byName := map[string]*topologyv1alpha1.HyperNode{}
	names := make([]string, 0, len(hyperNodes))
	for _, hn := range hyperNodes {
		byName[hn.Name] = hn
		names = append(names, hn.Name)
	}
	sort.Strings(names)
	nodeNames := make(map[string]struct{}, len(nodes))
	for _, n := range nodes {
		nodeNames[n.Name] = struct{}{}
	}
	// direct holds each HyperNode's own nodes and member HyperNodes.
	type direct struct {
		nodes    map[string]struct{}
		children []string
	}
	directs := map[string]*direct{}
	for _, name := range names {
		hn := byName[name]
		d := &direct{nodes: map[string]struct{}{}}
		var problems []string
		for _, err := range MemberErrors(hn) {
			problems = append(problems, err.Error())
		}
		for _, m := range hn.Spec.Members {
			switch m.Type {
			case topologyv1alpha1.MemberTypeNode:
				for _, n := range selectNodes(m.Selector, nodes, nodeNames) {
					d.nodes[n] = struct{}{}
				}
			case topologyv1alpha1.MemberTypeHyperNode:
				for _, c := range selectNames(m.Selector, names, byName) {
					if c != name {
						d.children = append(d.children, c)
					}
				}
			}
		}
		slices.Sort(d.children)
		d.children = slices.Compact(d.children)
		directs[name] = d
		if len(problems) > 0 {
			t.Problems[name] = strings.Join(problems, "; ")
		}
	}
	// Resolve the nodes of each HyperNode through its members, leaving out a member that
	// contains the HyperNode (a cycle).
	resolved := map[string]map[string]struct{}{}
	var resolve func(name string, path []string) map[string]struct{}
	resolve = func(name string, path []string) map[string]struct{} {
		if r, ok := resolved[name]; ok {
			return r
		}
		d := directs[name]
		out := make(map[string]struct{}, len(d.nodes))
		for n := range d.nodes {
			out[n] = struct{}{}
		}
		for _, c := range d.children {
			if slices.Contains(path, c) {
				cycle := strings.Join(append(slices.Clone(path[slices.Index(path, c):]), c), " -> ")
				msg := fmt.Sprintf("member HyperNode %s contains this one (%s) and is left out: HyperNodes form a tree", c, cycle)
				if t.Problems[name] == "" {
					t.Problems[name] = msg
				} else if !strings.Contains(t.Problems[name], msg) {
					t.Problems[name] += "; " + msg
				}
				continue
			}
			for n := range resolve(c, append(path, c)) {
				out[n] = struct{}{}
			}
		}
		resolved[name] = out
		return out
	}
	for _, name := range names {
		hn := byName[name]
		set := resolve(name, []string{name})
		dom := &Domain{Name: name, Tier: hn.Spec.Tier, TierName: hn.Spec.TierName, Children: directs[name].children, nodes: set}
		dom.Nodes = make([]string, 0, len(set))
		for n := range set {
			dom.Nodes = append(dom.Nodes, n)
		}
		sort.Strings(dom.Nodes)
		t.Domains = append(t.Domains, dom)
		t.byName[name] = dom
		if hn.Spec.TierName != "" {
			if tier, ok := t.tiers[hn.Spec.TierName]; !ok || hn.Spec.Tier < tier {
				t.tiers[hn.Spec.TierName] = hn.Spec.Tier
			}
		}
	}
	sort.SliceStable(t.Domains, func(i, j int) bool { return t.Domains[i].Tier < t.Domains[j].Tier })
	return t
}

// MemberErrors returns what in a HyperNode's member selectors cannot be read, each naming its
// field: a pattern that is not a regular expression, a label selector that is not one (or is
// empty, which would choose every node), a label selector on a member of type HyperNode, a
// selector that chooses nothing, a member of type HyperNode that names the HyperNode itself.
// Such a member chooses nothing; the rest of the HyperNode counts.
func MemberErrors(hn *topologyv1alpha1.HyperNode) field.ErrorList {
	var errs field.ErrorList
	for i, m := range hn.Spec.Members {
		path := field.NewPath("spec", "members").Index(i).Child("selector")
		s := m.Selector
		switch {
		case s.ExactMatch != nil:
			if m.Type == topologyv1alpha1.MemberTypeHyperNode && s.ExactMatch.Name == hn.Name {
				errs = append(errs, field.Invalid(path.Child("exactMatch", "name"), s.ExactMatch.Name,
					"names the HyperNode itself: a HyperNode's members are lower-tier HyperNodes"))
			}
		case s.RegexMatch != nil:
			if _, err := regexp.Compile(s.RegexMatch.Pattern); err != nil {
				errs = append(errs, field.Invalid(path.Child("regexMatch", "pattern"), s.RegexMatch.Pattern,
					fmt.Sprintf("is not a regular expression (%v): fix the pattern", err)))
			}
		case s.LabelMatch != nil:
			if m.Type != topologyv1alpha1.MemberTypeNode {
				errs = append(errs, field.Invalid(path.Child("labelMatch"), metav1.FormatLabelSelector(s.LabelMatch),
					"selects nodes, not HyperNodes: use exactMatch or regexMatch in members of type HyperNode"))
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(s.LabelMatch)
			switch {
			case err != nil:
				errs = append(errs, field.Invalid(path.Child("labelMatch"), metav1.FormatLabelSelector(s.LabelMatch), fmt.Sprintf("is not a label selector (%v): fix it", err)))
			case sel.Empty():
				errs = append(errs, field.Invalid(path.Child("labelMatch"), metav1.FormatLabelSelector(s.LabelMatch),
					"is empty and would choose every node: give it matchLabels or matchExpressions"))
			}
		default:
			errs = append(errs, field.Required(path, "choose members with exactMatch, regexMatch or labelMatch"))
		}
	}
	return errs
}

// selectNodes returns the nodes a member selector of type Node chooses (none when it cannot
// be read: see MemberErrors).
func selectNodes(s topologyv1alpha1.MemberSelector, nodes []Node, names map[string]struct{}) []string {
	var out []string
	switch {
	case s.ExactMatch != nil:
		if _, ok := names[s.ExactMatch.Name]; ok {
			out = append(out, s.ExactMatch.Name)
		}
	case s.RegexMatch != nil:
		re, err := regexp.Compile(s.RegexMatch.Pattern)
		if err != nil {
			return nil
		}
		for _, n := range nodes {
			if re.MatchString(n.Name) {
				out = append(out, n.Name)
			}
		}
	case s.LabelMatch != nil:
		sel, err := metav1.LabelSelectorAsSelector(s.LabelMatch)
		if err != nil || sel.Empty() {
			return nil
		}
		for _, n := range nodes {
			if sel.Matches(labels.Set(n.Labels)) {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

// selectNames returns the HyperNodes a member selector of type HyperNode chooses (none when it
// cannot be read: see MemberErrors).
func selectNames(s topologyv1alpha1.MemberSelector, names []string, byName map[string]*topologyv1alpha1.HyperNode) []string {
	switch {
	case s.ExactMatch != nil:
		if _, ok := byName[s.ExactMatch.Name]; ok {
			return []string{s.ExactMatch.Name}
		}
	case s.RegexMatch != nil:
		re, err := regexp.Compile(s.RegexMatch.Pattern)
		if err != nil {
			return nil
		}
		var out []string
		for _, n := range names {
			if re.MatchString(n) {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}
