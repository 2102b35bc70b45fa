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

package api

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Budget is a PodDisruptionBudget covering a pod, as a scheduling session reads it when it
// picks victims: the Eviction API refuses to evict a covered pod once Allowed is spent.
type Budget struct {
	// Key is the budget's namespace/name.
	Key string
	// Allowed is how many more pods the budget lets go now: its status.disruptionsAllowed, or 0
	// while the disruption controller has not yet observed the budget's latest generation (the
	// Eviction API refuses then) or when the status is negative.
	Allowed int32
}

// BudgetInfo is a PodDisruptionBudget as the scheduler keeps it: what the Eviction API reads of
// it to decide whether a pod may go.
type BudgetInfo struct {
	// Key is the budget's namespace/name.
	Key string
	// Namespace is the budget's namespace; it covers pods of that namespace only.
	Namespace string
	// Selector is spec.selector: empty matches every pod of the namespace, a missing or invalid
	// one matches none, as in the Eviction API and the disruption controller.
	Selector labels.Selector
	// Allowed is what Budget.Allowed says.
	Allowed int32
}

// NewBudgetInfo reads a PodDisruptionBudget.
func NewBudgetInfo(pdb *policyv1.PodDisruptionBudget) *BudgetInfo {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	return &BudgetInfo{
		Key:       pdb.Namespace + "/" + pdb.Name,
		Namespace: pdb.Namespace,
		Selector:  sel,
		Allowed:   BudgetAllowed(pdb),
	}
}

// BudgetAllowed returns how many more pods a PodDisruptionBudget lets the Eviction API evict now:
// none while its status is older than its spec or negative, else status.disruptionsAllowed.
func BudgetAllowed(pdb *policyv1.PodDisruptionBudget) int32 {
	if pdb.Status.ObservedGeneration < pdb.Generation || pdb.Status.DisruptionsAllowed < 0 {
		return 0
	}
	return pdb.Status.DisruptionsAllowed
}

// Matches reports whether the budget covers a pod.
func (b *BudgetInfo) Matches(pod *corev1.Pod) bool {
	return pod.Namespace == b.Namespace && b.Selector != nil && b.Selector.Matches(labels.Set(pod.Labels))
}
