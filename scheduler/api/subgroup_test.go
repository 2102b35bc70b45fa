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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// partitionedJob is a job of minMember min with partitions of size tasks of task "w" (minimum
// whole ones asked), the tasks' statuses given in order.
func partitionedJob(min, size, minimum int32, statuses ...string) *JobInfo {
	j := NewJobInfo("ns/j")
	j.MinAvailable = min
	j.SubGroups = NewSubGroupPolicies([]schedulingv1beta1.SubGroupPolicySpec{{
		Name: "w", SubGroupSize: ptr.To(size), MinSubGroups: ptr.To(minimum),
		LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": "w"}},
		MatchLabelKeys: []string{"volcano.sh/partition-id"},
	}})
	for i, s := range statuses {
		status := map[string]TaskStatus{"running": Running, "pending": Pending, "pipelined": Pipelined}[s]
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
			"volcano.sh/task-spec": "w", "volcano.sh/partition-id": fmt.Sprint(int32(i) / size)}}}
		j.AddTask(&TaskInfo{UID: types.UID(fmt.Sprintf("t%d", i)), Job: j.UID, TaskRole: "w", Status: status, Pod: pod, Resreq: &Resource{MilliCPU: 1000}})
	}
	return j
}

func TestSubGroupMinimums(t *testing.T) {
	cases := map[string]struct {
		job       *JobInfo
		placed    bool
		pipelined bool
	}{
		"two whole partitions of two":          {job: partitionedJob(4, 2, 2, "running", "running", "running", "running"), placed: true, pipelined: true},
		"four placed across three partitions":  {job: partitionedJob(4, 2, 2, "running", "running", "running", "pending", "running", "pending")},
		"a partition whole once its promised":  {job: partitionedJob(4, 2, 2, "running", "running", "running", "pipelined"), pipelined: true},
		"no minSubGroups: only minMember":      {job: partitionedJob(2, 2, 0, "running", "pending", "running", "pending"), placed: true, pipelined: true},
		"one whole partition of the one asked": {job: partitionedJob(2, 2, 1, "pending", "pending", "running", "running"), placed: true, pipelined: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := [2]bool{tc.job.MinimumsMet(false), tc.job.MinimumsMet(true)}
			if diff := cmp.Diff([2]bool{tc.placed, tc.pipelined}, got); diff != "" {
				t.Errorf("MinimumsMet(false, true) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSubGroupOf(t *testing.T) {
	j := partitionedJob(1, 2, 1, "pending", "pending", "pending")
	other := &TaskInfo{UID: "x", Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"volcano.sh/task-spec": "ps"}}}}
	got := map[string]string{}
	for _, tk := range append([]*TaskInfo{other}, j.Tasks["t0"], j.Tasks["t2"]) {
		if sg, ok := j.SubGroupOf(tk); ok {
			got[string(tk.UID)] = fmt.Sprintf("%s #%d", sg.Key, sg.Index)
		} else {
			got[string(tk.UID)] = "none"
		}
	}
	want := map[string]string{"x": "none", "t0": "w/0 #0", "t2": "w/1 #1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SubGroupOf (-want +got):\n%s", diff)
	}
}
