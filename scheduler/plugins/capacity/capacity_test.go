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

package capacity_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/registry"
)

func config(hierarchy bool, levels int) string {
	return fmt.Sprintf(`actions: "enqueue, allocate, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: capacity
    enableHierarchy: %v
    arguments:
      ancestorReclaimLevel: %d
  - name: nodeorder
`, hierarchy, levels)
}

// jobs are n one-pod jobs of cpu each in queue q, admitted (Inqueue) or Running when placed on node.
func jobs(q string, n int, cpu, node string) []any {
	var out []any
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s-%d", q, i)
		phase := schedulingv1beta1.PodGroupInqueue
		p := st.MakePod("ns", name+"-0").Group(name).Req(cpu, "")
		if node != "" {
			phase = schedulingv1beta1.PodGroupRunning
			p = p.Node(node).Phase(corev1.PodRunning)
		}
		out = append(out, st.MakePodGroup("ns", name, 1).Queue(q).Phase(phase).MinResources(cpu, "").Obj(), p.Obj())
	}
	return out
}

func flat(parts ...any) []any { return st.Flat(parts...) }

func TestCapacity(t *testing.T) {
	// Two branches: p1 above a (and b), p2 above c.
	branches := func(p1, a, p2, c string) []any {
		return flat(st.MakeQueue("root", 1).Obj(),
			st.MakeQueue("p1", 1).Deserved("cpu", p1).Obj(), st.MakeQueue("a", 1).Parent("p1").Deserved("cpu", a).Obj(),
			st.MakeQueue("b", 1).Parent("p1").Obj(),
			st.MakeQueue("p2", 1).Deserved("cpu", p2).Obj(), st.MakeQueue("c", 1).Parent("p2").Deserved("cpu", c).Obj())
	}
	cases := map[string]struct {
		hierarchy bool
		// levels is ancestorReclaimLevel.
		levels int
		objs   []any
		// binds counts the pods bound per queue; evicted the pods evicted per queue.
		binds   map[string]int
		evicted map[string]int
		message map[api.JobID]string
	}{
		"a queue places up to its capability, not its deserved share": {
			objs: flat(st.MakeNode("n", "8", "16Gi").Obj(),
				st.MakeQueue("a", 1).Deserved("cpu", "2").Capability("cpu", "3").Obj(), jobs("a", 5, "1", "")),
			binds: map[string]int{"a": 3},
		},
		"a child's capability is within its parent's: 6 pods of a queue below a parent capped at 4 place 4": {
			hierarchy: true,
			objs: flat(st.MakeNode("n", "8", "16Gi").Obj(), st.MakeQueue("root", 1).Obj(),
				st.MakeQueue("parent-a", 1).Capability("cpu", "4").Obj(), st.MakeQueue("child-a", 1).Parent("parent-a").Obj(),
				jobs("child-a", 6, "1", "")),
			binds: map[string]int{"child-a": 4},
		},
		"siblings share their parent's capability": {
			hierarchy: true,
			objs: flat(st.MakeNode("n", "8", "16Gi").Obj(), st.MakeQueue("root", 1).Obj(),
				st.MakeQueue("p", 1).Capability("cpu", "4").Obj(), st.MakeQueue("x", 1).Parent("p").Obj(), st.MakeQueue("y", 1).Parent("p").Obj(),
				jobs("x", 1, "3", "n"), jobs("y", 3, "1", "")),
			binds: map[string]int{"y": 1},
		},
		"a job of a queue with queues below it waits and says why": {
			hierarchy: true,
			objs: flat(st.MakeNode("n", "8", "16Gi").Obj(), st.MakeQueue("root", 1).Obj(),
				st.MakeQueue("p", 1).Obj(), st.MakeQueue("c", 1).Parent("p").Obj(), jobs("p", 1, "1", "")),
			binds: map[string]int{},
			message: map[api.JobID]string{"ns/p-0": "1 of 1 pods wait: queue p has queues below it (spec.parent) and takes no jobs itself: " +
				"submit the job to a leaf queue"},
		},
		"a loop of parents places nothing and says why": {
			hierarchy: true,
			objs: flat(st.MakeNode("n", "8", "16Gi").Obj(), st.MakeQueue("root", 1).Obj(),
				st.MakeQueue("a", 1).Parent("b").Obj(), st.MakeQueue("b", 1).Parent("a").Obj(), st.MakeQueue("c", 1).Obj(), jobs("c", 1, "1", "")),
			binds: map[string]int{},
			message: map[api.JobID]string{"ns/c-0": "1 of 1 pods wait: the queue hierarchy cannot be read (capacity plugin, enableHierarchy): " +
				"queues a, b form a loop through spec.parent; make one of them name another parent"},
		},
		"a queue under its deserved share reclaims from one above its own": {
			objs: flat(st.MakeNode("n", "4", "16Gi").Obj(),
				st.MakeQueue("a", 1).Deserved("cpu", "2").Obj(), st.MakeQueue("b", 1).Deserved("cpu", "2").Obj(),
				jobs("a", 4, "1", "n"), jobs("b", 1, "1", "")),
			binds: map[string]int{}, evicted: map[string]int{"a": 1},
		},
		"a queue within its deserved share keeps its pods": {
			objs: flat(st.MakeNode("n", "4", "16Gi").Obj(),
				st.MakeQueue("a", 1).Deserved("cpu", "4").Obj(), st.MakeQueue("b", 1).Deserved("cpu", "2").Obj(),
				jobs("a", 4, "1", "n"), jobs("b", 1, "1", "")),
			binds: map[string]int{}, evicted: map[string]int{},
		},
		"a leaf at its deserved share does not reclaim without ancestorReclaimLevel": {
			hierarchy: true,
			objs: flat(st.MakeNode("n", "4", "16Gi").Obj(), branches("3", "1", "1", "1"),
				jobs("a", 1, "1", "n"), jobs("c", 3, "1", "n"), jobs("a", 2, "1", "")[2:]),
			binds: map[string]int{}, evicted: map[string]int{},
		},
		"with ancestorReclaimLevel 1, a leaf at its deserved share reclaims while its parent is under its own": {
			hierarchy: true, levels: 1,
			objs: flat(st.MakeNode("n", "4", "16Gi").Obj(), branches("3", "1", "1", "1"),
				jobs("a", 1, "1", "n"), jobs("c", 3, "1", "n"), jobs("a", 2, "1", "")[2:]),
			binds: map[string]int{}, evicted: map[string]int{"c": 1},
		},
		"a leaf above its deserved share gives up a pod for another branch": {
			hierarchy: true,
			objs: flat(st.MakeNode("n", "3", "16Gi").Obj(), branches("2", "2", "4", "1"),
				jobs("c", 3, "1", "n"), jobs("a", 1, "1", "")),
			binds: map[string]int{}, evicted: map[string]int{"c": 1},
		},
		"with ancestorReclaimLevel 1, a leaf above its deserved share keeps its pods while its parent is within its own": {
			hierarchy: true, levels: 1,
			objs: flat(st.MakeNode("n", "3", "16Gi").Obj(), branches("2", "2", "4", "1"),
				jobs("c", 3, "1", "n"), jobs("a", 1, "1", "")),
			binds: map[string]int{}, evicted: map[string]int{},
		},
		"a queue keeps its guarantee even above its deserved share": {
			objs: flat(st.MakeNode("n", "4", "16Gi").Obj(),
				st.MakeQueue("a", 1).Deserved("cpu", "1").Guarantee("cpu", "4").Obj(), st.MakeQueue("b", 1).Deserved("cpu", "2").Obj(),
				jobs("a", 4, "1", "n"), jobs("b", 1, "1", "")),
			binds: map[string]int{}, evicted: map[string]int{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, rec := st.Session(t, s, registry.Default(), config(tc.hierarchy, tc.levels), st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			binds := map[string]int{}
			for pod := range rec.Binds {
				binds[queueOfPod(pod)]++
			}
			if diff := cmp.Diff(tc.binds, binds); diff != "" {
				t.Errorf("binds per queue (-want +got):\n%s", diff)
			}
			if tc.evicted != nil {
				evicted := map[string]int{}
				for _, pod := range rec.Evictions {
					evicted[queueOfPod(pod)]++
				}
				if diff := cmp.Diff(tc.evicted, evicted); diff != "" {
					t.Errorf("evictions per queue (-want +got):\n%s", diff)
				}
			}
			if tc.message != nil {
				got := map[api.JobID]string{}
				for _, id := range ssn.Attempted() {
					for _, c := range ssn.JobConditions(id) {
						if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
							got[id] = c.Message
						}
					}
				}
				if diff := cmp.Diff(tc.message, got); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// queueOfPod returns the queue of a pod of jobs, given as ns/<queue>-<job>-0.
func queueOfPod(pod string) string {
	name := strings.TrimPrefix(pod, "ns/")
	parts := strings.Split(name, "-")
	return strings.Join(parts[:len(parts)-2], "-")
}
