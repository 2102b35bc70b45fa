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
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// Names of the job controller's metrics; see README.md, "Metrics".
const (
	// JobsMetric is the gauge of jobs by queue and phase.
	JobsMetric = "caldera_jobs"
	// JobTimeToRunningMetric is the histogram of the time from a job's creation to its first Running.
	JobTimeToRunningMetric = "caldera_job_time_to_running_seconds"
	// JobTimeToFinishMetric is the histogram of the time from a job's creation to Completed,
	// Failed or Terminated, by that phase.
	JobTimeToFinishMetric = "caldera_job_time_to_finish_seconds"
	// JobPodCreationsMetric counts the pod creations of the job controller by result.
	JobPodCreationsMetric = "caldera_job_pod_creations_total"
	// JobReconcileErrorsMetric counts the job controller's reconciles that ended in an error.
	JobReconcileErrorsMetric = "caldera_job_reconcile_errors_total"
)

// Values of the result label of caldera_job_pod_creations_total.
const (
	// PodCreationSuccess is a pod the API server created.
	PodCreationSuccess = "success"
	// PodCreationError is a pod the API server refused.
	PodCreationError = "error"
)

// jobMetrics are the job controller's collectors and the phase of every job it counts.
type jobMetrics struct {
	jobs            *prometheus.GaugeVec
	timeToRunning   prometheus.Histogram
	timeToFinish    *prometheus.HistogramVec
	podCreations    *prometheus.CounterVec
	reconcileErrors *prometheus.CounterVec

	mu sync.Mutex
	// counted is the queue and phase each job is counted under.
	counted map[types.NamespacedName]jobLabels
	// counts is the number of jobs per queue and phase.
	counts map[string]map[batchv1alpha1.JobPhase]int
}

// jobLabels are the labels a job is counted under in caldera_jobs.
type jobLabels struct {
	queue string
	phase batchv1alpha1.JobPhase
}

func newJobMetrics() *jobMetrics {
	return &jobMetrics{
		jobs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: JobsMetric,
			Help: "Number of jobs, by queue and by phase (status.state.phase); a queue's series go when it has no job left.",
		}, []string{"queue", "phase"}),
		timeToRunning: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    JobTimeToRunningMetric,
			Help:    "Time from a job's creation to its first run reaching Running, in seconds.",
			Buckets: prometheus.ExponentialBuckets(0.5, 2, 16), // 0.5s to about 4.5h
		}),
		timeToFinish: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    JobTimeToFinishMetric,
			Help:    "Time from a job's creation to its end (Completed, Failed or Terminated, the phase label), in seconds.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 20), // 1s to about 6 days
		}, []string{"phase"}),
		podCreations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: JobPodCreationsMetric,
			Help: "Number of pods the job controller asked the API server to create, by result (success, error).",
		}, []string{"result"}),
		reconcileErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: JobReconcileErrorsMetric,
			Help: "Number of job reconciles that ended in an error; terminal=\"true\" for bad input that is not retried.",
		}, []string{"terminal"}),
		counted: map[types.NamespacedName]jobLabels{},
		counts:  map[string]map[batchv1alpha1.JobPhase]int{},
	}
}

func (m *jobMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.jobs, m.timeToRunning, m.timeToFinish, m.podCreations, m.reconcileErrors}
}

// defaultJobMetrics are the job controller's metrics, registered on the manager's registry.
var defaultJobMetrics = newJobMetrics()

func init() {
	ctrlmetrics.Registry.MustRegister(defaultJobMetrics.collectors()...)
}

// count counts a job under its queue and phase, instead of what it was counted under before.
func (m *jobMetrics) count(key types.NamespacedName, queue string, phase batchv1alpha1.JobPhase) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := jobLabels{queue: queue, phase: phase}
	prev, ok := m.counted[key]
	if ok && prev == now {
		return
	}
	m.counted[key] = now
	phases := m.counts[queue]
	if phases == nil {
		phases = map[batchv1alpha1.JobPhase]int{}
		m.counts[queue] = phases
	}
	phases[phase]++
	m.jobs.WithLabelValues(queue, string(phase)).Set(float64(phases[phase]))
	if ok {
		// After counting it anew, so a move within a queue keeps the queue's series.
		m.uncountLocked(prev)
	}
}

