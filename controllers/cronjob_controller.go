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
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/cronjob"
)

const (
	// cronJobControllerName is the CronJob controller's name and field owner.
	cronJobControllerName = "caldera-cronjob-controller"
	// jobCronJobKey indexes Jobs by the UID of their controlling CronJob.
	jobCronJobKey = ".metadata.controller.cronjob"
)

// CronJobReconciler runs batch.volcano.sh CronJobs: it gathers a CronJob's runs (the Jobs it
// controls), asks internal/cronjob what to delete and create, makes the API match, writes the
// status and conditions once at the end, and wakes up at the next schedule time on its clock.
type CronJobReconciler struct {
	Client   client.Client
	Recorder record.EventRecorder
	// Clock is the time source of every decision and of the wake-ups at schedule times.
	Clock clock.Clock

	wakeups *wakeups
}

// +kubebuilder:rbac:groups=batch.volcano.sh,resources=cronjobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch.volcano.sh,resources=cronjobs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=batch.volcano.sh,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// cronJobRun is what one reconcile observed and did, for the status written at its end.
type cronJobRun struct {
	// invalid is bad input in the spec: the CronJob is Stalled until the spec changes.
	invalid *cronjob.InvalidSpecError
	// nextRun is when the controller wakes up next; zero when it does not.
	nextRun time.Time
	// events are recorded once the status is written.
	events []cronjob.Event
}

