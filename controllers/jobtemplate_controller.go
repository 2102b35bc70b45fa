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

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
)

// jobTemplateControllerName is the JobTemplate controller's name and field owner.
const jobTemplateControllerName = "caldera-jobtemplate-controller"

// JobTemplateReconciler writes a JobTemplate's status as Volcano does: jobDependsOnList, the
// jobs made from it (found by their volcano.sh/createdByJobTemplate annotation), plus Ready and
// observedGeneration.
type JobTemplateReconciler struct {
	Client client.Client
	Clock  clock.Clock
}

// +kubebuilder:rbac:groups=flow.volcano.sh,resources=jobtemplates/status,verbs=get;update;patch

// Reconcile lists the jobs made from the template and writes its status.
func (r *JobTemplateReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	tmpl := &flowv1alpha1.JobTemplate{}
	if err := r.Client.Get(ctx, req.NamespacedName, tmpl); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	jobs := &batchv1alpha1.JobList{}
	if err := r.Client.List(ctx, jobs, client.InNamespace(tmpl.Namespace)); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing jobs: %w", err)
	}
	read := tmpl.DeepCopy()
	tmpl.Status.JobDependsOnList = templateJobs(tmpl, jobs.Items)
	tmpl.Status.ObservedGeneration = tmpl.Generation
	apimeta.SetStatusCondition(&tmpl.Status.Conditions, metav1.Condition{
		Type: flowv1alpha1.ReadyCondition, Status: metav1.ConditionTrue, Reason: flowv1alpha1.TemplateReadyReason,
		Message:            fmt.Sprintf("jobs made from this template: %d", len(tmpl.Status.JobDependsOnList)),
		ObservedGeneration: tmpl.Generation, LastTransitionTime: metav1.NewTime(r.Clock.Now()),
	})
	return ctrl.Result{}, client.IgnoreNotFound(writeStatus(ctx, r.Client, read, tmpl, jobTemplateControllerName))
}

// templateJobs are the names of the jobs made from tmpl, sorted.
func templateJobs(tmpl *flowv1alpha1.JobTemplate, jobs []batchv1alpha1.Job) []string {
	want := tmpl.Namespace + "." + tmpl.Name
	var names []string
	for _, j := range jobs {
		if j.Annotations[flowv1alpha1.CreatedByJobTemplate] == want {
			names = append(names, j.Name)
		}
	}
	slices.Sort(names)
	return names
}

// SetupWithManager registers the reconciler; a job's create or delete requeues its template.
func (r *JobTemplateReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("jobtemplate").
		For(&flowv1alpha1.JobTemplate{}).
		Watches(&batchv1alpha1.Job{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			ns, name, ok := strings.Cut(o.GetAnnotations()[flowv1alpha1.CreatedByJobTemplate], ".")
			if !ok || ns != o.GetNamespace() {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
		})).
		Complete(r)
}
