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
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

// DelayKey identifies a delayed action by what raised it: the job, and the task and pod of the
// request (empty for job-level requests). A job holds at most one delayed action per key.
type DelayKey struct {
	// JobUID is the UID of the job the action belongs to.
	JobUID types.UID
	// Task is the task of the request that raised the action.
	Task string
	// Pod is the pod of the request that raised the action.
	Pod string
}

// DelayedAction is a decision with a timeout, waiting until it is due. It is cancelled when the
// situation that raised it no longer holds (Holds) or when another action of its scope is taken
// (CancelledBy).
type DelayedAction struct {
	// Key identifies the action among the job's delayed actions.
	Key DelayKey
	// PodUID is the UID of the pod of the request that raised it.
	PodUID types.UID
	// Version is status.version when it was decided: a later run of the job cancels it.
	Version int32
	// Decision is what to execute when it is due.
	Decision Decision
	// Due is when to execute it.
	Due time.Time
}

// NewDelayedAction is decision d about req for job, delayed by d.Delay: due at req.Since+Delay
// when the request knows when its situation began, else at now+Delay.
func NewDelayedAction(job *batchv1alpha1.Job, req Request, d Decision, clk clock.PassiveClock) DelayedAction {
	start := clk.Now()
	if !req.Since.IsZero() {
		start = req.Since
	}
	return DelayedAction{
		Key:      DelayKey{JobUID: job.UID, Task: req.TaskName, Pod: req.PodName},
		PodUID:   req.PodUID,
		Version:  job.Status.Version,
		Decision: d,
		Due:      start.Add(d.Delay),
	}
}

// Holds reports whether the situation that raised the action still holds for job and its pods;
// false means cancel it:
//
//   - the job is another one of the same name (UID), or has started another run (version);
//   - for PodPending: the pod (same UID) has left Pending, is being deleted or is gone;
//   - for PodFailed and PodEvicted: a pod of that name runs again.
//
// Any other event's action holds until it is due or superseded.
func (a DelayedAction) Holds(job *batchv1alpha1.Job, pods []*corev1.Pod) bool {
	if job.UID != a.Key.JobUID || job.Status.Version != a.Version {
		return false
	}
	pod := findPod(pods, a.Key.Pod)
	switch a.Decision.Event {
	case busv1alpha1.PodPendingEvent:
		return pod != nil && pod.UID == a.PodUID && !isDeleting(pod) &&
			(pod.Status.Phase == corev1.PodPending || pod.Status.Phase == "")
	case busv1alpha1.PodFailedEvent, busv1alpha1.PodEvictedEvent:
		return pod == nil || isDeleting(pod) || pod.Status.Phase != corev1.PodRunning
	}
	return true
}

// CancelledBy reports whether executing decision x cancels the delayed action: x is not
// internal (SyncJob) and has the same scope, and for a task, pod or partition scope the same
// target. A whole-job restart also cancels every older delayed action through Holds (version).
func (a DelayedAction) CancelledBy(x Decision) bool {
	if isInternalAction(x.Action) {
		return false
	}
	scope := ScopeOf(x.Action)
	if scope != ScopeOf(a.Decision.Action) {
		return false
	}
	t, u := x.Target, a.Decision.Target
	switch scope {
	case TaskScope:
		return t.Task == u.Task
	case PodScope:
		return t.Pod == u.Pod
	case PartitionScope:
		return t.Task == u.Task && t.Partition == u.Partition
	}
	return true
}

// Delays are the delayed actions of a job. Its methods return new slices and leave the
// receiver unchanged.
type Delays []DelayedAction

// Add adds a. An action already waiting under the same key is kept, with its due time, when it
// takes the same action; otherwise a replaces it.
func (ds Delays) Add(a DelayedAction) Delays {
	out := slices.Clone(ds)
	for i, d := range out {
		if d.Key == a.Key {
			if d.Decision.Action != a.Decision.Action {
				out[i] = a
			}
			return out
		}
	}
	return append(out, a)
}

// Prune splits the delayed actions into those that still hold for job and its pods and those to
// cancel.
func (ds Delays) Prune(job *batchv1alpha1.Job, pods []*corev1.Pod) (kept, cancelled Delays) {
	return ds.split(func(a DelayedAction) bool { return a.Holds(job, pods) })
}

// Executed splits the delayed actions into those that survive executing x and those x cancels.
func (ds Delays) Executed(x Decision) (kept, cancelled Delays) {
	return ds.split(func(a DelayedAction) bool { return !a.CancelledBy(x) })
}

// Due splits the delayed actions into those due at now (earliest first; ties keep their order)
// and those still waiting.
func (ds Delays) Due(now time.Time) (due, waiting Delays) {
	waiting, due = ds.split(func(a DelayedAction) bool { return a.Due.After(now) })
	slices.SortStableFunc(due, func(a, b DelayedAction) int { return a.Due.Compare(b.Due) })
	return due, waiting
}

// Next is the earliest due time; ok is false when there is no delayed action.
func (ds Delays) Next() (next time.Time, ok bool) {
	for _, a := range ds {
		if !ok || a.Due.Before(next) {
			next, ok = a.Due, true
		}
	}
	return next, ok
}

// split splits ds by keep, preserving order.
func (ds Delays) split(keep func(DelayedAction) bool) (kept, dropped Delays) {
	for _, a := range ds {
		if keep(a) {
			kept = append(kept, a)
		} else {
			dropped = append(dropped, a)
		}
	}
	return kept, dropped
}
