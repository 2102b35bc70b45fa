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
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

func TestSpecAction(t *testing.T) {
	spec := func(opts ...jobOpt) *batchv1alpha1.JobSpec {
		return &newJob([]batchv1alpha1.TaskSpec{task("w", 2)}, opts...).Spec
	}
	current := TemplateHash(spec())
	abort := Decision{Action: busv1alpha1.AbortJobAction, Reason: batchv1alpha1.JobSuspendedReason, KeepRetryCount: true}
	resume := Decision{Action: busv1alpha1.ResumeJobAction, Reason: ReasonJobResumed, KeepRetryCount: true}
	restart := Decision{Action: busv1alpha1.RestartJobAction, Reason: ReasonSpecChanged, KeepRetryCount: true}
	tests := []struct {
		name     string
		state    jobOpt
		spec     *batchv1alpha1.JobSpec
		recorded string
		want     *Decision
	}{
		{name: "suspend aborts a running job", state: inPhase(batchv1alpha1.Running), spec: spec(suspend(true)), want: &abort},
		{name: "suspend aborts a pending job", state: inPhase(batchv1alpha1.Pending), spec: spec(suspend(true)), want: &abort},
		{name: "suspend aborts a new job", state: inPhase(""), spec: spec(suspend(true)), want: &abort},
		{name: "suspend aborts a restarting job", state: inPhase(batchv1alpha1.Restarting), spec: spec(suspend(true)), want: &abort},
		{name: "suspend leaves an aborted job", state: withState(batchv1alpha1.Aborted, batchv1alpha1.JobSuspendedReason, ""), spec: spec(suspend(true))},
		{name: "suspend leaves a finished job", state: inPhase(batchv1alpha1.Completed), spec: spec(suspend(true))},
		{name: "suspend false resumes a job it held", state: withState(batchv1alpha1.Aborted, batchv1alpha1.JobSuspendedReason, ""),
			spec: spec(suspend(false)), want: &resume},
		{name: "removing suspend resumes a job it is aborting", state: withState(batchv1alpha1.Aborting, batchv1alpha1.JobSuspendedReason, ""),
			spec: spec(), want: &resume},
		{name: "suspend false does not resume a job aborted by a Command", state: withState(batchv1alpha1.Aborted, ReasonCommandIssued, ""),
			spec: spec(suspend(false))},
		{name: "a template change restarts a running job", state: inPhase(batchv1alpha1.Running), spec: spec(), recorded: "old", want: &restart},
		{name: "a template change restarts a pending job", state: inPhase(batchv1alpha1.Pending), spec: spec(), recorded: "old", want: &restart},
		{name: "the same template does nothing", state: inPhase(batchv1alpha1.Running), spec: spec(), recorded: current},
		{name: "an unknown template does nothing", state: inPhase(batchv1alpha1.Running), spec: spec()},
		{name: "a finished job is not restarted", state: inPhase(batchv1alpha1.Failed), spec: spec(), recorded: "old"},
		{name: "suspend comes before a template change", state: inPhase(batchv1alpha1.Running), spec: spec(suspend(true)), recorded: "old", want: &abort},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := newJob(nil, tc.state)
			got, ok := SpecAction(job, tc.spec, tc.recorded)
			if ok != (tc.want != nil) {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tc.want != nil, got)
			}
			if tc.want == nil {
				return
			}
			if diff := cmp.Diff(*tc.want, got, cmpopts.IgnoreFields(Decision{}, "Message")); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSuspendResumeCycle runs a job through spec.suspend and back: no retry is counted, and the
// reason JobSuspended is kept until the job resumes.
func TestSuspendResumeCycle(t *testing.T) {
	clk := newClock()
	job := newJob([]batchv1alpha1.TaskSpec{task("w", 2)}, retried(2), suspend(true))
	pods := []*corev1.Pod{newPod("w", 0, corev1.PodRunning), newPod("w", 1, corev1.PodSucceeded)}
	step := func(d Decision, pods []*corev1.Pod) {
		t.Helper()
		res, err := Execute(Snapshot{Job: job, Pods: pods}, d, clk)
		if err != nil {
			t.Fatal(err)
		}
		job.Status = res.Status
	}
	specAction := func() Decision {
		t.Helper()
		d, ok := SpecAction(job, &job.Spec, "")
		if !ok {
			t.Fatalf("no spec action in phase %s", job.Status.State.Phase)
		}
		return d
	}

	step(specAction(), pods)
	if s := job.Status.State; s.Phase != batchv1alpha1.Aborting || s.Reason != batchv1alpha1.JobSuspendedReason {
		t.Fatalf("after suspend: %s/%s, want Aborting/JobSuspended", s.Phase, s.Reason)
	}
	step(syncJob, []*corev1.Pod{newPod("w", 1, corev1.PodSucceeded)})
	if s := job.Status.State; s.Phase != batchv1alpha1.Aborted || s.Reason != batchv1alpha1.JobSuspendedReason {
		t.Fatalf("once the pods are gone: %s/%s, want Aborted/JobSuspended", s.Phase, s.Reason)
	}
	if _, ok := SpecAction(job, &job.Spec, ""); ok {
		t.Fatal("a held job is aborted again")
	}

	job.Spec.Suspend = nil
	step(specAction(), []*corev1.Pod{newPod("w", 1, corev1.PodSucceeded)})
	if s := job.Status; s.State.Phase != batchv1alpha1.Restarting || s.RetryCount != 2 || s.Version != 3 {
		t.Fatalf("after resume: %s, retryCount %d, version %d; want Restarting, 2, 3", s.State.Phase, s.RetryCount, s.Version)
	}
	step(syncJob, []*corev1.Pod{newPod("w", 1, corev1.PodSucceeded)})
	if s := job.Status.State; s.Phase != batchv1alpha1.Pending {
		t.Fatalf("after the restart: %s, want Pending", s.Phase)
	}
}

// TestTemplateChangeRestart restarts a job whose template changed, without counting a retry.
func TestTemplateChangeRestart(t *testing.T) {
	job := newJob([]batchv1alpha1.TaskSpec{task("w", 2)}, retried(2))
	recorded := TemplateHash(&job.Spec)
	job.Spec.Tasks[0].Template.Spec.Containers[0].Image = "busybox:2"
	d, ok := SpecAction(job, &job.Spec, recorded)
	if !ok {
		t.Fatal("no restart after a template change")
	}
	res, err := Execute(Snapshot{Job: job, Pods: tablePods()}, d, newClock())
	if err != nil {
		t.Fatal(err)
	}
	want := outcome{Phase: batchv1alpha1.Restarting, Delete: []string{"j-w-0", "j-w-1", "j-w-2"}, DeletePodGroup: true, Version: 2, RetryCount: 2}
	if diff := cmp.Diff(want, outcomeOf(res)); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
}
