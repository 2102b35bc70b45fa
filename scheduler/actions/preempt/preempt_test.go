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

package preempt_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/registry"
)

const conf = `actions: "allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
`

// running returns a Running PodGroup with n running pods of cpu each on node, of a priority class.
func running(name, queue, class string, n int, min int32, cpu, node string) []any {
	objs := []any{st.MakePodGroup("ns", name, min).Queue(queue).PriorityClass(class).Phase(schedulingv1beta1.PodGroupRunning).Obj()}
	for i := 0; i < n; i++ {
		objs = append(objs, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Req(cpu, "").Priority(class, 0).Node(node).Obj())
	}
	return objs
}

func pending(name, queue, class string, n int, min int32, cpu string) []any {
	objs := []any{st.MakePodGroup("ns", name, min).Queue(queue).PriorityClass(class).Phase(schedulingv1beta1.PodGroupInqueue).Created(st.Epoch.Add(time.Minute)).Obj()}
	for i := 0; i < n; i++ {
		objs = append(objs, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Req(cpu, "").Obj())
	}
	return objs
}

type result struct {
	Evictions   []string
	Nominations map[string]string
	Binds       map[string]string
}

func TestPreempt(t *testing.T) {
	base := []any{st.MakeQueue("default", 1).Obj(), st.MakeQueue("other", 1).Obj(), st.MakeNode("n1", "4", "8Gi").Obj(),
		st.MakePriorityClass("low", 10), st.MakePriorityClass("high", 1000)}
	cases := map[string]struct {
		objs []any
		want result
	}{
		"a high-priority gang evicts low-priority pods of its queue": {
			objs: st.Flat(base, running("low", "default", "low", 4, 1, "1", "n1"), pending("high", "default", "high", 2, 2, "1")),
			want: result{Evictions: []string{"ns/low-2", "ns/low-3"}, Nominations: map[string]string{"ns/high-0": "n1", "ns/high-1": "n1"}, Binds: map[string]string{}},
		},
		"a running gang at its minimum goes whole, never below its minimum": {
			objs: st.Flat(base, running("low", "default", "low", 4, 4, "1", "n1"), pending("high", "default", "high", 2, 2, "1")),
			want: result{Evictions: []string{"ns/low-0", "ns/low-1", "ns/low-2", "ns/low-3"},
				Nominations: map[string]string{"ns/high-0": "n1", "ns/high-1": "n1"}, Binds: map[string]string{}},
		},
		"a gang whose spare pods are not enough goes whole": {
			objs: st.Flat(base, running("low", "default", "low", 4, 3, "1", "n1"), pending("high", "default", "high", 2, 2, "1")),
			want: result{Evictions: []string{"ns/low-0", "ns/low-1", "ns/low-2", "ns/low-3"},
				Nominations: map[string]string{"ns/high-0": "n1", "ns/high-1": "n1"}, Binds: map[string]string{}},
		},
		"spare pods are taken before whole gangs": {
			objs: st.Flat(base, st.MakeNode("n2", "4", "8Gi").Obj(), running("low", "default", "low", 4, 2, "1", "n1"),
				running("lower", "default", "low", 4, 4, "1", "n2"), pending("high", "default", "high", 2, 2, "1")),
			want: result{Evictions: []string{"ns/low-2", "ns/low-3"},
				Nominations: map[string]string{"ns/high-0": "n1", "ns/high-1": "n1"}, Binds: map[string]string{}},
		},
		"a free node and one eviction are used together": {
			objs: st.Flat(base, st.MakeNode("n2", "2", "8Gi").Obj(), running("low", "default", "low", 4, 2, "1", "n1"),
				pending("high", "default", "high", 3, 3, "1")),
			want: result{Evictions: []string{"ns/low-3"},
				Nominations: map[string]string{"ns/high-0": "n2", "ns/high-1": "n2", "ns/high-2": "n1"}, Binds: map[string]string{}},
		},
		"a gang held within a rack evicts only in one rack": {
			objs: st.Flat(st.MakeQueue("default", 1).Obj(), st.MakePriorityClass("low", 10), st.MakePriorityClass("high", 1000), st.MakeNode("r0a", "2", "8Gi").Obj(), st.MakeNode("r0b", "2", "8Gi").Obj(),
				st.MakeNode("r1a", "2", "8Gi").Obj(), st.MakeNode("r1b", "2", "8Gi").Obj(),
				st.MakeHyperNode("rack-0", 1, "r0a", "r0b"), st.MakeHyperNode("rack-1", 1, "r1a", "r1b"),
				running("low-a", "default", "low", 2, 1, "1", "r0a"), running("low-b", "default", "low", 2, 1, "1", "r1a"),
				running("low-c", "default", "low", 2, 1, "1", "r0b"), running("low-d", "default", "low", 2, 1, "1", "r1b"),
				func() []any {
					objs := pending("high", "default", "high", 3, 3, "1")
					objs[0] = st.MakePodGroup("ns", "high", 3).Queue("default").PriorityClass("high").Phase(schedulingv1beta1.PodGroupInqueue).
						Created(st.Epoch.Add(time.Minute)).NetworkTopology("hard", 1, "").Obj()
					return objs
				}()),
			want: result{Evictions: []string{"ns/low-a-0", "ns/low-a-1", "ns/low-c-1"},
				Nominations: map[string]string{"ns/high-0": "r0a", "ns/high-1": "r0a", "ns/high-2": "r0b"}, Binds: map[string]string{}},
		},
		"nothing is evicted when the gang would still not fit": {
			objs: st.Flat(base, running("low", "default", "low", 4, 1, "1", "n1"), pending("high", "default", "high", 5, 5, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"a victim whose budget allows no disruption is left and another gang taken": {
			objs: st.Flat(base, st.MakeNode("n2", "4", "8Gi").Obj(),
				st.MakePDB("ns", "keep", 0).Selector("app", "kept").Obj(),
				st.MakePodGroup("ns", "kept", 4).Queue("default").PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "kept-0").Group("kept").Label("app", "kept").Req("4", "").Node("n1").Obj(),
				running("low", "default", "low", 4, 4, "1", "n2"),
				pending("high", "default", "high", 2, 2, "2")),
			want: result{Evictions: []string{"ns/low-0", "ns/low-1", "ns/low-2", "ns/low-3"},
				Nominations: map[string]string{"ns/high-0": "n2", "ns/high-1": "n2"}, Binds: map[string]string{}},
		},
		"a budget allowing one disruption lets one pod go": {
			objs: st.Flat(base, st.MakePDB("ns", "one", 1).Selector("app", "low").Obj(),
				st.MakePodGroup("ns", "low", 1).Queue("default").PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "low-0").Group("low").Label("app", "low").Req("1", "").Node("n1").Obj(),
				st.MakePod("ns", "low-1").Group("low").Label("app", "low").Req("1", "").Node("n1").Obj(),
				st.MakePod("ns", "low-2").Group("low").Label("app", "low").Req("1", "").Node("n1").Obj(),
				st.MakePod("ns", "low-3").Group("low").Label("app", "low").Req("1", "").Node("n1").Obj(),
				pending("high", "default", "high", 2, 2, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"minTaskMember keeps a task's minimum when spare pods are chosen": {
			objs: st.Flat(base, st.MakePodGroup("ns", "low", 2).Queue("default").PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).
				MinTaskMember("ps", 1).MinTaskMember("worker", 1).Obj(),
				st.MakePod("ns", "low-ps").Group("low").Role("ps").Req("1", "").Node("n1").Obj(),
				st.MakePod("ns", "low-w0").Group("low").Role("worker").Req("1", "").Node("n1").Obj(),
				st.MakePod("ns", "low-w1").Group("low").Role("worker").Req("1", "").Node("n1").Obj(),
				st.MakePod("ns", "low-w2").Group("low").Role("worker").Req("1", "").Node("n1").Obj(),
				pending("high", "default", "high", 2, 2, "1")),
			want: result{Evictions: []string{"ns/low-w1", "ns/low-w2"},
				Nominations: map[string]string{"ns/high-0": "n1", "ns/high-1": "n1"}, Binds: map[string]string{}},
		},
		"equal priority preempts nothing": {
			objs: st.Flat(base, running("low", "default", "high", 4, 1, "1", "n1"), pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"other queues are left to reclaim": {
			objs: st.Flat(base, running("low", "other", "low", 4, 1, "1", "n1"), pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"critical pods are never victims": {
			objs: st.Flat(base, st.MakePodGroup("ns", "sys", 1).Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "sys").Group("sys").Req("4", "").Priority("system-cluster-critical", 0).Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"a pod with preemptionPolicy Never does not preempt": {
			objs: st.Flat(base, running("low", "default", "low", 4, 1, "1", "n1"),
				st.MakePodGroup("ns", "polite", 1).PriorityClass("high").Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				st.MakePod("ns", "polite").Group("polite").Req("1", "").PreemptNever().Obj()),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"a PodGroup marked not preemptable keeps its pods": {
			objs: st.Flat(base, st.MakePodGroup("ns", "keep", 1).PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).
				Annotation(schedulingv1beta1.PodPreemptable, "false").Obj(),
				st.MakePod("ns", "keep").Group("keep").Req("4", "").Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"pods marked not preemptable are never victims": {
			objs: st.Flat(base, st.MakePodGroup("ns", "keep", 1).PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "keep").Group("keep").Req("4", "").Annotation(schedulingv1beta1.PodPreemptable, "false").Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"pods held by a scheduling gate do not preempt": {
			objs: st.Flat(base, running("low", "default", "low", 4, 1, "1", "n1"),
				st.MakePodGroup("ns", "gated", 2).PriorityClass("high").Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				st.MakePod("ns", "gated-0").Group("gated").Req("1", "").Gate("example.com/hold").Obj(),
				st.MakePod("ns", "gated-1").Group("gated").Req("1", "").Gate("example.com/hold").Obj()),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"the pod whose anti-affinity blocks the gang goes, not the lower-priority pod beside it": {
			objs: st.Flat(base[:2], base[3:], blockedByAntiAffinity()),
			want: result{Evictions: []string{"ns/blocker-1", "ns/blocker-2", "ns/blocker-3"},
				Nominations: map[string]string{"ns/high-0": "n3", "ns/high-1": "n2", "ns/high-2": "n1"}, Binds: map[string]string{}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, rec := st.Session(t, s, registry.Default(), conf, st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			got := result{Evictions: rec.Evictions, Nominations: rec.Nominations, Binds: rec.Binds}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("preempt mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// blockedByAntiAffinity is Volcano's "preempt low priority pod with anti-affinity constraint":
// on each of four 4-cpu nodes runs a middle-priority blocker and a low-priority bystander (one
// cpu each); a high-priority gang of three 3-cpu pods refuses nodes with a blocker. Evicting the
// bystanders frees the cpu but leaves the blockers, so only the blockers' eviction helps.
func blockedByAntiAffinity() []any {
	objs := []any{st.MakePriorityClass("middle", 100),
		st.MakePodGroup("ns", "blocker", 1).Queue("default").PriorityClass("middle").Phase(schedulingv1beta1.PodGroupRunning).Obj(),
		st.MakePodGroup("ns", "bystander", 1).Queue("default").PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).Obj(),
		st.MakePodGroup("ns", "high", 3).Queue("default").PriorityClass("high").Phase(schedulingv1beta1.PodGroupInqueue).Created(st.Epoch.Add(time.Minute)).Obj()}
	for i := 0; i < 4; i++ {
		node := fmt.Sprintf("n%d", i)
		objs = append(objs, st.MakeNode(node, "4", "8Gi").Obj(),
			st.MakePod("ns", fmt.Sprintf("blocker-%d", i)).Group("blocker").Label("app", "blocker").Req("1", "").Priority("middle", 0).
				RequiredPodAntiAffinity("app", "blocker").Node(node).Obj(),
			st.MakePod("ns", fmt.Sprintf("bystander-%d", i)).Group("bystander").Label("app", "bystander").Req("1", "").Priority("low", 0).
				RequiredPodAffinity("app", "blocker").RequiredPodAntiAffinity("app", "bystander").Node(node).Obj())
	}
	for i := 0; i < 3; i++ {
		objs = append(objs, st.MakePod("ns", fmt.Sprintf("high-%d", i)).Group("high").Label("app", "preemptor").Req("3", "").
			RequiredPodAntiAffinity("app", "blocker").Obj())
	}
	return objs
}

const confSLA = `actions: "allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: sla
    arguments:
      sla-waiting-time: 1m
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
`

func TestPreemptSLAForcedVoteEvictsNothingForAGangThatCannotFit(t *testing.T) {
	base := []any{st.MakeQueue("default", 1).Obj(), st.MakeNode("n1", "4", "8Gi").Obj(),
		st.MakePriorityClass("low", 10), st.MakePriorityClass("high", 1000)}
	// high waited past its SLA (created a minute after the epoch, the cycle is an hour later),
	// so sla votes it pipelined whatever it holds; it still needs 5 cpu of a 4-cpu cluster.
	s := st.NewSnapshot(t, st.Flat(base, running("low", "default", "low", 4, 1, "1", "n1"), pending("high", "default", "high", 5, 5, "1"))...)
	ssn, rec := st.Session(t, s, registry.Default(), confSLA, st.Epoch.Add(time.Hour))
	ssn.Run()
	ssn.Close()
	if len(rec.Evictions) != 0 || len(rec.Nominations) != 0 {
		t.Errorf("evictions %v, nominations %v; want none", rec.Evictions, rec.Nominations)
	}
}

func TestPreemptMessages(t *testing.T) {
	base := []any{st.MakeQueue("default", 1).Obj(), st.MakeNode("n1", "4", "8Gi").Obj(),
		st.MakePriorityClass("low", 10), st.MakePriorityClass("high", 1000)}
	cases := map[string]struct {
		objs []any
		want string
	}{
		"preempting says how many pods of which job": {
			objs: st.Flat(base, running("low", "default", "low", 4, 4, "1", "n1"), pending("high", "default", "high", 2, 2, "1")),
			want: "preempting 4 pod(s) of lower priority (job ns/low); the gang starts once they are gone",
		},
		"protected pods are named": {
			objs: st.Flat(base, st.MakePodGroup("ns", "keep", 1).PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "keep").Group("keep").Req("4", "").Annotation(schedulingv1beta1.PodPreemptable, "false").Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: "preemption cannot make room for the gang: the work it could take is protected: 1 pod(s) marked volcano.sh/preemptable=false",
		},
		"pods a budget keeps are named": {
			objs: st.Flat(base, st.MakePDB("ns", "keep", 0).Selector("app", "kept").Obj(),
				st.MakePodGroup("ns", "kept", 1).PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "kept").Group("kept").Label("app", "kept").Req("4", "").Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: "preemption cannot make room for the gang: the work it could take is protected: 1 pod(s) whose PodDisruptionBudget allows no more disruptions",
		},
		"protected PodGroups are named": {
			objs: st.Flat(base, st.MakePodGroup("ns", "keep", 1).PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).
				Annotation(schedulingv1beta1.PodPreemptable, "false").Obj(),
				st.MakePod("ns", "keep").Group("keep").Req("4", "").Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: "preemption cannot make room for the gang: the work it could take is protected: 1 pod(s) of PodGroups marked volcano.sh/preemptable=false",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, _ := st.Session(t, s, registry.Default(), conf, st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			var msg string
			for _, c := range ssn.JobConditions("ns/high") {
				if c.Type == schedulingv1beta1.PodGroupUnschedulableType {
					msg = c.Message
				}
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not contain %q", msg, tc.want)
			}
		})
	}
}

// registryValue reads an unlabelled counter or gauge from the manager's registry.
func registryValue(t *testing.T, name string) float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatalf("gathering the manager's registry: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name || len(f.GetMetric()) != 1 {
			continue
		}
		m := f.GetMetric()[0]
		if m.GetCounter() != nil {
			return m.GetCounter().GetValue()
		}
		return m.GetGauge().GetValue()
	}
	t.Fatalf("%s is not on the manager's registry", name)
	return 0
}

func TestPreemptMetrics(t *testing.T) {
	base := []any{st.MakeQueue("default", 1).Obj(), st.MakeNode("n1", "4", "8Gi").Obj(),
		st.MakePriorityClass("low", 10), st.MakePriorityClass("high", 1000)}
	before := registryValue(t, "volcano_total_preemption_attempts")
	s := st.NewSnapshot(t, st.Flat(base, running("low", "default", "low", 4, 1, "1", "n1"), pending("high", "default", "high", 2, 2, "1"))...)
	ssn, rec := st.Session(t, s, registry.Default(), conf, st.Epoch.Add(time.Hour))
	ssn.Run()
	ssn.Close()
	type result struct {
		Evictions int
		Victims   float64
		Attempted bool
	}
	got := result{
		Evictions: len(rec.Evictions),
		Victims:   registryValue(t, "volcano_pod_preemption_victims"),
		Attempted: registryValue(t, "volcano_total_preemption_attempts") > before,
	}
	if diff := cmp.Diff(result{Evictions: 2, Victims: 2, Attempted: true}, got); diff != "" {
		t.Errorf("preemption metrics (-want +got):\n%s", diff)
	}
}
