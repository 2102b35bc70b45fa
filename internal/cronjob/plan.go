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

package cronjob

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// nextRunDelta is added to the wake-up at the next schedule time, so that a clock a little
// behind does not wake the controller just before it.
const nextRunDelta = 100 * time.Millisecond

// Event is an event to record on the CronJob once its status is written.
type Event struct {
	// Type is Normal or Warning.
	Type string
	// Reason is the event's reason, PascalCase.
	Reason string
	// Message is the event's message.
	Message string
}

// Deletion is a run to delete and why.
type Deletion struct {
	// Job is the run.
	Job *batchv1alpha1.Job
	// Reason is the event reason recorded once it is deleted: SuccessfulDelete for history
	// pruning, ReplaceConcurrent for the Replace policy.
	Reason string
}

// Decision is what the controller does for a CronJob in one reconcile.
type Decision struct {
	// Active are the runs that have not finished and are not deleted by this decision, oldest
	// first; Create, when made, is added to them.
	Active []*batchv1alpha1.Job
	// Delete are the runs to delete: finished runs beyond the history limits, oldest first, and
	// the active runs that the Replace policy replaces.
	Delete []Deletion
	// Create is the run to create, nil when none is due.
	Create *batchv1alpha1.Job
	// LastScheduleTime is status.lastScheduleTime after the decision: the schedule time of
	// Create, or of a run that already exists for the latest due time.
	LastScheduleTime *metav1.Time
	// LastSuccessfulTime is status.lastSuccessfulTime: when the latest Completed run completed.
	LastSuccessfulTime *metav1.Time
	// NextRun is when to look again: just after the next schedule time. Zero while suspended.
	NextRun time.Time
	// Events are to be recorded on the CronJob.
	Events []Event
}

// Plan decides what to do for cj, given the runs it controls (jobs), the time and its parsed
// schedule (nil when it does not parse: then only the runs are accounted for), with the
// Kubernetes CronJob controller's semantics:
//
//   - runs Completed, Failed or Terminated are finished; the others (unless being deleted) are
//     active;
//   - finished runs beyond successfulJobsHistoryLimit (Completed) and failedJobsHistoryLimit
//     (Failed, Terminated) are deleted, oldest first;
//   - while suspended nothing is started;
//   - the latest schedule time after the last one (or the creation) and within
//     startingDeadlineSeconds is due, once: if its run exists, nothing is started;
//   - Forbid skips a due run while one is active (it starts when the active one ends, if still
//     within the deadline); Replace deletes the active runs and starts it; Allow starts it.
func Plan(cj *batchv1alpha1.CronJob, jobs []*batchv1alpha1.Job, now time.Time, s *Schedule) Decision {
	d := Decision{LastScheduleTime: cj.Status.LastScheduleTime, LastSuccessfulTime: cj.Status.LastSuccessfulTime}
	var succeeded, failed []*batchv1alpha1.Job
	byName := map[string]*batchv1alpha1.Job{}
	for _, job := range SortedOldestFirst(jobs) {
		byName[job.Name] = job
		if !job.DeletionTimestamp.IsZero() {
			continue
		}
		switch job.Status.State.Phase {
		case batchv1alpha1.Completed:
			succeeded = append(succeeded, job)
			if done := job.Status.State.LastTransitionTime; !done.IsZero() &&
				(d.LastSuccessfulTime == nil || done.After(d.LastSuccessfulTime.Time)) {
				d.LastSuccessfulTime = done.DeepCopy()
			}
		case batchv1alpha1.Failed, batchv1alpha1.Terminated:
			failed = append(failed, job)
		default:
			d.Active = append(d.Active, job)
		}
	}
	d.Delete = append(d.Delete, prune(succeeded, cj.Spec.SuccessfulJobsHistoryLimit)...)
	d.Delete = append(d.Delete, prune(failed, cj.Spec.FailedJobsHistoryLimit)...)

	if s == nil || (cj.Spec.Suspend != nil && *cj.Spec.Suspend) {
		return d
	}
	d.NextRun = s.Next(now).Add(nextRunDelta)
	missed := MostRecent(*s, Earliest(cj, now), now)
	if missed.Latest == nil {
		return d
	}
	scheduled := *missed.Latest
	if missed.TooMany {
		d.Events = append(d.Events, Event{corev1.EventTypeWarning, "TooManyMissedTimes",
			"too many missed start times: set or decrease spec.startingDeadlineSeconds, or check the clocks"})
	}
	name := JobName(cj.Name, scheduled)
	if _, exists := byName[name]; exists || (cj.Status.LastScheduleTime != nil && cj.Status.LastScheduleTime.Time.Equal(scheduled)) {
		// Already started (perhaps by a reconcile whose status write was lost).
		d.LastScheduleTime = &metav1.Time{Time: scheduled}
		return d
	}
	switch cj.Spec.ConcurrencyPolicy {
	case batchv1alpha1.ForbidConcurrent:
		if len(d.Active) > 0 {
			d.Events = append(d.Events, Event{corev1.EventTypeNormal, "JobAlreadyActive",
				fmt.Sprintf("not starting the run for %s: concurrencyPolicy is Forbid and %s is active",
					scheduled.In(s.Location).Format(time.RFC3339), d.Active[0].Name)})
			return d
		}
	case batchv1alpha1.ReplaceConcurrent:
		for _, job := range d.Active {
			d.Delete = append(d.Delete, Deletion{Job: job, Reason: "ReplaceConcurrent"})
		}
		d.Active = nil
	}
	d.Create = NewJob(cj, scheduled, s.Location)
	d.LastScheduleTime = &metav1.Time{Time: scheduled}
	return d
}

