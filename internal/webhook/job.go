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

// Package webhook is Caldera's optional validating admission webhook. It rejects at apply time
// what the CRD rules cannot state: lifecycle-policy CEL expressions that do not compile, a
// dependsOn cycle, a queue that does not exist, is not open or is not a leaf, and pod templates
// the Kubernetes validation rejects. The job controller checks the same rules, so the webhook's
// failurePolicy is Ignore by default: the cluster does not stop when the webhook is down, and
// Flux or Argo CD still show the error on sync when it is up.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/naming"
	"github.com/caldera-sh/caldera/internal/job/validation"
)

// JobValidator validates batch.volcano.sh Jobs on create and update.
type JobValidator struct {
	// Reader reads Queues.
	Reader client.Reader
	// Client sends the dry-run pod creates that validate pod templates.
	Client client.Client
	// Policies checks the job's lifecycle-policy CEL expressions (spec and annotation); nil skips it.
	Policies func(job *batchv1alpha1.Job) field.ErrorList
	// DefaultSchedulerName is the schedulerName of pods whose job and template name none.
	DefaultSchedulerName string
}

var _ admission.Validator[*batchv1alpha1.Job] = &JobValidator{}

// +kubebuilder:webhook:path=/validate-batch-volcano-sh-v1alpha1-job,mutating=false,failurePolicy=ignore,sideEffects=None,groups=batch.volcano.sh,resources=jobs,verbs=create;update,versions=v1alpha1,name=validate.jobs.batch.volcano.sh,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=queues,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods,verbs=create

// ValidateCreate checks a new job.
func (v *JobValidator) ValidateCreate(ctx context.Context, job *batchv1alpha1.Job) (admission.Warnings, error) {
	return nil, v.validate(ctx, nil, job)
}

// ValidateUpdate checks a changed job. The queue is checked only when it changed, so a running
// job can still be edited after its queue was closed.
func (v *JobValidator) ValidateUpdate(ctx context.Context, old, job *batchv1alpha1.Job) (admission.Warnings, error) {
	return nil, v.validate(ctx, old, job)
}

// ValidateDelete allows every delete.
func (v *JobValidator) ValidateDelete(context.Context, *batchv1alpha1.Job) (admission.Warnings, error) {
	return nil, nil
}

func (v *JobValidator) validate(ctx context.Context, old, job *batchv1alpha1.Job) error {
	var errs field.ErrorList
	if err := validation.DependsOnCycle(&job.Spec); err != nil {
		errs = append(errs, err)
	} else if err := validation.DependsOnDeadlock(&job.Spec); err != nil {
		errs = append(errs, err)
	}
	if v.Policies != nil {
		errs = append(errs, v.Policies(job)...)
	}
	if old == nil || old.Spec.Queue != job.Spec.Queue {
		qerr, err := v.checkQueue(ctx, job)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		if qerr != nil {
			errs = append(errs, qerr)
		}
	}
	for i := range job.Spec.Tasks {
		if old != nil && i < len(old.Spec.Tasks) && naming.TaskName(old.Spec.Tasks, i) == naming.TaskName(job.Spec.Tasks, i) &&
			equalTemplates(&old.Spec.Tasks[i].Template, &job.Spec.Tasks[i].Template) {
			continue
		}
		errs = append(errs, v.checkTemplate(ctx, job, i)...)
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(batchv1alpha1.GroupVersion.WithKind("Job").GroupKind(), job.Name, errs)
}

func (v *JobValidator) checkQueue(ctx context.Context, job *batchv1alpha1.Job) (*field.Error, error) {
	name := job.Spec.Queue
	if name == "" {
		name = schedulingv1beta1.DefaultQueue
	}
	queues := &schedulingv1beta1.QueueList{}
	if err := v.Reader.List(ctx, queues); err != nil {
		return nil, fmt.Errorf("listing queues: %w", err)
	}
	var queue *schedulingv1beta1.Queue
	for i := range queues.Items {
		if queues.Items[i].Name == name {
			queue = &queues.Items[i]
		}
	}
	return validation.QueueAdmission(&job.Spec, queue, queues.Items), nil
}

// checkTemplate validates task i's pod template with the API server's own pod validation, by a
// dry-run create of the task's first pod. Only validation errors are reported: a quota or a
// policy that forbids the pod now may allow it later.
func (v *JobValidator) checkTemplate(ctx context.Context, job *batchv1alpha1.Job, i int) field.ErrorList {
	task, taskName := &job.Spec.Tasks[i], naming.TaskName(job.Spec.Tasks, i)
	jobName := job.Name
	if jobName == "" {
		jobName = job.GenerateName + "x"
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        naming.PodName(jobName, taskName, 0),
			Namespace:   job.Namespace,
			Labels:      task.Template.Labels,
			Annotations: task.Template.Annotations,
		},
		Spec: *task.Template.Spec.DeepCopy(),
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = job.Spec.SchedulerName
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = v.DefaultSchedulerName
	}
	err := v.Client.Create(ctx, pod, client.DryRunAll)
	if err == nil {
		return nil
	}
	base := field.NewPath("spec", "tasks").Index(i).Child("template")
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		ctrl.LoggerFrom(ctx).V(2).Info("Dry-run of a task's pod failed for a reason other than validation", "task", taskName, "error", err.Error())
		return nil
	}
	var errs field.ErrorList
	for _, cause := range status.Status().Details.Causes {
		t := field.ErrorType(cause.Type)
		errs = append(errs, &field.Error{
			Type:     t,
			Field:    base.String() + "." + cause.Field,
			BadValue: field.OmitValueType{},
			Detail:   strings.TrimPrefix(cause.Message, t.String()+": "),
		})
	}
	if len(errs) == 0 {
		errs = append(errs, field.Invalid(base, field.OmitValueType{}, status.Status().Message))
	}
	return errs
}

func equalTemplates(a, b *corev1.PodTemplateSpec) bool {
	return equality.Semantic.DeepEqual(a, b)
}
