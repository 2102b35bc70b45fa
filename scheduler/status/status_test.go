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

package status

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

func job(min int32, phase schedulingv1beta1.PodGroupPhase, statuses ...api.TaskStatus) *api.JobInfo {
	j := api.NewJobInfo("ns/j")
	j.MinAvailable, j.Phase = min, phase
	for i, s := range statuses {
		j.AddTask(&api.TaskInfo{UID: api.TaskID(fmt.Sprint(i)), Status: s, Resreq: &api.Resource{MilliCPU: 100}})
	}
	return j
}

func TestPhase(t *testing.T) {
	cases := map[string]struct {
		job           *api.JobInfo
		unschedulable bool
		want          schedulingv1beta1.PodGroupPhase
	}{
		"not admitted, nothing placed":            {job: job(2, "Pending", api.Pending, api.Pending), want: "Pending"},
		"admitted, waiting":                       {job: job(2, "Inqueue", api.Pending, api.Pending), want: "Inqueue"},
		"placed in this cycle":                    {job: job(2, "Inqueue", api.Allocated, api.Binding), want: "Running"},
		"enough bound or running":                 {job: job(2, "Inqueue", api.Bound, api.Running, api.Pending), want: "Running"},
		"running below the gang, unschedulable":   {job: job(3, "Running", api.Running, api.Pending, api.Pending), unschedulable: true, want: "Unknown"},
		"running job lost pods, stays admitted":   {job: job(3, "Running", api.Running, api.Pending, api.Pending), want: "Inqueue"},
		"a member of a running gang is gone":      {job: job(3, "Running", api.Running, api.Running), want: "Unknown"},
		"all placed pods succeeded":               {job: job(2, "Running", api.Succeeded, api.Succeeded), want: "Completed"},
		"some still running":                      {job: job(2, "Running", api.Succeeded, api.Running), want: "Running"},
		"every placed pod failed":                 {job: job(1, "Running", api.Failed), want: "Completed"},
		"one failed, one succeeded":               {job: job(2, "Running", api.Succeeded, api.Failed), want: "Completed"},
		"one failed, one running":                 {job: job(2, "Running", api.Failed, api.Running), want: "Running"},
		"succeeded, one pod still gated":          {job: job(2, "Running", api.Succeeded, api.Succeeded, api.Gated), want: "Running"},
		"admitted, one of two gated":              {job: job(2, "Inqueue", api.Pending, api.Gated), want: "Inqueue"},
		"minMember 0 without pods is not running": {job: job(0, "Inqueue"), want: "Inqueue"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Phase(tc.job, tc.unschedulable)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeConditions(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Unix(0, 0)), metav1.NewTime(time.Unix(100, 0))
	stored := []schedulingv1beta1.PodGroupCondition{{Type: "Unschedulable", Status: "True", Reason: "NotEnoughResources", Message: "m1", TransitionID: "c1", LastTransitionTime: t0}}
	cases := map[string]struct {
		decided []schedulingv1beta1.PodGroupCondition
		want    []schedulingv1beta1.PodGroupCondition
	}{
		"unchanged keeps its transition": {
			decided: []schedulingv1beta1.PodGroupCondition{{Type: "Unschedulable", Status: "True", Reason: "NotEnoughResources", Message: "m1", TransitionID: "c2", LastTransitionTime: t1}},
			want:    stored,
		},
		"a new message is a new transition": {
			decided: []schedulingv1beta1.PodGroupCondition{{Type: "Unschedulable", Status: "True", Reason: "NotEnoughResources", Message: "m2", TransitionID: "c2", LastTransitionTime: t1}},
			want:    []schedulingv1beta1.PodGroupCondition{{Type: "Unschedulable", Status: "True", Reason: "NotEnoughResources", Message: "m2", TransitionID: "c2", LastTransitionTime: t1}},
		},
		"a new type is added": {
			decided: []schedulingv1beta1.PodGroupCondition{{Type: "Scheduled", Status: "True", TransitionID: "c2", LastTransitionTime: t1}},
			want:    append(append([]schedulingv1beta1.PodGroupCondition{}, stored...), schedulingv1beta1.PodGroupCondition{Type: "Scheduled", Status: "True", TransitionID: "c2", LastTransitionTime: t1}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, MergeConditions(stored, tc.decided)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodGroupCounters(t *testing.T) {
	j := job(2, "Inqueue", api.Running, api.Running, api.Succeeded, api.Failed)
	got := PodGroup(j, schedulingv1beta1.PodGroupStatus{Phase: "Inqueue"}, nil)
	want := schedulingv1beta1.PodGroupStatus{Phase: "Running", Conditions: []schedulingv1beta1.PodGroupCondition{}, Running: 2, Succeeded: 1, Failed: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestQueue(t *testing.T) {
	usage := &snapshot.QueueUsage{Allocated: api.Resource{MilliCPU: 1500, Memory: 1 << 30},
		Phases: map[schedulingv1beta1.PodGroupPhase]int32{"Running": 2, "Inqueue": 1, "Pending": 3}}
	cases := map[string]struct {
		stored schedulingv1beta1.QueueStatus
		usage  *snapshot.QueueUsage
		want   schedulingv1beta1.QueueStatus
	}{
		"a new queue opens and counts": {usage: usage, want: schedulingv1beta1.QueueStatus{State: "Open", Running: 2, Inqueue: 1, Pending: 3,
			Allocated: corev1.ResourceList{"cpu": resource.MustParse("1500m"), "memory": resource.MustParse("1Gi")}}},
		"closing with PodGroups stays closing": {stored: schedulingv1beta1.QueueStatus{State: "Closing"}, usage: usage,
			want: schedulingv1beta1.QueueStatus{State: "Closing", Running: 2, Inqueue: 1, Pending: 3,
				Allocated: corev1.ResourceList{"cpu": resource.MustParse("1500m"), "memory": resource.MustParse("1Gi")}}},
		"closing without PodGroups closes": {stored: schedulingv1beta1.QueueStatus{State: "Closing", Running: 4}, want: schedulingv1beta1.QueueStatus{State: "Closed"}},
		"closed stays closed":              {stored: schedulingv1beta1.QueueStatus{State: "Closed"}, want: schedulingv1beta1.QueueStatus{State: "Closed"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Queue(tc.stored, tc.usage)
			if !QueueEqual(tc.want, got) {
				t.Errorf("Queue() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestTreeAllocated(t *testing.T) {
	usage := func(cpu int64) *snapshot.QueueUsage {
		return &snapshot.QueueUsage{Allocated: api.Resource{MilliCPU: cpu}}
	}
	parents := map[string]string{"root": "", "a": "root", "a1": "a", "a2": "a", "b": "", "loop1": "loop2", "loop2": "loop1", "orphan": "gone"}
	got := TreeAllocated(parents, map[string]*snapshot.QueueUsage{
		"a": usage(1000), "a1": usage(2000), "a2": usage(500), "b": usage(300), "loop1": usage(100), "orphan": usage(50),
	})
	want := map[string]int64{"root": 3500, "a": 3500, "loop2": 100}
	cpu := map[string]int64{}
	for name, r := range got {
		cpu[name] = r.MilliCPU
	}
	if diff := cmp.Diff(want, cpu); diff != "" {
		t.Errorf("TreeAllocated (-want +got):\n%s", diff)
	}
}
