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

package api

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

// jobOf builds a job of minMember min, per-role minimums, and tasks given as role:status pairs.
func jobOf(min int32, roleMin map[string]int32, tasks ...string) (*JobInfo, []*TaskInfo) {
	j := NewJobInfo("ns/j")
	j.MinAvailable, j.TaskMinAvailable = min, roleMin
	var out []*TaskInfo
	for i := 0; i+1 < len(tasks); i += 2 {
		status := map[string]TaskStatus{"running": Running, "pending": Pending, "pipelined": Pipelined, "succeeded": Succeeded}[tasks[i+1]]
		t := &TaskInfo{UID: types.UID(fmt.Sprintf("t%d", i/2)), Job: j.UID, TaskRole: tasks[i], Status: status, Resreq: &Resource{MilliCPU: 1000}}
		j.AddTask(t)
		out = append(out, t)
	}
	return j, out
}

func TestMinimumsMet(t *testing.T) {
	cases := map[string]struct {
		min       int32
		roleMin   map[string]int32
		tasks     []string
		placed    bool
		pipelined bool
	}{
		"placed tasks reach minMember":                      {min: 2, tasks: []string{"w", "running", "w", "running", "w", "pending"}, placed: true, pipelined: true},
		"promised tasks count only when pipelined is asked": {min: 2, tasks: []string{"w", "running", "w", "pipelined"}, pipelined: true},
		"a task's minimum is kept":                          {min: 2, roleMin: map[string]int32{"ps": 1, "w": 1}, tasks: []string{"w", "running", "w", "running", "ps", "pending"}},
		"task minimums above minMember do not apply":        {min: 1, roleMin: map[string]int32{"ps": 1, "w": 1}, tasks: []string{"w", "running", "ps", "pending"}, placed: true, pipelined: true},
		"succeeded tasks count":                             {min: 2, tasks: []string{"w", "succeeded", "w", "running"}, placed: true, pipelined: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j, _ := jobOf(tc.min, tc.roleMin, tc.tasks...)
			got := [2]bool{j.MinimumsMet(false), j.MinimumsMet(true)}
			if diff := cmp.Diff([2]bool{tc.placed, tc.pipelined}, got); diff != "" {
				t.Errorf("MinimumsMet(false, true) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSurplus(t *testing.T) {
	cases := map[string]struct {
		min     int32
		roleMin map[string]int32
		tasks   []string
		surplus []TaskID
	}{
		"pods above minMember, in the order given": {min: 2, tasks: []string{"w", "running", "w", "running", "w", "running", "w", "running"}, surplus: []TaskID{"t0", "t1"}},
		"a gang at its minimum has none":           {min: 2, tasks: []string{"w", "running", "w", "running"}},
		"a task's minimum keeps its pods": {min: 2, roleMin: map[string]int32{"ps": 1, "w": 1},
			tasks: []string{"ps", "running", "w", "running", "w", "running", "w", "running"}, surplus: []TaskID{"t1", "t2"}},
		"pending pods are never surplus": {min: 1, tasks: []string{"w", "pending", "w", "running", "w", "running"}, surplus: []TaskID{"t1"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j, tasks := jobOf(tc.min, tc.roleMin, tc.tasks...)
			surplus, rest := j.Surplus(tasks)
			var got []TaskID
			for _, s := range surplus {
				got = append(got, s.UID)
			}
			if diff := cmp.Diff(tc.surplus, got); diff != "" {
				t.Errorf("surplus (-want +got):\n%s", diff)
			}
			if len(surplus)+len(rest) != len(tasks) {
				t.Errorf("surplus %d + rest %d != %d tasks", len(surplus), len(rest), len(tasks))
			}
		})
	}
}
