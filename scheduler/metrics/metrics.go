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

// Package metrics holds the scheduler's Prometheus metrics, under the names, types and labels
// Volcano's scheduler gives them (subsystem "volcano"), so Volcano's dashboards and alerts work
// unchanged. They are registered on controller-runtime's registry when the package is imported
// and served at the manager's /metrics endpoint.
//
// Series that name an object are removed when it is gone: a queue's when the queue is no longer
// in the cluster, a job's unschedulable task count as soon as the job has no unschedulable task.
package metrics

import (
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Subsystem is the prefix of every scheduler metric, as Volcano names them.
const Subsystem = "volcano"

// Results of a schedule attempt (the result label of volcano_schedule_attempts_total).
const (
	// ResultScheduled is a job whose gang was placed.
	ResultScheduled = "scheduled"
	// ResultUnschedulable is a job that could not be placed (its PodGroup is Unschedulable).
	ResultUnschedulable = "unschedulable"
	// ResultError is a placement that failed inside the scheduler (a bind the API server refused).
	ResultError = "error"
)

// Label names.
const (
	labelResult   = "result"
	labelAction   = "action"
	labelJobID    = "job_id"
	labelQueue    = "queue_name"
	labelResource = "resource"
)

// recorder holds the collectors and what is needed to delete the series of gone objects.
type recorder struct {
	e2eLatency         prometheus.Histogram
	jobLatency         prometheus.Histogram
	actionLatency      *prometheus.HistogramVec
	attempts           *prometheus.CounterVec
	preemptionVictims  prometheus.Gauge
	preemptionAttempts prometheus.Counter
	unscheduleTasks    *prometheus.GaugeVec
	unscheduleJobs     prometheus.Gauge

	queueAllocated queueGauges
	queueDeserved  queueGauges
	queueRequest   queueGauges
	queueShare     *prometheus.GaugeVec
	queueWeight    *prometheus.GaugeVec

	// unknownPlugins has a series for each plugin the configuration names that the scheduler
	// does not implement (Caldera only).
	unknownPlugins *prometheus.GaugeVec

	mu sync.Mutex
	// unschedulable is the job_id series of volcano_unschedule_task_count in use.
	unschedulable map[string]struct{}
	// queues are the queues whose series exist, with the scalar resources they have series of.
	queues map[string]map[corev1.ResourceName]struct{}
}

// queueGauges are the three gauges Volcano has for one kind of queue amount: CPU in millicores,
// memory in bytes, and every other resource (in thousandths, as Volcano counts them).
type queueGauges struct {
	milliCPU, memory, scalar *prometheus.GaugeVec
}

func newQueueGauges(kind, help string) queueGauges {
	g := func(name, what string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: "queue_" + kind + "_" + name, Help: help + " " + what,
		}, labels)
	}
	return queueGauges{
		milliCPU: g("milli_cpu", "CPU of one queue, in millicores.", labelQueue),
		memory:   g("memory_bytes", "memory of one queue, in bytes.", labelQueue),
		scalar:   g("scalar_resources", "other resources of one queue, in thousandths of a unit (as Volcano counts them).", labelQueue, labelResource),
	}
}

func (g queueGauges) collectors() []prometheus.Collector {
	return []prometheus.Collector{g.milliCPU, g.memory, g.scalar}
}

// set records the amounts of one queue: CPU in millicores, memory in bytes, and each of the
// scalars in units (0 when amounts does not have it).
func (g queueGauges) set(queue string, amounts map[corev1.ResourceName]float64, scalars []corev1.ResourceName) {
	g.milliCPU.WithLabelValues(queue).Set(amounts[corev1.ResourceCPU])
	g.memory.WithLabelValues(queue).Set(amounts[corev1.ResourceMemory])
	for _, name := range scalars {
		g.scalar.WithLabelValues(queue, string(name)).Set(amounts[name] * 1000)
	}
}

func (g queueGauges) delete(queue string, scalars map[corev1.ResourceName]struct{}) {
	g.milliCPU.DeleteLabelValues(queue)
	g.memory.DeleteLabelValues(queue)
	for name := range scalars {
		g.scalar.DeleteLabelValues(queue, string(name))
	}
}

