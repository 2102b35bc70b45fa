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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// JobTTLReconciler deletes finished jobs once spec.ttlSecondsAfterFinished has passed since their
// last phase change. Finished means Completed, Failed, Terminated or Aborted: unlike Volcano,
// an aborted job is cleaned up too.
type JobTTLReconciler struct {
	Client client.Client
	Clock  clock.PassiveClock
}

// +kubebuilder:rbac:groups=batch.volcano.sh,resources=jobs,verbs=get;list;watch;delete

// Reconcile deletes the job when its TTL has passed, or asks to be called again when it will.
func (r *JobTTLReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	job := &batchv1alpha1.Job{}
	if err := r.Client.Get(ctx, req.NamespacedName, job); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	expiry, ok := ttlExpiry(job)
	if !ok || !job.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if wait := expiry.Sub(r.Clock.Now()); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	ctrl.LoggerFrom(ctx).V(2).Info("Deleting finished job after its TTL", "phase", job.Status.State.Phase)
	policy := metav1.DeletePropagationForeground
	err := r.Client.Delete(ctx, job, &client.DeleteOptions{
		PropagationPolicy: &policy,
		Preconditions:     &metav1.Preconditions{UID: &job.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, err
}

// ttlExpiry returns when a finished job with a TTL may be deleted; false when it has no TTL or
// has not finished.
func ttlExpiry(job *batchv1alpha1.Job) (time.Time, bool) {
	if job.Spec.TTLSecondsAfterFinished == nil || !finishedForTTL(job.Status.State.Phase) {
		return time.Time{}, false
	}
	since := job.Status.State.LastTransitionTime.Time
	if since.IsZero() {
		since = job.CreationTimestamp.Time
	}
	return since.Add(time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second), true
}

func finishedForTTL(phase batchv1alpha1.JobPhase) bool {
	switch phase {
	case batchv1alpha1.Completed, batchv1alpha1.Failed, batchv1alpha1.Terminated, batchv1alpha1.Aborted:
		return true
	}
	return false
}

// SetupWithManager registers the reconciler; only jobs with a TTL are of interest.
func (r *JobTTLReconciler) SetupWithManager(mgr ctrl.Manager) error {
	hasTTL := predicate.NewPredicateFuncs(func(o client.Object) bool {
		job, ok := o.(*batchv1alpha1.Job)
		return ok && job.Spec.TTLSecondsAfterFinished != nil
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("job-ttl").
		For(&batchv1alpha1.Job{}, builder.WithPredicates(hasTTL)).
		Complete(r)
}
