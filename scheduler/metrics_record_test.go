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

package scheduler

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/metrics"
)

// metricsJob is a PodGroup's job with minAvailable and tasks in the given statuses.
func metricsJob(minAvailable int32, phase schedulingv1beta1.PodGroupPhase, statuses ...api.TaskStatus) *api.JobInfo {
	j := api.NewJobInfo("ns/pg")
	j.MinAvailable, j.Phase = minAvailable, phase
	for i, s := range statuses {
		j.AddTask(&api.TaskInfo{UID: api.TaskID(fmt.Sprintf("t%d", i)), Job: j.UID, Status: s, Resreq: &api.Resource{}})
	}
	return j
}

func cond(t schedulingv1beta1.PodGroupConditionType, s corev1.ConditionStatus) schedulingv1beta1.PodGroupCondition {
	return schedulingv1beta1.PodGroupCondition{Type: t, Status: s}
}

var (
	unschedulable = []schedulingv1beta1.PodGroupCondition{cond(schedulingv1beta1.PodGroupUnschedulableType, corev1.ConditionTrue)}
	scheduled     = []schedulingv1beta1.PodGroupCondition{
		cond(schedulingv1beta1.PodGroupScheduled, corev1.ConditionTrue),
		cond(schedulingv1beta1.PodGroupUnschedulableType, corev1.ConditionFalse),
	}
)

func TestAttemptResult(t *testing.T) {
	cases := map[string]struct {
		conds []schedulingv1beta1.PodGroupCondition
		want  string
	}{
		"unschedulable":     {conds: unschedulable, want: metrics.ResultUnschedulable},
		"scheduled":         {conds: scheduled, want: metrics.ResultScheduled},
		"no verdict":        {conds: nil, want: ""},
		"unschedulable off": {conds: []schedulingv1beta1.PodGroupCondition{cond(schedulingv1beta1.PodGroupUnschedulableType, corev1.ConditionFalse)}, want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, attemptResult(tc.conds)); diff != "" {
				t.Errorf("attemptResult (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnscheduledTasks(t *testing.T) {
	type result struct {
		Tasks   int
		Decided bool
	}
	cases := map[string]struct {
		job   *api.JobInfo
		conds []schedulingv1beta1.PodGroupCondition
		phase schedulingv1beta1.PodGroupPhase
		want  result
	}{
		"unschedulable: minMember less the placed tasks": {
			job:   metricsJob(3, schedulingv1beta1.PodGroupInqueue, api.Running, api.Pending, api.Pending),
			conds: unschedulable, phase: schedulingv1beta1.PodGroupInqueue,
			want: result{Tasks: 2, Decided: true},
		},
		"unschedulable with no pod yet: the whole gang": {
			job:   metricsJob(4, schedulingv1beta1.PodGroupPending),
			conds: unschedulable, phase: schedulingv1beta1.PodGroupPending,
			want: result{Tasks: 4, Decided: true},
		},
		"unschedulable above its minimum: the pending tasks": {
			job:   metricsJob(1, schedulingv1beta1.PodGroupRunning, api.Running, api.Pending),
			conds: unschedulable, phase: schedulingv1beta1.PodGroupUnknown,
			want: result{Tasks: 1, Decided: true},
		},
		"scheduled: no series": {
			job:   metricsJob(2, schedulingv1beta1.PodGroupInqueue, api.Allocated, api.Allocated),
			conds: scheduled, phase: schedulingv1beta1.PodGroupRunning,
			want: result{Tasks: 0, Decided: true},
		},
		"not worked on but placed: no series": {
			job:   metricsJob(2, schedulingv1beta1.PodGroupRunning, api.Running, api.Running),
			phase: schedulingv1beta1.PodGroupRunning,
			want:  result{Tasks: 0, Decided: true},
		},
		"not worked on and waiting: left as it is": {
			job:   metricsJob(2, schedulingv1beta1.PodGroupInqueue, api.Pending, api.Pending),
			phase: schedulingv1beta1.PodGroupInqueue,
			want:  result{Tasks: 0, Decided: false},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tasks, decided := unscheduledTasks(tc.job, tc.conds, tc.phase)
			if diff := cmp.Diff(tc.want, result{Tasks: tasks, Decided: decided}); diff != "" {
				t.Errorf("unscheduledTasks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFirstPlaced(t *testing.T) {
	cases := map[string]struct {
		last   schedulingv1beta1.PodGroupPhase
		stored schedulingv1beta1.PodGroupStatus
		phase  schedulingv1beta1.PodGroupPhase
		want   bool
	}{
		"admitted, then placed":          {last: schedulingv1beta1.PodGroupInqueue, phase: schedulingv1beta1.PodGroupRunning, want: true},
		"admitted and placed in a cycle": {last: schedulingv1beta1.PodGroupPending, phase: schedulingv1beta1.PodGroupRunning, want: true},
		"still waiting":                  {last: schedulingv1beta1.PodGroupInqueue, phase: schedulingv1beta1.PodGroupInqueue, want: false},
		"already running":                {last: schedulingv1beta1.PodGroupRunning, phase: schedulingv1beta1.PodGroupRunning, want: false},
		"placed again after losing pods": {
			last: schedulingv1beta1.PodGroupInqueue, stored: schedulingv1beta1.PodGroupStatus{Phase: schedulingv1beta1.PodGroupInqueue, Succeeded: 1},
			phase: schedulingv1beta1.PodGroupRunning, want: false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j := metricsJob(1, tc.last, api.Allocated)
			if got := firstPlaced(j, tc.stored, tc.phase); got != tc.want {
				t.Errorf("firstPlaced = %v, want %v", got, tc.want)
			}
		})
	}
}
