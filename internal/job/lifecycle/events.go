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

package lifecycle

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// Request is one thing that happened to a job, its task or its pod; ResolvePolicy turns it
// into a Decision.
type Request struct {
	// Event is what happened.
	Event busv1alpha1.Event
	// Action is an explicit action (from a Command); it wins over every policy. Empty otherwise.
	Action busv1alpha1.Action
	// JobUID is the UID of the job the observed pod belongs to (its controller owner); empty
	// when the request is not about a pod.
	JobUID types.UID
	// JobVersion is the observed pod's volcano.sh/job-version; nil when the request is not about
	// a pod, and then the request is never stale.
	JobVersion *int32
	// TaskName is the observed pod's task; empty for job-level requests.
	TaskName string
	// PodName is the observed pod's name; empty for task- and job-level requests.
	PodName string
	// PodUID is the observed pod's UID.
	PodUID types.UID
	// Partition is the observed pod's partition (volcano.sh/partition-id); empty when the task
	// is not partitioned.
	Partition string
	// ExitCode is the code of the failed pod's first container that exited non-zero; nil for
	// every other event.
	ExitCode *int32
	// Disrupted is true when the pod was stopped by a disruption (preemption, eviction, drain)
	// rather than by its own work; a restart it causes does not count as a retry.
	Disrupted bool
	// Since is when the observed situation began, when known: a pending pod's creation time.
	// A delayed action is due at Since+timeout instead of now+timeout, so a restart of the
	// controller does not restart its clock.
	Since time.Time
}

// IsInternal reports whether e is raised by the controller for itself (OutOfSync,
// CommandIssued, PodRunning): no policy matches it by event or exit code.
func IsInternal(e busv1alpha1.Event) bool {
	switch e {
	case busv1alpha1.OutOfSyncEvent, busv1alpha1.CommandIssuedEvent, busv1alpha1.PodRunningEvent:
		return true
	}
	return false
}

// CommandRequest is the request of a Command that targets the job: event CommandIssued with
// the Command's action, which wins over every policy.
func CommandRequest(action busv1alpha1.Action) Request {
	return Request{Event: busv1alpha1.CommandIssuedEvent, Action: action}
}

// PodGroupRequest is the request raised when the job's PodGroup changes phase from old to cur:
// Unknown (part of the gang runs, the rest cannot be placed) raises event Unknown, any other
// change OutOfSync. ok is false when the phase did not change.
func PodGroupRequest(old, cur schedulingv1beta1.PodGroupPhase) (req Request, ok bool) {
	if old == cur {
		return Request{}, false
	}
	if cur == schedulingv1beta1.PodGroupUnknown {
		return Request{Event: busv1alpha1.JobUnknownEvent}, true
	}
	return Request{Event: busv1alpha1.OutOfSyncEvent}, true
}

// PodRequests are the requests raised by one change of a pod of the job: old is the pod as last
// seen (nil when it was just added), cur the pod now (nil when it is gone). spec is the job's
// spec (raw or effective) and pods all the job's pods as now known; cur replaces its earlier self
// in pods for the counts.
//
// A pod that carries no task (volcano.sh/task-spec) or no job version (volcano.sh/job-version)
// was not made by the controller and raises nothing. Otherwise, in this order:
//
//   - a pod marked out of sync (the controller is deleting it) raises OutOfSync only;
//   - a pod whose deletion starts (cur has a deletion timestamp, old had none), or that is gone
//     without its deletion having been seen, raises PodEvicted: it was deleted by someone other
//     than the controller (preemption, drain, a user). The end of a deletion already seen raises
//     OutOfSync, so one eviction is one PodEvicted;
//   - a pod that turns Failed raises PodFailed with its exit code;
//   - a pod that turns Succeeded raises TaskCompleted when every replica of its task has now
//     succeeded;
//   - a pod that turns Running raises PodRunning, one that turns (or is added) Pending raises
//     PodPending; a Pending or Running pod also raises TaskFailed when the restarts of the
//     containers (init containers included) of its task's pending and running pods add up to
//     the task's maxRetry (never when it is -1);
//   - anything else raises OutOfSync.
//
// A pod seen for the first time (old nil) counts as a change from no phase, so a controller that
// starts after a pod failed still raises PodFailed for it; a stale pod's request is then turned
// into a SyncJob by ResolvePolicy.
func PodRequests(spec *batchv1alpha1.JobSpec, old, cur *corev1.Pod, pods []*corev1.Pod) []Request {
	pod := cur
	if pod == nil {
		pod = old
	}
	if pod == nil {
		return nil
	}
	base, ok := podRequest(pod)
	if !ok {
		return nil
	}
	with := func(e busv1alpha1.Event) Request {
		r := base
		r.Event = e
		return r
	}
	switch {
	case isOutOfSync(pod) || (old != nil && isOutOfSync(old)):
		return []Request{with(busv1alpha1.OutOfSyncEvent)}
	case cur == nil || isDeleting(cur):
		if old != nil && isDeleting(old) {
			return []Request{with(busv1alpha1.OutOfSyncEvent)}
		}
		evicted := with(busv1alpha1.PodEvictedEvent)
		evicted.Disrupted = true
		return []Request{evicted}
	}
	var oldPhase corev1.PodPhase
	if old != nil {
		oldPhase = old.Status.Phase
	}
	reqs := phaseRequests(spec, oldPhase, cur, withPod(pods, cur), with)
	if len(reqs) == 0 {
		reqs = []Request{with(busv1alpha1.OutOfSyncEvent)}
	}
	return reqs
}

