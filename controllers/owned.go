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

// getOwned reads the object of o's key into o: from the cache, and for a Secret or ConfigMap the
// cache does not hold (the manager caches only those a plugin labelled, see CacheOptions; one made
// before the plugins labelled what they make is not) from the API server through reader.
func getOwned(ctx context.Context, c client.Client, reader client.Reader, o client.Object) error {
	err := c.Get(ctx, client.ObjectKeyFromObject(o), o)
	if !apierrors.IsNotFound(err) || reader == nil {
		return err
	}
	switch o.(type) {
	case *corev1.Secret, *corev1.ConfigMap:
		return reader.Get(ctx, client.ObjectKeyFromObject(o), o)
	}
	return err
}

// applyOwned creates desired, or updates the existing object of the same name so the fields the
// controller owns (its data or spec, and its labels) match desired. An object of that name
// controlled by someone else is an error. reader reads what the cache does not hold.
func applyOwned(ctx context.Context, c client.Client, reader client.Reader, desired client.Object) error {
	existing, ok := desired.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("copying %T", desired)
	}
	err := c.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	if apierrors.IsNotFound(err) {
		// Create first: a new object costs no read from the API server. One that exists but
		// is not in the cache (made before the plugins labelled what they make, or not cached
		// yet) is then read from the API server.
		err = c.Create(ctx, desired)
		if err == nil {
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %s: %w", desired, desired.GetName(), err)
		}
		if reader == nil {
			return nil
		}
		err = reader.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	}
	if err != nil {
		return fmt.Errorf("reading %T %s: %w", desired, desired.GetName(), err)
	}
	owner := metav1.GetControllerOf(desired)
	if owner != nil && !metav1.IsControlledBy(existing, &metav1.ObjectMeta{UID: owner.UID}) {
		return &nameTakenError{kind: kindOf(desired), namespace: desired.GetNamespace(), name: desired.GetName(), owner: ownerOf(existing)}
	}
	if !mergeOwned(existing, desired) {
		return nil
	}
	if err := c.Update(ctx, existing); err != nil {
		return fmt.Errorf("updating %T %s: %w", desired, desired.GetName(), err)
	}
	return nil
}

// mergeOwned copies the fields the controller owns from desired into existing (desired's labels
// are added to existing's, others kept) and reports whether anything changed.
func mergeOwned(existing, desired client.Object) bool {
	changed := mergeLabels(existing, desired.GetLabels())
	switch e := existing.(type) {
	case *corev1.ConfigMap:
		d := desired.(*corev1.ConfigMap)
		if !equality.Semantic.DeepEqual(e.Data, d.Data) {
			e.Data, changed = d.Data, true
		}
	case *corev1.Secret:
		d := desired.(*corev1.Secret)
		if !equality.Semantic.DeepEqual(e.Data, d.Data) {
			e.Data, changed = d.Data, true
		}
	case *corev1.Service:
		d := desired.(*corev1.Service)
		if !equality.Semantic.DeepEqual(e.Spec.Selector, d.Spec.Selector) ||
			!equality.Semantic.DeepEqual(e.Spec.Ports, d.Spec.Ports) ||
			e.Spec.PublishNotReadyAddresses != d.Spec.PublishNotReadyAddresses {
			e.Spec.Selector, e.Spec.Ports, e.Spec.PublishNotReadyAddresses = d.Spec.Selector, d.Spec.Ports, d.Spec.PublishNotReadyAddresses
			changed = true
		}
	case *networkingv1.NetworkPolicy:
		d := desired.(*networkingv1.NetworkPolicy)
		if !equality.Semantic.DeepEqual(e.Spec, d.Spec) {
			e.Spec, changed = d.Spec, true
		}
	}
	return changed
}

// mergeLabels adds labels to o's and reports whether that changed them.
func mergeLabels(o client.Object, labels map[string]string) bool {
	current := o.GetLabels()
	changed := false
	for k, v := range labels {
		if cur, ok := current[k]; ok && cur == v {
			continue
		}
		if current == nil {
			current = map[string]string{}
		}
		current[k] = v
		changed = true
	}
	if changed {
		o.SetLabels(current)
	}
	return changed
}

// nameTakenError is a plugin object whose name is taken by an object the job does not own:
// bad input (the job or that object must change), not an error to retry.
type nameTakenError struct {
	kind, namespace, name, owner string
}

func (e *nameTakenError) Error() string {
	return fmt.Sprintf("%s %s/%s, which a plugin of the job makes, exists and is not the job's (%s): delete or rename it, or disable the plugin",
		e.kind, e.namespace, e.name, e.owner)
}

// kindOf is the kind of a plugin object.
func kindOf(o client.Object) string {
	switch o.(type) {
	case *corev1.ConfigMap:
		return "ConfigMap"
	case *corev1.Secret:
		return "Secret"
	case *corev1.Service:
		return "Service"
	case *networkingv1.NetworkPolicy:
		return "NetworkPolicy"
	}
	return fmt.Sprintf("%T", o)
}

// ownerOf says who owns o: its controller, else the field managers that wrote it (a GitOps tool
// such as kustomize-controller or argocd-controller shows here), else nobody known.
func ownerOf(o client.Object) string {
	if ref := metav1.GetControllerOf(o); ref != nil {
		return fmt.Sprintf("controlled by %s %s", ref.Kind, ref.Name)
	}
	var managers []string
	for _, m := range o.GetManagedFields() {
		if m.Manager != "" && !slices.Contains(managers, m.Manager) {
			managers = append(managers, m.Manager)
		}
	}
	if len(managers) > 0 {
		return "managed by " + strings.Join(managers, ", ")
	}
	return "it has no controller"
}
