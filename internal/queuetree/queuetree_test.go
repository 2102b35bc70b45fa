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

package queuetree_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/queuetree"
)

// queue is a queue below parent with cpu capability, guarantee and deserved ("" leaves one unset).
func queue(name, parent, capability, guarantee, deserved string) schedulingv1beta1.Queue {
	q := schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: schedulingv1beta1.QueueSpec{Parent: parent}}
	set := func(v string) corev1.ResourceList {
		if v == "" {
			return nil
		}
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v)}
	}
	q.Spec.Capability, q.Spec.Guarantee.Resource, q.Spec.Deserved = set(capability), set(guarantee), set(deserved)
	return q
}

func TestValidate(t *testing.T) {
	tree := []schedulingv1beta1.Queue{
		queue("p", "", "8", "4", "6"),
		queue("a", "p", "4", "2", "3"),
	}
	cases := map[string]struct {
		q    schedulingv1beta1.Queue
		want []string
	}{
		"a child that fits": {q: queue("b", "p", "8", "2", "3")},
		"a child above its parent's capability": {q: queue("b", "p", "10", "", ""),
			want: []string{`spec.capability[cpu]: Invalid value: "10": exceeds the capability of queue p above it (8): a queue holds no more than the queues above it; lower it, or raise queue p's`}},
		"children's guarantees above their parent's": {q: queue("b", "p", "", "3", "3"),
			want: []string{`spec.parent: Invalid value: "p": the spec.guarantee.resource of the queues below queue p add up to 5 of cpu, more than queue p's spec.guarantee.resource (4): lower them, or raise queue p's`}},
		"a grandchild within its grandparent's capability when its parent sets none": {q: queue("g", "b", "9", "", ""),
			want: []string{`spec.capability[cpu]: Invalid value: "9": exceeds the capability of queue p above it (8): a queue holds no more than the queues above it; lower it, or raise queue p's`}},
		"a parent lowered below its children": {q: queue("p", "", "2", "4", "6"),
			want: []string{`spec.capability[cpu]: Invalid value: "2": is below the capability of queue a below it (4): raise it, or lower queue a's`}},
		"a parent whose deserved no longer covers its children's": {q: queue("p", "", "8", "4", "1"),
			want: []string{`spec: Invalid value: "p": the spec.deserved of the queues below it add up to 3 of cpu, more than queue p's spec.deserved (1): lower them, or raise queue p's`}},
		"below root: not checked against root": {q: queue("r", "root", "100", "50", "50")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			all := append([]schedulingv1beta1.Queue{queue("b", "p", "", "", "")}, tree...)
			var got []string
			for _, e := range queuetree.Validate(&tc.q, all) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}
