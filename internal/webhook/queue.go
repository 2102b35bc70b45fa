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
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/queuetree"
)

// QueueValidatePath is where the API server sends Queue admission reviews.
const QueueValidatePath = "/validate-scheduling-volcano-sh-v1beta1-queue"

// QueueValidator refuses at apply time what the CRD rules cannot state about a queue, because it
// involves other queues (see queuetree): a capability above a queue's ancestors' or below its
// descendants', children's guarantees or deserved shares beyond their parent's; and it refuses
// deleting a queue that has queues below it, as Volcano's webhook does.
type QueueValidator struct {
	Reader client.Reader
}

var _ admission.Validator[*schedulingv1beta1.Queue] = &QueueValidator{}

// +kubebuilder:webhook:path=/validate-scheduling-volcano-sh-v1beta1-queue,mutating=false,failurePolicy=ignore,sideEffects=None,groups=scheduling.volcano.sh,resources=queues,verbs=create;update;delete,versions=v1beta1,name=validate.queues.scheduling.volcano.sh,admissionReviewVersions=v1,timeoutSeconds=10

// ValidateCreate checks a new queue against the queues around it.
func (v *QueueValidator) ValidateCreate(ctx context.Context, q *schedulingv1beta1.Queue) (admission.Warnings, error) {
	return nil, v.validate(ctx, q)
}

// ValidateUpdate checks a changed queue when its place in the tree or its amounts changed.
func (v *QueueValidator) ValidateUpdate(ctx context.Context, old, q *schedulingv1beta1.Queue) (admission.Warnings, error) {
	if old.Spec.Parent == q.Spec.Parent && equality.Semantic.DeepEqual(old.Spec.Capability, q.Spec.Capability) &&
		equality.Semantic.DeepEqual(old.Spec.Deserved, q.Spec.Deserved) && equality.Semantic.DeepEqual(old.Spec.Guarantee, q.Spec.Guarantee) {
		return nil, nil
	}
	return nil, v.validate(ctx, q)
}

// ValidateDelete refuses deleting a queue that has queues below it.
func (v *QueueValidator) ValidateDelete(ctx context.Context, q *schedulingv1beta1.Queue) (admission.Warnings, error) {
	queues := &schedulingv1beta1.QueueList{}
	if err := v.Reader.List(ctx, queues); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("listing queues: %w", err))
	}
	var children []string
	for _, o := range queues.Items {
		if o.Spec.Parent == q.Name {
			children = append(children, o.Name)
		}
	}
	if len(children) == 0 {
		return nil, nil
	}
	sort.Strings(children)
	return nil, apierrors.NewForbidden(schedulingv1beta1.GroupVersion.WithResource("queues").GroupResource(), q.Name,
		fmt.Errorf("queue %s has %d queues below it (%s): delete them first, or give them another spec.parent", q.Name, len(children), strings.Join(children, ", ")))
}

func (v *QueueValidator) validate(ctx context.Context, q *schedulingv1beta1.Queue) error {
	queues := &schedulingv1beta1.QueueList{}
	if err := v.Reader.List(ctx, queues); err != nil {
		return apierrors.NewInternalError(fmt.Errorf("listing queues: %w", err))
	}
	if errs := queuetree.Validate(q, queues.Items); len(errs) > 0 {
		return apierrors.NewInvalid(schedulingv1beta1.GroupVersion.WithKind("Queue").GroupKind(), q.Name, errs)
	}
	return nil
}
