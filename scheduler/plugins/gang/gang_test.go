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

package gang

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// job builds a job with minMember min and tasks in the given statuses, role "worker" unless
// roles names others.
func job(min int32, statuses []api.TaskStatus, roles ...string) *api.JobInfo {
	j := api.NewJobInfo("ns/job")
	j.MinAvailable = min
	j.Phase = schedulingv1beta1.PodGroupInqueue
	for i, s := range statuses {
		role := "worker"
		if i < len(roles) {
			role = roles[i]
		}
		req := api.Resource{MilliCPU: 1000}
		j.AddTask(&api.TaskInfo{UID: api.TaskID(fmt.Sprint(i)), Name: fmt.Sprintf("job-%d", i), Job: j.UID, TaskRole: role, Status: s, Resreq: &req})
	}
	return j
}

var (
	P  = api.Pending
	R  = api.Running
	A  = api.Allocated
	PL = api.Pipelined
	F  = api.Failed
)

func TestReadyPipelinedStarvingValid(t *testing.T) {
	type result struct{ Ready, Pipelined, Starving, Valid bool }
	cases := map[string]struct {
		job  *api.JobInfo
		want result
	}{
		"nothing placed":                  {job: job(3, []api.TaskStatus{P, P, P}), want: result{Starving: true, Valid: true}},
		"min placed":                      {job: job(2, []api.TaskStatus{A, R, P}), want: result{Ready: true, Pipelined: true, Valid: true}},
		"placed plus pipelined reach min": {job: job(3, []api.TaskStatus{A, PL, R}), want: result{Pipelined: true, Valid: true}},
		"failed pods cannot make the gang": {
			job: job(3, []api.TaskStatus{R, F, F}), want: result{Starving: true},
		},
		"task minimum not met": {
			job:  withMin(job(3, []api.TaskStatus{A, A, P}, "ps", "worker", "worker"), map[string]int32{"ps": 1, "worker": 2}),
			want: result{Pipelined: false, Starving: true, Valid: true},
		},
		"task minimum met": {
			job:  withMin(job(3, []api.TaskStatus{A, A, A}, "ps", "worker", "worker"), map[string]int32{"ps": 1, "worker": 2}),
			want: result{Ready: true, Pipelined: true, Valid: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := result{Ready: Ready(tc.job), Pipelined: Pipelined(tc.job), Starving: Starving(tc.job), Valid: Valid(tc.job) == nil}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func withMin(j *api.JobInfo, m map[string]int32) *api.JobInfo {
	j.TaskMinAvailable = m
	return j
}

func TestValidMessages(t *testing.T) {
	cases := map[string]struct {
		job  *api.JobInfo
		want *framework.ValidateResult
	}{
		"too few pods": {job: job(3, []api.TaskStatus{P}), want: &framework.ValidateResult{Reason: "NotEnoughTasks",
			Message: "not enough valid pods for the gang: 1 of minMember 3 exist; create the missing pods or lower minMember"}},
		"too few pods of a task": {
			job: withMin(job(2, []api.TaskStatus{P, P}, "worker", "worker"), map[string]int32{"ps": 1}),
			want: &framework.ValidateResult{Reason: "NotEnoughPodsOfTask",
				Message: `not enough valid pods of task "ps": 0 of minTaskMember 1 exist; create the missing pods or lower minTaskMember`},
		},
		"fine": {job: job(1, []api.TaskStatus{P})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Valid(tc.job)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvictable(t *testing.T) {
	big := job(2, []api.TaskStatus{R, R, R, R})
	big.UID = "ns/big"
	single := job(1, []api.TaskStatus{R})
	single.UID = "ns/single"
	tight := job(2, []api.TaskStatus{R, R})
	tight.UID = "ns/tight"
	jobs := map[api.JobID]*api.JobInfo{big.UID: big, single.UID: single, tight.UID: tight}
	var candidates []*api.TaskInfo
	for _, j := range []*api.JobInfo{big, single, tight} {
		for i := 0; i < len(j.Tasks); i++ {
			t := j.Tasks[api.TaskID(fmt.Sprint(i))]
			c := t.Clone()
			c.Job, c.Name = j.UID, string(j.UID)+"/"+t.Name
			candidates = append(candidates, c)
		}
	}
	var got []string
	for _, v := range Evictable(jobs, candidates) {
		got = append(got, v.Name)
	}
	// The big gang has two spare pods; a gang of one may always lose its pod; the tight gang none.
	want := []string{"ns/big/job-0", "ns/big/job-1", "ns/single/job-0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("victims mismatch (-want +got):\n%s", diff)
	}
}

func TestMessage(t *testing.T) {
	j := job(5, []api.TaskStatus{P, P, P, P, P})
	fe := api.NewFitErrors(4)
	fe.AddN("Insufficient cpu", 4)
	d := &framework.JobDiagnosis{TaskFit: map[api.TaskID]*api.FitErrors{"0": fe}, FirstFailedTask: "0",
		ShareReasons: []string{"queue q is full"}}
	short := job(5, []api.TaskStatus{P, P, P, P})
	short.Phase = schedulingv1beta1.PodGroupInqueue
	cases := map[string]struct {
		job  *api.JobInfo
		d    *framework.JobDiagnosis
		want string
	}{
		"node reasons win over share reasons": {job: j, d: d,
			want: "5 of 5 pods wait: pod job-0: 0/4 nodes are available: 4 Insufficient cpu. The pod requests cpu 1."},
		"share reasons when no node reason": {job: j, d: &framework.JobDiagnosis{ShareReasons: []string{"queue q is full"}},
			want: "5 of 5 pods wait: queue q is full"},
		"job reasons come first": {job: j, d: &framework.JobDiagnosis{Reasons: []string{"queue q is Closed"}, TaskFit: d.TaskFit, FirstFailedTask: "0"},
			want: "5 of 5 pods wait: queue q is Closed; pod job-0: 0/4 nodes are available: 4 Insufficient cpu. The pod requests cpu 1."},
		"nothing known": {job: job(2, []api.TaskStatus{R, P}), want: "1 of 2 pods wait: pod group is not ready, 2 minAvailable"},
		"the validity message once, though also a reason": {job: short,
			d:    &framework.JobDiagnosis{Reasons: []string{Valid(short).Message}},
			want: "5 of 5 pods wait: not enough valid pods for the gang: 4 of minMember 5 exist; create the missing pods or lower minMember"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Message(tc.job, tc.d)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeldByGatesMessages(t *testing.T) {
	gated := func(j *api.JobInfo, name string, gates ...string) {
		pod := &corev1.Pod{}
		pod.Name = name
		for _, g := range gates {
			pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: g})
		}
		req := api.Resource{MilliCPU: 1000}
		j.AddTask(&api.TaskInfo{UID: api.TaskID(name), Name: name, Job: j.UID, TaskRole: "worker", Status: api.Gated, Resreq: &req, Pod: pod})
	}
	cases := map[string]struct {
		job         func() *api.JobInfo
		wantValid   string
		wantMessage string
	}{
		"one of two gated": {
			job:         func() *api.JobInfo { j := job(2, []api.TaskStatus{P}); gated(j, "g1", "example.com/hold"); return j },
			wantValid:   "1 pod is held by scheduling gates (example.com/hold); the gang waits whole: 1 of minMember 2 pods may be scheduled",
			wantMessage: "2 of 2 pods wait: 1 pod is held by scheduling gates (example.com/hold); the gang waits whole: 1 of minMember 2 pods may be scheduled",
		},
		"two gated by two gates, one pod refused": {
			job: func() *api.JobInfo {
				j := job(3, []api.TaskStatus{P})
				gated(j, "g1", "b.example.com/x")
				gated(j, "g2", "a.example.com/y", "b.example.com/x")
				gated(j, "r1")
				return j
			},
			wantValid: "2 pods are held by scheduling gates (a.example.com/y, b.example.com/x); 1 pod is held until changed: the API server refused the bind; " +
				"the gang waits whole: 1 of minMember 3 pods may be scheduled",
			wantMessage: "3 of 3 pods wait: 2 pods are held by scheduling gates (a.example.com/y, b.example.com/x); 1 pod is held until changed: the API server refused the bind; " +
				"the gang waits whole: 1 of minMember 3 pods may be scheduled",
		},
		"queue-allocation gate counts as valid": {
			job: func() *api.JobInfo {
				j := job(2, []api.TaskStatus{P})
				gated(j, "g1", api.QueueAllocationGate)
				return j
			},
			wantMessage: "2 of 2 pods wait: 1 pod is held by scheduling gates (" + api.QueueAllocationGate + ")",
		},
		"a gated pod beyond minMember": {
			job:         func() *api.JobInfo { j := job(1, []api.TaskStatus{P}); gated(j, "g1", "example.com/hold"); return j },
			wantMessage: "1 of 1 pods wait: 1 pod is held by scheduling gates (example.com/hold)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j := tc.job()
			got := ""
			if v := Valid(j); v != nil {
				got = v.Message
				if v.Reason != schedulingv1beta1.NotEnoughPodsReason {
					t.Errorf("Valid().Reason = %q, want %q", v.Reason, schedulingv1beta1.NotEnoughPodsReason)
				}
			}
			if diff := cmp.Diff(tc.wantValid, got); diff != "" {
				t.Errorf("Valid() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMessage, Message(j, nil)); diff != "" {
				t.Errorf("Message() (-want +got):\n%s", diff)
			}
		})
	}
}
