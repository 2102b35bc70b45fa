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
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
)

// StatusInput is what the status of a JobFlow is computed from.
type StatusInput struct {
	// JobFlow is the flow, with the status of the last reconcile.
	JobFlow *flowv1alpha1.JobFlow
	// Jobs are the flow's jobs that exist, keyed by flow name.
	Jobs map[string]*batchv1alpha1.Job
	// Skipped are the flows skipped by a when condition (Plan.Skipped).
	Skipped []string
	// Now is the time of the reconcile.
	Now time.Time
}

// RecordedCompleted reports whether the flow's stored status records the job named name as
// Completed.
func RecordedCompleted(jf *flowv1alpha1.JobFlow, name string) bool {
	for _, js := range jf.Status.JobStatusList {
		if js.Name == name && js.State == batchv1alpha1.Completed {
			return true
		}
	}
	return false
}

// DeletedCompleted returns the flows whose job completed and is gone since (deleted by
// jobRetainPolicy delete), from status.jobStatusList: they are not created again.
func DeletedCompleted(jf *flowv1alpha1.JobFlow, jobs map[string]*batchv1alpha1.Job) map[string]bool {
	done := map[string]bool{}
	for _, f := range jf.Spec.Flows {
		if jobs[f.Name] != nil {
			continue
		}
		if RecordedCompleted(jf, JobName(jf.Name, f.Name)) {
			done[f.Name] = true
		}
	}
	return done
}

// Status returns the flow's status as Volcano computes it: the jobs by phase, jobStatusList
// (with the history of phases, kept for jobs deleted since), jobConditions and state.phase.
// Conditions and observedGeneration are left as they were (SetConditions sets them).
func Status(in StatusInput) flowv1alpha1.JobFlowStatus {
	jf := in.JobFlow
	prev := jf.Status
	st := flowv1alpha1.JobFlowStatus{
		Conditions:         prev.Conditions,
		ObservedGeneration: prev.ObservedGeneration,
	}
	now := metav1.NewTime(in.Now)
	history := map[string]flowv1alpha1.JobStatus{}
	for _, js := range prev.JobStatusList {
		history[js.Name] = js
	}
	seen := map[string]bool{}
	for _, f := range jf.Spec.Flows {
		job := in.Jobs[f.Name]
		if job == nil {
			continue
		}
		seen[job.Name] = true
		phase := job.Status.State.Phase
		switch phase {
		case batchv1alpha1.Pending:
			st.PendingJobs = append(st.PendingJobs, job.Name)
		case batchv1alpha1.Running:
			st.RunningJobs = append(st.RunningJobs, job.Name)
		case batchv1alpha1.Completed:
			st.CompletedJobs = append(st.CompletedJobs, job.Name)
		case batchv1alpha1.Failed:
			st.FailedJobs = append(st.FailedJobs, job.Name)
		case batchv1alpha1.Terminated:
			st.TerminatedJobs = append(st.TerminatedJobs, job.Name)
		default:
			st.UnKnowJobs = append(st.UnKnowJobs, job.Name)
		}
		if st.JobConditions == nil {
			st.JobConditions = map[string]flowv1alpha1.Condition{}
		}
		st.JobConditions[job.Name] = flowv1alpha1.Condition{
			Phase:           phase,
			CreateTimestamp: job.CreationTimestamp,
			RunningDuration: job.Status.RunningDuration,
			TaskStatusCount: job.Status.TaskStatusCount,
		}
		js := flowv1alpha1.JobStatus{
			Name:             job.Name,
			State:            phase,
			StartTimestamp:   job.CreationTimestamp,
			RestartCount:     job.Status.RetryCount,
			RunningHistories: histories(history[job.Name].RunningHistories, phase, now),
		}
		if job.Status.RunningDuration != nil {
			js.EndTimestamp = metav1.NewTime(job.CreationTimestamp.Add(job.Status.RunningDuration.Duration))
		}
		st.JobStatusList = append(st.JobStatusList, js)
	}
	// Jobs gone since (deleted by the retain policy, or by hand) keep their last record.
	for _, js := range prev.JobStatusList {
		if seen[js.Name] {
			continue
		}
		st.JobStatusList = append(st.JobStatusList, js)
		if js.State == batchv1alpha1.Completed {
			st.CompletedJobs = append(st.CompletedJobs, js.Name)
		}
	}
	for _, f := range in.Skipped {
		st.SkippedJobs = append(st.SkippedJobs, JobName(jf.Name, f))
	}
	st.State.Phase = FlowPhase(jf, in.Jobs, DeletedCompleted(jf, in.Jobs), in.Skipped)
	return st
}

// histories appends phase to the job's history when it changed, closing the previous entry.
func histories(prev []flowv1alpha1.JobRunningHistory, phase batchv1alpha1.JobPhase, now metav1.Time) []flowv1alpha1.JobRunningHistory {
	h := slices.Clone(prev)
	if phase == "" {
		return h
	}
	if n := len(h); n > 0 {
		if h[n-1].State == phase {
			return h
		}
		h[n-1].EndTimestamp = now
	}
	return append(h, flowv1alpha1.JobRunningHistory{StartTimestamp: now, State: phase})
}

// FlowPhase is the flow's phase: Terminating while it is deleted; Failed once a job failed,
// was terminated or aborted; Succeed when every flow's job completed or was skipped; Running
// once a job has left Pending; Pending before.
func FlowPhase(jf *flowv1alpha1.JobFlow, jobs map[string]*batchv1alpha1.Job, completed map[string]bool, skipped []string) flowv1alpha1.Phase {
	if !jf.DeletionTimestamp.IsZero() {
		return flowv1alpha1.Terminating
	}
	done, started := 0, false
	for _, f := range jf.Spec.Flows {
		job := jobs[f.Name]
		switch {
		case job != nil && IsFailedPhase(job.Status.State.Phase):
			return flowv1alpha1.Failed
		case completed[f.Name] || slices.Contains(skipped, f.Name):
			done++
			started = true
		case job != nil && job.Status.State.Phase == batchv1alpha1.Completed:
			done++
			started = true
		case job != nil && job.Status.State.Phase != "" && job.Status.State.Phase != batchv1alpha1.Pending:
			started = true
		}
	}
	switch {
	case len(jf.Spec.Flows) > 0 && done == len(jf.Spec.Flows):
		return flowv1alpha1.Succeed
	case started:
		return flowv1alpha1.Running
	}
	return flowv1alpha1.Pending
}
