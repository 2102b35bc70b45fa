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
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/expectations"
)

const (
	// jobControllerName is the job controller's name and field owner.
	jobControllerName = "caldera-job-controller"
	// podOwnerKey indexes pods by the UID of their controlling Job.
	podOwnerKey = ".metadata.controller.job"
	// jobQueueKey indexes jobs by spec.queue.
	jobQueueKey = ".spec.queue"
	// commandTargetKey indexes Commands by the UID of the Job they target.
	commandTargetKey = ".target.job"
	// cacheCatchUp is how soon to look again when the cache has not yet seen our own writes.
	cacheCatchUp = 200 * time.Millisecond
)

// JobReconciler runs batch.volcano.sh Jobs: it gathers a job's pods, PodGroup, Commands and the
// changes its informers saw, asks internal/job/lifecycle what happened and what to do, and makes
// the API match: pods, the PodGroup, the plugins' objects and claims, and the job's status and
// conditions, written once at the end.
type JobReconciler struct {
	Client client.Client
	// APIReader reads from the API server what the cache does not hold: Secrets and ConfigMaps
	// no plugin labelled (CacheOptions). Nil means everything is read from Client.
	APIReader client.Reader
	Recorder  record.EventRecorder
	Clock     clock.Clock
	// SchedulerNames are the scheduler names this manager serves; the first is the default.
	SchedulerNames []string
	// Policies compiles and evaluates lifecycle-policy CEL expressions.
	Policies Policies
	// Workers is the number of jobs reconciled at once.
	Workers int

	expectations *expectations.Store
	changes      *changes
	delays       *delayStore
	written      *writtenStatuses
	started      *startedJobs
}

