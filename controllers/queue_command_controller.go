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
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
)

// QueueCommandReconciler takes OpenQueue and CloseQueue Commands (what `vcctl queue operate -a
// open|close` creates). It does not write the Queue's status: the scheduler is its one writer.
// It records the requested state on the Queue (annotation caldera.sh/queue-requested-state,
// with the Command's UID in caldera.sh/queue-command), and deletes the Command only once that
// is written, so a Command is carried out once even when a write fails or the manager stops
// between the two steps. The scheduler then makes the queue Open, or Closing while it still
// holds PodGroups and Closed once they are gone, as Volcano does.
type QueueCommandReconciler struct {
	Client client.Client
}

// +kubebuilder:rbac:groups=bus.volcano.sh,resources=commands,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=queues,verbs=get;list;watch;patch

// Reconcile takes one Command that targets a Queue.
func (r *QueueCommandReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cmd := &busv1alpha1.Command{}
	if err := r.Client.Get(ctx, req.NamespacedName, cmd); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !isQueueRef(cmd) || !cmd.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	requested, ok := lifecycle.RequestedQueueState(busv1alpha1.Action(cmd.Action))
	if !ok {
		return ctrl.Result{}, nil
	}
	log := ctrl.LoggerFrom(ctx).WithValues("queue", cmd.TargetObject.Name, "action", cmd.Action)

	queue := &schedulingv1beta1.Queue{}
	err := r.Client.Get(ctx, types.NamespacedName{Name: cmd.TargetObject.Name}, queue)
	switch {
	case apierrors.IsNotFound(err):
		log.Info("Command targets a queue that does not exist; deleting it")
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("reading queue %s: %w", cmd.TargetObject.Name, err)
	case queue.Annotations[schedulingv1beta1.QueueCommandAnnotationKey] != string(cmd.UID):
		patch := client.MergeFrom(queue.DeepCopy())
		if queue.Annotations == nil {
			queue.Annotations = map[string]string{}
		}
		queue.Annotations[schedulingv1beta1.QueueRequestedStateAnnotationKey] = string(requested)
		queue.Annotations[schedulingv1beta1.QueueCommandAnnotationKey] = string(cmd.UID)
		if err := r.Client.Patch(ctx, queue, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("recording %s on queue %s: %w", cmd.Action, queue.Name, err)
		}
		log.Info("Queue state requested", "state", requested, "command", cmd.Name)
	}
	if err := r.Client.Delete(ctx, cmd, client.Preconditions{UID: &cmd.UID}); err != nil &&
		!apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return ctrl.Result{}, fmt.Errorf("deleting command %s, carried out: %w", cmd.Name, err)
	}
	return ctrl.Result{}, nil
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
