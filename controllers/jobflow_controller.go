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
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	"github.com/caldera-sh/caldera/internal/jobflow"
)

// jobFlowControllerName is the JobFlow controller's name and field owner.
const jobFlowControllerName = "caldera-jobflow-controller"

// JobFlowReconciler runs flow.volcano.sh JobFlows: it gathers a flow's jobs and templates, asks
// internal/jobflow which jobs to create next and what the status is, creates those jobs (owned
// by the flow, with deterministic names, so a repeated create is harmless), deletes them at the
// end under jobRetainPolicy delete, and writes the status once, at the end.
type JobFlowReconciler struct {
	Client   client.Client
	Recorder record.EventRecorder
	Clock    clock.Clock
	// When evaluates dependsOn.when conditions.
	When *jobflow.WhenEngine
}

// +kubebuilder:rbac:groups=flow.volcano.sh,resources=jobflows,verbs=get;list;watch
// +kubebuilder:rbac:groups=flow.volcano.sh,resources=jobflows/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=flow.volcano.sh,resources=jobtemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch.volcano.sh,resources=jobs,verbs=get;list;watch;create;delete

// flowRun is what one reconcile of a JobFlow observed and decided.
type flowRun struct {
	jf      *flowv1alpha1.JobFlow
	jobs    map[string]*batchv1alpha1.Job
	plan    jobflow.Plan
	stalled *jobflow.SpecError
	created []string
}

// stall records bad input: the first error's reason, and every error's message.
func (run *flowRun) stall(se *jobflow.SpecError) {
	if run.stalled == nil {
		run.stalled = &jobflow.SpecError{Reason: se.Reason, Message: se.Message}
		return
	}
	run.stalled.Message += "; " + se.Message
}

// Reconcile is a short dispatcher: read the flow, defer the status write, and run the phases.
func (r *JobFlowReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	jf := &flowv1alpha1.JobFlow{}
	if err := r.Client.Get(ctx, req.NamespacedName, jf); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	run := &flowRun{jf: jf}
	read := jf.DeepCopy()
	defer func() { retErr = r.finalize(ctx, run, read, retErr) }()
	if err := r.gather(ctx, run); err != nil {
		return ctrl.Result{}, err
	}
	if !jf.DeletionTimestamp.IsZero() {
		// Terminating: the jobs are owned by the flow and go with it; nothing more is made.
		return ctrl.Result{}, nil
	}
	if err := r.createJobs(ctx, run); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.retain(ctx, run)
}

// gather reads the flow's jobs and decides which to create.
func (r *JobFlowReconciler) gather(ctx context.Context, run *flowRun) error {
	jobs := &batchv1alpha1.JobList{}
	if err := r.Client.List(ctx, jobs, client.InNamespace(run.jf.Namespace)); err != nil {
		return fmt.Errorf("listing the flow's jobs: %w", err)
	}
	run.jobs = map[string]*batchv1alpha1.Job{}
	for _, f := range run.jf.Spec.Flows {
		name := jobflow.JobName(run.jf.Name, f.Name)
		for i := range jobs.Items {
			if j := &jobs.Items[i]; j.Name == name && metav1.IsControlledBy(j, run.jf) {
				run.jobs[f.Name] = j
			}
		}
	}
	plan, err := jobflow.Decide(jobflow.PlanInput{
		Flows:     run.jf.Spec.Flows,
		Jobs:      run.jobs,
		Completed: jobflow.DeletedCompleted(run.jf, run.jobs),
		When:      r.When.Func(ctx),
	})
	if se := (*jobflow.SpecError)(nil); errors.As(err, &se) {
		run.stalled = se
		return nil
	}
	run.plan = plan
	return err
}

// createJobs creates the jobs of the flows the plan names, from their templates. A flow that
// cannot get its job (no template, a bad patch, a job the API server refuses) marks the JobFlow
// Stalled, naming it; the other flows still get theirs.
func (r *JobFlowReconciler) createJobs(ctx context.Context, run *flowRun) error {
	for _, name := range run.plan.Create {
		f := run.jf.Spec.Flows[slices.IndexFunc(run.jf.Spec.Flows, func(f flowv1alpha1.Flow) bool { return f.Name == name })]
		tmpl := &flowv1alpha1.JobTemplate{}
		if err := r.Client.Get(ctx, types.NamespacedName{Namespace: run.jf.Namespace, Name: f.Name}, tmpl); err != nil {
			if apierrors.IsNotFound(err) {
				run.stall(&jobflow.SpecError{Reason: flowv1alpha1.TemplateNotFoundReason,
					Message: fmt.Sprintf("flow %s: JobTemplate %s not found in namespace %s: apply it, or remove the flow", f.Name, f.Name, run.jf.Namespace)})
				continue
			}
			return fmt.Errorf("reading JobTemplate %s: %w", f.Name, err)
		}
		job, err := jobflow.NewJob(run.jf, f, tmpl)
		if se := (*jobflow.SpecError)(nil); errors.As(err, &se) {
			run.stall(se)
			continue
		}
		if err != nil {
			return err
		}
		if err := controllerutil.SetControllerReference(run.jf, job, r.Client.Scheme()); err != nil {
			return err
		}
		err = r.Client.Create(ctx, job, client.FieldOwner(jobFlowControllerName))
		switch {
		case apierrors.IsAlreadyExists(err):
			// Created before (the cache had not seen it): done.
		case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
			run.stall(&jobflow.SpecError{Reason: flowv1alpha1.JobRefusedReason,
				Message: fmt.Sprintf("flow %s: the job made from JobTemplate %s and the flow's patch is refused: %v", f.Name, f.Name, err)})
		case err != nil:
			return fmt.Errorf("creating job %s: %w", job.Name, err)
		default:
			run.jobs[f.Name] = job
			run.created = append(run.created, job.Name)
		}
	}
	return nil
}