// +kubebuilder:rbac:groups=batch.volcano.sh,resources=jobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch.volcano.sh,resources=jobs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=bus.volcano.sh,resources=commands,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=podgroups,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=queues,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=configmaps;services;secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile is a short dispatcher: read the job, defer the status write, and run the phases.
func (r *JobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	defer func() { defaultJobMetrics.reconciled(retErr) }()
	job := &batchv1alpha1.Job{}
	if err := r.Client.Get(ctx, req.NamespacedName, job); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !job.DeletionTimestamp.IsZero() {
		// The job's children are owned by it and go with it.
		r.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	if r.written.stale(job) {
		// Our last status write has not reached the cache yet: deciding on the older status
		// could count a restart twice.
		return ctrl.Result{RequeueAfter: cacheCatchUp}, nil
	}

	rc := &jobRun{r: r, job: job, key: req.NamespacedName, before: job.Status.State.Phase}
	read := job.DeepCopy()
	defer func() {
		retErr = r.finalize(ctx, rc, read, retErr)
	}()
	return rc.run(ctx)
}

// finalize computes the job's conditions, writes its status once, and emits the events of the
// reconcile and records its metrics when the write succeeded. status.observedGeneration is the
// job's generation whenever the reconcile judged it, Stalled included: kstatus reads Stalled with
// a current observedGeneration as "this commit is bad", and a stale verdict never sits beside a
// newer generation.
//
// Pod and PodGroup changes are put back when the status write fails (all of them: what they
// caused is not recorded) or the reconcile failed (those not yet carried out), so no edge is
// lost. Commands carried out are deleted only after the status that records them (in
// status.handledCommands) is written, so each takes effect once.
func (r *JobReconciler) finalize(ctx context.Context, rc *jobRun, read *batchv1alpha1.Job, retErr error) error {
	job := rc.job
	setJobConditions(job, rc, retErr, r.Clock)
	if retErr == nil {
		job.Status.ObservedGeneration = job.Generation
	}
	err := writeStatus(ctx, r.Client, read, job, jobControllerName)
	if err != nil {
		if !apierrors.IsNotFound(err) {
			r.changes.putBack(rc.key, rc.podChanges, rc.groupChanges)
			retErr = errors.Join(retErr, fmt.Errorf("writing the job's status: %w", err))
		}
		return retErr
	}
	if retErr != nil {
		pods, groups := rc.unhandledChanges()
		r.changes.putBack(rc.key, pods, groups)
		ctrl.LoggerFrom(ctx).Info("Reconcile failed; retrying", "error", retErr.Error(),
			"changesPutBack", len(pods)+len(groups))
	}
	r.written.record(job)
	defaultJobMetrics.observeStatus(rc.key, rc.before, job)
	for _, e := range rc.events {
		r.Recorder.Event(job, e.kind, e.reason, e.message)
	}
	if err := rc.deleteCommands(ctx); err != nil {
		retErr = errors.Join(retErr, err)
	}
	if rc.stalled != nil && retErr == nil && !rc.stalled.recheck {
		// Bad input: nothing to retry until the job changes.
		return reconcile.TerminalError(rc.stalled)
	}
	return retErr
}

func (r *JobReconciler) forget(key types.NamespacedName) {
	r.expectations.Forget(key)
	r.changes.forget(key)
	r.delays.forget(key)
	r.written.forget(key)
	r.started.forget(key)
	defaultJobMetrics.forget(key)
}

// SetupWithManager registers the reconciler, its indexes and its watches.
func (r *JobReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	r.expectations = expectations.NewStore(r.Clock, 0)
	r.changes = newChanges()
	r.delays = newDelayStore()
	r.written = newWrittenStatuses(r.Clock)
	r.started = &startedJobs{seen: map[types.NamespacedName]bool{}}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorderFor(jobControllerName) //nolint:staticcheck // the events/v1 recorder is not yet what the rest of the manager uses
	}

	ctx := context.Background()
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &corev1.Pod{}, podOwnerKey, func(o client.Object) []string {
		if ref := batchv1alpha1.JobControllerOf(o); ref != nil {
			return []string{string(ref.UID)}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("indexing pods by job: %w", err)
	}
	if err := idx.IndexField(ctx, &batchv1alpha1.Job{}, jobQueueKey, func(o client.Object) []string {
		return []string{effectiveQueue(o.(*batchv1alpha1.Job).Spec.Queue)}
	}); err != nil {
		return fmt.Errorf("indexing jobs by queue: %w", err)
	}
	if err := idx.IndexField(ctx, &busv1alpha1.Command{}, commandTargetKey, func(o client.Object) []string {
		if t := o.(*busv1alpha1.Command).TargetObject; isJobRef(t) {
			return []string{string(t.UID)}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("indexing commands by target: %w", err)
	}

	return ctrl.NewControllerManagedBy(mgr).
		Named("job").
		For(&batchv1alpha1.Job{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{},
			predicate.AnnotationChangedPredicate{},
			predicate.LabelChangedPredicate{},
		))).
		Watches(&corev1.Pod{}, r.podHandler()).
		Watches(&schedulingv1beta1.PodGroup{}, r.podGroupHandler()).
		Watches(&busv1alpha1.Command{}, handler.EnqueueRequestsFromMapFunc(commandToJob)).
		Watches(&schedulingv1beta1.Queue{}, handler.EnqueueRequestsFromMapFunc(r.queueToJobs), builder.WithPredicates(queueOpensOrCloses)).
		Watches(&corev1.PersistentVolumeClaim{}, handler.EnqueueRequestsFromMapFunc(r.claimToJobs)).
		Owns(&corev1.ConfigMap{}).
		Owns(&corev1.Service{}).
		Owns(&corev1.Secret{}).
		Owns(&networkingv1.NetworkPolicy{}).
		Watches(&schedulingv1.PriorityClass{}, &handler.Funcs{}).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: max(r.Workers, 1),
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](
				100*time.Millisecond, 5*time.Minute),
		}).
		Complete(r)
}

// podHandler feeds the expectations store and the change buffer, and enqueues the pod's job.
func (r *JobReconciler) podHandler() handler.EventHandler {
	enqueue := func(q workqueue.TypedRateLimitingInterface[reconcile.Request], key types.NamespacedName) {
		q.Add(reconcile.Request{NamespacedName: key})
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			pod, key, ok := podJob(e.Object)
			if !ok {
				return
			}
			r.expectations.CreationObserved(key, pod.Name)
			r.changes.addPod(key, batchv1alpha1.JobControllerOf(pod).UID, nil, pod)
			enqueue(q, key)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			cur, key, ok := podJob(e.ObjectNew)
			old, oldKey, oldOK := podJob(e.ObjectOld)
			if oldOK && (!ok || oldKey != key || batchv1alpha1.JobControllerOf(old).UID != batchv1alpha1.JobControllerOf(cur).UID) {
				// No longer that job's pod (its controller reference was edited).
				r.changes.dropPod(oldKey, old.UID)
				enqueue(q, oldKey)
			}
			if !ok {
				return
			}
			if old != nil && old.ResourceVersion == cur.ResourceVersion {
				return
			}
			owner := batchv1alpha1.JobControllerOf(cur).UID
			old, cur = r.markOurs(key, old), r.markOurs(key, cur)
			r.changes.addPod(key, owner, old, cur)
			enqueue(q, key)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			pod, key, ok := podJob(e.Object)
			if !ok {
				return
			}
			owner := batchv1alpha1.JobControllerOf(pod).UID
			pod = r.markOurs(key, pod)
			r.expectations.DeletionObserved(key, pod.UID)
			r.changes.addPod(key, owner, pod, nil)
			enqueue(q, key)
		},
	}
}

