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

package lifecycle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Reasons a Decision gives, besides the name of the event that matched (PodFailed,
// PodEvicted, ...). They become status.state.reason when the decision changes the phase.
const (
	// ReasonCommandIssued: a Command asked for the action.
	ReasonCommandIssued = "CommandIssued"
	// ReasonPolicyCondition: a policy's when condition held (a policy with no event and no exit
	// code).
	ReasonPolicyCondition = "PolicyCondition"
	// ReasonSpecChanged: a pod template, the volumes or the plugins changed.
	ReasonSpecChanged = "SpecChanged"
	// ReasonJobResumed: spec.suspend was cleared on a job it held.
	ReasonJobResumed = "JobResumed"
)

// AnnotationPoliciesPath is how Decision.Policy names the policies of the caldera.sh/policies
// annotation.
const AnnotationPoliciesPath = "metadata.annotations[" + batchv1alpha1.PoliciesAnnotation + "]"

// userActions are the actions a policy may take.
var userActions = []busv1alpha1.Action{
	busv1alpha1.AbortJobAction, busv1alpha1.RestartJobAction, busv1alpha1.RestartTaskAction,
	busv1alpha1.RestartPodAction, busv1alpha1.RestartPartitionAction, busv1alpha1.TerminateJobAction,
	busv1alpha1.CompleteJobAction, busv1alpha1.ResumeJobAction,
}

// Target is what an action applies to: the task of RestartTask, the pod of RestartPod, the task
// and partition of RestartPartition. The fields an action does not use are empty.
type Target struct {
	// Task is the name of the task.
	Task string
	// Pod is the name of the pod.
	Pod string
	// Partition is the partition of the task (the pods' volcano.sh/partition-id).
	Partition string
}

// Scope is how much of the job an action touches.
type Scope string

const (
	// JobScope actions touch the whole job (AbortJob, RestartJob, TerminateJob, CompleteJob,
	// ResumeJob, and any action not listed below).
	JobScope Scope = "Job"
	// TaskScope actions touch one task (RestartTask).
	TaskScope Scope = "Task"
	// PodScope actions touch one pod (RestartPod).
	PodScope Scope = "Pod"
	// PartitionScope actions touch one partition of a task (RestartPartition).
	PartitionScope Scope = "Partition"
)

// ScopeOf is the scope of an action.
func ScopeOf(a busv1alpha1.Action) Scope {
	switch a {
	case busv1alpha1.RestartTaskAction:
		return TaskScope
	case busv1alpha1.RestartPodAction:
		return PodScope
	case busv1alpha1.RestartPartitionAction:
		return PartitionScope
	}
	return JobScope
}

// isInternalAction reports whether the controller takes a for itself (SyncJob and the queue
// actions): it cancels no delayed action.
func isInternalAction(a busv1alpha1.Action) bool {
	switch a {
	case busv1alpha1.SyncJobAction, busv1alpha1.EnqueueJobAction, busv1alpha1.SyncQueueAction,
		busv1alpha1.OpenQueueAction, busv1alpha1.CloseQueueAction:
		return true
	}
	return false
}

// Decision is what to do about a request: the action, what it applies to, and why.
type Decision struct {
	// Action is the action to take; SyncJob when nothing matched.
	Action busv1alpha1.Action
	// Target is what a task-, pod- or partition-scoped action applies to.
	Target Target
	// Event is the event of the request decided on.
	Event busv1alpha1.Event
	// Policy names the policy that matched, as a field path (spec.tasks[1].policies[0],
	// spec.policies[2], or AnnotationPoliciesPath[0]); empty when none did.
	Policy string
	// Delay is the policy's timeout: take the action only if the situation still holds after
	// this long (see DelayedAction). Zero means at once.
	Delay time.Duration
	// KeepRetryCount is true when a restart this decision causes does not count as a retry:
	// the request was an eviction (PodEvicted, or a pod stopped by a disruption), or the
	// decision comes from the spec (suspend, resume, template change).
	KeepRetryCount bool
	// Reason is a CamelCase reason, used as status.state.reason when the phase changes.
	Reason string
	// Message says, for a person, why the action is taken.
	Message string
	// Stale is true when the request belonged to another job of the same name or to an earlier
	// run (its pod's job version is below status.version): no policy matched it by event or exit
	// code, so the decision is SyncJob unless a policy with only a when condition fired.
	Stale bool
}

// WhenFunc evaluates the when expression of a policy for the request being decided on (the
// caller binds the request into it) and reports whether it holds. An error is returned to the
// caller of ResolvePolicy: the policy neither matches nor is skipped.
type WhenFunc func(p batchv1alpha1.LifecyclePolicy) (bool, error)

// ResolvePolicy decides what to do about req for job; extra are the policies of the
// caldera.sh/policies annotation, already parsed. The order, first match wins:
//
//  1. An explicit action (from a Command) is taken as it is.
//  2. A stale request (req.JobUID is not the job's UID, or req.JobVersion is below
//     status.version) is treated as internal, and marked Stale.
//  3. The policies are consulted in order: the policies of the request's task (only when the
//     request names a task), then spec.policies, then extra. A policy matches:
//     - by event, when it names events, the request's event is not internal, and it names that
//     event or *; a PodPending match also needs a timeout, else the policy is skipped;
//     - by exit code, when it names one and the request carries the same exit code;
//     - by condition alone, when it names neither events nor an exit code but has when: such a
//     policy is consulted for every request, internal events included.
//     A policy with when matches only if when also holds (when is evaluated only after the
//     event or exit code matched, so it is never evaluated needlessly).
//  4. Nothing matched: SyncJob.
//
// A matching policy's timeout becomes Decision.Delay. A decision about a PodEvicted request, or
// about a pod stopped by a disruption, has KeepRetryCount set. when must not be nil if a policy
// consulted has a when expression. An error names the policy: its when failed, or its action
// is not one a policy may take.
func ResolvePolicy(job *batchv1alpha1.Job, req Request, extra []batchv1alpha1.LifecyclePolicy, when WhenFunc) (Decision, error) {
	d := Decision{Event: req.Event, Action: busv1alpha1.SyncJobAction}
	if req.Action != "" {
		d.Action, d.Target, d.Reason = req.Action, targetOf(req.Action, req), ReasonCommandIssued
		d.Message = fmt.Sprintf("a Command asked for %s", req.Action)
		return d, nil
	}
	d.Stale = isStale(job, req)
	internal := d.Stale || IsInternal(req.Event)
	for _, set := range policySets(job, req, extra) {
		for i, p := range set.policies {
			path := fmt.Sprintf("%s[%d]", set.path, i)
			fired, err := fires(p, req, internal, when)
			if err != nil {
				return Decision{}, fmt.Errorf("%s.when: %w", path, err)
			}
			if fired {
				out, err := decide(p, path, req)
				out.Stale = d.Stale
				return out, err
			}
		}
	}
	return d, nil
}

// policySet is a list of policies and the field path that names it.
type policySet struct {
	path     string
	policies []batchv1alpha1.LifecyclePolicy
}

// policySets are the policies consulted for req, in order.
func policySets(job *batchv1alpha1.Job, req Request, extra []batchv1alpha1.LifecyclePolicy) []policySet {
	var sets []policySet
	if req.TaskName != "" {
		if i := naming.TaskIndex(job.Spec.Tasks, req.TaskName); i >= 0 {
			sets = append(sets, policySet{fmt.Sprintf("spec.tasks[%d].policies", i), job.Spec.Tasks[i].Policies})
		}
	}
	return append(sets,
		policySet{"spec.policies", job.Spec.Policies},
		policySet{AnnotationPoliciesPath, extra})
}

// isStale reports whether req belongs to another job of the same name or to an earlier run.
func isStale(job *batchv1alpha1.Job, req Request) bool {
	if req.JobUID != "" && req.JobUID != job.UID {
		return true
	}
	return req.JobVersion != nil && *req.JobVersion < job.Status.Version
}

// policyEvents are the events a policy names, event and events together.
func policyEvents(p batchv1alpha1.LifecyclePolicy) []busv1alpha1.Event {
	events := slices.Clone(p.Events)
	if p.Event != "" {
		events = append(events, p.Event)
	}
	return events
}

// fires reports whether policy p matches req (see ResolvePolicy).
func fires(p batchv1alpha1.LifecyclePolicy, req Request, internal bool, when WhenFunc) (bool, error) {
	events := policyEvents(p)
	switch {
	case len(events) > 0:
		if internal || req.Event == "" {
			return false, nil
		}
		if !slices.Contains(events, req.Event) && !slices.Contains(events, busv1alpha1.AnyEvent) {
			return false, nil
		}
		if req.Event == busv1alpha1.PodPendingEvent && p.Timeout == nil {
			return false, nil
		}
	case p.ExitCode != nil:
		if internal || req.ExitCode == nil || *req.ExitCode != *p.ExitCode {
			return false, nil
		}
	case p.When == "":
		return false, nil
	}
	if p.When == "" {
		return true, nil
	}
	if when == nil {
		return false, fmt.Errorf("the policy has a when condition but no evaluator was given")
	}
	return when(p)
}

// decide is the decision of policy p, found at path, for req.
func decide(p batchv1alpha1.LifecyclePolicy, path string, req Request) (Decision, error) {
	if !slices.Contains(userActions, p.Action) {
		return Decision{}, fmt.Errorf("%s.action: unsupported action %q: use one of %s", path, p.Action, joinActions())
	}
	d := Decision{
		Action:         p.Action,
		Target:         targetOf(p.Action, req),
		Event:          req.Event,
		Policy:         path,
		KeepRetryCount: req.Event == busv1alpha1.PodEvictedEvent || req.Disrupted,
		Reason:         string(req.Event),
	}
	if p.Timeout != nil {
		d.Delay = p.Timeout.Duration
	}
	switch {
	case len(policyEvents(p)) > 0:
		d.Message = fmt.Sprintf("%s matched %s (%s)", describe(req), path, p.Action)
	case p.ExitCode != nil:
		d.Message = fmt.Sprintf("%s matched exit code %d of %s (%s)", describe(req), *p.ExitCode, path, p.Action)
	default:
		d.Reason = ReasonPolicyCondition
		d.Message = fmt.Sprintf("the when condition of %s holds (%s)", path, p.Action)
	}
	return d, nil
}

// targetOf is what action applies to for req.
func targetOf(action busv1alpha1.Action, req Request) Target {
	switch ScopeOf(action) {
	case TaskScope:
		return Target{Task: req.TaskName}
	case PodScope:
		return Target{Task: req.TaskName, Pod: req.PodName}
	case PartitionScope:
		return Target{Task: req.TaskName, Partition: req.Partition}
	}
	return Target{}
}

// describe says in words what req is about.
func describe(req Request) string {
	switch {
	case req.PodName != "" && req.ExitCode != nil:
		return fmt.Sprintf("event %s of pod %s (exit code %d)", req.Event, req.PodName, *req.ExitCode)
	case req.PodName != "":
		return fmt.Sprintf("event %s of pod %s", req.Event, req.PodName)
	case req.TaskName != "":
		return fmt.Sprintf("event %s of task %s", req.Event, req.TaskName)
	}
	return fmt.Sprintf("event %s", req.Event)
}

// joinActions lists the actions a policy may take.
func joinActions() string {
	names := make([]string, len(userActions))
	for i, a := range userActions {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
