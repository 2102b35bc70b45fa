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

package allocate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/registry"
)

const defaultConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
`

// claimingPod is the pod dra-0 of the PodGroup dra, with a claim made from a template.
func claimingPod() *corev1.Pod {
	p := st.MakePod("ns", "dra-0").Group("dra").Req("1", "").Obj()
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu")}}
	return p
}

const allocateOnly = `actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: proportion
  - name: nodeorder
`

func gang(ns, name string, n int, cpu string, minMember int32) []any {
	objs := []any{st.MakePodGroup(ns, name, minMember).Phase(schedulingv1beta1.PodGroupInqueue).Obj()}
	for i := 0; i < n; i++ {
		objs = append(objs, st.MakePod(ns, fmt.Sprintf("%s-%d", name, i)).Group(name).Req(cpu, "").Obj())
	}
	return objs
}

// zonedNodes are four 2-cpu nodes: a1 and a2 in zone a, b1 in zone b, c1 in zone c.
func zonedNodes() []any {
	var out []any
	for _, n := range [][2]string{{"a1", "a"}, {"a2", "a"}, {"b1", "b"}, {"c1", "c"}} {
		out = append(out, st.MakeNode(n[0], "2", "4Gi").Label(corev1.LabelTopologyZone, n[1]).Obj())
	}
	return out
}

// zonedGang is a gang of n one-cpu pods labelled app=name, each with a required pod
// anti-affinity (or affinity) to the others on the zone.
func zonedGang(name string, n int, anti bool) []any {
	objs := []any{st.MakePodGroup("ns", name, int32(n)).Phase(schedulingv1beta1.PodGroupInqueue).Obj()}
	for i := 0; i < n; i++ {
		objs = append(objs, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Label("app", name).Req("1", "").
			RequiredTerm(anti, corev1.LabelTopologyZone, "app", name).Obj())
	}
	return objs
}

// spreadGang is a gang of n one-cpu pods labelled app=name, spread over zones with maxSkew 1.
func spreadGang(name string, n int) []any {
	objs := []any{st.MakePodGroup("ns", name, int32(n)).Phase(schedulingv1beta1.PodGroupInqueue).Obj()}
	for i := 0; i < n; i++ {
		p := st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Label("app", name).Req("1", "").Obj()
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}}
		objs = append(objs, p)
	}
	return objs
}

func objects(parts ...any) []any {
	var out []any
	for _, p := range parts {
		switch v := p.(type) {
		case []any:
			out = append(out, v...)
		default:
			out = append(out, v)
		}
	}
	return out
}

type result struct {
	Binds       map[string]string
	Nominations map[string]string
	Messages    map[api.JobID]string
}

func run(t *testing.T, config string, objs []any) result {
	t.Helper()
	s := st.NewSnapshot(t, objs...)
	ssn, rec := st.Session(t, s, registry.Default(), config, st.Epoch.Add(time.Hour))
	ssn.Run()
	ssn.Close()
	res := result{Binds: rec.Binds, Nominations: rec.Nominations, Messages: map[api.JobID]string{}}
	for _, id := range ssn.Attempted() {
		for _, c := range ssn.JobConditions(id) {
			if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
				res.Messages[id] = c.Message
			}
		}
	}
	return res
}

func TestAllocate(t *testing.T) {
	queues := []any{st.MakeQueue("default", 1).Obj()}
	cases := map[string]struct {
		config string
		objs   []any
		want   result
	}{
		"a 5-pod gang on room for 4 binds nothing": {
			config: defaultConf,
			objs:   objects(queues, st.MakeNode("n1", "2", "4Gi").Obj(), st.MakeNode("n2", "2", "4Gi").Obj(), gang("ns", "pg", 5, "1", 5)),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/pg": "5 of 5 pods wait: pod pg-4: 0/2 nodes are available: 2 Insufficient cpu. The pod requests cpu 1.",
			}},
		},
		"a pod with resourceClaims is not placed without a device allocator, and says why": {
			config: defaultConf,
			objs: objects(queues, st.MakeNode("n1", "2", "4Gi").Obj(), st.MakePodGroup("ns", "dra", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				claimingPod()),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/dra": "1 of 1 pods wait: pod dra-0: pod ns/dra-0 has resourceClaims (Dynamic Resource Allocation), and this scheduler " +
					"allocates no devices: the cluster does not serve resource.k8s.io/v1; it is not placed",
			}},
		},
		"a pod with resourceClaims is not placed when the configuration turns Dynamic Resource Allocation off, and says why": {
			config: strings.Replace(defaultConf, "  - name: predicates\n", "  - name: predicates\n    arguments:\n      predicate.DynamicResourceAllocationEnable: false\n", 1),
			objs: objects(queues, st.MakeNode("n1", "2", "4Gi").Obj(), st.MakePodGroup("ns", "dra", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				claimingPod()),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/dra": "1 of 1 pods wait: pod dra-0: pod ns/dra-0 has resourceClaims, and the scheduler configuration turns Dynamic Resource " +
					"Allocation off (predicate.DynamicResourceAllocationEnable: false): it is not placed",
			}},
		},
		"a 5-pod gang with room binds all": {
			config: defaultConf,
			objs:   objects(queues, st.MakeNode("n1", "3", "4Gi").Obj(), st.MakeNode("n2", "2", "4Gi").Obj(), gang("ns", "pg", 5, "1", 5)),
			want: result{Binds: map[string]string{"ns/pg-0": "n1", "ns/pg-1": "n2", "ns/pg-2": "n1", "ns/pg-3": "n1", "ns/pg-4": "n2"},
				Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"minMember 3 of 5 binds what fits": {
			config: defaultConf,
			objs:   objects(queues, st.MakeNode("n1", "2", "4Gi").Obj(), st.MakeNode("n2", "2", "4Gi").Obj(), gang("ns", "pg", 5, "1", 3)),
			want: result{Binds: map[string]string{"ns/pg-0": "n1", "ns/pg-1": "n2", "ns/pg-2": "n1", "ns/pg-3": "n2"},
				Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"minTaskMember: the ps does not fit, so no worker binds": {
			config: defaultConf,
			objs: objects(queues, st.MakeNode("n1", "2", "4Gi").Obj(),
				st.MakePodGroup("ns", "tf", 2).Phase(schedulingv1beta1.PodGroupInqueue).MinTaskMember("ps", 1).MinTaskMember("worker", 1).Obj(),
				st.MakePod("ns", "tf-ps-0").Group("tf").Role("ps").Req("4", "").Obj(),
				st.MakePod("ns", "tf-worker-0").Group("tf").Role("worker").Req("1", "").Obj(),
				st.MakePod("ns", "tf-worker-1").Group("tf").Role("worker").Req("1", "").Obj(),
			),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/tf": "2 of 2 pods wait: pod tf-ps-0: 0/1 nodes are available: 1 Insufficient cpu. The pod requests cpu 4.",
			}},
		},
		"a host port is taken once a node: 8 pods of one port on 4 nodes bind 4, one a node": {
			config: defaultConf,
			objs: func() []any {
				objs := objects(queues, st.MakeNode("n1", "8", "16Gi").Obj(), st.MakeNode("n2", "8", "16Gi").Obj(),
					st.MakeNode("n3", "8", "16Gi").Obj(), st.MakeNode("n4", "8", "16Gi").Obj(),
					st.MakePodGroup("ns", "web", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj())
				for i := 0; i < 8; i++ {
					objs = append(objs, st.MakePod("ns", fmt.Sprintf("web-%d", i)).Group("web").Req("1", "").HostPort(28080).Obj())
				}
				return objs
			}(),
			want: result{Binds: map[string]string{"ns/web-0": "n1", "ns/web-1": "n2", "ns/web-2": "n3", "ns/web-3": "n4"},
				Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"pods whose required pod affinity matches themselves: the first goes anywhere, the others follow it": {
			config: defaultConf,
			objs: func() []any {
				objs := objects(queues, st.MakeNode("n1", "8", "16Gi").Obj(), st.MakeNode("n2", "8", "16Gi").Obj(),
					st.MakePodGroup("ns", "db", 3).Phase(schedulingv1beta1.PodGroupInqueue).Obj())
				for i := 0; i < 3; i++ {
					objs = append(objs, st.MakePod("ns", fmt.Sprintf("db-%d", i)).Group("db").Req("1", "").Label("app", "db").RequiredPodAffinity("app", "db").Obj())
				}
				return objs
			}(),
			want: result{Binds: map[string]string{"ns/db-0": "n1", "ns/db-1": "n1", "ns/db-2": "n1"},
				Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"nvidia.com/gpu requests are honoured": {
			config: defaultConf,
			objs: objects(queues, st.MakeNode("gpu", "8", "16Gi").Res("nvidia.com/gpu", "2").Obj(), st.MakeNode("cpu", "8", "16Gi").Obj(),
				st.MakePodGroup("ns", "a", 1).Phase(schedulingv1beta1.PodGroupInqueue).Created(st.Epoch).Obj(),
				st.MakePod("ns", "a").Group("a").Req("1", "").Res("nvidia.com/gpu", "2").Obj(),
				st.MakePodGroup("ns", "b", 1).Phase(schedulingv1beta1.PodGroupInqueue).Created(st.Epoch.Add(time.Second)).Obj(),
				st.MakePod("ns", "b").Group("b").Req("1", "").Res("nvidia.com/gpu", "1").Obj(),
			),
			want: result{Binds: map[string]string{"ns/a": "gpu"}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/b": "1 of 1 pods wait: pod b: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu. The pod requests cpu 1, nvidia.com/gpu 1.",
			}},
		},
		"filters: taint, selector, cordon and not ready, counted per reason": {
			config: defaultConf,
			objs: objects(queues,
				st.MakeNode("tainted", "8", "16Gi").Taint("dedicated", "infra", corev1.TaintEffectNoSchedule).Obj(),
				st.MakeNode("cordoned", "8", "16Gi").Unschedulable().Obj(),
				st.MakeNode("down", "8", "16Gi").NotReady().Obj(),
				st.MakeNode("wrong-zone", "8", "16Gi").Label("zone", "b").Obj(),
				st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				st.MakePod("ns", "p").Group("pg").Req("1", "").NodeSelector("zone", "a").Obj(),
			),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/pg": "1 of 1 pods wait: pod p: 0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, " +
					"1 node(s) had untolerated taint {dedicated: infra}, 1 node(s) were not ready, 1 node(s) were unschedulable.",
			}},
		},
		"a toleration and a matching selector let the pod on": {
			config: defaultConf,
			objs: objects(queues,
				st.MakeNode("tainted", "8", "16Gi").Label("zone", "a").Taint("dedicated", "infra", corev1.TaintEffectNoSchedule).Obj(),
				st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				st.MakePod("ns", "p").Group("pg").Req("1", "").NodeSelector("zone", "a").Toleration("dedicated", "infra", corev1.TaintEffectNoSchedule).Obj(),
			),
			want: result{Binds: map[string]string{"ns/p": "tainted"}, Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"queue weights split a full cluster 1:3": {
			config: allocateOnly,
			objs: objects(st.MakeQueue("small", 1).Obj(), st.MakeQueue("large", 3).Obj(), st.MakeNode("n1", "8", "16Gi").Obj(),
				lonePods("small", 8), lonePods("large", 8)),
			want: result{Binds: bindsOn("n1", map[string]int{"small": 2, "large": 6}), Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"a queue's capability caps it even with the cluster free": {
			config: allocateOnly,
			objs: objects(st.MakeQueue("capped", 1).Capability(corev1.ResourceCPU, "2").Obj(), st.MakeNode("n1", "8", "16Gi").Obj(),
				lonePods("capped", 3)),
			want: result{Binds: bindsOn("n1", map[string]int{"capped": 2}), Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"a parent queue's capability caps what its children hold together": {
			config: allocateOnly,
			objs: objects(st.MakeQueue("parent-a", 1).Capability(corev1.ResourceCPU, "4").Obj(),
				st.MakeQueue("child-a", 1).Parent("parent-a").Obj(), st.MakeQueue("grandchild", 1).Parent("child-a").Obj(),
				st.MakeNode("n1", "16", "16Gi").Obj(), lonePods("child-a", 3), lonePods("grandchild", 3)),
			want: result{Binds: bindsOn("n1", map[string]int{"child-a": 2, "grandchild": 2}), Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"a job is not admitted past its parent queue's capability, and says so": {
			config: defaultConf,
			objs: objects(st.MakeQueue("parent-a", 1).Capability(corev1.ResourceCPU, "4").Obj(), st.MakeQueue("child-a", 1).Parent("parent-a").Obj(),
				st.MakeNode("n1", "16", "16Gi").Obj(),
				st.MakePodGroup("ns", "big", 6).Queue("child-a").MinResources("6", "").Obj(),
				st.MakePod("ns", "big-0").Group("big").Req("1", "").Obj()),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/big": "6 of 6 pods wait: queue resource quota insufficient: queue child-a is below queue parent-a, which can hold 4 of cpu and whose queues already hold 0 " +
					"for running and admitted jobs; this PodGroup's minResources need 6 more; wait for their jobs to finish, or raise queue parent-a's capability, or lower minResources",
			}},
		},
		"Pending PodGroups wait for enqueue when it is configured": {
			config: `actions: "allocate"` + "\n",
			objs: objects(queues, st.MakeNode("n1", "8", "16Gi").Obj(),
				st.MakePodGroup("ns", "pg", 1).Obj(), st.MakePod("ns", "p").Group("pg").Req("1", "").Obj()),
			// Without enqueue configured, allocate admits and places it.
			want: result{Binds: map[string]string{"ns/p": "n1"}, Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"a task fitting only releasing resources is pipelined, not bound": {
			config: defaultConf,
			objs: objects(queues, st.MakeNode("n1", "2", "4Gi").Obj(),
				st.MakePodGroup("ns", "old", 1).Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "old").Group("old").Req("2", "").Node("n1").Deleting().Obj(),
				gang("ns", "new", 1, "2", 1)),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/new": "1 of 1 pods wait: 1 pod(s) wait for pods leaving their nodes (the resources, ports or pod anti-affinity those hold)",
			}},
		},
		"a task refused only by a releasing pod's anti-affinity waits for it, not bound beside it": {
			config: defaultConf,
			objs: objects(queues, st.MakeNode("n1", "4", "8Gi").Obj(),
				st.MakePodGroup("ns", "old", 1).Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "old").Group("old").Label("app", "x").Req("1", "").Node("n1").Deleting().Obj(),
				st.MakePodGroup("ns", "new", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				st.MakePod("ns", "new").Group("new").Req("1", "").RequiredPodAntiAffinity("app", "x").Obj()),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/new": "1 of 1 pods wait: 1 pod(s) wait for pods leaving their nodes (the resources, ports or pod anti-affinity those hold)",
			}},
		},
		"a gang with zone anti-affinity puts one pod in each zone": {
			config: defaultConf,
			objs:   objects(queues, zonedNodes(), zonedGang("spread", 3, true)),
			want: result{Binds: map[string]string{"ns/spread-0": "a1", "ns/spread-1": "b1", "ns/spread-2": "c1"},
				Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"a gang with zone anti-affinity and more pods than zones binds nothing": {
			config: defaultConf,
			objs:   objects(queues, zonedNodes(), zonedGang("spread", 4, true)),
			want: result{Binds: map[string]string{}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/spread": "4 of 4 pods wait: pod spread-3: 0/4 nodes are available: 4 node(s) didn't match pod anti-affinity rules.",
			}},
		},
		"a gang with zone affinity lands in one zone": {
			config: defaultConf,
			objs:   objects(queues, zonedNodes(), zonedGang("together", 3, false)),
			want: result{Binds: map[string]string{"ns/together-0": "a1", "ns/together-1": "a2", "ns/together-2": "a1"},
				Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"a gang spread with maxSkew 1 over zones puts two pods in each": {
			config: defaultConf,
			objs:   objects(queues, zonedNodes(), spreadGang("even", 6)),
			want: result{Binds: map[string]string{"ns/even-0": "a1", "ns/even-1": "b1", "ns/even-2": "c1", "ns/even-3": "a2", "ns/even-4": "b1", "ns/even-5": "c1"},
				Nominations: map[string]string{}, Messages: map[api.JobID]string{}},
		},
		"a higher-priority job goes first": {
			config: defaultConf,
			objs: objects(queues, st.MakeNode("n1", "2", "4Gi").Obj(), st.MakePriorityClass("high", 100),
				st.MakePodGroup("ns", "low", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				st.MakePod("ns", "low").Group("low").Req("2", "").Obj(),
				st.MakePodGroup("ns", "high", 1).Phase(schedulingv1beta1.PodGroupInqueue).PriorityClass("high").Created(st.Epoch.Add(time.Minute)).Obj(),
				st.MakePod("ns", "high").Group("high").Req("2", "").Obj()),
			want: result{Binds: map[string]string{"ns/high": "n1"}, Nominations: map[string]string{}, Messages: map[api.JobID]string{
				"ns/low": "1 of 1 pods wait: the cluster's cpu is all in use: queue default holds 2 of the 2 that the nodes offer to queues; add nodes or wait for running pods to finish",
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := run(t, tc.config, tc.objs)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("allocate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// lonePods returns n one-cpu pods with no PodGroup in queue q, named q-0 .. q-(n-1).
func lonePods(q string, n int) []any {
	var out []any
	for i := 0; i < n; i++ {
		out = append(out, st.MakePod("ns", fmt.Sprintf("%s-%d", q, i)).Req("1", "").Annotation(schedulingv1beta1.QueueNameAnnotationKey, q).
			Created(st.Epoch.Add(time.Duration(i)*time.Second)).Obj())
	}
	return out
}

// bindsOn returns the binds of the first count[q] lone pods of each queue q on node.
func bindsOn(node string, count map[string]int) map[string]string {
	out := map[string]string{}
	for q, n := range count {
		for i := 0; i < n; i++ {
			out[fmt.Sprintf("ns/%s-%d", q, i)] = node
		}
	}
	return out
}

// TestUnschedulableCauses drives the causes a pod can fail to be placed for and checks the words
// its PodGroup carries (the pod's PodScheduled condition and FailedScheduling event carry the
// node tally of the same diagnosis).
func TestUnschedulableCauses(t *testing.T) {
	queues := []any{st.MakeQueue("default", 1).Obj()}
	node := func() *st.NodeWrapper { return st.MakeNode("n1", "4", "8Gi").Label(corev1.LabelTopologyZone, "a") }
	pod := func() *st.PodWrapper { return st.MakePod("ns", "p").Group("pg").Label("app", "p").Req("1", "") }
	group := st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj()
	spread := pod().Obj()
	spread.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "rack", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "p"}}}}
	skewed := pod().Obj()
	skewed.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "p"}}}}
	badSelector := pod().RequiredTerm(true, corev1.LabelHostname, "app", "x").Obj()
	badSelector.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}
	noKey := pod().RequiredTerm(true, "", "app", "x").Obj()
	other := func(name string) *st.PodWrapper { return st.MakePod("ns", name).Group("other").Node("n1") }
	otherGroup := st.MakePodGroup("ns", "other", 1).Phase(schedulingv1beta1.PodGroupRunning).Obj()
	cases := map[string]struct {
		objs []any
		want string
	}{
		"cpu":               {objs: objects(node().Obj(), group, pod().Req("8", "").Obj()), want: "0/1 nodes are available: 1 Insufficient cpu."},
		"memory":            {objs: objects(node().Obj(), group, pod().Req("1", "16Gi").Obj()), want: "0/1 nodes are available: 1 Insufficient memory."},
		"extended resource": {objs: objects(node().Obj(), group, pod().Res("nvidia.com/gpu", "1").Obj()), want: "Insufficient nvidia.com/gpu"},
		"pod count": {objs: objects(node().Res(corev1.ResourcePods, "1").Obj(), group, pod().Obj(), otherGroup, other("o").Req("1", "").Obj()),
			want: "0/1 nodes are available: 1 Too many pods."},
		"node selector": {objs: objects(node().Obj(), group, pod().NodeSelector("disk", "ssd").Obj()), want: "1 node(s) didn't match Pod's node affinity/selector."},
		"node affinity": {objs: objects(node().Obj(), group, pod().RequiredNodeAffinity(corev1.LabelTopologyZone, "b").Obj()), want: "1 node(s) didn't match Pod's node affinity/selector."},
		"taint":         {objs: objects(node().Taint("gpu", "yes", corev1.TaintEffectNoSchedule).Obj(), group, pod().Obj()), want: "1 node(s) had untolerated taint {gpu: yes}."},
		"cordoned":      {objs: objects(node().Unschedulable().Obj(), group, pod().Obj()), want: "1 node(s) were unschedulable."},
		"not ready": {objs: objects(node().NotReady().Obj(), st.MakeNode("n2", "4", "8Gi").Taint("x", "y", corev1.TaintEffectNoSchedule).Obj(), group, pod().Obj()),
			want: "0/2 nodes are available: 1 node(s) had untolerated taint {x: y}, 1 node(s) were not ready."},
		"host port": {objs: objects(node().Obj(), group, pod().HostPort(8080).Obj(), otherGroup, other("o").HostPort(8080).Obj()),
			want: "1 node(s) didn't have free ports for the requested pod ports."},
		"anti-affinity": {objs: objects(node().Obj(), group, pod().RequiredTerm(true, corev1.LabelTopologyZone, "app", "db").Obj(), otherGroup, other("o").Label("app", "db").Obj()),
			want: "1 node(s) didn't match pod anti-affinity rules."},
		"existing pod's anti-affinity": {objs: objects(node().Obj(), group, pod().Obj(), otherGroup, other("o").RequiredTerm(true, corev1.LabelTopologyZone, "app", "p").Obj()),
			want: "1 node(s) didn't match pod anti-affinity rules."},
		"affinity": {objs: objects(node().Obj(), st.MakeNode("n2", "4", "8Gi").Label(corev1.LabelTopologyZone, "b").Obj(), group,
			pod().RequiredTerm(false, corev1.LabelTopologyZone, "app", "db").Obj(), otherGroup, other("o").Label("app", "db").Node("n2").Obj(),
			st.MakePod("ns", "filler").Group("other").Req("4", "").Node("n2").Obj()),
			want: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod affinity rules."},
		"spread: missing label": {objs: objects(node().Obj(), group, spread), want: "1 node(s) didn't match pod topology spread constraints (missing required label)."},
		"spread: skew": {objs: objects(node().Obj(), st.MakeNode("n2", "1", "8Gi").Label(corev1.LabelTopologyZone, "b").Obj(), group, skewed,
			otherGroup, other("o").Label("app", "p").Node("n2").Req("1", "").Obj(), other("o2").Label("app", "p").Obj(), other("o3").Label("app", "p").Obj()),
			want: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints."},
		"invalid affinity selector":         {objs: objects(node().Obj(), group, badSelector), want: "has an invalid pod (anti-)affinity label selector"},
		"affinity term without topologyKey": {objs: objects(node().Obj(), group, noKey), want: "has a required pod (anti-)affinity term without a topologyKey"},
		"missing PriorityClass": {objs: objects(node().Obj(), st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupInqueue).PriorityClass("nope").Obj(), pod().Obj()),
			want: `PriorityClass "nope" not found: create it, or name an existing class in spec.priorityClassName`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := run(t, defaultConf, objects(queues, tc.objs))
			if msg := got.Messages["ns/pg"]; !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not contain %q", msg, tc.want)
			}
			if len(got.Binds) != 0 {
				t.Errorf("binds %v, want none", got.Binds)
			}
		})
	}
}

// TestAllocateSharesAfterTheGang: jobs admitted together each get their minimum before any of
// them grows beyond it, then grow one task a turn in job order (Volcano's "Schedule Multiple
// Jobs": three jobs as large as the cluster, each of minAvailable 2, all run).
func TestAllocateSharesAfterTheGang(t *testing.T) {
	cases := map[string]struct {
		nodes []any
		want  map[string]int
	}{
		"room for the three minimums only": {
			nodes: []any{st.MakeNode("n1", "3", "8Gi").Obj(), st.MakeNode("n2", "3", "8Gi").Obj()},
			want:  map[string]int{"a": 2, "b": 2, "c": 2},
		},
		"room for the minimums and three more: one more each": {
			nodes: []any{st.MakeNode("n1", "5", "8Gi").Obj(), st.MakeNode("n2", "4", "8Gi").Obj()},
			want:  map[string]int{"a": 3, "b": 3, "c": 3},
		},
		"room for everything": {
			nodes: []any{st.MakeNode("n1", "8", "16Gi").Obj(), st.MakeNode("n2", "8", "16Gi").Obj()},
			want:  map[string]int{"a": 4, "b": 4, "c": 4},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := objects([]any{st.MakeQueue("default", 1).Obj()}, tc.nodes,
				gang("ns", "a", 4, "1", 2), gang("ns", "b", 4, "1", 2), gang("ns", "c", 4, "1", 2))
			got := map[string]int{}
			for pod := range run(t, defaultConf, objs).Binds {
				got[strings.TrimPrefix(pod, "ns/")[:1]]++
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pods bound per job (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAllocateKeepsAdmittedMinimums: a job's pods beyond its minimum do not take the room an
// admitted job still needs for its own minimum, even before that job's pods exist; the pods
// left say why.
func TestAllocateKeepsAdmittedMinimums(t *testing.T) {
	const held = "the pod is beyond its job's minimum and the free resources are promised to admitted jobs " +
		"that have not started yet (ns/later); it waits until they have"
	cases := map[string]struct {
		config string
		later  []any
		want   int
		// wantHeld is the message of the pods held back, "" when none is.
		wantHeld string
	}{
		"no other job: the elastic job takes the cluster": {config: allocateOnly, want: 4},
		"an admitted job without pods yet keeps its 2 cpu": {
			config:   allocateOnly,
			later:    []any{st.MakePodGroup("ns", "later", 2).Phase(schedulingv1beta1.PodGroupInqueue).MinResources("2", "").Obj()},
			want:     2,
			wantHeld: held,
		},
		"a job that cannot be admitted holds nothing": {
			config: defaultConf,
			later:  []any{st.MakePodGroup("ns", "later", 2).MinResources("5", "").Obj()},
			want:   4,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := objects([]any{st.MakeQueue("default", 1).Obj()}, st.MakeNode("n1", "2", "8Gi").Obj(), st.MakeNode("n2", "2", "8Gi").Obj(),
				gang("ns", "a", 4, "1", 2), tc.later)
			s := st.NewSnapshot(t, objs...)
			ssn, rec := st.Session(t, s, registry.Default(), tc.config, st.Epoch.Add(time.Hour))
			ssn.Run()
			if diff := cmp.Diff(tc.want, len(rec.Binds)); diff != "" {
				t.Errorf("pods of a bound (-want +got):\n%s", diff)
			}
			var gotHeld []string
			if d := ssn.PeekDiagnosis("ns/a"); d != nil {
				for _, fe := range d.TaskFit {
					gotHeld = append(gotHeld, fe.Error())
				}
			}
			var wantHeld []string
			for range 4 - tc.want {
				if tc.wantHeld != "" {
					wantHeld = append(wantHeld, tc.wantHeld)
				}
			}
			if diff := cmp.Diff(wantHeld, gotHeld); diff != "" {
				t.Errorf("messages of the pods held back (-want +got):\n%s", diff)
			}
			ssn.Close()
		})
	}
}
