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

package controllers

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/metricstest"
)

// metricValues gathers m's series (see metricstest).
func metricValues(t *testing.T, m *jobMetrics) map[string]float64 {
	t.Helper()
	out, err := metricstest.Gather(m.collectors()...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func emptyJobHistograms() map[string]float64 {
	return map[string]float64{
		"caldera_job_time_to_running_seconds_count": 0,
		"caldera_job_time_to_running_seconds_sum":   0,
	}
}

func withValues(m map[string]float64, kv map[string]float64) map[string]float64 {
	for k, v := range kv {
		m[k] = v
	}
	return m
}

func TestJobsByQueueAndPhase(t *testing.T) {
	a := types.NamespacedName{Namespace: "ns", Name: "a"}
	b := types.NamespacedName{Namespace: "ns", Name: "b"}
	c := types.NamespacedName{Namespace: "other", Name: "c"}
	cases := map[string]struct {
		do   func(m *jobMetrics)
		want map[string]float64
	}{
		"jobs counted under their queue and phase": {
			do: func(m *jobMetrics) {
				m.count(a, "default", batchv1alpha1.Pending)
				m.count(b, "default", batchv1alpha1.Pending)
				m.count(c, "team", batchv1alpha1.Running)
			},
			want: withValues(emptyJobHistograms(), map[string]float64{
				`caldera_jobs{phase="Pending",queue="default"}`: 2,
				`caldera_jobs{phase="Running",queue="team"}`:    1,
			}),
		},
		"a job moves; the phase it left shows 0 while its queue has jobs": {
			do: func(m *jobMetrics) {
				m.count(a, "default", batchv1alpha1.Pending)
				m.count(b, "default", batchv1alpha1.Pending)
				m.count(a, "default", batchv1alpha1.Running)
				m.count(a, "default", batchv1alpha1.Running)
				m.count(b, "default", batchv1alpha1.Running)
				m.count(a, "default", batchv1alpha1.Completed)
			},
			want: withValues(emptyJobHistograms(), map[string]float64{
				`caldera_jobs{phase="Pending",queue="default"}`:   0,
				`caldera_jobs{phase="Running",queue="default"}`:   1,
				`caldera_jobs{phase="Completed",queue="default"}`: 1,
			}),
		},
		"a queue with no job left loses its series": {
			do: func(m *jobMetrics) {
				m.count(a, "default", batchv1alpha1.Pending)
				m.count(c, "team", batchv1alpha1.Pending)
				m.count(c, "team", batchv1alpha1.Completed)
				m.forget(c)
				m.forget(c)
				m.forget(b)
			},
			want: withValues(emptyJobHistograms(), map[string]float64{
				`caldera_jobs{phase="Pending",queue="default"}`: 1,
			}),
		},
		"a job that changes queue leaves the old one": {
			do: func(m *jobMetrics) {
				m.count(a, "default", batchv1alpha1.Pending)
				m.count(a, "team", batchv1alpha1.Pending)
			},
			want: withValues(emptyJobHistograms(), map[string]float64{
				`caldera_jobs{phase="Pending",queue="team"}`: 1,
			}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := newJobMetrics()
			tc.do(m)
			if diff := cmp.Diff(tc.want, metricValues(t, m)); diff != "" {
				t.Errorf("series (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobPhaseTimes(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	job := func(phase batchv1alpha1.JobPhase, after time.Duration, version, retries int32) *batchv1alpha1.Job {
		j := &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}
		j.Status.State = batchv1alpha1.JobState{Phase: phase, LastTransitionTime: metav1.NewTime(created.Add(after))}
		j.Status.Version, j.Status.RetryCount = version, retries
		return j
	}
	type result struct {
		ToRunning, ToFinish *time.Duration
		Phase               batchv1alpha1.JobPhase
	}
	d := func(x time.Duration) *time.Duration { return &x }
	cases := map[string]struct {
		before batchv1alpha1.JobPhase
		job    *batchv1alpha1.Job
		want   result
	}{
		"first run reaches Running": {
			before: batchv1alpha1.Pending, job: job(batchv1alpha1.Running, 42*time.Second, 0, 0),
			want: result{ToRunning: d(42 * time.Second)},
		},
		"new job straight to Running": {
			before: "", job: job(batchv1alpha1.Running, 3*time.Second, 0, 0),
			want: result{ToRunning: d(3 * time.Second)},
		},
		"a restarted run reaching Running does not count": {
			before: batchv1alpha1.Pending, job: job(batchv1alpha1.Running, time.Minute, 1, 0),
		},
		"a retried run reaching Running does not count": {
			before: batchv1alpha1.Pending, job: job(batchv1alpha1.Running, time.Minute, 0, 1),
		},
		"no change of phase": {
			before: batchv1alpha1.Running, job: job(batchv1alpha1.Running, time.Minute, 0, 0),
		},
		"Completed": {
			before: batchv1alpha1.Running, job: job(batchv1alpha1.Completed, time.Hour, 0, 0),
			want: result{ToFinish: d(time.Hour), Phase: batchv1alpha1.Completed},
		},
		"Failed after restarts": {
			before: batchv1alpha1.Restarting, job: job(batchv1alpha1.Failed, 2*time.Hour, 2, 3),
			want: result{ToFinish: d(2 * time.Hour), Phase: batchv1alpha1.Failed},
		},
		"Terminated": {
			before: batchv1alpha1.Terminating, job: job(batchv1alpha1.Terminated, time.Minute, 1, 0),
			want: result{ToFinish: d(time.Minute), Phase: batchv1alpha1.Terminated},
		},
		"Aborted is not the end": {
			before: batchv1alpha1.Aborting, job: job(batchv1alpha1.Aborted, time.Minute, 1, 0),
		},
		"a transition before the creation (clock skew) counts as 0": {
			before: batchv1alpha1.Pending, job: job(batchv1alpha1.Running, -time.Second, 0, 0),
			want: result{ToRunning: d(0)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := jobPhaseTimes(tc.before, tc.job)
			if diff := cmp.Diff(tc.want, result{ToRunning: got.toRunning, ToFinish: got.toFinish, Phase: got.finishedPhase}); diff != "" {
				t.Errorf("jobPhaseTimes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobMetricsCounters(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	running := &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", CreationTimestamp: metav1.NewTime(created)}}
	running.Status.State = batchv1alpha1.JobState{Phase: batchv1alpha1.Running, LastTransitionTime: metav1.NewTime(created.Add(10 * time.Second))}
	completed := running.DeepCopy()
	completed.Status.State = batchv1alpha1.JobState{Phase: batchv1alpha1.Completed, LastTransitionTime: metav1.NewTime(created.Add(100 * time.Second))}
	key := types.NamespacedName{Namespace: "ns", Name: "a"}

	m := newJobMetrics()
	m.podCreated(nil)
	m.podCreated(nil)
	m.podCreated(errors.New("forbidden"))
	m.reconciled(nil)
	m.reconciled(errors.New("conflict"))
	m.reconciled(reconcile.TerminalError(errors.New("bad spec")))
	m.observeStatus(key, batchv1alpha1.Pending, running)
	m.observeStatus(key, batchv1alpha1.Running, running)
	m.observeStatus(key, batchv1alpha1.Running, completed)

	want := map[string]float64{
		`caldera_job_pod_creations_total{result="success"}`:           2,
		`caldera_job_pod_creations_total{result="error"}`:             1,
		`caldera_job_reconcile_errors_total{terminal="false"}`:        1,
		`caldera_job_reconcile_errors_total{terminal="true"}`:         1,
		"caldera_job_time_to_running_seconds_count":                   1,
		"caldera_job_time_to_running_seconds_sum":                     10,
		`caldera_job_time_to_finish_seconds_count{phase="Completed"}`: 1,
		`caldera_job_time_to_finish_seconds_sum{phase="Completed"}`:   100,
		`caldera_jobs{phase="Running",queue="default"}`:               0,
		`caldera_jobs{phase="Completed",queue="default"}`:             1,
	}
	if diff := cmp.Diff(want, metricValues(t, m)); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	if got := testutil.ToFloat64(m.jobs.WithLabelValues("default", string(batchv1alpha1.Completed))); got != 1 {
		t.Errorf(`caldera_jobs{queue="default",phase="Completed"} = %v, want 1`, got)
	}
}