// prune returns the oldest finished runs beyond limit (nil limit: keep all).
func prune(finished []*batchv1alpha1.Job, limit *int32) []Deletion {
	if limit == nil || len(finished) <= int(*limit) {
		return nil
	}
	var out []Deletion
	for _, job := range finished[:len(finished)-int(*limit)] {
		out = append(out, Deletion{Job: job, Reason: "SuccessfulDelete"})
	}
	return out
}

// SortedOldestFirst returns jobs sorted by creation time, then name, as history is pruned.
func SortedOldestFirst(jobs []*batchv1alpha1.Job) []*batchv1alpha1.Job {
	out := slices.Clone(jobs)
	slices.SortStableFunc(out, func(a, b *batchv1alpha1.Job) int {
		if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// NewJob is the run of cj for a schedule time: named JobName, with the template's labels,
// annotations and finalizers, the volcano.sh/cronjob-scheduled-timestamp annotation (the schedule time in
// loc, RFC 3339), the template's spec, and cj as its controller.
func NewJob(cj *batchv1alpha1.CronJob, scheduled time.Time, loc *time.Location) *batchv1alpha1.Job {
	tmpl := &cj.Spec.JobTemplate
	annotations := maps.Clone(tmpl.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[batchv1alpha1.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	job := &batchv1alpha1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: batchv1alpha1.GroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        JobName(cj.Name, scheduled),
			Namespace:   cj.Namespace,
			Labels:      maps.Clone(tmpl.Labels),
			Annotations: annotations,
			Finalizers:  slices.Clone(tmpl.Finalizers),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj,
				batchv1alpha1.GroupVersion.WithKind("CronJob"))},
		},
	}
	tmpl.Spec.DeepCopyInto(&job.Spec)
	return job
}

// ActiveRefs are the references of status.active for runs.
func ActiveRefs(runs []*batchv1alpha1.Job) []corev1.ObjectReference {
	var refs []corev1.ObjectReference
	for _, job := range runs {
		refs = append(refs, corev1.ObjectReference{
			APIVersion: batchv1alpha1.GroupVersion.String(),
			Kind:       "Job",
			Namespace:  job.Namespace,
			Name:       job.Name,
			UID:        job.UID,
		})
	}
	return refs
}
