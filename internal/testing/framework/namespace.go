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

package framework

import (
	"context"
	"errors"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// SpecNamespace creates a namespace named <prefix>-<random> for the running Ginkgo spec and
// returns its name; call it from a BeforeEach or the spec itself. When the spec ends, DeferCleanup
// deletes the namespace's Jobs, PodGroups, Commands and pods (pods with a zero grace period, so
// they stop taking room on the KWOK nodes at once) and then the namespace, which
// kube-controller-manager then empties of the rest (or nothing does, when the framework runs
// without it).
func (f *Framework) SpecNamespace(prefix string) string {
	ginkgo.GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	ns, err := f.CreateNamespace(ctx, prefix)
	if err != nil {
		ginkgo.Fail(err.Error())
	}
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		if err := f.DeleteNamespace(ctx, ns.Name); err != nil {
			ginkgo.Fail(err.Error())
		}
	}, ginkgo.NodeTimeout(Timeout))
	return ns.Name
}

// DeleteNamespace deletes the Jobs, PodGroups, Commands and pods in the namespace name (pods
// with a zero grace period), then the namespace itself. Missing objects are not an error.
func (f *Framework) DeleteNamespace(ctx context.Context, name string) error {
	var errs []error
	for _, obj := range []client.Object{
		&batchv1alpha1.Job{},
		&schedulingv1beta1.PodGroup{},
		&busv1alpha1.Command{},
	} {
		err := f.Client.DeleteAllOf(ctx, obj, client.InNamespace(name))
		if err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			errs = append(errs, fmt.Errorf("deleting %T in namespace %s: %w", obj, name, err))
		}
	}
	if err := f.Client.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(name), client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("deleting pods in namespace %s: %w", name, err))
	}
	ns := &corev1.Namespace{}
	ns.Name = name
	if err := f.Client.Delete(ctx, ns); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("deleting namespace %s: %w", name, err))
	}
	return errors.Join(errs...)
}
