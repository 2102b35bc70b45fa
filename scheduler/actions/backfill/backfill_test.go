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

package backfill_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/registry"
)

const conf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: proportion
  - name: nodeorder
`

func bestEffortGang(name string, n int, min int32, phase schedulingv1beta1.PodGroupPhase) []any {
	out := []any{st.MakePodGroup("ns", name, min).Phase(phase).Obj()}
	for i := 0; i < n; i++ {
		out = append(out, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Obj())
	}
	return out
}

func TestBackfill(t *testing.T) {
	small := st.MakeNode("n1", "4", "8Gi").Obj()
	small.Status.Allocatable["pods"] = resource.MustParse("2")
	cases := map[string]struct {
		objs []any
		want map[string]string
	}{
		"pods that request nothing are placed": {
			objs: append([]any{st.MakeQueue("default", 1).Obj(), st.MakeNode("n1", "4", "8Gi").Obj()}, bestEffortGang("pg", 3, 3, schedulingv1beta1.PodGroupInqueue)...),
			want: map[string]string{"ns/pg-0": "n1", "ns/pg-1": "n1", "ns/pg-2": "n1"},
		},
		"a gang of them is still all-or-nothing (room for 2 pods, gang of 3)": {
			objs: append([]any{st.MakeQueue("default", 1).Obj(), small}, bestEffortGang("pg", 3, 3, schedulingv1beta1.PodGroupInqueue)...),
			want: map[string]string{},
		},
		"a PodGroup not yet admitted waits for enqueue": {
			objs: append([]any{st.MakeQueue("default", 1).State(schedulingv1beta1.QueueStateClosed).Obj(), st.MakeNode("n1", "4", "8Gi").Obj()},
				bestEffortGang("pg", 1, 1, schedulingv1beta1.PodGroupPending)...),
			want: map[string]string{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, rec := st.Session(t, s, registry.Default(), conf, st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			if diff := cmp.Diff(tc.want, rec.Binds); diff != "" {
				t.Errorf("binds mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
