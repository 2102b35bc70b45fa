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

package snapshot_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

func TestBudgets(t *testing.T) {
	web := st.MakePod("ns", "web-0").Label("app", "web").Label("tier", "front").Obj()
	cases := map[string]struct {
		budgets []*policyv1.PodDisruptionBudget
		pod     *corev1.Pod
		want    []api.Budget
	}{
		"no budget in the namespace": {
			budgets: []*policyv1.PodDisruptionBudget{st.MakePDB("other", "all", 1).Selector().Obj()},
			pod:     web,
		},
		"an empty selector covers every pod of its namespace, one without labels too": {
			budgets: []*policyv1.PodDisruptionBudget{st.MakePDB("ns", "all", 2).Selector().Obj()},
			pod:     st.MakePod("ns", "bare").Obj(),
			want:    []api.Budget{{Key: "ns/all", Allowed: 2}},
		},
		"no selector covers no pod": {
			budgets: []*policyv1.PodDisruptionBudget{st.MakePDB("ns", "none", 2).Obj()},
			pod:     web,
		},
		"labels select; a budget of another namespace does not count": {
			budgets: []*policyv1.PodDisruptionBudget{
				st.MakePDB("ns", "web", 1).Selector("app", "web").Obj(),
				st.MakePDB("ns", "db", 1).Selector("app", "db").Obj(),
				st.MakePDB("ns", "web-back", 1).Selector("app", "web", "tier", "back").Obj(),
				st.MakePDB("other", "web", 1).Selector("app", "web").Obj(),
			},
			pod:  web,
			want: []api.Budget{{Key: "ns/web", Allowed: 1}},
		},
		"expressions select": {
			budgets: []*policyv1.PodDisruptionBudget{
				func() *policyv1.PodDisruptionBudget {
					b := st.MakePDB("ns", "fronts", 3).Obj()
					b.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"front", "edge"}}}}
					return b
				}(),
				func() *policyv1.PodDisruptionBudget {
					b := st.MakePDB("ns", "not-web", 3).Obj()
					b.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}}}}
					return b
				}(),
			},
			pod:  web,
			want: []api.Budget{{Key: "ns/fronts", Allowed: 3}},
		},
		"an invalid selector covers no pod": {
			budgets: []*policyv1.PodDisruptionBudget{func() *policyv1.PodDisruptionBudget {
				b := st.MakePDB("ns", "bad", 3).Obj()
				b.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "app", Operator: "Near", Values: []string{"web"}}}}
				return b
			}()},
			pod: web,
		},
		"several, in key order, each with what it allows": {
			budgets: []*policyv1.PodDisruptionBudget{
				st.MakePDB("ns", "zeta", 5).Selector("app", "web").Obj(),
				st.MakePDB("ns", "alpha", 0).Selector().Obj(),
				st.MakePDB("ns", "mid", 1).Selector("tier", "front").Obj(),
			},
			pod:  web,
			want: []api.Budget{{Key: "ns/alpha", Allowed: 0}, {Key: "ns/mid", Allowed: 1}, {Key: "ns/zeta", Allowed: 5}},
		},
		"a status older than the spec, or negative, allows nothing (the Eviction API refuses)": {
			budgets: []*policyv1.PodDisruptionBudget{
				st.MakePDB("ns", "stale", 4).Selector().Generation(2, 1).Obj(),
				st.MakePDB("ns", "negative", -1).Selector().Obj(),
			},
			pod:  web,
			want: []api.Budget{{Key: "ns/negative", Allowed: 0}, {Key: "ns/stale", Allowed: 0}},
		},
		"no pod": {
			budgets: []*policyv1.PodDisruptionBudget{st.MakePDB("ns", "all", 1).Selector().Obj()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := snapshot.New()
			for _, b := range tc.budgets {
				s.SetBudget(api.NewBudgetInfo(b))
			}
			if diff := cmp.Diff(tc.want, s.Budgets(tc.pod)); diff != "" {
				t.Errorf("Budgets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetAndRemoveBudget(t *testing.T) {
	pod := st.MakePod("ns", "p").Obj()
	s := snapshot.New()
	keys := func() []string {
		var out []string
		for _, b := range s.Budgets(pod) {
			out = append(out, b.Key)
		}
		return out
	}
	steps := []struct {
		do          func()
		wantKeys    []string
		wantChanged bool
	}{
		{do: func() {}, wantChanged: false},
		{do: func() {
			for _, n := range []string{"c", "a", "b"} {
				s.SetBudget(api.NewBudgetInfo(st.MakePDB("ns", n, 1).Selector().Obj()))
			}
		}, wantKeys: []string{"ns/a", "ns/b", "ns/c"}, wantChanged: true},
		{do: func() { s.RemoveBudget("ns/b") }, wantKeys: []string{"ns/a", "ns/c"}, wantChanged: true},
		{do: func() { s.RemoveBudget("ns/nothing"); s.RemoveBudget("other/a") }, wantKeys: []string{"ns/a", "ns/c"}, wantChanged: false},
		{do: func() { s.SetBudget(api.NewBudgetInfo(st.MakePDB("ns", "a", 1).Obj())) }, wantKeys: []string{"ns/c"}, wantChanged: true},
		{do: func() { s.RemoveBudget("ns/a"); s.RemoveBudget("ns/c") }, wantChanged: true},
	}
	for i, step := range steps {
		s.BeginUpdate()
		step.do()
		s.EndUpdate()
		if diff := cmp.Diff(step.wantKeys, keys()); diff != "" {
			t.Errorf("step %d: budgets (-want +got):\n%s", i, diff)
		}
		if s.BudgetsChanged != step.wantChanged {
			t.Errorf("step %d: BudgetsChanged = %v, want %v", i, s.BudgetsChanged, step.wantChanged)
		}
	}
}