// phaseRequests are the requests of a pod that is not being deleted, by its phase change.
func phaseRequests(spec *batchv1alpha1.JobSpec, oldPhase corev1.PodPhase, cur *corev1.Pod, pods []*corev1.Pod,
	with func(busv1alpha1.Event) Request) []Request {
	var reqs []Request
	phase := cur.Status.Phase
	if phase == "" {
		phase = corev1.PodPending
	}
	changed := phase != oldPhase
	switch phase {
	case corev1.PodFailed:
		if changed {
			r := with(busv1alpha1.PodFailedEvent)
			r.ExitCode = exitCodeOf(cur)
			r.Disrupted = isDisrupted(cur)
			reqs = append(reqs, r)
		}
	case corev1.PodSucceeded:
		if changed && taskCompleted(spec, taskOf(cur), pods) {
			reqs = append(reqs, with(busv1alpha1.TaskCompletedEvent))
		}
	case corev1.PodRunning, corev1.PodPending:
		if changed && phase == corev1.PodRunning {
			reqs = append(reqs, with(busv1alpha1.PodRunningEvent))
		}
		if changed && phase == corev1.PodPending {
			r := with(busv1alpha1.PodPendingEvent)
			r.Since = cur.CreationTimestamp.Time
			reqs = append(reqs, r)
		}
		if taskFailed(spec, taskOf(cur), pods) {
			reqs = append(reqs, with(busv1alpha1.TaskFailedEvent))
		}
	}
	return reqs
}

// podRequest is the part of a request every event of the pod shares; ok is false for a pod the
// controller did not make.
func podRequest(pod *corev1.Pod) (Request, bool) {
	task := taskOf(pod)
	version, ok := versionOf(pod)
	if task == "" || !ok {
		return Request{}, false
	}
	r := Request{
		TaskName:   task,
		PodName:    pod.Name,
		PodUID:     pod.UID,
		Partition:  partitionOf(pod),
		JobVersion: &version,
	}
	if owner := metav1.GetControllerOf(pod); owner != nil {
		r.JobUID = owner.UID
	}
	return r, true
}

// withPod is pods with cur in place of its earlier self (same UID, or same name when UIDs are
// unset), or added when absent.
func withPod(pods []*corev1.Pod, cur *corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods)+1)
	found := false
	for _, p := range pods {
		same := p.UID == cur.UID && (p.UID != "" || p.Name == cur.Name)
		if same {
			found = true
			p = cur
		}
		out = append(out, p)
	}
	if !found {
		out = append(out, cur)
	}
	return out
}

// taskCompleted reports whether every replica of the task has succeeded.
func taskCompleted(spec *batchv1alpha1.JobSpec, task string, pods []*corev1.Pod) bool {
	t := findTask(spec, task)
	if t == nil || t.Replicas == 0 {
		return false
	}
	var succeeded int32
	for _, p := range podsOfTask(pods, task) {
		if !isDeleting(p) && p.Status.Phase == corev1.PodSucceeded {
			succeeded++
		}
	}
	return succeeded >= t.Replicas
}

// taskFailed reports whether the restarts of the containers of the task's pending and running
// pods add up to the task's maxRetry.
func taskFailed(spec *batchv1alpha1.JobSpec, task string, pods []*corev1.Pod) bool {
	t := findTask(spec, task)
	if t == nil {
		return false
	}
	limit := taskMaxRetry(t)
	if limit == UnlimitedRetry {
		return false
	}
	var restarts int64
	for _, p := range podsOfTask(pods, task) {
		phase := p.Status.Phase
		if !isDeleting(p) && (phase == corev1.PodPending || phase == corev1.PodRunning || phase == "") {
			restarts += restartSum(p)
		}
	}
	return restarts >= int64(limit)
}