// markOurs returns a copy of pod marked out of sync (volcano.sh/controller-out-of-sync) when
// the controller is deleting it itself, so its deletion reads as ours, not as an eviction.
func (r *JobReconciler) markOurs(key types.NamespacedName, pod *corev1.Pod) *corev1.Pod {
	if pod == nil || !r.expectations.ExpectingDeletion(key, pod.UID) {
		return pod
	}
	pod = pod.DeepCopy()
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[batchv1alpha1.OutOfSyncKey] = "true"
	return pod
}

// podGroupHandler records PodGroup phase changes and enqueues the owning job.
func (r *JobReconciler) podGroupHandler() handler.EventHandler {
	key := func(o client.Object) (types.NamespacedName, bool) {
		ref := batchv1alpha1.JobControllerOf(o)
		if ref == nil {
			return types.NamespacedName{}, false
		}
		return types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}, true
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if k, ok := key(e.Object); ok {
				r.changes.seeGroup(k, e.Object.GetName(), e.Object.GetResourceVersion())
				q.Add(reconcile.Request{NamespacedName: k})
			}
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if k, ok := key(e.ObjectOld); ok {
				if nk, still := key(e.ObjectNew); !still || nk != k {
					r.changes.seeGroup(k, e.ObjectOld.GetName(), "")
					q.Add(reconcile.Request{NamespacedName: k})
				}
			}
			k, ok := key(e.ObjectNew)
			if !ok {
				return
			}
			oldPG, okOld := e.ObjectOld.(*schedulingv1beta1.PodGroup)
			newPG, okNew := e.ObjectNew.(*schedulingv1beta1.PodGroup)
			if okOld && okNew {
				r.changes.addGroup(k, oldPG.Status.Phase, newPG.Status.Phase)
			}
			r.changes.seeGroup(k, e.ObjectNew.GetName(), e.ObjectNew.GetResourceVersion())
			q.Add(reconcile.Request{NamespacedName: k})
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if k, ok := key(e.Object); ok {
				r.changes.seeGroup(k, e.Object.GetName(), "")
				q.Add(reconcile.Request{NamespacedName: k})
			}
		},
	}
}

// queueOpensOrCloses passes the Queue events a job waiting on its queue cares about: a queue
// made or deleted, its spec changed, or its state changed. The scheduler rewrites a queue's
// counters with every admission; those pass no event, so a busy queue does not make every one of
// its jobs be looked at again.
var queueOpensOrCloses = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, okOld := e.ObjectOld.(*schedulingv1beta1.Queue)
		cur, okCur := e.ObjectNew.(*schedulingv1beta1.Queue)
		if !okOld || !okCur {
			return true
		}
		return old.Generation != cur.Generation || old.Status.State != cur.Status.State
	},
}

// queueToJobs enqueues the jobs of a queue that wait on it (their queue was missing or closed).
func (r *JobReconciler) queueToJobs(ctx context.Context, o client.Object) []reconcile.Request {
	jobs := &batchv1alpha1.JobList{}
	// The jobs are only read: no copy of each.
	if err := r.Client.List(ctx, jobs, client.MatchingFields{jobQueueKey: o.GetName()}, client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for i := range jobs.Items {
		if waitsOn(&jobs.Items[i], batchv1alpha1.QueueNotFoundReason, batchv1alpha1.QueueNotOpenReason) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&jobs.Items[i])})
		}
	}
	return reqs
}

// claimToJobs enqueues the jobs of a namespace that wait for a claim to exist.
func (r *JobReconciler) claimToJobs(ctx context.Context, o client.Object) []reconcile.Request {
	jobs := &batchv1alpha1.JobList{}
	if err := r.Client.List(ctx, jobs, client.InNamespace(o.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for i := range jobs.Items {
		if waitsOn(&jobs.Items[i], batchv1alpha1.PVCNotFoundReason) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&jobs.Items[i])})
		}
	}
	return reqs
}

// waitsOn reports whether the job is stalled for one of reasons.
func waitsOn(job *batchv1alpha1.Job, reasons ...string) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1alpha1.StalledCondition && slices.Contains(reasons, c.Reason) {
			return true
		}
	}
	return false
}

// commandToJob enqueues the job a Command targets.
func commandToJob(_ context.Context, o client.Object) []reconcile.Request {
	cmd, ok := o.(*busv1alpha1.Command)
	if !ok || !isJobRef(cmd.TargetObject) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: cmd.Namespace, Name: cmd.TargetObject.Name}}}
}
