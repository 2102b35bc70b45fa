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

package metrics

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/caldera-sh/caldera/internal/testing/metricstest"
)

// values gathers the recorder's series (see metricstest).
func values(t *testing.T, r *recorder) map[string]float64 {
	t.Helper()
	out, err := metricstest.Gather(r.collectors()...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// base are the series a fresh recorder has: the unlabelled ones.
func base() map[string]float64 {
	return map[string]float64{
		"volcano_e2e_scheduling_latency_milliseconds_count":     0,
		"volcano_e2e_scheduling_latency_milliseconds_sum":       0,
		"volcano_e2e_job_scheduling_latency_milliseconds_count": 0,
		"volcano_e2e_job_scheduling_latency_milliseconds_sum":   0,
		"volcano_pod_preemption_victims":                        0,
		"volcano_total_preemption_attempts":                     0,
		"volcano_unschedule_job_count":                          0,
	}
}

func with(m map[string]float64, kv map[string]float64) map[string]float64 {
	for k, v := range kv {
		m[k] = v
	}
	return m
}

func TestRecorder(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	queue := func(name string, weight float64, alloc, deserved, request map[corev1.ResourceName]float64) Queue {
		return Queue{Name: name, Weight: weight, Share: 0.5, Allocated: alloc, Deserved: deserved, Request: request}
	}
	cases := []struct {
		name string
		do   func(r *recorder)
		want map[string]float64
	}{
		{
			name: "fresh",
			do:   func(*recorder) {},
			want: base(),
		},
		{
			name: "latencies in the units of their names",
			do: func(r *recorder) {
				r.updateE2eDuration(1500 * time.Microsecond)
				r.updateE2eDuration(500 * time.Microsecond)
				r.updateE2eJobDuration(2 * time.Second)
				r.updateActionDuration("allocate", 3*time.Millisecond)
			},
			want: with(base(), map[string]float64{
				"volcano_e2e_scheduling_latency_milliseconds_count":                       2,
				"volcano_e2e_scheduling_latency_milliseconds_sum":                         2,
				"volcano_e2e_job_scheduling_latency_milliseconds_count":                   1,
				"volcano_e2e_job_scheduling_latency_milliseconds_sum":                     2000,
				`volcano_action_scheduling_latency_microseconds_count{action="allocate"}`: 1,
				`volcano_action_scheduling_latency_microseconds_sum{action="allocate"}`:   3000,
			}),
		},
		{
			name: "schedule attempts by result; none counts nothing",
			do: func(r *recorder) {
				r.updateScheduleAttempts(ResultScheduled, 2)
				r.updateScheduleAttempts(ResultUnschedulable, 0)
				r.updateScheduleAttempts(ResultUnschedulable, 3)
				r.updateScheduleAttempts(ResultError, 1)
				r.updateScheduleAttempts(ResultScheduled, 1)
			},
			want: with(base(), map[string]float64{
				`volcano_schedule_attempts_total{result="scheduled"}`:     3,
				`volcano_schedule_attempts_total{result="unschedulable"}`: 3,
				`volcano_schedule_attempts_total{result="error"}`:         1,
			}),
		},
		{
			name: "every preemption attempt counts; the victims are those of the last that evicted",
			do: func(r *recorder) {
				r.updatePreemption(0)
				r.updatePreemption(3)
				r.updatePreemption(0)
			},
			want: with(base(), map[string]float64{
				"volcano_total_preemption_attempts": 3,
				"volcano_pod_preemption_victims":    3,
			}),
		},
		{
			name: "a job's unschedulable tasks show while it has some",
			do: func(r *recorder) {
				r.updateUnscheduleTaskCount("ns/a", 3)
				r.updateUnscheduleTaskCount("ns/b", 2)
				r.updateUnscheduleTaskCount("ns/a", 1)
				r.updateUnscheduleTaskCount("ns/b", 0)
				r.updateUnscheduleTaskCount("ns/never", 0)
			},
			want: with(base(), map[string]float64{
				`volcano_unschedule_task_count{job_id="ns/a"}`: 1,
				"volcano_unschedule_job_count":                 1,
			}),
		},
		{
			name: "queues: CPU in millicores, memory in bytes, other resources in thousandths",
			do: func(r *recorder) {
				r.updateQueues([]Queue{queue("q1", 2,
					map[corev1.ResourceName]float64{corev1.ResourceCPU: 1500, corev1.ResourceMemory: 1 << 30, gpu: 1},
					map[corev1.ResourceName]float64{corev1.ResourceCPU: 4000, corev1.ResourceMemory: 4 << 30, gpu: 2},
					map[corev1.ResourceName]float64{corev1.ResourceCPU: 6000, corev1.ResourceMemory: 2 << 30},
				)})
			},
			want: with(base(), map[string]float64{
				`volcano_queue_allocated_milli_cpu{queue_name="q1"}`:                                  1500,
				`volcano_queue_allocated_memory_bytes{queue_name="q1"}`:                               1 << 30,
				`volcano_queue_allocated_scalar_resources{queue_name="q1",resource="nvidia.com/gpu"}`: 1000,
				`volcano_queue_deserved_milli_cpu{queue_name="q1"}`:                                   4000,
				`volcano_queue_deserved_memory_bytes{queue_name="q1"}`:                                4 << 30,
				`volcano_queue_deserved_scalar_resources{queue_name="q1",resource="nvidia.com/gpu"}`:  2000,
				`volcano_queue_request_milli_cpu{queue_name="q1"}`:                                    6000,
				`volcano_queue_request_memory_bytes{queue_name="q1"}`:                                 2 << 30,
				`volcano_queue_request_scalar_resources{queue_name="q1",resource="nvidia.com/gpu"}`:   0,
				`volcano_queue_share{queue_name="q1"}`:                                                0.5,
				`volcano_queue_weight{queue_name="q1"}`:                                               2,
			}),
		},
		{
			name: "a queue gone loses its series, a resource gone its scalar series",
			do: func(r *recorder) {
				r.updateQueues([]Queue{
					queue("q1", 1, map[corev1.ResourceName]float64{gpu: 1}, nil, nil),
					queue("q2", 1, nil, nil, nil),
				})
				r.updateQueues([]Queue{queue("q1", 1, map[corev1.ResourceName]float64{corev1.ResourceCPU: 100}, nil, nil)})
			},
			want: with(base(), map[string]float64{
				`volcano_queue_allocated_milli_cpu{queue_name="q1"}`:    100,
				`volcano_queue_allocated_memory_bytes{queue_name="q1"}`: 0,
				`volcano_queue_deserved_milli_cpu{queue_name="q1"}`:     0,
				`volcano_queue_deserved_memory_bytes{queue_name="q1"}`:  0,
				`volcano_queue_request_milli_cpu{queue_name="q1"}`:      0,
				`volcano_queue_request_memory_bytes{queue_name="q1"}`:   0,
				`volcano_queue_share{queue_name="q1"}`:                  0.5,
				`volcano_queue_weight{queue_name="q1"}`:                 1,
			}),
		},
		{
			name: "reset drops the series of jobs and queues and keeps the counts",
			do: func(r *recorder) {
				r.updateScheduleAttempts(ResultScheduled, 1)
				r.updateUnscheduleTaskCount("ns/a", 3)
				r.updateQueues([]Queue{queue("q1", 1, map[corev1.ResourceName]float64{gpu: 1}, nil, nil)})
				r.reset()
			},
			want: with(base(), map[string]float64{
				`volcano_schedule_attempts_total{result="scheduled"}`: 1,
			}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder()
			tc.do(r)
			if diff := cmp.Diff(tc.want, values(t, r)); diff != "" {
				t.Errorf("series (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnscheduleJobCountFollowsTheJobs(t *testing.T) {
	r := newRecorder()
	steps := []struct {
		job   string
		tasks int
		want  float64
	}{
		{"ns/a", 2, 1},
		{"ns/b", 1, 2},
		{"ns/a", 5, 2},
		{"ns/a", 0, 1},
		{"ns/b", -1, 0},
	}
	for i, s := range steps {
		r.updateUnscheduleTaskCount(s.job, s.tasks)
		if got := testutil.ToFloat64(r.unscheduleJobs); got != s.want {
			t.Errorf("step %d: volcano_unschedule_job_count = %v, want %v", i, got, s.want)
		}
	}
	if n := testutil.CollectAndCount(r.unscheduleTasks); n != 0 {
		t.Errorf("volcano_unschedule_task_count has %d series, want none", n)
	}
}

func TestDefaultRecorderIsOnTheManagersRegistry(t *testing.T) {
	before := testutil.ToFloat64(defaultRecorder.attempts.WithLabelValues(ResultError))
	UpdateScheduleAttempts(ResultError, 2)
	if got := testutil.ToFloat64(defaultRecorder.attempts.WithLabelValues(ResultError)) - before; got != 2 {
		t.Errorf("UpdateScheduleAttempts added %v, want 2", got)
	}
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatalf("gathering the manager's registry: %v", err)
	}
	var names []string
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), Subsystem+"_") {
			names = append(names, f.GetName())
		}
	}
	if !slices.Contains(names, "volcano_schedule_attempts_total") {
		t.Errorf("the manager's registry has %v, want volcano_schedule_attempts_total among them", names)
	}
}
