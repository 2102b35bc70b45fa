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

// Package queuetree checks a Queue against the queues around it in the hierarchy spec.parent
// makes, as Volcano's queue webhook does: a queue holds no more than the queues above it
// (capability), and the guarantees and deserved shares of a queue's children fit in its own. It
// is pure: the validating webhook calls it with the stored queues.
package queuetree

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// Validate checks q (new or changed) against the other queues, all (which may hold q's old
// version: it is left out). Queues right below root (or naming no parent) are not checked
// against root, as in Volcano.
func Validate(q *schedulingv1beta1.Queue, all []schedulingv1beta1.Queue) field.ErrorList {
	byName := map[string]*schedulingv1beta1.Queue{}
	children := map[string][]*schedulingv1beta1.Queue{}
	for i := range all {
		o := &all[i]
		if o.Name == q.Name {
			continue
		}
		byName[o.Name] = o
	}
	byName[q.Name] = q
	for _, o := range byName {
		children[o.Spec.Parent] = append(children[o.Spec.Parent], o)
	}
	for _, list := range children {
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	}
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if p := q.Spec.Parent; p != "" && p != schedulingv1beta1.RootQueue {
		if parent, ok := byName[p]; ok {
			// A queue holds no more than the nearest queue above it that caps each resource.
			for _, r := range sortedNames(q.Spec.Capability) {
				c := q.Spec.Capability[r]
				if anc, limit := nearestCap(parent, r, byName); anc != nil && c.Cmp(limit) > 0 {
					errs = append(errs, field.Invalid(spec.Child("capability").Key(string(r)), c.String(),
						fmt.Sprintf("exceeds the capability of queue %s above it (%s): a queue holds no more than the queues above it; lower it, or raise queue %s's", anc.Name, limit.String(), anc.Name)))
				}
			}
			errs = append(errs, sums(parent, children[p], spec.Child("parent"), fmt.Sprintf("the queues below queue %s", p))...)
		}
	}
	if kids := children[q.Name]; len(kids) > 0 {
		for _, r := range sortedNames(q.Spec.Capability) {
			c := q.Spec.Capability[r]
			if most, who := maxBelow(q.Name, r, children); who != "" && c.Cmp(most) < 0 {
				errs = append(errs, field.Invalid(spec.Child("capability").Key(string(r)), c.String(),
					fmt.Sprintf("is below the capability of queue %s below it (%s): raise it, or lower queue %s's", who, most.String(), who)))
			}
		}
		errs = append(errs, sums(q, kids, spec, "the queues below it")...)
	}
	return errs
}

// sums checks that the guarantees and the deserved shares of kids fit in parent's: each
// resource a child sets, the parent must set at least to the children's sum (as Volcano's
// webhook).
func sums(parent *schedulingv1beta1.Queue, kids []*schedulingv1beta1.Queue, path *field.Path, who string) field.ErrorList {
	var errs field.ErrorList
	check := func(what string, of func(*schedulingv1beta1.Queue) corev1.ResourceList) {
		total := corev1.ResourceList{}
		for _, k := range kids {
			for r, v := range of(k) {
				sum := total[r]
				sum.Add(v)
				total[r] = sum
			}
		}
		own := of(parent)
		for _, r := range sortedNames(total) {
			have, ok := own[r]
			if sum := total[r]; !ok || have.Cmp(sum) < 0 {
				limit := "none"
				if ok {
					limit = have.String()
				}
				errs = append(errs, field.Invalid(path, parent.Name,
					fmt.Sprintf("the %s of %s add up to %s of %s, more than queue %s's %s (%s): lower them, or raise queue %s's",
						what, who, sum.String(), r, parent.Name, what, limit, parent.Name)))
			}
		}
	}
	check("spec.guarantee.resource", func(q *schedulingv1beta1.Queue) corev1.ResourceList { return q.Spec.Guarantee.Resource })
	check("spec.deserved", func(q *schedulingv1beta1.Queue) corev1.ResourceList { return q.Spec.Deserved })
	return errs
}

// nearestCap returns q or the nearest queue above it whose capability sets r (not above root),
// with the amount; nil when none.
func nearestCap(q *schedulingv1beta1.Queue, r corev1.ResourceName, byName map[string]*schedulingv1beta1.Queue) (*schedulingv1beta1.Queue, resource.Quantity) {
	seen := map[string]bool{}
	for cur := q; cur != nil && !seen[cur.Name] && cur.Name != schedulingv1beta1.RootQueue; cur = byName[cur.Spec.Parent] {
		seen[cur.Name] = true
		if v, ok := cur.Spec.Capability[r]; ok && !v.IsZero() {
			return cur, v
		}
	}
	return nil, resource.Quantity{}
}

// maxBelow returns the largest capability of r of the queues below name (in each branch, the
// nearest that sets it), and that queue's name ("" when none sets it).
func maxBelow(name string, r corev1.ResourceName, children map[string][]*schedulingv1beta1.Queue) (resource.Quantity, string) {
	var most resource.Quantity
	who := ""
	seen := map[string]bool{name: true}
	var walk func(string)
	walk = func(n string) {
		for _, k := range children[n] {
			if seen[k.Name] {
				continue
			}
			seen[k.Name] = true
			if v, ok := k.Spec.Capability[r]; ok && !v.IsZero() {
				if who == "" || v.Cmp(most) > 0 {
					most, who = v, k.Name
				}
				continue
			}
			walk(k.Name)
		}
	}
	walk(name)
	return most, who
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(l))
	for r := range l {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