func (rc *cronJobRun) event(kind, reason, format string, args ...any) {
	rc.events = append(rc.events, cronjob.Event{Type: kind, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

// Reconcile is a short dispatcher: read the CronJob, defer the status write, and run it.
func (r *CronJobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	cj := &batchv1alpha1.CronJob{}
	if err := r.Client.Get(ctx, req.NamespacedName, cj); err != nil {
		if apierrors.IsNotFound(err) {
			r.wakeups.cancel(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cj.DeletionTimestamp.IsZero() {
		// The runs are owned by the CronJob and go with it.
		r.wakeups.cancel(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	rc := &cronJobRun{}
	read := cj.DeepCopy()
	defer func() {
		retErr = r.finalize(ctx, cj, rc, read, retErr)
	}()
	return ctrl.Result{}, r.reconcile(ctx, cj, rc)
}

// reconcile lists the runs, plans, deletes and creates runs, and fills in the status fields.
func (r *CronJobReconciler) reconcile(ctx context.Context, cj *batchv1alpha1.CronJob, rc *cronJobRun) error {
	now := r.Clock.Now()
	var sched *cronjob.Schedule
	if s, err := cronjob.ParseSchedule(&cj.Spec, now); err != nil {
		if !errors.As(err, &rc.invalid) {
			return err
		}
		rc.event(corev1.EventTypeWarning, rc.invalid.Reason, "%s", rc.invalid.Message)
	} else {
		sched = &s
	}
	jobs, err := r.runs(ctx, cj)
	if err != nil {
		return err
	}
	d := cronjob.Plan(cj, jobs, now, sched)
	rc.nextRun = d.NextRun
	rc.events = append(rc.events, d.Events...)
	active := d.Active
	cj.Status.LastSuccessfulTime = d.LastSuccessfulTime
	defer func() { cj.Status.Active = cronjob.ActiveRefs(active) }()

	for _, del := range d.Delete {
		if err := r.deleteRun(ctx, del.Job); err != nil {
			return err
		}
		if del.Reason == "ReplaceConcurrent" {
			rc.event(corev1.EventTypeNormal, "ReplaceConcurrent", "Deleted job %s to start the next run: concurrencyPolicy is Replace", del.Job.Name)
		} else {
			rc.event(corev1.EventTypeNormal, "SuccessfulDelete", "Deleted job %s", del.Job.Name)
		}
	}
	if d.Create == nil {
		cj.Status.LastScheduleTime = d.LastScheduleTime
		return nil
	}
	created, err := r.createRun(ctx, cj, d.Create, rc)
	if errors.As(err, &rc.invalid) {
		return nil
	}
	if err != nil || created == nil {
		return err
	}
	cj.Status.LastScheduleTime = d.LastScheduleTime
	if !finishedRun(created) {
		active = append(active, created)
	}
	return nil
}

// runs lists the Jobs cj controls.
func (r *CronJobReconciler) runs(ctx context.Context, cj *batchv1alpha1.CronJob) ([]*batchv1alpha1.Job, error) {
	list := &batchv1alpha1.JobList{}
	if err := r.Client.List(ctx, list, client.InNamespace(cj.Namespace), client.MatchingFields{jobCronJobKey: string(cj.UID)}); err != nil {
		return nil, fmt.Errorf("listing the runs: %w", err)
	}
	jobs := make([]*batchv1alpha1.Job, 0, len(list.Items))
	for i := range list.Items {
		jobs = append(jobs, &list.Items[i])
	}
	return jobs, nil
}

// deleteRun deletes a run in the background (its pods go with it); a run already gone is done.
func (r *CronJobReconciler) deleteRun(ctx context.Context, job *batchv1alpha1.Job) error {
	err := r.Client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground),
		client.Preconditions{UID: &job.UID})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting job %s: %w", job.Name, err)
	}
	return nil
}

// createRun creates the run. Its name is fixed by its schedule time, so AlreadyExists means a
// reconcile before this one made it: that run is returned. A Job of that name that the CronJob
// does not control is left alone, with a warning, and nil is returned. A run the API server
// refuses as invalid is an InvalidSpecError on spec.jobTemplate.
func (r *CronJobReconciler) createRun(ctx context.Context, cj *batchv1alpha1.CronJob, job *batchv1alpha1.Job, rc *cronJobRun) (*batchv1alpha1.Job, error) {
	err := r.Client.Create(ctx, job, client.FieldOwner(cronJobControllerName))
	switch {
	case err == nil:
		rc.event(corev1.EventTypeNormal, "SuccessfulCreate", "Created job %s", job.Name)
		return job, nil
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return nil, nil
	case apierrors.IsInvalid(err):
		// Bad input: the template does not make a valid Job. Not retried until the spec changes.
		return nil, &cronjob.InvalidSpecError{
			Field:  "spec.jobTemplate",
			Reason: batchv1alpha1.InvalidJobTemplateReason,
			Message: fmt.Sprintf("the API server refused job %s made from spec.jobTemplate: %v; fix spec.jobTemplate",
				job.Name, err),
		}
	case !apierrors.IsAlreadyExists(err):
		rc.event(corev1.EventTypeWarning, "FailedCreate", "Error creating job %s: %v", job.Name, err)
		return nil, fmt.Errorf("creating job %s: %w", job.Name, err)
	}
	existing := &batchv1alpha1.Job{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(job), existing); err != nil {
		return nil, fmt.Errorf("reading job %s, which already exists: %w", job.Name, err)
	}
	if !metav1.IsControlledBy(existing, cj) {
		rc.event(corev1.EventTypeWarning, "ForeignJob", "Job %s exists and is not controlled by this CronJob: delete or rename it", job.Name)
		return nil, nil
	}
	return existing, nil
}

// finishedRun reports whether a run has finished: Completed, Failed or Terminated.
func finishedRun(job *batchv1alpha1.Job) bool {
	switch job.Status.State.Phase {
	case batchv1alpha1.Completed, batchv1alpha1.Failed, batchv1alpha1.Terminated:
		return true
	}
	return false
}

// finalize computes the conditions, writes the status once, records the events when the write
// succeeded, and arms the wake-up at the next schedule time. Bad input is not retried until the
// spec changes.
func (r *CronJobReconciler) finalize(ctx context.Context, cj *batchv1alpha1.CronJob, rc *cronJobRun, read *batchv1alpha1.CronJob, retErr error) error {
	condErr := retErr
	if condErr == nil && rc.invalid != nil {
		condErr = rc.invalid
	}
	cronjob.SetConditions(cj, condErr, rc.nextRun, r.Clock.Now())
	if retErr == nil {
		// Bad input is taken up in full too, so that kstatus reads Stalled, not InProgress.
		cj.Status.ObservedGeneration = cj.Generation
	}
	if err := writeStatus(ctx, r.Client, read, cj, cronJobControllerName); err != nil {
		if apierrors.IsNotFound(err) {
			return retErr
		}
		return errors.Join(retErr, fmt.Errorf("writing the CronJob's status: %w", err))
	}
	for _, e := range rc.events {
		r.Recorder.Event(cj, e.Type, e.Reason, e.Message)
	}
	key := client.ObjectKeyFromObject(cj)
	if rc.nextRun.IsZero() {
		r.wakeups.cancel(key)
	} else {
		r.wakeups.at(key, rc.nextRun)
	}
	if retErr == nil && rc.invalid != nil {
		return reconcile.TerminalError(rc.invalid)
	}
	return retErr
}

// SetupWithManager registers the reconciler, the index of runs by CronJob and the watches: the
// CronJobs, their runs, and the wake-ups at schedule times.
func (r *CronJobReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorderFor(cronJobControllerName) //nolint:staticcheck // the events/v1 recorder is not yet what the rest of the manager uses
	}
	r.wakeups = newWakeups(r.Clock)
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &batchv1alpha1.Job{}, jobCronJobKey, func(o client.Object) []string {
		if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == "CronJob" && ref.APIVersion == batchv1alpha1.GroupVersion.String() {
			return []string{string(ref.UID)}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("indexing jobs by CronJob: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("cronjob").
		For(&batchv1alpha1.CronJob{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&batchv1alpha1.Job{}).
		WatchesRawSource(source.Channel(r.wakeups.events, &handler.EnqueueRequestForObject{})).
		Complete(r)
}