func newRecorder() *recorder {
	return &recorder{
		e2eLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Subsystem: Subsystem, Name: "e2e_scheduling_latency_milliseconds",
			Help:    "Duration of one scheduling cycle, in milliseconds (binds and status writes are handed to workers and not waited for).",
			Buckets: prometheus.ExponentialBuckets(0.25, 2, 14), // 0.25ms to about 2s
		}),
		jobLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Subsystem: Subsystem, Name: "e2e_job_scheduling_latency_milliseconds",
			Help:    "Time from a PodGroup's creation to its gang being placed, in milliseconds.",
			Buckets: prometheus.ExponentialBuckets(32, 2, 20), // 32ms to about 4.7h
		}),
		actionLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem, Name: "action_scheduling_latency_microseconds",
			Help:    "Duration of one action of a scheduling cycle, in microseconds.",
			Buckets: prometheus.ExponentialBuckets(5, 2, 18), // 5us to about 0.65s
		}, []string{labelAction}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem, Name: "schedule_attempts_total",
			Help: "Number of attempts to schedule jobs, by result: 'scheduled' a job whose gang was placed, " +
				"'unschedulable' a job that could not be placed, 'error' a pod whose bind failed.",
		}, []string{labelResult}),
		preemptionVictims: prometheus.NewGauge(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: "pod_preemption_victims",
			Help: "Number of victims selected by the latest preemption or reclaim that evicted pods.",
		}),
		preemptionAttempts: prometheus.NewCounter(prometheus.CounterOpts{
			Subsystem: Subsystem, Name: "total_preemption_attempts",
			Help: "Number of preemption and reclaim attempts (one per starving job tried).",
		}),
		unscheduleTasks: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: "unschedule_task_count",
			Help: "Number of tasks of a job that could not be scheduled; present only while the job has some.",
		}, []string{labelJobID}),
		unscheduleJobs: prometheus.NewGauge(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: "unschedule_job_count",
			Help: "Number of jobs that could not be scheduled.",
		}),
		queueAllocated: newQueueGauges("allocated", "Allocated"),
		queueDeserved:  newQueueGauges("deserved", "Deserved"),
		queueRequest:   newQueueGauges("request", "Requested"),
		queueShare: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: "queue_share",
			Help: "Share of one queue: the largest allocated/deserved ratio over the resources.",
		}, []string{labelQueue}),
		queueWeight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: "queue_weight",
			Help: "Weight of one queue.",
		}, []string{labelQueue}),
		unknownPlugins: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "caldera", Subsystem: "scheduler", Name: "config_unknown_plugins",
			Help: "1 for each plugin the scheduler configuration names that Caldera does not implement; the others run without it.",
		}, []string{"plugin"}),
		unschedulable: map[string]struct{}{},
		queues:        map[string]map[corev1.ResourceName]struct{}{},
	}
}

func (r *recorder) collectors() []prometheus.Collector {
	cs := []prometheus.Collector{
		r.e2eLatency, r.jobLatency, r.actionLatency, r.attempts, r.preemptionVictims, r.preemptionAttempts,
		r.unscheduleTasks, r.unscheduleJobs, r.queueShare, r.queueWeight, r.unknownPlugins,
	}
	cs = append(cs, r.queueAllocated.collectors()...)
	cs = append(cs, r.queueDeserved.collectors()...)
	return append(cs, r.queueRequest.collectors()...)
}

// defaultRecorder is the recorder registered on the manager's registry.
var defaultRecorder = newRecorder()

func init() {
	ctrlmetrics.Registry.MustRegister(defaultRecorder.collectors()...)
}

// SetUnknownPlugins records the plugins the configuration in force names and the scheduler does
// not implement, replacing those of the previous configuration.
func SetUnknownPlugins(names []string) { defaultRecorder.setUnknownPlugins(names) }

func (r *recorder) setUnknownPlugins(names []string) {
	r.unknownPlugins.Reset()
	for _, n := range names {
		r.unknownPlugins.WithLabelValues(n).Set(1)
	}
}

// UpdateE2eDuration records the duration of one scheduling cycle.
func UpdateE2eDuration(d time.Duration) { defaultRecorder.updateE2eDuration(d) }

func (r *recorder) updateE2eDuration(d time.Duration) { r.e2eLatency.Observe(milliseconds(d)) }

// UpdateE2eJobDuration records the time from a PodGroup's creation to its gang being placed.
func UpdateE2eJobDuration(d time.Duration) { defaultRecorder.updateE2eJobDuration(d) }

func (r *recorder) updateE2eJobDuration(d time.Duration) { r.jobLatency.Observe(milliseconds(d)) }

// UpdateActionDuration records the duration of one action of a cycle.
func UpdateActionDuration(action string, d time.Duration) {
	defaultRecorder.updateActionDuration(action, d)
}

func (r *recorder) updateActionDuration(action string, d time.Duration) {
	r.actionLatency.WithLabelValues(action).Observe(float64(d) / float64(time.Microsecond))
}

