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
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/podgroup"
)

const (
	podGroupControllerName = "caldera-podgroup-controller"
	// podGroupKey indexes pods by the PodGroup they name.
	podGroupKey = "caldera.sh/pod-group"
	// reasonInvalidGroupMinMember is the reason of the warning about a group-min-member that is
	// not a number.
	reasonInvalidGroupMinMember = "InvalidGroupMinMember"
	// reasonFailedCreatePodGroup is the reason of the warning that a pod's group could not be made.
	reasonFailedCreatePodGroup = "FailedCreatePodGroup"
)

// ownerKinds are the controllers whose annotations (group-min-member, queue-name and the other
// scheduling.volcano.sh/ and volcano.sh/ settings) a PodGroup takes, as in Volcano; pods of other
// controllers get a group of minMember 1 with their own annotations.
var ownerKinds = map[schema.GroupKind]bool{
	{Group: "apps", Kind: "ReplicaSet"}:  true,
	{Group: "apps", Kind: "StatefulSet"}: true,
	{Group: "apps", Kind: "DaemonSet"}:   true,
	{Group: "batch", Kind: "Job"}:        true,
}

// PodGroupReconciler gives every pod of ours that names no PodGroup one, as Volcano's PodGroup
// controller does, so that Deployments, StatefulSets, Jobs and other operators' pods are
// gang-scheduled and queued: podgroup-<controller uid> (podgroup-<pod uid> for a pod without a
// controller), owned by that controller, with minMember from its
// scheduling.volcano.sh/group-min-member annotation (internal/podgroup decides the group). The
// pod is then annotated with the group's name, which is what the scheduler waits for. A group
// follows later changes of its controller's annotation and pod template when new pods come, and
// is deleted once a ReplicaSet or StatefulSet is scaled to zero and its pods are gone.
type PodGroupReconciler struct {
	Client client.Client
	// APIReader reads the replicas of a group's controller, which the cache does not hold.
	APIReader client.Reader
	Recorder  record.EventRecorder
	// SchedulerNames are the scheduler names this manager serves.
	SchedulerNames []string
}

// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=replicasets;statefulsets;daemonsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch

// SetupWithManager registers the two halves: one reconciles the pods that name no group, the
// other the groups made for them, when their pods go.
func (r *PodGroupReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorderFor(podGroupControllerName) //nolint:staticcheck // the events/v1 recorder is not yet what the rest of the manager uses
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, podGroupKey, func(o client.Object) []string {
		if g := podgroup.GroupName(o.(*corev1.Pod)); strings.HasPrefix(g, podgroup.NamePrefix) {
			return []string{g}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("indexing pods by PodGroup: %w", err)
	}
	ungrouped := predicate.NewPredicateFuncs(func(o client.Object) bool {
		pod, ok := o.(*corev1.Pod)
		return ok && r.needsGroup(pod)
	})
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("podgroup").
		For(&corev1.Pod{}, builder.WithPredicates(ungrouped)).
		Complete(reconcile.Func(r.reconcilePod)); err != nil {
		return err
	}
	made := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return strings.HasPrefix(o.GetName(), podgroup.NamePrefix)
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("podgroup-cleanup").
		For(&schedulingv1beta1.PodGroup{}, builder.WithPredicates(made, predicate.Funcs{
			CreateFunc: func(event.CreateEvent) bool { return true },
			UpdateFunc: func(event.UpdateEvent) bool { return false },
		})).
		Watches(&corev1.Pod{}, handler.Funcs{
			DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				pod, ok := e.Object.(*corev1.Pod)
				if !ok {
					return
				}
				if g := podgroup.GroupName(pod); strings.HasPrefix(g, podgroup.NamePrefix) {
					q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: pod.Namespace, Name: g}})
				}
			},
		}).
		Complete(reconcile.Func(r.reconcileGroup))
}

