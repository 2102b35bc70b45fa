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

package predicates

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
)

var all = Options{NodeAffinity: true, TaintToleration: true, NodePorts: true, PodAffinity: true}

func nodeWith(node *corev1.Node, pods ...*corev1.Pod) *api.NodeInfo {
	n := api.NewNodeInfo(node.Name, node)
	for _, p := range pods {
		req := api.PodRequests(p)
		n.AddTask(&api.NodeTask{UID: p.UID, Job: "ns/other", Namespace: p.Namespace, Name: p.Name, Resreq: &req, Status: api.Running, Pod: p})
	}
	return n
}

func antiAffinity(p *st.PodWrapper, key, value string) *st.PodWrapper {
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}, TopologyKey: corev1.LabelHostname,
	}}}}
	return p
}

func TestFilter(t *testing.T) {
	plain := st.MakeNode("n", "4", "8Gi").Label("zone", "a").Obj()
	cases := map[string]struct {
		opts Options
		pod  *corev1.Pod
		node *api.NodeInfo
		want string
	}{
		"fits":     {opts: all, pod: st.MakePod("ns", "p").Obj(), node: nodeWith(plain)},
		"cordoned": {opts: all, pod: st.MakePod("ns", "p").Obj(), node: nodeWith(st.MakeNode("n", "4", "8Gi").Unschedulable().Obj()), want: ReasonUnschedulable},
		"cordon tolerated": {opts: all, pod: st.MakePod("ns", "p").Toleration(corev1.TaintNodeUnschedulable, "", corev1.TaintEffectNoSchedule).Obj(),
			node: nodeWith(st.MakeNode("n", "4", "8Gi").Unschedulable().Obj())},
		"untolerated taint": {opts: all, pod: st.MakePod("ns", "p").Obj(),
			node: nodeWith(st.MakeNode("n", "4", "8Gi").Taint("gpu", "yes", corev1.TaintEffectNoSchedule).Obj()), want: "node(s) had untolerated taint {gpu: yes}"},
		"taint filter off": {opts: Options{NodeAffinity: true}, pod: st.MakePod("ns", "p").Obj(),
			node: nodeWith(st.MakeNode("n", "4", "8Gi").Taint("gpu", "yes", corev1.TaintEffectNoSchedule).Obj())},
		"prefer-no-schedule taints do not filter": {opts: all, pod: st.MakePod("ns", "p").Obj(),
			node: nodeWith(st.MakeNode("n", "4", "8Gi").Taint("gpu", "yes", corev1.TaintEffectPreferNoSchedule).Obj())},
		"selector mismatch":     {opts: all, pod: st.MakePod("ns", "p").NodeSelector("zone", "b").Obj(), node: nodeWith(plain), want: ReasonNodeAffinity},
		"required affinity":     {opts: all, pod: st.MakePod("ns", "p").RequiredNodeAffinity("zone", "b", "c").Obj(), node: nodeWith(plain), want: ReasonNodeAffinity},
		"required affinity met": {opts: all, pod: st.MakePod("ns", "p").RequiredNodeAffinity("zone", "a").Obj(), node: nodeWith(plain)},
		"host port taken": {opts: all, pod: st.MakePod("ns", "p").HostPort(8080).Obj(),
			node: nodeWith(plain, st.MakePod("ns", "q").HostPort(8080).Node("n").Obj()), want: ReasonNodePorts},
		"another host port": {opts: all, pod: st.MakePod("ns", "p").HostPort(8080).Obj(),
			node: nodeWith(plain, st.MakePod("ns", "q").HostPort(9090).Node("n").Obj())},
		"anti-affinity to a pod on the node": {opts: all, pod: antiAffinity(st.MakePod("ns", "p"), "app", "db").Obj(),
			node: nodeWith(plain, st.MakePod("ns", "q").Label("app", "db").Node("n").Obj()), want: ReasonAntiAffinity},
		"a pod on the node refuses the newcomer": {opts: all, pod: st.MakePod("ns", "p").Label("app", "db").Obj(),
			node: nodeWith(plain, antiAffinity(st.MakePod("ns", "q"), "app", "db").Node("n").Obj()), want: ReasonAntiAffinity},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := NewFilter(tc.opts, nil)
			task := api.NewTaskInfo(tc.pod, "ns/p", nil)
			if diff := cmp.Diff(tc.want, f.Filter(task, tc.node)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreFilter(t *testing.T) {
	zoneAnti := st.MakePod("ns", "p").Obj()
	zoneAnti.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "topology.kubernetes.io/zone",
	}}}}
	f := NewFilter(all, nil)
	err := f.PreFilter(api.NewTaskInfo(zoneAnti, "ns/p", nil))
	want := `pod ns/p has a required pod (anti-)affinity on topology "topology.kubernetes.io/zone"; this scheduler honours only "kubernetes.io/hostname": use that topology key or a preferred term`
	if err == nil || err.Error() != want {
		t.Errorf("PreFilter() error = %v, want %q", err, want)
	}
	if err := f.PreFilter(api.NewTaskInfo(antiAffinity(st.MakePod("ns", "p"), "app", "x").Obj(), "ns/p", nil)); err != nil {
		t.Errorf("PreFilter() error = %v for a hostname topology", err)
	}
}

func TestArguments(t *testing.T) {
	p, err := New(conf.Arguments{"predicate.NodeAffinityEnable": false, "predicate.CacheEnable": true, "volumebinding.minWeight": 1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Options{NodeAffinity: false, TaintToleration: true, NodePorts: true, PodAffinity: true}, p.(*plugin).opts); diff != "" {
		t.Errorf("options mismatch (-want +got):\n%s", diff)
	}
	if _, err := New(conf.Arguments{"predicate.NodeAffinity": true}); err == nil {
		t.Error("New() accepted an unknown argument")
	}
}
