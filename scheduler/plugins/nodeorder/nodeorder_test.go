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

package nodeorder

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
)

func round(v float64) float64 { return math.Round(v*100) / 100 }

func TestResourceScores(t *testing.T) {
	n := &api.NodeInfo{Allocatable: api.Resource{MilliCPU: 4000, Memory: 4000}, Used: api.Resource{MilliCPU: 1000, Memory: 3000}}
	req := &api.Resource{MilliCPU: 1000, Memory: 0}
	got := []float64{round(LeastRequested(req, n)), round(MostRequested(req, n)), round(BalancedResource(req, n))}
	// cpu 2/4 and memory 3/4 used with the task: least (0.5+0.25)/2, most (0.5+0.75)/2,
	// balanced 1 - stddev(0.5, 0.75).
	want := []float64{37.5, 62.5, 87.5}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scores mismatch (-want +got):\n%s", diff)
	}
}

func TestTaintToleration(t *testing.T) {
	node := st.MakeNode("n", "4", "8Gi").Taint("a", "1", corev1.TaintEffectPreferNoSchedule).Taint("b", "2", corev1.TaintEffectPreferNoSchedule).Obj()
	cases := map[string]struct {
		pod  *corev1.Pod
		want float64
	}{
		"tolerates none":  {pod: st.MakePod("ns", "p").Obj(), want: 100.0 / 3},
		"tolerates one":   {pod: st.MakePod("ns", "p").Toleration("a", "1", "").Obj(), want: 50},
		"tolerates both":  {pod: st.MakePod("ns", "p").Toleration("a", "1", "").Toleration("b", "2", "").Obj(), want: 100},
		"untainted nodes": {pod: st.MakePod("ns", "p").Obj(), want: 100},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := node
			if name == "untainted nodes" {
				n = st.MakeNode("m", "4", "8Gi").Obj()
			}
			if diff := cmp.Diff(tc.want, TaintToleration(tc.pod, n)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScorePrefersPreferredNodes(t *testing.T) {
	s := NewScorer(Weights{NodeAffinity: 2})
	pod := st.MakePod("ns", "p").PreferredNodeAffinity(80, "zone", "a").PreferredNodeAffinity(20, "disk", "ssd").Obj()
	task := api.NewTaskInfo(pod, "ns/p", nil)
	score := func(node *corev1.Node) float64 { return s.Score(task, api.NewNodeInfo(node.Name, node)) }
	got := []float64{
		score(st.MakeNode("both", "4", "8Gi").Label("zone", "a").Label("disk", "ssd").Obj()),
		score(st.MakeNode("zone", "4", "8Gi").Label("zone", "a").Obj()),
		score(st.MakeNode("none", "4", "8Gi").Obj()),
	}
	if diff := cmp.Diff([]float64{200, 160, 0}, got); diff != "" {
		t.Errorf("scores mismatch (-want +got):\n%s", diff)
	}
}

func TestArguments(t *testing.T) {
	p, err := New(conf.Arguments{"leastrequested.weight": 0, "mostrequested.weight": 2, "podaffinity.weight": 2})
	if err != nil {
		t.Fatal(err)
	}
	want := Weights{LeastRequested: 0, MostRequested: 2, BalancedResource: 1, NodeAffinity: 2, TaintToleration: 3, PodAffinity: 2, PodTopologySpread: 2}
	if diff := cmp.Diff(want, p.(*plugin).w); diff != "" {
		t.Errorf("weights mismatch (-want +got):\n%s", diff)
	}
	if _, err := New(conf.Arguments{"leastrequested.weight": "x"}); err == nil {
		t.Error("New() accepted a weight that is not a number")
	}
	if _, err := New(conf.Arguments{"leastrequest.weight": 1}); err == nil {
		t.Error("New() accepted a misspelt argument")
	}
}

func TestPlacementScore(t *testing.T) {
	zone := corev1.LabelTopologyZone
	node := func(name, z string, pods ...*corev1.Pod) *api.NodeInfo {
		n := api.NewNodeInfo(name, st.MakeNode(name, "8", "8Gi").Label(zone, z).Obj())
		for _, p := range pods {
			req := api.PodRequests(p)
			n.AddTask(&api.NodeTask{UID: p.UID, Job: "ns/other", Namespace: p.Namespace, Name: p.Name, Resreq: &req, Status: api.Running, Pod: p})
		}
		return n
	}
	web := func(name, on string) *corev1.Pod { return st.MakePod("ns", name).Label("app", "web").Node(on).Obj() }
	nodes := map[string]*api.NodeInfo{"a1": node("a1", "a", web("w0", "a1"), web("w1", "a1")), "b1": node("b1", "b", web("w2", "b1")), "c1": node("c1", "c")}
	term := corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: zone}

	near := st.MakePod("ns", "near").Obj()
	near.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 10, PodAffinityTerm: term}}}}
	apart := st.MakePod("ns", "apart").Obj()
	apart.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 10, PodAffinityTerm: term}}}}
	even := st.MakePod("ns", "even").Label("app", "web").Obj()
	even.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}

	type scores struct{ Affinity, Spread map[string]float64 }
	cases := map[string]struct {
		pod  *corev1.Pod
		want scores
	}{
		"preferred affinity favours the zones with a matching pod": {pod: near,
			want: scores{Affinity: map[string]float64{"a1": 100, "b1": 100, "c1": 0}, Spread: map[string]float64{"a1": 0, "b1": 0, "c1": 0}}},
		"preferred anti-affinity favours the zone without one": {pod: apart,
			want: scores{Affinity: map[string]float64{"a1": 0, "b1": 0, "c1": 100}, Spread: map[string]float64{"a1": 0, "b1": 0, "c1": 0}}},
		"ScheduleAnyway favours the least-loaded zone": {pod: even,
			want: scores{Affinity: map[string]float64{"a1": 0, "b1": 0, "c1": 0}, Spread: map[string]float64{"a1": 0, "b1": 50, "c1": 100}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := NewPlacementScorer(nodes)
			task := api.NewTaskInfo(tc.pod, "ns/p", nil)
			got := scores{Affinity: map[string]float64{}, Spread: map[string]float64{}}
			for name, n := range nodes {
				got.Affinity[name], got.Spread[name] = p.Score(task, n)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