// needsGroup reports whether a pod is one of ours that names no group and may still run.
func (r *PodGroupReconciler) needsGroup(pod *corev1.Pod) bool {
	return slices.Contains(r.SchedulerNames, pod.Spec.SchedulerName) && !podgroup.Grouped(pod) &&
		pod.DeletionTimestamp == nil && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

// reconcilePod makes or updates the group of a pod that names none, then annotates the pod.
func (r *PodGroupReconciler) reconcilePod(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := r.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !r.needsGroup(pod) {
		return reconcile.Result{}, nil
	}
	in := podgroup.Inputs{Pod: pod}
	if ref := metav1.GetControllerOf(pod); ref != nil {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && ownerKinds[gv.WithKind(ref.Kind).GroupKind()] {
			owner := &metav1.PartialObjectMetadata{}
			owner.SetGroupVersionKind(gv.WithKind(ref.Kind))
			if err := r.Client.Get(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name}, owner); err != nil {
				if apierrors.IsNotFound(err) {
					// The controller is gone: its pods go with it.
					return reconcile.Result{}, nil
				}
				return reconcile.Result{}, fmt.Errorf("reading the %s %s of pod %s: %w", ref.Kind, ref.Name, pod.Name, err)
			}
			in.OwnerAnnotations = owner.Annotations
		}
		in.OwnerKind = ref.Kind + " " + ref.Name
	}
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	if err := r.Client.Get(ctx, types.NamespacedName{Name: pod.Namespace}, ns); err != nil {
		return reconcile.Result{}, fmt.Errorf("reading namespace %s: %w", pod.Namespace, err)
	}
	in.NamespaceAnnotations = ns.Annotations

	desired, problems := podgroup.Desired(in)
	for _, p := range problems {
		r.Recorder.Event(pod, corev1.EventTypeWarning, reasonInvalidGroupMinMember, p)
	}
	existing := &schedulingv1beta1.PodGroup{}
	err := r.Client.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	switch {
	case apierrors.IsNotFound(err):
		if err := r.Client.Create(ctx, desired); err != nil && !apierrors.IsAlreadyExists(err) {
			// The pod is not scheduled until it has its group: say why where its owner looks.
			r.Recorder.Eventf(pod, corev1.EventTypeWarning, reasonFailedCreatePodGroup,
				"creating PodGroup %s for this pod failed, so the pod is not scheduled yet (retrying): %v", desired.Name, err)
			return reconcile.Result{}, fmt.Errorf("creating PodGroup %s for pod %s: %w", desired.Name, pod.Name, err)
		}
	case err != nil:
		return reconcile.Result{}, err
	case podgroup.MadeFor(existing):
		if spec, changed := podgroup.Update(existing, desired); changed {
			patch := client.MergeFrom(existing.DeepCopy())
			existing.Spec = spec
			if err := r.Client.Patch(ctx, existing, patch); err != nil {
				return reconcile.Result{}, fmt.Errorf("updating PodGroup %s for pod %s: %w", existing.Name, pod.Name, err)
			}
		}
	}
	patch := client.MergeFrom(pod.DeepCopy())
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[schedulingv1beta1.KubeGroupNameAnnotationKey] = desired.Name
	if err := r.Client.Patch(ctx, pod, patch); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return reconcile.Result{}, nil
}

// reconcileGroup deletes a group made for the pods of a ReplicaSet or StatefulSet once it is
// scaled to zero and none of its pods is left, as Volcano does. Groups of pods are deleted with
// their pod, and groups of other controllers with the controller, by garbage collection.
func (r *PodGroupReconciler) reconcileGroup(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pg := &schedulingv1beta1.PodGroup{}
	if err := r.Client.Get(ctx, req.NamespacedName, pg); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	ref := metav1.GetControllerOf(pg)
	if !podgroup.MadeFor(pg) || pg.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	var owner client.Object
	switch {
	case ref.APIVersion == "apps/v1" && ref.Kind == "ReplicaSet":
		owner = &appsv1.ReplicaSet{}
	case ref.APIVersion == "apps/v1" && ref.Kind == "StatefulSet":
		owner = &appsv1.StatefulSet{}
	default:
		return reconcile.Result{}, nil
	}
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(pg.Namespace), client.MatchingFields{podGroupKey: pg.Name}); err != nil {
		return reconcile.Result{}, err
	}
	if len(pods.Items) > 0 {
		return reconcile.Result{}, nil
	}
	if err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: pg.Namespace, Name: ref.Name}, owner); err != nil {
		// A controller that is gone takes the group with it (garbage collection).
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if owner.GetUID() != ref.UID || replicasOf(owner) != 0 {
		return reconcile.Result{}, nil
	}
	if err := r.Client.Delete(ctx, pg, client.Preconditions{UID: &pg.UID}); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("deleting PodGroup %s of %s %s scaled to zero: %w", pg.Name, ref.Kind, ref.Name, err)
	}
	return reconcile.Result{}, nil
}

// replicasOf returns the spec.replicas of a ReplicaSet or StatefulSet (1 when unset, as defaulted).
func replicasOf(o client.Object) int32 {
	var replicas *int32
	switch w := o.(type) {
	case *appsv1.ReplicaSet:
		replicas = w.Spec.Replicas
	case *appsv1.StatefulSet:
		replicas = w.Spec.Replicas
	}
	if replicas == nil {
		return 1
	}
	return *replicas
}
