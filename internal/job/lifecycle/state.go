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
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// ErrNoTarget is returned (wrapped) by Execute for a task-, pod- or partition-scoped action
// whose decision names no such target, such as RestartPod decided on a job-level event.
var ErrNoTarget = errors.New("the action has no target")

// Snapshot is what the controller observed of a job, for Execute.
type Snapshot struct {
	// Job is the job, with its status as last written.
	Job *batchv1alpha1.Job
	// Spec is the job's effective spec (EffectiveSpec); nil means EffectiveSpec(&Job.Spec, "").
	Spec *batchv1alpha1.JobSpec
	// Pods are the job's pods: every pod it controls, of any version and phase.
	Pods []*corev1.Pod
	// CanCreatePods is true when pods may be created: the PodGroup is admitted (PodGroupAdmits)
	// or the job's scheduler is not the one the PodGroup is for.
	CanCreatePods bool
}

// Result is what the controller must do to carry out a decision.
type Result struct {
	// Status is the job's new status. Conditions, observedGeneration and controlledResources
	// are left as they were (see SetConditions).
	Status batchv1alpha1.JobStatus
	// Delete are the pods to delete, in order: mark each out of sync (volcano.sh/
	// controller-out-of-sync), then delete it.
	Delete []*corev1.Pod
	// Create are the pods to create (SyncJob only, when Snapshot.CanCreatePods).
	Create []PodSlot
	// DeletePodGroup is true when the whole job was killed: delete its PodGroup if it exists and
	// release the plugins' objects (OnJobDelete). A new PodGroup is made when the job is Pending
	// again.
	DeletePodGroup bool
	// Transitioned is true when status.state.phase changed.
	Transitioned bool
}

// retain says which finished pods a whole-job kill keeps.
type retain int

const (
	// retainNone deletes every pod.
	retainNone retain = iota
	// retainSoft keeps Succeeded and Failed pods.
	retainSoft
)

// kill is what a step deletes.
type kill int

const (
	_ kill = iota // nothing is killed
	// killJob deletes the job's pods but those retain keeps.
	killJob
	// killTarget deletes the pods of the decision's target.
	killTarget
)

// step is one cell of the transition table.
type step struct {
	kill   kill
	retain retain
	// countRetry increments status.retryCount, unless the decision keeps it.
	countRetry bool
	// bump increments status.version: a new run of the job begins.
	bump bool
	// sync deletes surplus and out-of-sync pods and creates missing ones.
	sync bool
	// next is the phase after the step.
	next nextFunc
}

// nextFunc computes the phase after a step, with the reason and message of a change.
type nextFunc func(m *machine) (batchv1alpha1.JobPhase, string, string)

// machine is the state a step works on.
type machine struct {
	job      *batchv1alpha1.Job
	spec     *batchv1alpha1.JobSpec
	decision Decision
	phase    batchv1alpha1.JobPhase
	counts   counts
	// retryCount is status.retryCount after the step.
	retryCount int32
	// version is status.version after the step.
	version int32
}

// Execute carries out decision d on the observed job: it applies the transition table for the
// job's phase and d's action (see the package documentation), and returns the pods to delete
// and create, whether to delete the PodGroup, and the job's new status. Pods being deleted and
// the pods it deletes count as terminating in the new status. It reads the time from clk only to
// stamp a phase change.
//
// A job being deleted is left alone: the result keeps its status and does nothing. An error
// means the snapshot or the decision cannot be carried out (ErrNoTarget, or an invalid spec).
func Execute(s Snapshot, d Decision, clk clock.PassiveClock) (Result, error) {
	if s.Job == nil {
		return Result{}, errors.New("the snapshot has no job")
	}
	if s.Job.DeletionTimestamp != nil {
		return Result{Status: *s.Job.Status.DeepCopy()}, nil
	}
	spec := s.Spec
	if spec == nil {
		var err error
		if spec, err = EffectiveSpec(&s.Job.Spec, ""); err != nil {
			return Result{}, err
		}
	}
	m := newMachine(s.Job, spec, d)
	st := stepFor(m.phase, d.Action, hasLivePods(s.Pods))
	m.take(st)
	victims, err := m.victims(st, s.Pods)
	if err != nil {
		return Result{}, err
	}
	m.counts = countPods(s.Pods, names(victims))
	next, reason, message := st.next(m)
	res := Result{DeletePodGroup: st.kill == killJob}
	if isFinished(next) && next != m.phase && m.counts.alive() {
		victims = append(victims, sweep(s.Pods, victims)...)
		m.counts = countPods(s.Pods, names(victims))
		res.DeletePodGroup = true
	}
	res.Delete = victims
	res.Status = m.status(next, reason, message, clk)
	res.Transitioned = res.Status.State.Phase != s.Job.Status.State.Phase
	if st.sync && s.CanCreatePods && !isFinished(next) {
		res.Create = MissingPods(s.Job.Name, spec, s.Pods)
	}
	return res, nil
}

