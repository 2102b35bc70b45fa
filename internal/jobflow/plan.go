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

package jobflow

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
)

// WhenFunc evaluates a flow's dependsOn.when over the flow's jobs, keyed by flow name. Its error
// is bad input (the expression does not compile or fails to evaluate).
type WhenFunc func(expr string, jobs map[string]*batchv1alpha1.Job) (bool, error)

// PlanInput is what the controller observed of a JobFlow.
type PlanInput struct {
	// Flows is spec.flows.
	Flows []flowv1alpha1.Flow
	// Jobs are the flow's jobs that exist, keyed by flow name.
	Jobs map[string]*batchv1alpha1.Job
	// Completed are flows whose job completed and was deleted since (jobRetainPolicy delete),
	// from status.jobStatusList: they count as Completed and are not created again.
	Completed map[string]bool
	// When evaluates dependsOn.when; nil means no flow has one.
	When WhenFunc
}

// Plan is what to do next with a JobFlow.
type Plan struct {
	// Create are the flows whose job is to be created now, in topological order.
	Create []string
	// Skipped are the flows that will never get a job: a when condition on them or on a flow
	// they depend on was false.
	Skipped []string
	// Failed is true when a job of the flow failed, was terminated or aborted: no job is
	// created any more.
	Failed bool
}

// Decide returns the flows whose job is created now: a flow without targets at once; a flow
// with targets once every target's job is Completed, or holds the probe, and then its when
// condition (if any) is true. A flow whose when is false once its targets completed is skipped,
// and so are the flows that depend on a skipped flow. Once a job has failed nothing more is
// created. The error is a *SpecError (a cycle, an unknown target, a bad when).
func Decide(in PlanInput) (Plan, error) {
	order, err := Order(in.Flows)
	if err != nil {
		return Plan{}, err
	}
	var plan Plan
	for _, job := range in.Jobs {
		if IsFailedPhase(job.Status.State.Phase) {
			plan.Failed = true
		}
	}
	byName := make(map[string]flowv1alpha1.Flow, len(in.Flows))
	for _, f := range in.Flows {
		byName[f.Name] = f
	}
	skipped := map[string]bool{}
	for _, name := range order {
		f := byName[name]
		if in.Jobs[name] != nil || in.Completed[name] {
			continue
		}
		ready, skip, err := in.ready(f, skipped)
		if err != nil {
			return Plan{}, err
		}
		switch {
		case skip:
			skipped[name] = true
			plan.Skipped = append(plan.Skipped, name)
		case ready && !plan.Failed:
			plan.Create = append(plan.Create, name)
		}
	}
	return plan, nil
}

// ready reports whether f's job can be created now, or whether f is skipped for good.
func (in PlanInput) ready(f flowv1alpha1.Flow, skipped map[string]bool) (ready, skip bool, err error) {
	ts := targets(f)
	if len(ts) == 0 {
		return true, false, nil
	}
	for _, t := range ts {
		if skipped[t] {
			return false, true, nil
		}
	}
	for _, t := range ts {
		if !in.targetDone(t, f.DependsOn.Probe) {
			return false, false, nil
		}
	}
	if f.DependsOn.When == "" {
		return true, false, nil
	}
	if in.When == nil {
		return false, false, fmt.Errorf("flow %s has a when condition and no CEL engine evaluates it", f.Name)
	}
	ok, err := in.When(f.DependsOn.When, in.Jobs)
	if err != nil {
		return false, false, &SpecError{Reason: flowv1alpha1.InvalidWhenReason,
			Message: fmt.Sprintf("flow %s: dependsOn.when %q: %v", f.Name, f.DependsOn.When, err)}
	}
	if ok {
		return true, false, nil
	}
	// False: skipped once every target has completed (a probe may hold before that, and the
	// condition may become true later).
	for _, t := range ts {
		if !in.Completed[t] && (in.Jobs[t] == nil || in.Jobs[t].Status.State.Phase != batchv1alpha1.Completed) {
			return false, false, nil
		}
	}
	return false, true, nil
}

// targetDone reports whether the job of target t is Completed or holds the probe.
func (in PlanInput) targetDone(t string, probe *flowv1alpha1.Probe) bool {
	if in.Completed[t] {
		return true
	}
	job := in.Jobs[t]
	if job == nil {
		return false
	}
	if job.Status.State.Phase == batchv1alpha1.Completed {
		return true
	}
	return probe != nil && ProbeHolds(probe, job)
}

// ProbeHolds reports whether every check of the probe holds on job: for taskStatusList, the
// named task has a pod in the named phase. A probe with no check never holds. httpGetList and
// tcpSocketList are refused by the CRD; should one be stored all the same, it never holds.
func ProbeHolds(probe *flowv1alpha1.Probe, job *batchv1alpha1.Job) bool {
	if len(probe.TaskStatusList) == 0 || len(probe.HttpGetList) > 0 || len(probe.TcpSocketList) > 0 {
		return false
	}
	for _, check := range probe.TaskStatusList {
		if job.Status.TaskStatusCount[check.TaskName].Phase[corev1.PodPhase(check.Phase)] <= 0 {
			return false
		}
	}
	return true
}

// IsFailedPhase reports whether a job in phase p has ended without success.
func IsFailedPhase(p batchv1alpha1.JobPhase) bool {
	return p == batchv1alpha1.Failed || p == batchv1alpha1.Terminated || p == batchv1alpha1.Aborted
}
