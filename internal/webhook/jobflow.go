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

package webhook

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	"github.com/caldera-sh/caldera/internal/jobflow"
)

// JobFlowValidatePath is where the API server sends JobFlow admission reviews.
const JobFlowValidatePath = "/validate-flow-volcano-sh-v1alpha1-jobflow"

// JobFlowValidator refuses at apply time what the CRD rules cannot state about a JobFlow: a
// dependency cycle, and a dependsOn.when that does not compile. The controller makes the same
// checks (Stalled) when the webhook is not installed.
type JobFlowValidator struct {
	// When compiles dependsOn.when expressions.
	When *jobflow.WhenEngine
}

var _ admission.Validator[*flowv1alpha1.JobFlow] = &JobFlowValidator{}

// +kubebuilder:webhook:path=/validate-flow-volcano-sh-v1alpha1-jobflow,mutating=false,failurePolicy=ignore,sideEffects=None,groups=flow.volcano.sh,resources=jobflows,verbs=create;update,versions=v1alpha1,name=validate.jobflows.flow.volcano.sh,admissionReviewVersions=v1,timeoutSeconds=10

// ValidateCreate checks a new JobFlow.
func (v *JobFlowValidator) ValidateCreate(_ context.Context, jf *flowv1alpha1.JobFlow) (admission.Warnings, error) {
	return nil, v.validate(jf)
}

// ValidateUpdate checks a changed JobFlow.
func (v *JobFlowValidator) ValidateUpdate(_ context.Context, _, jf *flowv1alpha1.JobFlow) (admission.Warnings, error) {
	return nil, v.validate(jf)
}

// ValidateDelete allows every delete.
func (v *JobFlowValidator) ValidateDelete(context.Context, *flowv1alpha1.JobFlow) (admission.Warnings, error) {
	return nil, nil
}

func (v *JobFlowValidator) validate(jf *flowv1alpha1.JobFlow) error {
	var errs field.ErrorList
	flows := field.NewPath("spec", "flows")
	if _, err := jobflow.Order(jf.Spec.Flows); err != nil {
		var se *jobflow.SpecError
		if !errors.As(err, &se) {
			return apierrors.NewInternalError(err)
		}
		errs = append(errs, field.Invalid(flows, "", se.Message))
	}
	for i, f := range jf.Spec.Flows {
		if f.DependsOn == nil || f.DependsOn.When == "" || v.When == nil {
			continue
		}
		if _, err := v.When.Compile(f.DependsOn.When); err != nil {
			errs = append(errs, field.Invalid(flows.Index(i).Child("dependsOn", "when"), f.DependsOn.When, err.Error()))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(flowv1alpha1.GroupVersion.WithKind("JobFlow").GroupKind(), jf.Name, errs)
}
