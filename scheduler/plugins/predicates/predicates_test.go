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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
)

var all = Options{NodeAffinity: true, TaintToleration: true, NodePorts: true, PodAffinity: true, TopologySpread: true}

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
	f := NewFilter(all, nil)
	zone := termOn(st.MakePod("ns", "p"), true, "app", "x", corev1.LabelTopologyZone).Obj()
	if err := f.PreFilter(api.NewTaskInfo(zone, "ns/p", nil)); err != nil {
		t.Errorf("PreFilter() error = %v for a zone topology", err)
	}
	noKey := termOn(st.MakePod("ns", "p"), true, "app", "x", "").Obj()
	want := `pod ns/p has a required pod (anti-)affinity term without a topologyKey; set one, e.g. "kubernetes.io/hostname"`
	if err := f.PreFilter(api.NewTaskInfo(noKey, "ns/p", nil)); err == nil || err.Error() != want {
		t.Errorf("PreFilter() error = %v, want %q", err, want)
	}
}

// termOn adds a required pod affinity (anti: anti-affinity) term for pods labelled key=value on
// the topology key topo.
func termOn(p *st.PodWrapper, anti bool, key, value, topo string) *st.PodWrapper {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	term := corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}, TopologyKey: topo}
	if anti {
		p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
	} else {
		p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
	}
	return p
}

// filterAll returns the filter's answer for pod on each of the nodes, by node name.
func filterAll(nodes map[string]*api.NodeInfo, pod *corev1.Pod) map[string]string {
	f := NewFilter(all, nodes)
	task := api.NewTaskInfo(pod, "ns/p", nil)
	got := map[string]string{}
	for name, n := range nodes {
		got[name] = f.Filter(task, n)
	}
	return got
}

func TestZoneAntiAffinityOnANodeWithoutZone(t *testing.T) {
	// A placed pod whose anti-affinity spans zones, on a node in no zone, refuses no one there.
	q := termOn(st.MakePod("ns", "q"), true, "app", "web", corev1.LabelTopologyZone).Node("x1").Obj()
	nodes := map[string]*api.NodeInfo{"x1": nodeWith(st.MakeNode("x1", "4", "8Gi").Obj(), q)}
	if diff := cmp.Diff(map[string]string{"x1": ""}, filterAll(nodes, st.MakePod("ns", "p").Label("app", "web").Obj())); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestFilterTopology(t *testing.T) {
	zoned := func(name, zone string) *corev1.Node {
		n := st.MakeNode(name, "4", "8Gi")
		if zone != "" {
			n.Label(corev1.LabelTopologyZone, zone)
		}
		return n.Obj()
	}
	db := st.MakePod("ns", "db").Label("app", "db").Node("a1").Obj()
	// The cluster: a1 and a2 in zone a, b1 in zone b, x1 in no zone.
	cluster := func(onA1 ...*corev1.Pod) map[string]*api.NodeInfo {
		return map[string]*api.NodeInfo{"a1": nodeWith(zoned("a1", "a"), onA1...), "a2": nodeWith(zoned("a2", "a")),
			"b1": nodeWith(zoned("b1", "b")), "x1": nodeWith(zoned("x1", ""))}
	}
	zone := corev1.LabelTopologyZone
	cases := map[string]struct {
		pod   *corev1.Pod
		onA1  []*corev1.Pod
		nodes map[string]string
	}{
		"anti-affinity refuses the matching pod's whole zone": {
			pod: termOn(st.MakePod("ns", "p"), true, "app", "db", zone).Obj(), onA1: []*corev1.Pod{db},
			nodes: map[string]string{"a1": ReasonAntiAffinity, "a2": ReasonAntiAffinity, "b1": "", "x1": ""},
		},
		"affinity asks for a node in the matching pod's zone": {
			pod: termOn(st.MakePod("ns", "p"), false, "app", "db", zone).Obj(), onA1: []*corev1.Pod{db},
			nodes: map[string]string{"a1": "", "a2": "", "b1": ReasonPodAffinity, "x1": ReasonPodAffinity},
		},
		"a placed pod's zone anti-affinity refuses newcomers across its zone": {
			pod:   st.MakePod("ns", "p").Label("app", "web").Obj(),
			onA1:  []*corev1.Pod{termOn(st.MakePod("ns", "q"), true, "app", "web", zone).Node("a1").Obj()},
			nodes: map[string]string{"a1": ReasonAntiAffinity, "a2": ReasonAntiAffinity, "b1": "", "x1": ""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.nodes, filterAll(cluster(tc.onA1...), tc.pod)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArguments(t *testing.T) {
	p, err := New(conf.Arguments{"predicate.NodeAffinityEnable": false, "predicate.CacheEnable": true, "volumebinding.minWeight": 1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Options{NodeAffinity: false, TaintToleration: true, NodePorts: true, PodAffinity: true, TopologySpread: true, VolumeBinding: true,
		DynamicResourceAllocation: true, Volumes: framework.VolumeChecks{Limits: true, Zone: true}}, p.(*plugin).opts); diff != "" {
		t.Errorf("options mismatch (-want +got):\n%s", diff)
	}
	if _, err := New(conf.Arguments{"predicate.NodeAffinity": true}); err == nil {
		t.Error("New() accepted an unknown argument")
	}
}

func TestFilterSpread(t *testing.T) {
	zone := corev1.LabelTopologyZone
	node := func(name, z string, pods int) *api.NodeInfo {
		w := st.MakeNode(name, "8", "8Gi")
		if z != "" {
			w.Label(zone, z)
		}
		var placed []*corev1.Pod
		for i := 0; i < pods; i++ {
			placed = append(placed, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Label("app", "web").Node(name).Obj())
		}
		return nodeWith(w.Obj(), placed...)
	}
	spread := func(maxSkew int32, minDomains *int32) *corev1.Pod {
		p := st.MakePod("ns", "p").Label("app", "web").Obj()
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: maxSkew, TopologyKey: zone,
			WhenUnsatisfiable: corev1.DoNotSchedule, MinDomains: minDomains, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
		return p
	}
	three := int32(3)
	cases := map[string]struct {
		pod  *corev1.Pod
		want map[string]string
	}{
		// Zone a holds 2 matching pods, zone b 1: placing in a makes a skew of 2.
		"maxSkew 1 sends the pod to the emptier zone": {pod: spread(1, nil),
			want: map[string]string{"a1": ReasonSpread, "b1": "", "x1": ReasonSpreadLabel}},
		"maxSkew 2 lets it go either way": {pod: spread(2, nil),
			want: map[string]string{"a1": "", "b1": "", "x1": ReasonSpreadLabel}},
		// Fewer zones than minDomains: the least-loaded count is taken as 0.
		"minDomains counts missing domains as empty": {pod: spread(1, &three),
			want: map[string]string{"a1": ReasonSpread, "b1": ReasonSpread, "x1": ReasonSpreadLabel}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			nodes := map[string]*api.NodeInfo{"a1": node("a1", "a", 2), "b1": node("b1", "b", 1), "x1": node("x1", "", 0)}
			if diff := cmp.Diff(tc.want, filterAll(nodes, tc.pod)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