// newMachine is the machine for job in its current phase (Pending when it has none).
func newMachine(job *batchv1alpha1.Job, spec *batchv1alpha1.JobSpec, d Decision) *machine {
	m := &machine{job: job, spec: spec, decision: d, phase: job.Status.State.Phase,
		retryCount: job.Status.RetryCount, version: job.Status.Version}
	if m.phase == "" {
		m.phase = batchv1alpha1.Pending
	}
	return m
}

// take counts the step's retry (unless the decision keeps the count) and its new version.
func (m *machine) take(st step) {
	if st.countRetry && !m.decision.KeepRetryCount {
		m.retryCount++
	}
	if st.bump {
		m.version++
	}
}

// PodGroupAdmits reports whether a PodGroup in phase lets the job's pods be created: it is
// neither new (no phase) nor Pending.
func PodGroupAdmits(phase schedulingv1beta1.PodGroupPhase) bool {
	return phase != "" && phase != schedulingv1beta1.PodGroupPending
}

// isFinished reports whether phase is final: Completed, Terminated or Failed.
func isFinished(phase batchv1alpha1.JobPhase) bool {
	return phase == batchv1alpha1.Completed || phase == batchv1alpha1.Terminated || phase == batchv1alpha1.Failed
}

// hasLivePods reports whether any pod is not being deleted.
func hasLivePods(pods []*corev1.Pod) bool {
	return slices.ContainsFunc(pods, func(p *corev1.Pod) bool { return !isDeleting(p) })
}

// names is the set of the pods' names.
func names(pods []*corev1.Pod) map[string]bool {
	set := make(map[string]bool, len(pods))
	for _, p := range pods {
		set[p.Name] = true
	}
	return set
}

// status is the job's status after the step, moving to phase next.
func (m *machine) status(next batchv1alpha1.JobPhase, reason, message string, clk clock.PassiveClock) batchv1alpha1.JobStatus {
	status := *m.job.Status.DeepCopy()
	m.counts.writeTo(&status)
	status.MinAvailable = m.spec.MinAvailable
	status.RetryCount, status.Version = m.retryCount, m.version
	if next != status.State.Phase {
		now := metav1.NewTime(clk.Now())
		if reason == "" && next == batchv1alpha1.Pending {
			reason, message = batchv1alpha1.JobPendingReason, fmt.Sprintf("waiting for the gang of %d pods to be scheduled", m.spec.MinAvailable)
		}
		if reason == "" {
			reason = string(m.decision.Action)
		}
		status.State = batchv1alpha1.JobState{Phase: next, Reason: reason, Message: message, LastTransitionTime: now}
		if created := m.job.CreationTimestamp; !created.IsZero() {
			status.RunningDuration = &metav1.Duration{Duration: now.Sub(created.Time)}
		}
	}
	return status
}

// victims are the pods the step deletes, in order.
func (m *machine) victims(st step, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	switch {
	case st.kill == killJob:
		r := st.retain
		if r == retainNone && m.retryCount >= jobMaxRetry(m.spec) {
			// The job fails after this kill: keep its finished pods (and their logs).
			r = retainSoft
		}
		return killPods(pods, r), nil
	case st.kill == killTarget:
		return m.targetPods(pods)
	case st.sync:
		return syncVictims(m.spec, pods), nil
	}
	return nil, nil
}

