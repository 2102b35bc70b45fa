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

func flat(parts ...any) []any {
	var out []any
	for _, p := range parts {
		if v, ok := p.([]any); ok {
			out = append(out, v...)
		} else {
			out = append(out, p)
		}
	}
	return out
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
			objs: flat(base, running("low", "default", "low", 4, 1, "1", "n1"), pending("high", "default", "high", 2, 2, "1")),
			want: result{Evictions: []string{"ns/low-2", "ns/low-3"}, Nominations: map[string]string{"ns/high-0": "n1", "ns/high-1": "n1"}, Binds: map[string]string{}},
		},
		"a running gang is never taken below its minimum": {
			objs: flat(base, running("low", "default", "low", 4, 4, "1", "n1"), pending("high", "default", "high", 2, 2, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"a gang above its minimum gives up only its spare pods": {
			objs: flat(base, running("low", "default", "low", 4, 3, "1", "n1"), pending("high", "default", "high", 2, 2, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"equal priority preempts nothing": {
			objs: flat(base, running("low", "default", "high", 4, 1, "1", "n1"), pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"other queues are left to reclaim": {
			objs: flat(base, running("low", "other", "low", 4, 1, "1", "n1"), pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"critical pods are never victims": {
			objs: flat(base, st.MakePodGroup("ns", "sys", 1).Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "sys").Group("sys").Req("4", "").Priority("system-cluster-critical", 0).Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"a pod with preemptionPolicy Never does not preempt": {
			objs: flat(base, running("low", "default", "low", 4, 1, "1", "n1"),
				st.MakePodGroup("ns", "polite", 1).PriorityClass("high").Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
				st.MakePod("ns", "polite").Group("polite").Req("1", "").PreemptNever().Obj()),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"a PodGroup marked not preemptable keeps its pods": {
			objs: flat(base, st.MakePodGroup("ns", "keep", 1).PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).
				Annotation(schedulingv1beta1.PodPreemptable, "false").Obj(),
				st.MakePod("ns", "keep").Group("keep").Req("4", "").Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
		},
		"pods marked not preemptable are never victims": {
			objs: flat(base, st.MakePodGroup("ns", "keep", 1).PriorityClass("low").Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "keep").Group("keep").Req("4", "").Annotation(schedulingv1beta1.PodPreemptable, "false").Node("n1").Obj(),
				pending("high", "default", "high", 1, 1, "1")),
			want: result{Nominations: map[string]string{}, Binds: map[string]string{}},
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
	s := st.NewSnapshot(t, flat(base, running("low", "default", "low", 4, 1, "1", "n1"), pending("high", "default", "high", 2, 2, "1"))...)
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