// UpdateScheduleAttempts counts n schedule attempts with a result (ResultScheduled,
// ResultUnschedulable or ResultError).
func UpdateScheduleAttempts(result string, n int) { defaultRecorder.updateScheduleAttempts(result, n) }

func (r *recorder) updateScheduleAttempts(result string, n int) {
	if n > 0 {
		r.attempts.WithLabelValues(result).Add(float64(n))
	}
}

// UpdatePreemption records one preemption or reclaim attempt and, when it evicted pods, how many.
func UpdatePreemption(victims int) { defaultRecorder.updatePreemption(victims) }

func (r *recorder) updatePreemption(victims int) {
	r.preemptionAttempts.Inc()
	if victims > 0 {
		r.preemptionVictims.Set(float64(victims))
	}
}

// UpdateUnscheduleTaskCount records how many tasks of a job could not be scheduled; zero or less
// removes the job's series. The job count follows.
func UpdateUnscheduleTaskCount(jobID string, tasks int) {
	defaultRecorder.updateUnscheduleTaskCount(jobID, tasks)
}

func (r *recorder) updateUnscheduleTaskCount(jobID string, tasks int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tasks <= 0 {
		if _, ok := r.unschedulable[jobID]; !ok {
			return
		}
		delete(r.unschedulable, jobID)
		r.unscheduleTasks.DeleteLabelValues(jobID)
	} else {
		r.unschedulable[jobID] = struct{}{}
		r.unscheduleTasks.WithLabelValues(jobID).Set(float64(tasks))
	}
	r.unscheduleJobs.Set(float64(len(r.unschedulable)))
}

// DeleteJob removes the series of a job that is gone.
func DeleteJob(jobID string) { defaultRecorder.updateUnscheduleTaskCount(jobID, 0) }

// Queue is what the scheduler knows of one queue in a cycle. Amounts are as the scheduler counts
// them: CPU in millicores, memory in bytes, other resources in units.
type Queue struct {
	// Name is the queue's name.
	Name string
	// Weight is the queue's weight.
	Weight float64
	// Share is the largest allocated/deserved ratio over the resources.
	Share float64
	// Allocated, Deserved and Request are the queue's amounts per resource.
	Allocated, Deserved, Request map[corev1.ResourceName]float64
}

// UpdateQueues records the queues of a cycle and removes the series of the queues it no longer
// has (deleted queues).
func UpdateQueues(queues []Queue) { defaultRecorder.updateQueues(queues) }

func (r *recorder) updateQueues(queues []Queue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[string]struct{}, len(queues))
	for _, q := range queues {
		seen[q.Name] = struct{}{}
		scalars := scalarNames(q.Allocated, q.Deserved, q.Request)
		r.queueAllocated.set(q.Name, q.Allocated, scalars)
		r.queueDeserved.set(q.Name, q.Deserved, scalars)
		r.queueRequest.set(q.Name, q.Request, scalars)
		r.queueShare.WithLabelValues(q.Name).Set(q.Share)
		r.queueWeight.WithLabelValues(q.Name).Set(q.Weight)
		now := make(map[corev1.ResourceName]struct{}, len(scalars))
		for _, name := range scalars {
			now[name] = struct{}{}
		}
		gone := map[corev1.ResourceName]struct{}{}
		for name := range r.queues[q.Name] {
			if _, ok := now[name]; !ok {
				gone[name] = struct{}{}
			}
		}
		for _, g := range []queueGauges{r.queueAllocated, r.queueDeserved, r.queueRequest} {
			for name := range gone {
				g.scalar.DeleteLabelValues(q.Name, string(name))
			}
		}
		r.queues[q.Name] = now
	}
	for name := range r.queues {
		if _, ok := seen[name]; !ok {
			r.deleteQueueLocked(name)
		}
	}
}

// scalarNames returns, sorted, the resources other than CPU and memory that any of amounts has.
func scalarNames(amounts ...map[corev1.ResourceName]float64) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, a := range amounts {
		for name := range a {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (r *recorder) deleteQueueLocked(name string) {
	scalars := r.queues[name]
	delete(r.queues, name)
	r.queueAllocated.delete(name, scalars)
	r.queueDeserved.delete(name, scalars)
	r.queueRequest.delete(name, scalars)
	r.queueShare.DeleteLabelValues(name)
	r.queueWeight.DeleteLabelValues(name)
}

// Reset removes every series that names a job or a queue: the scheduler calls it when it stops
// (it lost the lease), since what it recorded is no longer kept up to date.
func Reset() { defaultRecorder.reset() }

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range r.queues {
		r.deleteQueueLocked(name)
	}
	r.unschedulable = map[string]struct{}{}
	r.unscheduleTasks.Reset()
	r.unscheduleJobs.Set(0)
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
