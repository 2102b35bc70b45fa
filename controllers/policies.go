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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
	celpolicy "github.com/caldera-sh/caldera/internal/job/policy"
)

// CELPolicies evaluates lifecycle-policy conditions with the CEL engine of internal/job/policy.
type CELPolicies struct {
	Engine *celpolicy.Engine
	Clock  clock.PassiveClock
}

var _ Policies = &CELPolicies{}

// NewCELPolicies returns the policies of the default CEL engine.
func NewCELPolicies(clk clock.PassiveClock) (*CELPolicies, error) {
	engine, err := celpolicy.NewEngine()
	if err != nil {
		return nil, err
	}
	return &CELPolicies{Engine: engine, Clock: clk}, nil
}

// Check compiles the job's when expressions and decodes its caldera.sh/policies annotation.
func (p *CELPolicies) Check(job *batchv1alpha1.Job) ([]batchv1alpha1.LifecyclePolicy, field.ErrorList) {
	return p.Engine.Check(job)
}

// When binds one request into the evaluator: the job, its tasks' counts, the task and pod of the
// request, the event, and how long the job has been running (since it last entered Running;
// zero in any other phase).
func (p *CELPolicies) When(job *batchv1alpha1.Job, pods []*corev1.Pod, req lifecycle.Request) lifecycle.WhenFunc {
	var start time.Time
	if job.Status.State.Phase == batchv1alpha1.Running {
		start = job.Status.State.LastTransitionTime.Time
	}
	in := celpolicy.NewJobInputFromPodPointers(job, pods, celpolicy.Elapsed(start, p.Clock))
	return p.Engine.Condition(context.Background(), in.ForEvent(req.Event, req.TaskName, in.Pod(req.PodName)))
}
