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
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/topology"
)

// HyperNodeDiscoveryReconciler makes HyperNodes from node labels (see topology.Discover): for
// each discovery type, one HyperNode per value of each tier's label, labelled
// volcano.sh/network-topology-source=label. It creates the missing ones, brings the others'
// spec and labels up to date, and deletes those of that source the labels no longer make; it
// never touches a HyperNode without that label (written by hand or from Git).
type HyperNodeDiscoveryReconciler struct {
	Client client.Client
	Types  []topology.DiscoveryType
}

// +kubebuilder:rbac:groups=topology.volcano.sh,resources=hypernodes,verbs=get;list;watch;create;update;patch;delete

// Reconcile makes the HyperNodes match the nodes' labels; one request stands for all of them.
func (r *HyperNodeDiscoveryReconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	var nodes corev1.NodeList
	if err := r.Client.List(ctx, &nodes); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing nodes: %w", err)
	}
	refs := nodeRefs(nodes.Items)
	want := topology.Discover(r.Types, refs)
	var have topologyv1alpha1.HyperNodeList
	if err := r.Client.List(ctx, &have, client.MatchingLabels{topology.SourceLabel: topology.SourceNodeLabels}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing HyperNodes: %w", err)
	}
	existing := map[string]*topologyv1alpha1.HyperNode{}
	for i := range have.Items {
		existing[have.Items[i].Name] = &have.Items[i]
	}
	log := ctrl.LoggerFrom(ctx)
	var errs []error
	for _, hn := range want {
		cur, ok := existing[hn.Name]
		delete(existing, hn.Name)
		switch {
		case !ok:
			err := r.Client.Create(ctx, hn)
			if apierrors.IsAlreadyExists(err) {
				err = fmt.Errorf("HyperNode %s exists without the label %s=%s: rename it, or label it so that discovery owns it", hn.Name, topology.SourceLabel, topology.SourceNodeLabels)
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			log.Info("HyperNode made from node labels", "hypernode", hn.Name, "tier", hn.Spec.Tier, "members", len(hn.Spec.Members))
		case !equality.Semantic.DeepEqual(cur.Spec, hn.Spec) || !labelsHold(cur.Labels, hn.Labels):
			patch := client.MergeFrom(cur.DeepCopy())
			cur.Spec = hn.Spec
			if cur.Labels == nil {
				cur.Labels = map[string]string{}
			}
			maps.Copy(cur.Labels, hn.Labels)
			if err := r.Client.Patch(ctx, cur, patch); err != nil {
				errs = append(errs, fmt.Errorf("updating HyperNode %s: %w", cur.Name, err))
			}
		}
	}
	for _, stale := range existing {
		if err := r.Client.Delete(ctx, stale, client.Preconditions{UID: &stale.UID}); client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("deleting HyperNode %s, which the node labels no longer make: %w", stale.Name, err))
			continue
		}
		log.Info("HyperNode deleted: the node labels no longer make it", "hypernode", stale.Name)
	}
	return ctrl.Result{}, errors.Join(errs...)
}

// labelsHold reports whether have carries every label of want.
func labelsHold(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// SetupWithManager registers the reconciler: nodes added, removed or relabelled, and changes to
// the HyperNodes it made, bring them up to date.
func (r *HyperNodeDiscoveryReconciler) SetupWithManager(mgr ctrl.Manager) error {
	one := reconcile.Request{NamespacedName: types.NamespacedName{Name: "HyperNodes from node labels"}}
	all := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{one} })
	relabelled := predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool { return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) },
	}
	discovered := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[topology.SourceLabel] == topology.SourceNodeLabels })
	return ctrl.NewControllerManagedBy(mgr).
		Named("hypernode-discovery").
		Watches(&corev1.Node{}, all, builder.WithPredicates(relabelled)).
		Watches(&topologyv1alpha1.HyperNode{}, all, builder.WithPredicates(discovered, predicate.Or(predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}))).
		Complete(r)
}
