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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// QueueCommandReconciler carries out OpenQueue and CloseQueue Commands (what `vcctl queue
// operate -a open|close` creates): it deletes the Command, so it runs at most once, and then
// sets the queue's state. A queue closed while it still holds PodGroups is Closing; the
// scheduler makes it Closed once they are gone.
type QueueCommandReconciler struct {
	Client client.Client
}

// +kubebuilder:rbac:groups=bus.volcano.sh,resources=commands,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=queues,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=queues/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=podgroups,verbs=get;list;watch

// Reconcile takes one Command that targets a Queue.
func (r *QueueCommandReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cmd := &busv1alpha1.Command{}
	if err := r.Client.Get(ctx, req.NamespacedName, cmd); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !isQueueRef(cmd) {
		return ctrl.Result{}, nil
	}
	action := busv1alpha1.Action(cmd.Action)
	if action != busv1alpha1.OpenQueueAction && action != busv1alpha1.CloseQueueAction {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Delete(ctx, cmd, client.Preconditions{UID: &cmd.UID}); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return ctrl.Result{}, nil // taken already
		}
		return ctrl.Result{}, fmt.Errorf("deleting command %s before acting on it: %w", cmd.Name, err)
	}

	queue := &schedulingv1beta1.Queue{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: cmd.TargetObject.Name}, queue); err != nil {
		if apierrors.IsNotFound(err) {
			ctrl.LoggerFrom(ctx).Info("Command targets a queue that does not exist", "queue", cmd.TargetObject.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	groups := &schedulingv1beta1.PodGroupList{}
	if err := r.Client.List(ctx, groups); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing PodGroups: %w", err)
	}
	held := 0
	for _, pg := range groups.Items {
		if effectiveQueue(pg.Spec.Queue) == queue.Name {
			held++
		}
	}
	next := queueStateAfter(action, held)
	if queue.Status.State == next {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFromWithOptions(queue.DeepCopy(), client.MergeFromWithOptimisticLock{})
	queue.Status.State = next
	if err := r.Client.Status().Patch(ctx, queue, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("setting queue %s %s: %w", queue.Name, next, err)
	}
	return ctrl.Result{}, nil
}

// queueStateAfter is a queue's state after an OpenQueue or CloseQueue Command, given how many
// PodGroups it holds.
func queueStateAfter(action busv1alpha1.Action, podGroups int) schedulingv1beta1.QueueState {
	if action == busv1alpha1.OpenQueueAction {
		return schedulingv1beta1.QueueStateOpen
	}
	if podGroups > 0 {
		return schedulingv1beta1.QueueStateClosing
	}
	return schedulingv1beta1.QueueStateClosed
}

func isQueueRef(cmd *busv1alpha1.Command) bool {
	t := cmd.TargetObject
	return t != nil && t.Kind == "Queue" && t.APIVersion == schedulingv1beta1.GroupVersion.String()
}

// SetupWithManager registers the reconciler for Commands that target Queues.
func (r *QueueCommandReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("queue-command").
		For(&busv1alpha1.Command{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			cmd, ok := o.(*busv1alpha1.Command)
			return ok && isQueueRef(cmd)
		}))).
		Complete(r)
}
