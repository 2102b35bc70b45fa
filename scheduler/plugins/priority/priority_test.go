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

package priority

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/caldera-sh/caldera/scheduler/api"
)

func names(ts []*api.TaskInfo) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestOrders(t *testing.T) {
	cases := map[string]struct {
		l, r int32
		want int
	}{
		"higher first": {l: 10, r: 1, want: -1},
		"lower after":  {l: 1, r: 10, want: 1},
		"equal":        {l: 5, r: 5, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := []int{
				TaskOrder(&api.TaskInfo{Priority: tc.l}, &api.TaskInfo{Priority: tc.r}),
				JobOrder(&api.JobInfo{Priority: tc.l}, &api.JobInfo{Priority: tc.r}),
			}
			if diff := cmp.Diff([]int{tc.want, tc.want}, got); diff != "" {
				t.Errorf("orders mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreemptable(t *testing.T) {
	jobs := map[api.JobID]*api.JobInfo{
		"ns/high": {UID: "ns/high", Priority: 100},
		"ns/low":  {UID: "ns/low", Priority: 1},
		"ns/same": {UID: "ns/same", Priority: 100},
	}
	preemptor := &api.TaskInfo{Name: "driver", Job: "ns/high", Priority: 50}
	candidates := []*api.TaskInfo{
		{Name: "low-0", Job: "ns/low"},
		{Name: "same-0", Job: "ns/same"},
		{Name: "executor", Job: "ns/high", Priority: 10},
		{Name: "other-driver", Job: "ns/high", Priority: 50},
		{Name: "orphan", Job: "ns/gone"},
	}
	want := []string{"low-0", "executor"}
	if diff := cmp.Diff(want, names(Preemptable(jobs, preemptor, candidates))); diff != "" {
		t.Errorf("victims mismatch (-want +got):\n%s", diff)
	}
}

func TestJobStarving(t *testing.T) {
	pending := api.NewJobInfo("ns/a")
	pending.AddTask(&api.TaskInfo{UID: "1", Resreq: &api.Resource{}, Status: api.Pending})
	placed := api.NewJobInfo("ns/b")
	placed.AddTask(&api.TaskInfo{UID: "2", Resreq: &api.Resource{}, Status: api.Running})
	got := []bool{JobStarving(pending), JobStarving(placed)}
	if diff := cmp.Diff([]bool{true, false}, got); diff != "" {
		t.Errorf("starving mismatch (-want +got):\n%s", diff)
	}
}
