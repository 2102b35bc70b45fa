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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// JobTTLReconciler carries out spec.ttlSecondsAfterFinished once it has passed since a finished
// job's last phase change (lifecycle.TTL decides): it deletes the Job (Volcano's behaviour), or,
// for a job a GitOps tool manages or one annotated caldera.sh/ttl-action: DeleteChildren, the
// job's pods, PodGroup, plugin objects and the claims it made, keeping the Job as the record so
// that the tool has nothing to re-create. Finished means Completed, Failed, Terminated or
// Aborted, never held by spec.suspend: unlike Volcano, an aborted job is cleaned up too.
type JobTTLReconciler struct {
	Client client.Client
	// APIReader reads the plugin objects the cache does not hold (see CacheOptions).
	APIReader client.Reader
	Recorder  record.EventRecorder
	Clock     clock.PassiveClock
}

// +kubebuilder:rbac:groups=batch.volcano.sh,resources=jobs,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=delete

// Reconcile carries out the TTL when it has passed, or asks to be called again when it will.
func (r *JobTTLReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	job := &batchv1alpha1.Job{}
	if err := r.Client.Get(ctx, req.NamespacedName, job); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	d, ok := lifecycle.TTL(job)
	if !ok || !job.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if wait := d.Expiry.Sub(r.Clock.Now()); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	if d.Problem != "" && r.Recorder != nil {
		r.Recorder.Event(job, corev1.EventTypeWarning, "InvalidTTLAction", d.Problem)
	}
	log := ctrl.LoggerFrom(ctx).V(2).WithValues("phase", job.Status.State.Phase, "action", d.Action, "why", d.Why)
	if d.Action == batchv1alpha1.TTLActionDeleteChildren {
		log.Info("Deleting a finished job's children after its TTL, keeping the job")
		return ctrl.Result{}, r.deleteChildren(ctx, job)
	}
	log.Info("Deleting finished job after its TTL")
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

// deleteChildren deletes what the job made: its pods, its PodGroup, its plugins' objects and the
// claims it created (claims a volume names by volumeClaimName are the user's and stay).
func (r *JobTTLReconciler) deleteChildren(ctx context.Context, job *batchv1alpha1.Job) error {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(job.Namespace),
		client.MatchingLabels{batchv1alpha1.JobNameKey: job.Name}); err != nil {
		return err
	}
	var errs []error
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, job) || !p.DeletionTimestamp.IsZero() {
			continue
		}
		if err := r.Client.Delete(ctx, p, client.Preconditions{UID: ptrUID(p.UID)}); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("deleting pod %s: %w", p.Name, err))
		}
	}
	children := append(pluginObjects(job),
		&schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: naming.PodGroupName(job.Name, job.UID)}})
	for key, name := range job.Status.ControlledResources {
		if key == naming.VolumeResourceKey(name) {
			children = append(children, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: name}})
		}
	}
	for _, o := range children {
		if err := deleteControlled(ctx, r.Client, r.APIReader, job, o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
