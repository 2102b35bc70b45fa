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
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestTTL(t *testing.T) {
	finished := func(phase batchv1alpha1.JobPhase, reason string) jobOpt {
		return func(j *batchv1alpha1.Job) {
			j.Spec.TTLSecondsAfterFinished = ptr.To[int32](60)
			j.Status.State = batchv1alpha1.JobState{Phase: phase, Reason: reason, LastTransitionTime: metav1.NewTime(t0)}
		}
	}
	labels := func(kv ...string) jobOpt {
		return func(j *batchv1alpha1.Job) {
			j.Labels = map[string]string{}
			for i := 0; i+1 < len(kv); i += 2 {
				j.Labels[kv[i]] = kv[i+1]
			}
		}
	}
	action := func(v string) jobOpt {
		return func(j *batchv1alpha1.Job) {
			j.Annotations = map[string]string{batchv1alpha1.TTLActionAnnotation: v}
		}
	}
	expiry := t0.Add(time.Minute)
	tests := []struct {
		name string
		opts []jobOpt
		want *TTLDecision
	}{
		{name: "no TTL", opts: nil},
		{name: "running", opts: []jobOpt{finished(batchv1alpha1.Running, "")}},
		{name: "a plain completed job is deleted", opts: []jobOpt{finished(batchv1alpha1.Completed, "")},
			want: &TTLDecision{Expiry: expiry, Action: batchv1alpha1.TTLActionDelete, Why: "no GitOps tool manages the job"}},
		{name: "aborted by a Command counts as finished", opts: []jobOpt{finished(batchv1alpha1.Aborted, batchv1alpha1.JobAbortedReason)},
			want: &TTLDecision{Expiry: expiry, Action: batchv1alpha1.TTLActionDelete, Why: "no GitOps tool manages the job"}},
		{name: "held by spec.suspend is never finished", opts: []jobOpt{finished(batchv1alpha1.Aborted, batchv1alpha1.JobSuspendedReason), suspend(true)}},
		{name: "aborted for spec.suspend, even before the spec says so again", opts: []jobOpt{finished(batchv1alpha1.Aborted, batchv1alpha1.JobSuspendedReason)}},
		{name: "a failed job suspended from Git is not finished", opts: []jobOpt{finished(batchv1alpha1.Failed, ""), suspend(true)}},
		{name: "a Flux-managed job keeps its Job", opts: []jobOpt{finished(batchv1alpha1.Failed, ""), labels("kustomize.toolkit.fluxcd.io/name", "batch", "kustomize.toolkit.fluxcd.io/namespace", "flux-system")},
			want: &TTLDecision{Expiry: expiry, Action: batchv1alpha1.TTLActionDeleteChildren, Why: "Flux Kustomization flux-system/batch manages the job and would re-create a deleted Job, which would run again"}},
		{name: "the annotation asks to keep the Job", opts: []jobOpt{finished(batchv1alpha1.Completed, ""), action("DeleteChildren")},
			want: &TTLDecision{Expiry: expiry, Action: batchv1alpha1.TTLActionDeleteChildren, Why: "annotation caldera.sh/ttl-action says DeleteChildren"}},
		{name: "the annotation deletes a managed job", opts: []jobOpt{finished(batchv1alpha1.Completed, ""), labels("app.kubernetes.io/instance", "train"), action("Delete")},
			want: &TTLDecision{Expiry: expiry, Action: batchv1alpha1.TTLActionDelete, Why: "annotation caldera.sh/ttl-action says Delete"}},
		{name: "a bad annotation takes the default and says so", opts: []jobOpt{finished(batchv1alpha1.Completed, ""), action("Keep")},
			want: &TTLDecision{Expiry: expiry, Action: batchv1alpha1.TTLActionDelete, Why: "no GitOps tool manages the job",
				Problem: `annotation caldera.sh/ttl-action="Keep" is not an action: use Delete or DeleteChildren; the default is taken`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := TTL(newJob(nil, tc.opts...))
			if tc.want == nil {
				if ok {
					t.Fatalf("TTL = %+v, want none", got)
				}
				return
			}
			if diff := cmp.Diff(*tc.want, got); diff != "" {
				t.Errorf("TTL (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetTTLCondition(t *testing.T) {
	job := newJob(nil, func(j *batchv1alpha1.Job) {
		j.Spec.TTLSecondsAfterFinished = ptr.To[int32](60)
		j.Annotations = map[string]string{batchv1alpha1.TTLActionAnnotation: batchv1alpha1.TTLActionDeleteChildren}
		j.Status.State = batchv1alpha1.JobState{Phase: batchv1alpha1.Completed, LastTransitionTime: metav1.NewTime(t0)}
	})
	clk := newClock()
	SetTTLCondition(job, clk)
	if c := findCondition(job, batchv1alpha1.ChildrenDeletedCondition); c != nil {
		t.Fatalf("ChildrenDeleted before the TTL passed: %+v", c)
	}
	clk.SetTime(t0.Add(time.Minute))
	SetTTLCondition(job, clk)
	c := findCondition(job, batchv1alpha1.ChildrenDeletedCondition)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != batchv1alpha1.TTLExpiredReason {
		t.Fatalf("ChildrenDeleted = %+v, want True/TTLExpired", c)
	}
	want := "ttlSecondsAfterFinished (60s) passed: the job's pods, PodGroup, plugin objects and the claims it made are deleted, " +
		"and the Job is kept as the record because annotation caldera.sh/ttl-action says DeleteChildren; delete the Job (from Git, if a tool applies it) to remove it"
	if diff := cmp.Diff(want, c.Message); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

func findCondition(job *batchv1alpha1.Job, kind string) *metav1.Condition {
	for i := range job.Status.Conditions {
		if job.Status.Conditions[i].Type == kind {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}
