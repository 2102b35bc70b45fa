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
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
)

func flow(name string, deps ...string) flowv1alpha1.Flow {
	f := flowv1alpha1.Flow{Name: name}
	if len(deps) > 0 {
		f.DependsOn = &flowv1alpha1.DependsOn{Targets: deps}
	}
	return f
}

func job(name string, phase batchv1alpha1.JobPhase) *batchv1alpha1.Job {
	return &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: batchv1alpha1.JobStatus{State: batchv1alpha1.JobState{Phase: phase}}}
}

// diamond is Volcano's example: a; b after a; c and d after b; e after c and d.
var diamond = []flowv1alpha1.Flow{flow("a"), flow("b", "a"), flow("c", "b"), flow("d", "b"), flow("e", "c", "d")}

func TestOrder(t *testing.T) {
	cases := []struct {
		name    string
		flows   []flowv1alpha1.Flow
		want    []string
		wantErr string
	}{
		{name: "diamond", flows: diamond, want: []string{"a", "b", "c", "d", "e"}},
		{name: "targets before dependents whatever the spec order", flows: []flowv1alpha1.Flow{flow("b", "a"), flow("a")}, want: []string{"a", "b"}},
		{name: "cycle", flows: []flowv1alpha1.Flow{flow("a", "c"), flow("b", "a"), flow("c", "b")},
			wantErr: "spec.flows has a dependency cycle: a -> c -> b -> a; remove one of these dependsOn.targets"},
		{name: "unknown target", flows: []flowv1alpha1.Flow{flow("a", "x")},
			wantErr: "flow a depends on x, which is not a flow of this JobFlow: add it to spec.flows or remove it from dependsOn.targets"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Order(tc.flows)
			if tc.wantErr != "" {
				var se *SpecError
				if !errors.As(err, &se) || se.Message != tc.wantErr || (se.Reason != flowv1alpha1.DependencyCycleReason && se.Reason != flowv1alpha1.UnknownTargetReason) {
					t.Fatalf("Order() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Order() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	engine, err := NewWhenEngine()
	if err != nil {
		t.Fatal(err)
	}
	when := func(expr string) flowv1alpha1.Flow {
		f := flow("d", "c")
		f.DependsOn.When = expr
		return f
	}
	succeeded := job("f-c", batchv1alpha1.Completed)
	succeeded.Status.Succeeded = 3
	running := job("f-c", batchv1alpha1.Running)
	running.Status.TaskStatusCount = map[string]batchv1alpha1.TaskState{"ps": {Phase: map[corev1.PodPhase]int32{corev1.PodRunning: 1}}}
	probe := flow("d", "c")
	probe.DependsOn.Probe = &flowv1alpha1.Probe{TaskStatusList: []flowv1alpha1.TaskStatus{{TaskName: "ps", Phase: "Running"}}}
	cases := []struct {
		name      string
		in        PlanInput
		want      Plan
		wantError string
	}{
		{name: "roots first", in: PlanInput{Flows: diamond}, want: Plan{Create: []string{"a"}}},
		{name: "waits for a Completed target", in: PlanInput{Flows: diamond, Jobs: map[string]*batchv1alpha1.Job{"a": job("f-a", batchv1alpha1.Running)}}},
		{name: "both branches once b completed", in: PlanInput{Flows: diamond, Jobs: map[string]*batchv1alpha1.Job{
			"a": job("f-a", batchv1alpha1.Completed), "b": job("f-b", batchv1alpha1.Completed)}},
			want: Plan{Create: []string{"c", "d"}}},
		{name: "join waits for both", in: PlanInput{Flows: diamond, Jobs: map[string]*batchv1alpha1.Job{
			"a": job("f-a", batchv1alpha1.Completed), "b": job("f-b", batchv1alpha1.Completed),
			"c": job("f-c", batchv1alpha1.Completed), "d": job("f-d", batchv1alpha1.Running)}}},
		{name: "a failed job stops the flow", in: PlanInput{Flows: diamond, Jobs: map[string]*batchv1alpha1.Job{
			"a": job("f-a", batchv1alpha1.Completed), "b": job("f-b", batchv1alpha1.Failed)}},
			want: Plan{Failed: true}},
		{name: "deleted completed jobs count as completed", in: PlanInput{Flows: diamond, Completed: map[string]bool{"a": true, "b": true}},
			want: Plan{Create: []string{"c", "d"}}},
		{name: "a probe lets the flow start early", in: PlanInput{Flows: []flowv1alpha1.Flow{flow("c"), probe}, Jobs: map[string]*batchv1alpha1.Job{"c": running}},
			want: Plan{Create: []string{"d"}}},
		{name: "when true", in: PlanInput{Flows: []flowv1alpha1.Flow{flow("c"), when("jobs.c.status.succeeded >= 2")}, Jobs: map[string]*batchv1alpha1.Job{"c": succeeded}, When: engine.Func(context.Background())},
			want: Plan{Create: []string{"d"}}},
		{name: "when false skips the flow and its dependents", in: PlanInput{Flows: []flowv1alpha1.Flow{flow("c"), when("jobs.c.status.succeeded >= 5"), flow("e", "d")}, Jobs: map[string]*batchv1alpha1.Job{"c": succeeded}, When: engine.Func(context.Background())},
			want: Plan{Skipped: []string{"d", "e"}}},
		{name: "a when that does not compile is bad input", in: PlanInput{Flows: []flowv1alpha1.Flow{flow("c"), when("jobs.c.status.succeeded >=")}, Jobs: map[string]*batchv1alpha1.Job{"c": succeeded}, When: engine.Func(context.Background())},
			wantError: flowv1alpha1.InvalidWhenReason},
		{name: "a cycle is bad input", in: PlanInput{Flows: []flowv1alpha1.Flow{flow("a", "b"), flow("b", "a")}}, wantError: flowv1alpha1.DependencyCycleReason},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decide(tc.in)
			if tc.wantError != "" {
				var se *SpecError
				if !errors.As(err, &se) || se.Reason != tc.wantError {
					t.Fatalf("Decide() error = %v, want reason %s", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decide() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFlowPhase(t *testing.T) {
	jf := &flowv1alpha1.JobFlow{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Spec: flowv1alpha1.JobFlowSpec{Flows: []flowv1alpha1.Flow{flow("a"), flow("b", "a")}}}
	deleting := jf.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	cases := []struct {
		name      string
		jf        *flowv1alpha1.JobFlow
		jobs      map[string]*batchv1alpha1.Job
		completed map[string]bool
		skipped   []string
		want      flowv1alpha1.Phase
	}{
		{name: "no job", jf: jf, want: flowv1alpha1.Pending},
		{name: "pending job", jf: jf, jobs: map[string]*batchv1alpha1.Job{"a": job("f-a", batchv1alpha1.Pending)}, want: flowv1alpha1.Pending},
		{name: "running", jf: jf, jobs: map[string]*batchv1alpha1.Job{"a": job("f-a", batchv1alpha1.Running)}, want: flowv1alpha1.Running},
		{name: "between jobs", jf: jf, jobs: map[string]*batchv1alpha1.Job{"a": job("f-a", batchv1alpha1.Completed)}, want: flowv1alpha1.Running},
		{name: "all completed", jf: jf, jobs: map[string]*batchv1alpha1.Job{"a": job("f-a", batchv1alpha1.Completed), "b": job("f-b", batchv1alpha1.Completed)}, want: flowv1alpha1.Succeed},
		{name: "completed and deleted", jf: jf, completed: map[string]bool{"a": true, "b": true}, want: flowv1alpha1.Succeed},
		{name: "completed and skipped", jf: jf, jobs: map[string]*batchv1alpha1.Job{"a": job("f-a", batchv1alpha1.Completed)}, skipped: []string{"b"}, want: flowv1alpha1.Succeed},
		{name: "failed", jf: jf, jobs: map[string]*batchv1alpha1.Job{"a": job("f-a", batchv1alpha1.Aborted)}, want: flowv1alpha1.Failed},
		{name: "terminating", jf: deleting, want: flowv1alpha1.Terminating},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := FlowPhase(tc.jf, tc.jobs, tc.completed, tc.skipped); got != tc.want {
				t.Errorf("FlowPhase() = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	created := metav1.NewTime(now.Add(-time.Minute))
	a := job("f-a", batchv1alpha1.Completed)
	a.CreationTimestamp = created
	a.Status.RunningDuration = &metav1.Duration{Duration: 30 * time.Second}
	jf := &flowv1alpha1.JobFlow{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Spec: flowv1alpha1.JobFlowSpec{Flows: []flowv1alpha1.Flow{flow("a"), flow("b", "a"), flow("c", "b")}}}
	jf.Status.JobStatusList = []flowv1alpha1.JobStatus{{Name: "f-a", State: batchv1alpha1.Running,
		RunningHistories: []flowv1alpha1.JobRunningHistory{{StartTimestamp: created, State: batchv1alpha1.Running}}}}
	got := Status(StatusInput{JobFlow: jf, Jobs: map[string]*batchv1alpha1.Job{"a": a}, Skipped: []string{"b", "c"}, Now: now})
	want := flowv1alpha1.JobFlowStatus{
		CompletedJobs: []string{"f-a"},
		SkippedJobs:   []string{"f-b", "f-c"},
		JobStatusList: []flowv1alpha1.JobStatus{{
			Name: "f-a", State: batchv1alpha1.Completed, StartTimestamp: created,
			EndTimestamp: metav1.NewTime(created.Add(30 * time.Second)),
			RunningHistories: []flowv1alpha1.JobRunningHistory{
				{StartTimestamp: created, EndTimestamp: metav1.NewTime(now), State: batchv1alpha1.Running},
				{StartTimestamp: metav1.NewTime(now), State: batchv1alpha1.Completed},
			},
		}},
		JobConditions: map[string]flowv1alpha1.Condition{"f-a": {Phase: batchv1alpha1.Completed, CreateTimestamp: created, RunningDuration: a.Status.RunningDuration}},
		State:         flowv1alpha1.State{Phase: flowv1alpha1.Succeed},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Status() (-want +got):\n%s", diff)
	}
}

func TestSetConditions(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ts := metav1.NewTime(clk.Now())
	cond := func(kind string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: kind, Status: status, Reason: reason, Message: msg, ObservedGeneration: 2, LastTransitionTime: ts}
	}
	cases := []struct {
		name    string
		status  flowv1alpha1.JobFlowStatus
		stalled *SpecError
		want    []metav1.Condition
	}{
		{name: "running", status: flowv1alpha1.JobFlowStatus{State: flowv1alpha1.State{Phase: flowv1alpha1.Running}, CompletedJobs: []string{"f-a"}},
			want: []metav1.Condition{
				cond("Reconciling", metav1.ConditionTrue, "FlowRunning", "1 of 2 jobs completed"),
				cond("Ready", metav1.ConditionFalse, "FlowRunning", "1 of 2 jobs completed"),
			}},
		{name: "succeeded", status: flowv1alpha1.JobFlowStatus{State: flowv1alpha1.State{Phase: flowv1alpha1.Succeed}},
			want: []metav1.Condition{cond("Ready", metav1.ConditionTrue, "FlowSucceeded", "every job of the flow completed")}},
		{name: "failed", status: flowv1alpha1.JobFlowStatus{State: flowv1alpha1.State{Phase: flowv1alpha1.Failed}, FailedJobs: []string{"f-b"}},
			want: []metav1.Condition{
				cond("Stalled", metav1.ConditionTrue, "FlowFailed", "jobs ended without success: f-b; no further job is created"),
				cond("Ready", metav1.ConditionFalse, "FlowFailed", "jobs ended without success: f-b; no further job is created"),
			}},
		{name: "bad input", status: flowv1alpha1.JobFlowStatus{State: flowv1alpha1.State{Phase: flowv1alpha1.Pending}},
			stalled: &SpecError{Reason: "TemplateNotFound", Message: "flow b: JobTemplate b not found"},
			want: []metav1.Condition{
				cond("Ready", metav1.ConditionFalse, "TemplateNotFound", "flow b: JobTemplate b not found"),
				cond("Stalled", metav1.ConditionTrue, "TemplateNotFound", "flow b: JobTemplate b not found"),
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jf := &flowv1alpha1.JobFlow{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: flowv1alpha1.JobFlowSpec{Flows: []flowv1alpha1.Flow{flow("a"), flow("b")}}, Status: tc.status}
			SetConditions(jf, tc.stalled, nil, clk)
			if diff := cmp.Diff(tc.want, jf.Status.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPatchSpec(t *testing.T) {
	replicas := int32(1)
	tmpl := batchv1alpha1.JobSpec{Queue: "default", MaxRetry: 3, Tasks: []batchv1alpha1.TaskSpec{
		{Name: "ps", Replicas: replicas, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "a:1"}}}}},
		{Name: "worker", Replicas: replicas, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "a:1"}}}}},
	}}
	f := flow("b")
	f.Patch = &flowv1alpha1.Patch{JobSpec: &runtime.RawExtension{Raw: []byte(`{"queue":"q2","tasks":[{"name":"worker","replicas":4,"template":{"spec":{"containers":[{"name":"main","image":"a:2"}]}}}]}`)}}
	got, err := PatchSpec(tmpl, f)
	if err != nil {
		t.Fatal(err)
	}
	want := tmpl.DeepCopy()
	want.Queue = "q2"
	want.Tasks[1].Replicas = 4
	want.Tasks[1].Template.Spec.Containers[0].Image = "a:2"
	if diff := cmp.Diff(*want, got); diff != "" {
		t.Errorf("PatchSpec() (-want +got):\n%s", diff)
	}
	if tmpl.Tasks[1].Replicas != 1 {
		t.Error("PatchSpec changed the template")
	}
	f.Patch.JobSpec.Raw = []byte(`{"tasks":"nope"}`)
	if _, err := PatchSpec(tmpl, f); err == nil {
		t.Error("PatchSpec() accepted tasks that are not a list")
	}
}

func TestPatchSpecUnnamedTasks(t *testing.T) {
	task := func(name string, replicas int32) batchv1alpha1.TaskSpec {
		return batchv1alpha1.TaskSpec{Name: name, Replicas: replicas, Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "a:1"}}}}}
	}
	tmpl := batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("", 1), task("", 1)}}
	cases := []struct {
		name  string
		patch string
		want  []batchv1alpha1.TaskSpec
	}{
		{
			name:  "a patch without tasks leaves them unnamed",
			patch: `{"queue":"q2"}`,
			want:  []batchv1alpha1.TaskSpec{task("", 1), task("", 1)},
		},
		{
			name:  "a patch names an unnamed task by its effective name",
			patch: `{"tasks":[{"name":"default1","replicas":4}]}`,
			want:  []batchv1alpha1.TaskSpec{task("", 1), task("", 4)},
		},
		{
			// The merge puts a task the patch adds first: the template's unnamed tasks move, and
			// keep their effective names written.
			name:  "a task the patch adds comes first",
			patch: `{"tasks":[{"name":"extra","replicas":2,"template":{"spec":{"containers":[{"name":"main","image":"a:1"}]}}}]}`,
			want:  []batchv1alpha1.TaskSpec{task("extra", 2), task("default0", 1), task("default1", 1)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := flow("b")
			f.Patch = &flowv1alpha1.Patch{JobSpec: &runtime.RawExtension{Raw: []byte(tc.patch)}}
			got, err := PatchSpec(tmpl, f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Tasks); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
			if tmpl.Tasks[0].Name != "" || tmpl.Tasks[1].Replicas != 1 {
				t.Error("PatchSpec changed the template")
			}
		})
	}
}

func TestWhenEngine(t *testing.T) {
	e, err := NewWhenEngine()
	if err != nil {
		t.Fatal(err)
	}
	train := job("f-train", batchv1alpha1.Completed)
	train.Status.Succeeded = 2
	jobs := map[string]*batchv1alpha1.Job{"train": train}
	cases := []struct {
		expr    string
		want    bool
		wantErr bool
	}{
		{expr: "jobs.train.status.state.phase == 'Completed' && jobs.train.status.succeeded >= 2", want: true},
		{expr: "jobs.train.status.succeeded > 2", want: false},
		{expr: "has(jobs.eval)", want: false},
		{expr: "jobs.train.status.succeeded", wantErr: true},
		{expr: "jobs.train.status.succeeded >=", wantErr: true},
		{expr: "nope == 1", wantErr: true},
		{expr: "jobs.train.metadata.name.size() > 0 && jobs.all(k, jobs.all(l, jobs.all(m, k + l + m != '')))", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := e.Evaluate(context.Background(), tc.expr, jobs)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Evaluate() error = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Evaluate() = %v, want %v", got, tc.want)
			}
		})
	}
}