// retain deletes the flow's jobs once it has succeeded, under jobRetainPolicy delete.
func (r *JobFlowReconciler) retain(ctx context.Context, run *flowRun) error {
	if run.jf.Spec.JobRetainPolicy != flowv1alpha1.Delete || run.stalled != nil {
		return nil
	}
	completed := jobflow.DeletedCompleted(run.jf, run.jobs)
	if jobflow.FlowPhase(run.jf, run.jobs, completed, run.plan.Skipped) != flowv1alpha1.Succeed {
		return nil
	}
	// A job goes only once the stored status records it Completed: that record is all that
	// says a deleted job ran. A job seen Completed for the first time waits for this reconcile's
	// status write, whose event brings the flow back.
	for _, job := range run.jobs {
		if !jobflow.RecordedCompleted(run.jf, job.Name) {
			return nil
		}
	}
	for _, job := range run.jobs {
		if !job.DeletionTimestamp.IsZero() {
			continue
		}
		err := r.Client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting job %s of the succeeded flow: %w", job.Name, err)
		}
	}
	return nil
}

// finalize computes the flow's status and conditions and writes them once.
func (r *JobFlowReconciler) finalize(ctx context.Context, run *flowRun, read *flowv1alpha1.JobFlow, retErr error) error {
	jf := run.jf
	if run.jobs != nil {
		jf.Status = jobflow.Status(jobflow.StatusInput{JobFlow: jf, Jobs: run.jobs, Skipped: run.plan.Skipped, Now: r.Clock.Now()})
	}
	jobflow.SetConditions(jf, run.stalled, retErr, r.Clock)
	if retErr == nil {
		jf.Status.ObservedGeneration = jf.Generation
	}
	if err := writeStatusFrom(ctx, r.Client, read, jf, jobFlowControllerName); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			// Gone, or read stale from the cache: the newer object's event reconciles it again.
			return retErr
		}
		return errors.Join(retErr, fmt.Errorf("writing the JobFlow's status: %w", err))
	}
	for _, name := range run.created {
		r.Recorder.Eventf(jf, corev1.EventTypeNormal, "Created", "Created job %s", name)
	}
	if run.stalled != nil && retErr == nil {
		r.Recorder.Event(jf, corev1.EventTypeWarning, run.stalled.Reason, run.stalled.Message)
		switch run.stalled.Reason {
		case flowv1alpha1.InvalidWhenReason, flowv1alpha1.DependencyCycleReason, flowv1alpha1.UnknownTargetReason, flowv1alpha1.InvalidPatchReason:
			// Bad input in the spec: nothing to retry until the flow changes. A missing
			// template or a refused job is retried (the template or the queue may come).
			return reconcile.TerminalError(run.stalled)
		}
	}
	return retErr
}

// SetupWithManager registers the reconciler and its watches: the flow's jobs, and the
// JobTemplates its flows name (a template applied after the flow unblocks it).
func (r *JobFlowReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorderFor(jobFlowControllerName) //nolint:staticcheck // as the job controller
	}
	if r.When == nil {
		e, err := jobflow.NewWhenEngine()
		if err != nil {
			return err
		}
		r.When = e
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("jobflow").
		For(&flowv1alpha1.JobFlow{}).
		Owns(&batchv1alpha1.Job{}).
		Watches(&flowv1alpha1.JobTemplate{}, handler.EnqueueRequestsFromMapFunc(r.flowsOfTemplate)).
		Complete(r)
}

// flowsOfTemplate maps a JobTemplate to the JobFlows of its namespace that name it.
func (r *JobFlowReconciler) flowsOfTemplate(ctx context.Context, o client.Object) []reconcile.Request {
	flows := &flowv1alpha1.JobFlowList{}
	if err := r.Client.List(ctx, flows, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing JobFlows for a JobTemplate")
		return nil
	}
	var reqs []reconcile.Request
	for _, jf := range flows.Items {
		if slices.ContainsFunc(jf.Spec.Flows, func(f flowv1alpha1.Flow) bool { return f.Name == o.GetName() }) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&jf)})
		}
	}
	return reqs
}
