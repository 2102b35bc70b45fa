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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/topology"
)

// HyperNodeValidatePath is where the API server sends HyperNode admission reviews.
const HyperNodeValidatePath = "/validate-topology-volcano-sh-v1alpha1-hypernode"

// HyperNodeValidator refuses at apply time the member selectors the CRD rules cannot check: a
// pattern that is not a regular expression, a label selector that is not one or is empty. The
// HyperNode controller reports the same on the Ready condition when the webhook is not installed.
type HyperNodeValidator struct{}

var _ admission.Validator[*topologyv1alpha1.HyperNode] = &HyperNodeValidator{}

// +kubebuilder:webhook:path=/validate-topology-volcano-sh-v1alpha1-hypernode,mutating=false,failurePolicy=ignore,sideEffects=None,groups=topology.volcano.sh,resources=hypernodes,verbs=create;update,versions=v1alpha1,name=validate.hypernodes.topology.volcano.sh,admissionReviewVersions=v1,timeoutSeconds=10

// ValidateCreate checks a new HyperNode.
func (v *HyperNodeValidator) ValidateCreate(_ context.Context, hn *topologyv1alpha1.HyperNode) (admission.Warnings, error) {
	return nil, validateHyperNode(hn)
}

// ValidateUpdate checks a changed HyperNode.
func (v *HyperNodeValidator) ValidateUpdate(_ context.Context, _, hn *topologyv1alpha1.HyperNode) (admission.Warnings, error) {
	return nil, validateHyperNode(hn)
}

// ValidateDelete allows every delete.
func (v *HyperNodeValidator) ValidateDelete(context.Context, *topologyv1alpha1.HyperNode) (admission.Warnings, error) {
	return nil, nil
}

func validateHyperNode(hn *topologyv1alpha1.HyperNode) error {
	if errs := topology.MemberErrors(hn); len(errs) > 0 {
		return apierrors.NewInvalid(topologyv1alpha1.GroupVersion.WithKind("HyperNode").GroupKind(), hn.Name, errs)
	}
	return nil
}
