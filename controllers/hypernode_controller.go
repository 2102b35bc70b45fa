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
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// HyperNodeReconciler keeps each HyperNode's status: how many nodes it holds (through its
// member HyperNodes too) and a Ready condition that is False, naming the field, when a member
// selector cannot be read (a pattern that is not a regular expression, a label selector on
// HyperNodes, a member that contains the HyperNode). It never writes the spec.
type HyperNodeReconciler struct {
	Client client.Client
}

// Condition reasons of a HyperNode's Ready condition.
const (
	// HyperNodeMembersResolved: every member selector was read.
	HyperNodeMembersResolved = "MembersResolved"
	// HyperNodeInvalidMember: a member selector cannot be read; the message names it.
	HyperNodeInvalidMember = "InvalidMember"
)

// +kubebuilder:rbac:groups=topology.volcano.sh,resources=hypernodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=topology.volcano.sh,resources=hypernodes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch

// Reconcile brings every HyperNode's status up to date with the HyperNodes and nodes as they are:
// one request stands for all of them (see SetupWithManager), so a burst of changes costs one
// resolution of the topology, not one per HyperNode.
func (r *HyperNodeReconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	var hns topologyv1alpha1.HyperNodeList
	if err := r.Client.List(ctx, &hns); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing HyperNodes: %w", err)
	}
	if len(hns.Items) == 0 {
		return ctrl.Result{}, nil
	}
	var nodes corev1.NodeList
	if err := r.Client.List(ctx, &nodes); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing nodes: %w", err)
	}
	list := make([]*topologyv1alpha1.HyperNode, len(hns.Items))
	for i := range hns.Items {
		list[i] = &hns.Items[i]
	}
	refs := nodeRefs(nodes.Items)
	topo := topology.Build(list, refs)
	var errs []error
	for _, hn := range list {
		want := HyperNodeStatus(hn, topo)
		if equality.Semantic.DeepEqual(hn.Status, want) {
			continue
		}
		patch := client.MergeFrom(hn.DeepCopy())
		hn.Status = want
		if err := r.Client.Status().Patch(ctx, hn, patch); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("writing the status of HyperNode %s: %w", hn.Name, err))
		}
	}
	return ctrl.Result{}, errors.Join(errs...)
}

// nodeRefs is what the topology needs of nodes: their names and labels.
func nodeRefs(nodes []corev1.Node) []topology.Node {
	refs := make([]topology.Node, len(nodes))
	for i := range nodes {
		refs[i] = topology.Node{Name: nodes[i].Name, Labels: nodes[i].Labels}
	}
	return refs
}

// HyperNodeStatus is the status a HyperNode should have in a topology built from every
// HyperNode and node: its node count and Ready condition (whose transition time is kept when
// the status does not change).
func HyperNodeStatus(hn *topologyv1alpha1.HyperNode, topo *topology.Topology) topologyv1alpha1.HyperNodeStatus {
	out := *hn.Status.DeepCopy()
	if d := topo.Domain(hn.Name); d != nil {
		out.NodeCount = int64(len(d.Nodes))
	}
	cond := metav1.Condition{Type: topologyv1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: HyperNodeMembersResolved,
		Message: fmt.Sprintf("tier %d, %d nodes", hn.Spec.Tier, out.NodeCount), ObservedGeneration: hn.Generation}
	if problem := topo.Problems[hn.Name]; problem != "" {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, HyperNodeInvalidMember, problem
	}
	apimeta.SetStatusCondition(&out.Conditions, cond)
	return out
}

// allHyperNodes is the one request that stands for every HyperNode.
var allHyperNodes = reconcile.Request{NamespacedName: types.NamespacedName{Name: "all HyperNodes"}}

// SetupWithManager registers the reconciler. Any HyperNode change, and any node added, removed
// or relabelled, brings every HyperNode's status up to date: counts of higher tiers go through
// their members.
func (r *HyperNodeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	all := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{allHyperNodes}
	})
	nodeMembership := predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool { return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) },
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("hypernode").
		Watches(&topologyv1alpha1.HyperNode{}, all, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&corev1.Node{}, all, builder.WithPredicates(nodeMembership)).
		Complete(r)
}