// killPods are the pods a whole-job kill deletes: those not being deleted, but the finished
// ones when r is retainSoft.
func killPods(pods []*corev1.Pod, r retain) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if isDeleting(p) || (r == retainSoft && !isAlive(p)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// sweep are the pods, not already among victims, that a job that just finished deletes: the
// ones still pending or running.
func sweep(pods, victims []*corev1.Pod) []*corev1.Pod {
	already := names(victims)
	var out []*corev1.Pod
	for _, p := range killPods(pods, retainSoft) {
		if !already[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

// targetPods are the pods of the decision's target that are not being deleted.
func (m *machine) targetPods(pods []*corev1.Pod) ([]*corev1.Pod, error) {
	t, action := m.decision.Target, m.decision.Action
	var match func(p *corev1.Pod) bool
	switch ScopeOf(action) {
	case TaskScope:
		if t.Task == "" {
			return nil, fmt.Errorf("%s needs a task, and %s names none; use RestartJob for job-level events: %w", action, describe(Request{Event: m.decision.Event}), ErrNoTarget)
		}
		match = func(p *corev1.Pod) bool { return taskOf(p) == t.Task }
	case PodScope:
		if t.Pod == "" {
			return nil, fmt.Errorf("%s needs a pod, and %s names none; use it on pod events only: %w", action, describe(Request{Event: m.decision.Event, TaskName: t.Task}), ErrNoTarget)
		}
		match = func(p *corev1.Pod) bool { return p.Name == t.Pod }
	case PartitionScope:
		if t.Task == "" || t.Partition == "" {
			return nil, fmt.Errorf("%s needs a task and a partition, and %s names none; use it on pod events of partitioned tasks: %w", action, describe(Request{Event: m.decision.Event, TaskName: t.Task}), ErrNoTarget)
		}
		match = func(p *corev1.Pod) bool { return taskOf(p) == t.Task && partitionOf(p) == t.Partition }
	default:
		return nil, fmt.Errorf("%s is not a task, pod or partition action: %w", action, ErrNoTarget)
	}
	var out []*corev1.Pod
	for _, p := range pods {
		if !isDeleting(p) && match(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// syncVictims are the pods SyncJob deletes: pods marked out of sync, then per task the surplus
// pods (index >= replicas, or a task no longer in the spec), in ScaleDown order.
func syncVictims(spec *batchv1alpha1.JobSpec, pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	byTask := map[string][]*corev1.Pod{}
	var tasks []string
	for _, p := range pods {
		if isDeleting(p) {
			continue
		}
		if isOutOfSync(p) {
			out = append(out, p)
			continue
		}
		task := taskOf(p)
		if _, ok := byTask[task]; !ok {
			tasks = append(tasks, task)
		}
		byTask[task] = append(byTask[task], p)
	}
	slices.Sort(tasks)
	for _, task := range tasks {
		var replicas int32
		if t := findTask(spec, task); t != nil {
			replicas = t.Replicas
		}
		extra := surplus(byTask[task], replicas)
		out = append(out, ScaleDown(extra, replicas, len(extra))...)
	}
	return out
}

// surplus are the pods whose index is >= replicas or unreadable. ScaleDown orders them as it
// would among all the task's pods, since surplus pods come first.
func surplus(pods []*corev1.Pod, replicas int32) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if _, isSurplus := surplusRank(p, replicas); isSurplus {
			out = append(out, p)
		}
	}
	return out
}

// endStep is the step of an action that ends the job's current run (AbortJob, TerminateJob,
// CompleteJob), taken the same way from Pending, Running and Restarting; ok is false for any
// other action.
func endStep(a busv1alpha1.Action) (step, bool) {
	switch a {
	case busv1alpha1.AbortJobAction:
		return step{kill: killJob, retain: retainSoft, bump: true, next: to(batchv1alpha1.Aborting)}, true
	case busv1alpha1.TerminateJobAction:
		return step{kill: killJob, retain: retainSoft, bump: true, next: to(batchv1alpha1.Terminating)}, true
	case busv1alpha1.CompleteJobAction:
		return step{kill: killJob, retain: retainSoft, bump: true, next: to(batchv1alpha1.Completing)}, true
	}
	return step{}, false
}

// stepFor is the cell of the transition table for phase and action; livePods says whether any
// pod is not being deleted.
func stepFor(phase batchv1alpha1.JobPhase, action busv1alpha1.Action, livePods bool) step {
	targeted := ScopeOf(action) != JobScope
	resume := action == busv1alpha1.ResumeJobAction
	sweepTo := func(final batchv1alpha1.JobPhase) step {
		return step{kill: killJob, retain: retainSoft, next: whenGone(final)}
	}
	resumeStep := step{kill: killJob, retain: retainSoft, bump: true, next: to(batchv1alpha1.Restarting)}
	switch phase {
	case batchv1alpha1.Pending, batchv1alpha1.Running:
		if s, ok := endStep(action); ok {
			return s
		}
		switch {
		case action == busv1alpha1.RestartJobAction:
			return step{kill: killJob, retain: retainNone, countRetry: true, bump: true, next: to(batchv1alpha1.Restarting)}
		case targeted:
			return step{kill: killTarget, countRetry: true, next: to(batchv1alpha1.Restarting)}
		case phase == batchv1alpha1.Running:
			return step{sync: true, next: runningStatus}
		}
		return step{sync: true, next: pendingStatus}
	case batchv1alpha1.Restarting:
		if s, ok := endStep(action); ok {
			return s
		}
		switch {
		case targeted:
			return step{kill: killTarget, next: restartingStatus}
		case action == busv1alpha1.RestartJobAction && livePods:
			return step{kill: killJob, retain: retainNone, bump: true, next: restartingStatus}
		}
		return step{sync: true, next: restartingStatus}
	case batchv1alpha1.Aborting:
		if resume {
			return resumeStep
		}
		return sweepTo(batchv1alpha1.Aborted)
	case batchv1alpha1.Aborted:
		if resume {
			return resumeStep
		}
		return step{kill: killJob, retain: retainSoft, next: stay}
	case batchv1alpha1.Completing:
		return sweepTo(batchv1alpha1.Completed)
	case batchv1alpha1.Terminating:
		return sweepTo(batchv1alpha1.Terminated)
	case batchv1alpha1.Completed, batchv1alpha1.Terminated, batchv1alpha1.Failed:
		return step{kill: killJob, retain: retainSoft, next: stay}
	}
	// An unknown phase is read as Pending, as a new job is.
	return stepFor(batchv1alpha1.Pending, action, livePods)
}