// forget stops counting a job that is gone.
func (m *jobMetrics) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if prev, ok := m.counted[key]; ok {
		delete(m.counted, key)
		m.uncountLocked(prev)
	}
}

// uncountLocked takes one job off the count of l. A phase left with no job shows 0 while its
// queue has jobs; a queue left with no job loses its series.
func (m *jobMetrics) uncountLocked(l jobLabels) {
	phases := m.counts[l.queue]
	phases[l.phase]--
	total := 0
	for _, n := range phases {
		total += n
	}
	if total > 0 {
		m.jobs.WithLabelValues(l.queue, string(l.phase)).Set(float64(phases[l.phase]))
		return
	}
	delete(m.counts, l.queue)
	m.jobs.DeletePartialMatch(prometheus.Labels{"queue": l.queue})
}

// phaseTimes are the durations a reconcile's phase change completes, from the job's creation.
type phaseTimes struct {
	// toRunning is set when the job's first run reached Running.
	toRunning *time.Duration
	// toFinish is set, with the phase, when the job reached Completed, Failed or Terminated.
	toFinish      *time.Duration
	finishedPhase batchv1alpha1.JobPhase
}

// jobPhaseTimes works out what a reconcile that moved a job from phase before to its current
// status completes. The times run from the job's creation to the transition
// (status.state.lastTransitionTime, which the lifecycle stamps with the controller's clock).
// Reaching Running counts only for the job's first run (status.version and retryCount 0), so a
// restart does not count twice.
func jobPhaseTimes(before batchv1alpha1.JobPhase, job *batchv1alpha1.Job) phaseTimes {
	var out phaseTimes
	state := job.Status.State
	if state.Phase == before || job.CreationTimestamp.IsZero() || state.LastTransitionTime.IsZero() {
		return out
	}
	d := max(state.LastTransitionTime.Sub(job.CreationTimestamp.Time), 0)
	switch state.Phase {
	case batchv1alpha1.Running:
		if job.Status.Version == 0 && job.Status.RetryCount == 0 {
			out.toRunning = &d
		}
	case batchv1alpha1.Completed, batchv1alpha1.Failed, batchv1alpha1.Terminated:
		out.toFinish, out.finishedPhase = &d, state.Phase
	}
	return out
}

// observeStatus records a job's status once it is written: its count by queue and phase, and the
// times its phase change completes.
func (m *jobMetrics) observeStatus(key types.NamespacedName, before batchv1alpha1.JobPhase, job *batchv1alpha1.Job) {
	m.count(key, effectiveQueue(job.Spec.Queue), job.Status.State.Phase)
	t := jobPhaseTimes(before, job)
	if t.toRunning != nil {
		m.timeToRunning.Observe(t.toRunning.Seconds())
	}
	if t.toFinish != nil {
		m.timeToFinish.WithLabelValues(string(t.finishedPhase)).Observe(t.toFinish.Seconds())
	}
}

// podCreated counts one pod creation; err is what the API server answered.
func (m *jobMetrics) podCreated(err error) {
	if err == nil {
		m.podCreations.WithLabelValues(PodCreationSuccess).Inc()
		return
	}
	m.podCreations.WithLabelValues(PodCreationError).Inc()
}

// reconciled counts a reconcile that ended in err (nothing when err is nil).
func (m *jobMetrics) reconciled(err error) {
	if err == nil {
		return
	}
	terminal := "false"
	if errors.Is(err, reconcile.TerminalError(nil)) {
		terminal = "true"
	}
	m.reconcileErrors.WithLabelValues(terminal).Inc()
}
