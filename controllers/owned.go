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

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func networkPolicy(namespace, name string) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

// applyOwned creates desired, or updates the existing object of the same name so the fields the
// controller owns match desired. An object of that name controlled by someone else is an error.
func applyOwned(ctx context.Context, c client.Client, desired client.Object) error {
	existing, ok := desired.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("copying %T", desired)
	}
	err := c.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	if apierrors.IsNotFound(err) {
		if err := c.Create(ctx, desired); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %s: %w", desired, desired.GetName(), err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %T %s: %w", desired, desired.GetName(), err)
	}
	owner := metav1.GetControllerOf(desired)
	if owner != nil && !metav1.IsControlledBy(existing, &metav1.ObjectMeta{UID: owner.UID}) {
		return fmt.Errorf("%T %s/%s exists and is not the job's: delete or rename it", desired, desired.GetNamespace(), desired.GetName())
	}
	if !mergeOwned(existing, desired) {
		return nil
	}
	if err := c.Update(ctx, existing); err != nil {
		return fmt.Errorf("updating %T %s: %w", desired, desired.GetName(), err)
	}
	return nil
}

// mergeOwned copies the fields the controller owns from desired into existing and reports
// whether anything changed.
func mergeOwned(existing, desired client.Object) bool {
	switch e := existing.(type) {
	case *corev1.ConfigMap:
		d := desired.(*corev1.ConfigMap)
		if equality.Semantic.DeepEqual(e.Data, d.Data) {
			return false
		}
		e.Data = d.Data
	case *corev1.Secret:
		d := desired.(*corev1.Secret)
		if equality.Semantic.DeepEqual(e.Data, d.Data) {
			return false
		}
		e.Data = d.Data
	case *corev1.Service:
		d := desired.(*corev1.Service)
		if equality.Semantic.DeepEqual(e.Spec.Selector, d.Spec.Selector) &&
			equality.Semantic.DeepEqual(e.Spec.Ports, d.Spec.Ports) &&
			e.Spec.PublishNotReadyAddresses == d.Spec.PublishNotReadyAddresses {
			return false
		}
		e.Spec.Selector, e.Spec.Ports, e.Spec.PublishNotReadyAddresses = d.Spec.Selector, d.Spec.Ports, d.Spec.PublishNotReadyAddresses
	case *networkingv1.NetworkPolicy:
		d := desired.(*networkingv1.NetworkPolicy)
		if equality.Semantic.DeepEqual(e.Spec, d.Spec) {
			return false
		}
		e.Spec = d.Spec
	default:
		return false
	}
	return true
}
