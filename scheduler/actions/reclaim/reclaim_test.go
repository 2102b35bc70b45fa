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

package reclaim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/registry"
)

const conf = `actions: "allocate, reclaim"
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

// lone returns n running one-cpu pods with a PodGroup of minMember 1 each, in queue q on node.
func lone(q string, n int, node string) []any {
	var out []any
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s-%d", q, i)
		out = append(out, st.MakePodGroup("ns", name, 1).Queue(q).Phase(schedulingv1beta1.PodGroupRunning).Obj(),
			st.MakePod("ns", name).Group(name).Req("1", "").Node(node).Created(st.Epoch.Add(time.Duration(i)*time.Second)).Obj())
	}
	return out
}

func pendingGang(q, name string, n int, min int32) []any {
	out := []any{st.MakePodGroup("ns", name, min).Queue(q).Phase(schedulingv1beta1.PodGroupInqueue).Obj()}
	for i := 0; i < n; i++ {
		out = append(out, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Req("1", "").Obj())
	}
	return out
}

// gangOn returns a running job of queue q with n one-cpu pods on node and minMember 1.
func gangOn(q string, n int, node string) []any {
	name := q + "-job"
	out := []any{st.MakePodGroup("ns", name, 1).Queue(q).Phase(schedulingv1beta1.PodGroupRunning).Obj()}
	for i := 0; i < n; i++ {
		out = append(out, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Req("1", "").Node(node).Obj())
	}
	return out
}

type result struct {
	Evictions   []string
	Nominations map[string]string
}

func TestReclaim(t *testing.T) {
	node := st.MakeNode("n1", "4", "8Gi").Obj()
	cases := map[string]struct {
		objs []any
		want result
	}{
		"a queue below its share takes it back from a reclaimable queue above its own": {
			objs: append(append([]any{node, st.MakeQueue("a", 1).Obj(), st.MakeQueue("b", 1).Obj()}, lone("a", 4, "n1")...), pendingGang("b", "job", 2, 2)...),
			// Equal jobs: the PodGroups are as old, so their IDs decide.
			want: result{Evictions: []string{"ns/a-0", "ns/a-1"}, Nominations: map[string]string{"ns/job-0": "n1", "ns/job-1": "n1"}},
		},
		"a queue that is not reclaimable keeps what it holds": {
			objs: append(append([]any{node, st.MakeQueue("a", 1).Reclaimable(false).Obj(), st.MakeQueue("b", 1).Obj()}, lone("a", 4, "n1")...), pendingGang("b", "job", 2, 2)...),
			want: result{Nominations: map[string]string{}},
		},
		"nothing is reclaimed beyond the reclaimer's deserved share": {
			// b deserves 2 of 4; asking for 3 it gets nothing more than 2 (the gang needs 3, so nothing).
			objs: append(append([]any{node, st.MakeQueue("a", 1).Obj(), st.MakeQueue("b", 1).Obj()}, lone("a", 4, "n1")...), pendingGang("b", "job", 3, 3)...),
			want: result{Nominations: map[string]string{}},
		},
		"a queue at its share is not a victim": {
			objs: append(append(append([]any{node, st.MakeQueue("a", 1).Obj(), st.MakeQueue("b", 1).Obj()}, lone("a", 2, "n1")...), lone("b", 2, "n1")...), pendingGang("b", "job", 1, 1)...),
			want: result{Nominations: map[string]string{}},
		},
		"queues share what pods of no queue leave: two queues above their part of it each give a pod to a new queue (Volcano's Multi reclaimed queue)": {
			objs: st.Flat(st.MakeNode("n2", "8", "16Gi").Obj(), st.MakeQueue("a", 1).Obj(), st.MakeQueue("b", 1).Obj(),
				st.MakeQueue("c", 1).Obj(), st.MakeQueue("d", 1).Obj(),
				st.MakePod("ns", "other-scheduler").Scheduler("default-scheduler").Req("4", "").Node("n2").Obj(),
				gangOn("a", 2, "n2"), gangOn("b", 2, "n2"), pendingGang("c", "c-job", 1, 1), pendingGang("d", "d-job", 1, 1)),
			want: result{Evictions: []string{"ns/a-job-1", "ns/b-job-1"}, Nominations: map[string]string{"ns/c-job-0": "n2", "ns/d-job-0": "n2"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, rec := st.Session(t, s, registry.Default(), conf, st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			got := result{Evictions: rec.Evictions, Nominations: rec.Nominations}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("reclaim mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
