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

package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

// fixture is a job of two tasks, ps (1 replica) and worker (6 replicas, minAvailable 2), with a
// pod in every state; worker-2 was OOMKilled.
func fixture() (*batchv1alpha1.Job, []corev1.Pod) {
	job := makeJob("train").namespace("ml").label("team", "ml").annotation("note", "x").
		task("ps", 1).task("worker", 6).taskMinAvailable(2).
		phase(batchv1alpha1.Running).retries(1, 2).obj()
	ps := pods(
		makePod("train", "ps", 0, corev1.PodRunning).node("node-a").container(runningC("main", 1)),
		makePod("train", "worker", 0, corev1.PodSucceeded).container(terminated("main", 0, "Completed")),
		makePod("train", "worker", 1, corev1.PodSucceeded).container(terminated("main", 0, "Completed")),
		makePod("train", "worker", 2, corev1.PodFailed).node("node-b").status("", "container main was OOM killed").
			initContainer(terminated("init", 0, "Completed")).
			container(withLast(terminated("main", 137, "OOMKilled"), 1, "Error")).
			container(terminated("sidecar", 143, "Error")).
			condition(corev1.PodReady, corev1.ConditionFalse, "PodFailed", "").
			condition(corev1.PodConditionType("DisruptionTarget"), corev1.ConditionFalse, "", ""),
		makePod("train", "worker", 3, corev1.PodPending).container(waitingC("main", "ImagePullBackOff", 2)),
		makePod("train", "worker", 4, corev1.PodRunning).deleting().container(runningC("main", 5)),
		makePod("train", "worker", 5, corev1.PodUnknown),
	)
	return job, ps
}

func TestVariables(t *testing.T) {
	job, ps := fixture()
	in := NewJobInput(job, ps, 7*time.Hour)
	podEvent := in.ForEvent(busv1alpha1.PodFailedEvent, "", &ps[3])
	jobEvent := in.ForEvent(busv1alpha1.JobUnknownEvent, "", nil)
	taskEvent := in.ForEvent(busv1alpha1.TaskFailedEvent, "ps", nil)
	ghostTask := in.ForEvent(busv1alpha1.TaskFailedEvent, "ghost", nil)
	counted := NewJobInputFromCounts(job, Counts{
		Job:   PodCounts{Running: 10, Succeeded: 3},
		Tasks: map[string]PodCounts{"worker": {Succeeded: 3, Restarts: 4}},
	}, 0).ForEvent(busv1alpha1.TaskCompletedEvent, "worker", nil)

	cases := []struct {
		expr string
		in   *Input
		want bool
	}{
		// job
		{"job.name == 'train'", podEvent, true},
		{"job.namespace == 'ml'", podEvent, true},
		{"job.labels.team == 'ml' && job.labels['team'] == 'ml'", podEvent, true},
		{"!('owner' in job.labels) && job.labels.size() == 1", podEvent, true},
		{"job.annotations.note == 'x'", podEvent, true},
		{"job.phase == 'Running'", podEvent, true},
		{"job.retryCount == 1", podEvent, true},
		{"job.version == 2", podEvent, true},
		{"job.minAvailable == 3", podEvent, true},
		{"job.pending == 1", podEvent, true},
		{"job.running == 1", podEvent, true},
		{"job.succeeded == 2", podEvent, true},
		{"job.failed == 1", podEvent, true},
		{"job.terminating == 1", podEvent, true},
		{"job.unknown == 1", podEvent, true},
		// tasks
		{"tasks.size() == 2 && 'ps' in tasks && 'worker' in tasks", podEvent, true},
		{"tasks.ps.name == 'ps' && tasks.ps.replicas == 1 && tasks.ps.minAvailable == 1", podEvent, true},
		{"tasks.ps.running == 1 && tasks.ps.restarts == 1", podEvent, true},
		{"tasks.worker.replicas == 6 && tasks.worker.minAvailable == 2", podEvent, true},
		{"tasks.worker.pending == 1 && tasks.worker.running == 0", podEvent, true},
		{"tasks.worker.succeeded == 2 && tasks['worker'].succeeded == 2", podEvent, true},
		{"tasks.worker.failed == 1 && tasks.worker.terminating == 1 && tasks.worker.unknown == 1", podEvent, true},
		{"tasks.worker.restarts == 2", podEvent, true},
		{"tasks.all(t, tasks[t].replicas > 0)", podEvent, true},
		{"tasks[?'ghost'].hasValue()", podEvent, false},
		{"tasks[?'worker'].orValue(tasks.ps).replicas == 6", podEvent, true},
		// task
		{"task.name == 'worker'", podEvent, true},
		{"task == tasks.worker", podEvent, true},
		{"task.failed == 1 && task.replicas == 6", podEvent, true},
		{"task.name == 'ps' && task.running == 1", taskEvent, true},
		{"task.name == 'ghost' && task.replicas == 0", ghostTask, true},
		{"task.name == '' && !has(task.name) && task.failed == 0", jobEvent, true},
		// pod
		{"pod.name == 'train-worker-2' && has(pod.name)", podEvent, true},
		{"pod.index == 2", podEvent, true},
		{"pod.phase == 'Failed'", podEvent, true},
		{"pod.reason == '' && pod.message == 'container main was OOM killed'", podEvent, true},
		{"pod.node == 'node-b'", podEvent, true},
		{"pod.exitCode == 137", podEvent, true},
		{"pod.containers.size() == 2", podEvent, true},
		{"pod.containers[0].name == 'main' && pod.containers[0].state == 'terminated'", podEvent, true},
		{"pod.containers[0].reason == 'OOMKilled' && pod.containers[0].exitCode == 137", podEvent, true},
		{"pod.containers[0].lastReason == 'Error' && pod.containers[0].lastExitCode == 1", podEvent, true},
		{"pod.containers[1].restartCount == 0 && pod.containers[1].exitCode == 143", podEvent, true},
		{"pod.initContainers.size() == 1 && pod.initContainers[0].reason == 'Completed'", podEvent, true},
		{"pod.conditions.exists(c, c.type == 'Ready' && c.status == 'False' && c.reason == 'PodFailed' && c.message == '')", podEvent, true},
		{"pod.conditions.exists(c, c.type == 'DisruptionTarget' && c.status == 'True')", podEvent, false},
		{"pod.name == '' && !has(pod.name) && pod.index == -1 && pod.exitCode == 0", jobEvent, true},
		{"pod.containers.size() == 0 && pod.conditions.size() == 0 && pod.phase == ''", jobEvent, true},
		// event and elapsed
		{"event == 'PodFailed'", podEvent, true},
		{"event == 'Unknown'", jobEvent, true},
		{"elapsed == duration('7h') && elapsed > duration('6h')", podEvent, true},
		// counts given by the caller
		{"job.running == 10 && job.succeeded == 3 && task.succeeded == 3 && task.restarts == 4", counted, true},
		{"tasks.ps.running == 0", counted, true},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := e.EvaluateBool(context.Background(), tc.expr, tc.in)
			if err != nil {
				t.Fatalf("EvaluateBool: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExamples(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := testingclock.NewFakePassiveClock(start)
	job := makeJob("tf").task("ps", 1).task("worker", 4).obj()
	oom := makePod("tf", "worker", 0, corev1.PodFailed).container(terminated("main", 137, "OOMKilled")).obj()
	oomOtherCode := makePod("tf", "worker", 1, corev1.PodFailed).container(terminated("main", 1, "OOMKilled")).obj()
	exit137 := makePod("tf", "worker", 1, corev1.PodFailed).container(terminated("main", 137, "Error")).obj()
	evicted := makePod("tf", "worker", 2, corev1.PodFailed).status("Evicted", "node drained").
		container(terminated("main", 143, "Error")).
		condition("DisruptionTarget", corev1.ConditionTrue, "EvictionByEvictionAPI", "").obj()
	psFailed := makePod("tf", "ps", 0, corev1.PodFailed).container(terminated("main", 1, "Error")).obj()
	succeeded := func(n int) []corev1.Pod {
		var out []corev1.Pod
		for i := range n {
			out = append(out, *makePod("tf", "worker", i, corev1.PodSucceeded).obj())
		}
		return out
	}
	at := func(d time.Duration) time.Duration {
		clk.SetTime(start.Add(d))
		return Elapsed(start, clk)
	}

	const (
		oomExpr        = "pod.exitCode == 137 || pod.containers.exists(c, c.reason == 'OOMKilled')"
		disruptionExpr = "pod.conditions.exists(c, c.type == 'DisruptionTarget' && c.status == 'True')"
		workersExpr    = "tasks.worker.succeeded >= 2"
		workersIndex   = "tasks['worker'].succeeded >= 2"
		psExpr         = "task.name == 'ps' && event == 'PodFailed'"
		tooLongExpr    = "elapsed > duration('6h')"
	)
	cases := []struct {
		name string
		expr string
		in   *Input
		want bool
	}{
		{"OOMKilled with 137", oomExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodFailedEvent, "", oom), true},
		{"OOMKilled with another code", oomExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodFailedEvent, "", oomOtherCode), true},
		{"exit code 137", oomExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodFailedEvent, "", exit137), true},
		{"evicted is not OOM", oomExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodFailedEvent, "", evicted), false},
		{"evicted is a disruption", disruptionExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodFailedEvent, "", evicted), true},
		{"OOM is not a disruption", disruptionExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodFailedEvent, "", oom), false},
		{"one worker succeeded", workersExpr, NewJobInput(job, succeeded(1), 0).ForEvent("", "", nil), false},
		{"two workers succeeded", workersExpr, NewJobInput(job, succeeded(2), 0).ForEvent("", "", nil), true},
		{"two workers succeeded, index", workersIndex, NewJobInput(job, succeeded(2), 0).ForEvent("", "", nil), true},
		{"three workers succeeded, index", workersIndex, NewJobInput(job, succeeded(3), 0).ForEvent("", "", nil), true},
		{"ps failed", psExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodFailedEvent, "", psFailed), true},
		{"worker failed", psExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodFailedEvent, "", oom), false},
		{"ps evicted", psExpr, NewJobInput(job, nil, 0).ForEvent(busv1alpha1.PodEvictedEvent, "", psFailed), false},
		{"ran 5h", tooLongExpr, NewJobInput(job, nil, at(5*time.Hour)).ForEvent("", "", nil), false},
		{"ran exactly 6h", tooLongExpr, NewJobInput(job, nil, at(6*time.Hour)).ForEvent("", "", nil), false},
		{"ran 6h1s", tooLongExpr, NewJobInput(job, nil, at(6*time.Hour+time.Second)).ForEvent("", "", nil), true},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.EvaluateBool(context.Background(), tc.expr, tc.in)
			if err != nil {
				t.Fatalf("EvaluateBool(%q): %v", tc.expr, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.expr, diff)
			}
		})
	}
}

// compileFailure is what a test compares of a CompileError: the reason and the first issue.
type compileFailure struct {
	Reason   CompileErrorReason
	Line     int
	Column   int
	Contains string
}

func failureOf(err error, contains string) compileFailure {
	var ce *CompileError
	if !errors.As(err, &ce) {
		return compileFailure{Contains: fmt.Sprintf("not a *CompileError: %v", err)}
	}
	got := compileFailure{Reason: ce.Reason}
	if len(ce.Issues) > 0 {
		got.Line, got.Column = ce.Issues[0].Line, ce.Issues[0].Column
	}
	if strings.Contains(ce.Error(), contains) {
		got.Contains = contains
	} else {
		got.Contains = ce.Error()
	}
	return got
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		expr string
		want compileFailure
	}{
		// the result must be bool
		{"pod.exitCode", compileFailure{ReasonResultType, 0, 0, "returns int, but a policy condition must return bool"}},
		{"pod.name", compileFailure{ReasonResultType, 0, 0, "returns string"}},
		{"tasks", compileFailure{ReasonResultType, 0, 0, "returns map(string, caldera.Task)"}},
		{"dyn(pod.exitCode)", compileFailure{ReasonResultType, 0, 0, "type known only at run time (dyn)"}},
		{"elapsed", compileFailure{ReasonResultType, 0, 0, "returns google.protobuf.Duration"}},
		// unknown fields and variables
		{"tasks.worker.succeded >= 2", compileFailure{ReasonType, 1, 13, "unknown field 'succeded' (did you mean 'succeeded'?)"}},
		{"pod.exitcode == 137", compileFailure{ReasonType, 1, 4, "unknown field 'exitcode' (did you mean 'exitCode'?)"}},
		{"pod.containers.exists(c, c.resaon == 'OOMKilled')", compileFailure{ReasonType, 1, 27, "unknown field 'resaon' (did you mean 'reason'?)"}},
		{"job.uid == 'x'", compileFailure{ReasonType, 1, 4, "unknown field 'uid'"}},
		{"jobs.name == 'x'", compileFailure{ReasonType, 1, 1, "unknown variable 'jobs': the variables are job, tasks, task, pod, event and elapsed (did you mean 'job'?)"}},
		{"pod.name.startsWith('x') \n && pod.foo == 1", compileFailure{ReasonType, 2, 8, "unknown field 'foo'"}},
		// wrong types
		{"pod.exitCode == '137'", compileFailure{ReasonType, 1, 14, "operator == cannot be applied to (int, string)"}},
		{"job.labels.team > 5", compileFailure{ReasonType, 1, 17, "operator > cannot be applied to (string, int)"}},
		{"elapsed > '6h'", compileFailure{ReasonType, 1, 9, "operator > cannot be applied to (duration, string)"}},
		{"pod == task", compileFailure{ReasonType, 1, 5, "operator == cannot be applied to (caldera.Pod, caldera.Task)"}},
		{"event.size() > duration('1h')", compileFailure{ReasonType, 1, 14, "operator > cannot be applied to (int, duration)"}},
		{"elapsed > duration('6x')", compileFailure{ReasonType, 1, 20, "invalid duration"}},
		{"pod.name.matches('[')", compileFailure{ReasonType, 1, 18, "invalid regular expression"}},
		// syntax
		{"pod.exitCode ==", compileFailure{ReasonSyntax, 1, 16, "Syntax error"}},
		{"pod.exitCode = 137", compileFailure{ReasonSyntax, 1, 14, "(compare with ==)"}},
		{"pod.containers.exists(c, c.reason == 'OOMKilled'", compileFailure{ReasonSyntax, 1, 49, "missing ')'"}},
		{"", compileFailure{ReasonSyntax, 0, 0, "the expression is empty"}},
		{"  \n ", compileFailure{ReasonSyntax, 0, 0, "the expression is empty"}},
		// limits and unsupported forms
		{strings.Repeat("true && ", 512) + "true", compileFailure{ReasonTooLong, 0, 0, "is 4100 characters long; the limit is 4096"}},
		{"caldera.Task{name: 'x'}.name == 'x'", compileFailure{ReasonUnsupported, 1, 13, "caldera.Task{...} creates an object"}},
		{"[1].exists(a, [1].exists(b, [1].exists(c, [1].exists(d, [1].exists(e, true)))))", compileFailure{ReasonCost, 1, 67, "nested more than 4 deep"}},
		{"job.annotations.all(a, job.annotations.all(b, job.annotations.all(c, a != b || b != c)))",
			compileFailure{ReasonCost, 0, 0, "above the limit of 100000"}},
		{"tasks.all(a, tasks.all(b, tasks.all(c, tasks.all(d, tasks[a].failed == tasks[d].failed))))",
			compileFailure{ReasonCost, 0, 0, "above the limit of 100000"}},
		{"pod.containers.all(a, pod.containers.all(b, pod.conditions.all(c, a.reason + b.reason + c.message != pod.message)))",
			compileFailure{ReasonCost, 0, 0, "above the limit of 100000"}},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		name := tc.expr
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			_, err := e.Compile(tc.expr)
			if diff := cmp.Diff(tc.want, failureOf(err, tc.want.Contains)); diff != "" {
				t.Errorf("Compile(%q) (-want +got):\n%s", tc.expr, diff)
			}
		})
	}
}

func TestCompileErrorMessage(t *testing.T) {
	e := newTestEngine(t)
	_, err := e.Compile("tasks.worker.succeded >= 2")
	want := `invalid CEL expression "tasks.worker.succeded >= 2": line 1, column 13: unknown field 'succeded' (did you mean 'succeeded'?)`
	if diff := cmp.Diff(want, fmt.Sprint(err)); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	long := "pod.name == '" + strings.Repeat("x", 300) + "' && pod.foo"
	_, err = e.Compile(long)
	if got := err.Error(); !strings.Contains(got, strings.Repeat("x", 187)+`"...: line 1, column `) {
		t.Errorf("a long expression should be quoted shortened, got %q", got)
	}
}

func TestEstimatedCost(t *testing.T) {
	cases := []struct {
		expr        string
		maxEstimate uint64
		wantErr     bool
	}{
		{"pod.exitCode == 137", 100, false},
		{"pod.containers.exists(c, c.reason == 'OOMKilled')", 100, true},
		{"pod.containers.exists(c, c.reason == 'OOMKilled')", 10_000, false},
		{"tasks.all(t, tasks[t].failed == 0)", 10_000, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d", tc.expr, tc.maxEstimate), func(t *testing.T) {
			e := newTestEngine(t, WithMaxEstimatedCost(tc.maxEstimate))
			x, err := e.Compile(tc.expr)
			if diff := cmp.Diff(tc.wantErr, err != nil); diff != "" {
				t.Fatalf("Compile error %v (-want +got):\n%s", err, diff)
			}
			if err != nil {
				if diff := cmp.Diff(ReasonCost, failureOf(err, "").Reason); diff != "" {
					t.Errorf("reason (-want +got):\n%s", diff)
				}
				return
			}
			if least, greatest := x.EstimatedCost(); least > greatest || greatest > tc.maxEstimate {
				t.Errorf("EstimatedCost() = %d, %d; want least <= greatest <= %d", least, greatest, tc.maxEstimate)
			}
		})
	}
}

// bigLabels returns a job whose labels are too many for the compile-time estimate.
func bigLabels(n int) *batchv1alpha1.Job {
	w := makeJob("big").task("worker", 1)
	for i := range n {
		w.label(fmt.Sprintf("label-%05d", i), "v")
	}
	return w.obj()
}

func TestRuntimeCostLimit(t *testing.T) {
	const nested = "job.labels.all(a, job.labels.all(b, b != 'x'))"
	longMessage := makePod("big", "worker", 0, corev1.PodFailed).status("", strings.Repeat("m", 10_000)).obj()
	cases := []struct {
		name    string
		opts    []Option
		expr    string
		job     *batchv1alpha1.Job
		pod     *corev1.Pod
		want    bool
		wantErr string
	}{
		{name: "within the bounds", expr: nested, job: bigLabels(50), want: true},
		{name: "above the bounds, cheap", expr: "job.labels.exists(k, k == 'nope')", job: bigLabels(100), want: false},
		{name: "long message, cheap", expr: "pod.message.contains('x')", job: bigLabels(1), pod: longMessage, want: false},
		{name: "a big input the expression does not read", expr: "pod.name == ''", job: bigLabels(3000), want: true},
		{
			name: "above the bounds, heavy", expr: nested, job: bigLabels(3000),
			wantErr: `CEL expression "job.labels.all(a, job.labels.all(b, b != 'x'))" failed: cost limit exceeded: on this job's data, ` +
				`where job.labels has 3000 entries (64 assumed), it could cost up to 45018003, above the run-time limit of 100000, so it ` +
				`was not run: simplify it, or make the values it iterates over smaller`,
		},
		{
			name: "low limit", opts: []Option{WithCostLimit(50)}, expr: "job.labels.exists(k, k == 'nope')", job: bigLabels(200),
			wantErr: `CEL expression "job.labels.exists(k, k == 'nope')" failed: cost limit exceeded: on this job's data, ` +
				`where job.labels has 200 entries (64 assumed), it could cost up to 1203, above the run-time limit of 50, so it ` +
				`was not run: simplify it, or make the values it iterates over smaller`,
		},
		{name: "low limit, small map", opts: []Option{WithCostLimit(50)}, expr: "job.labels.exists(k, k == 'nope')", job: bigLabels(3), want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEngine(t, tc.opts...)
			got, err := e.EvaluateBool(context.Background(), tc.expr, NewJobInput(tc.job, nil, 0).ForEvent("", "", tc.pod))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("EvaluateBool: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				return
			}
			var ee *EvalError
			if !errors.As(err, &ee) || !errors.Is(err, ErrCostLimitExceeded) {
				t.Fatalf("error %v should be an *EvalError wrapping ErrCostLimitExceeded", err)
			}
			if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEstimateBoundsActualCost checks what the evaluation relies on: the estimate, from the size
// bounds or from the actual sizes, is never below the cost the expression actually has.
func TestEstimateBoundsActualCost(t *testing.T) {
	job, ps := fixture()
	small := NewJobInput(job, ps, time.Hour)
	bigJob := bigLabels(300)
	bigJob.Annotations = map[string]string{"note": strings.Repeat("n", 300_000)}
	bigPod := makePod("big", "worker", 1, corev1.PodFailed).status("", strings.Repeat("m", 9000))
	for i := range 100 {
		bigPod.container(terminated(fmt.Sprintf("c%d", i), int32(i), "OOMKilled"))
	}
	big := NewJobInput(bigJob, pods(bigPod), time.Hour)
	inputs := map[string]*Input{
		"pod event":     small.ForEvent(busv1alpha1.PodFailedEvent, "", &ps[3]),
		"job event":     small.ForEvent(busv1alpha1.JobUnknownEvent, "", nil),
		"big pod event": big.ForEvent(busv1alpha1.PodFailedEvent, "", bigPod.obj()),
	}
	exprs := []string{
		"pod.exitCode == 137 || pod.containers.exists(c, c.reason == 'OOMKilled')",
		"pod.conditions.exists(c, c.type == 'DisruptionTarget' && c.status == 'True')",
		"tasks.worker.succeeded >= 2 && tasks.all(t, tasks[t].failed == 0)",
		"task.name == 'ps' && event == 'PodFailed' && elapsed > duration('6h')",
		"job.labels.all(k, k.startsWith('label') && job.labels[k] == 'v')",
		"job.annotations.exists(k, job.annotations[k].contains('zz'))",
		"pod.message.matches('^m+$') || pod.containers.map(c, c.name + c.reason).exists(s, s.endsWith('x'))",
		"pod.containers.filter(c, c.exitCode > 10).size() > 3 && pod.message.size() > 2",
		"job.labels.all(a, job.labels.all(b, b != 'x'))",
	}
	e := newTestEngine(t, WithCostLimit(1<<40), WithMaxEstimatedCost(1<<40))
	for _, expr := range exprs {
		x, err := e.Compile(expr)
		if err != nil {
			t.Fatalf("Compile(%q): %v", expr, err)
		}
		for name, in := range inputs {
			actual, err := x.actualCost(context.Background(), in)
			if err != nil {
				t.Fatalf("%s on %s: %v", expr, name, err)
			}
			bound := x.maxCost
			if !in.WithinBounds() {
				if bound, err = x.costBound(in); err != nil {
					t.Fatal(err)
				}
			}
			if actual > bound {
				t.Errorf("%s on %s: actual cost %d is above the estimate %d", expr, name, actual, bound)
			}
		}
	}
}

func TestEvalErrors(t *testing.T) {
	job := makeJob("j").task("worker", 1).retries(1, 0).obj()
	in := NewJobInput(job, nil, 0).ForEvent("", "", nil)
	cases := []struct {
		expr string
		want string
	}{
		{"tasks.ghost.failed > 0", `CEL expression "tasks.ghost.failed > 0" failed: no such key: ghost: test for a key that may be missing first, for example 'worker' in tasks && tasks.worker.failed > 0`},
		{"job.labels['team'] == 'ml'", `CEL expression "job.labels['team'] == 'ml'" failed: no such key: team: test for a key that may be missing first, for example 'worker' in tasks && tasks.worker.failed > 0`},
		{"10 / (job.retryCount - 1) > 0", `CEL expression "10 / (job.retryCount - 1) > 0" failed: division by zero`},
		{"pod.containers[0].exitCode == 1", `CEL expression "pod.containers[0].exitCode == 1" failed: index out of bounds: 0`},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := e.EvaluateBool(context.Background(), tc.expr, in)
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("error %v is not an *EvalError", err)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
	x, err := e.Compile("true")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.EvaluateBool(context.Background(), nil); err == nil {
		t.Errorf("EvaluateBool without input should fail")
	}
}

func TestContextCancelled(t *testing.T) {
	e := newTestEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.EvaluateBool(ctx, "job.labels.all(k, k != '')", NewJobInput(bigLabels(500), nil, 0).ForEvent("", "", nil))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want one wrapping context.Canceled", err)
	}
}

func TestCondition(t *testing.T) {
	job, ps := fixture()
	in := NewJobInput(job, ps, 0).ForEvent(busv1alpha1.PodFailedEvent, "", &ps[3])
	e := newTestEngine(t)
	cond := e.Condition(context.Background(), in)
	type result struct {
		OK      bool
		Compile bool
		Eval    bool
	}
	cases := []struct {
		name   string
		policy batchv1alpha1.LifecyclePolicy
		want   result
	}{
		{"no when", batchv1alpha1.LifecyclePolicy{Event: busv1alpha1.PodFailedEvent}, result{OK: true}},
		{"when holds", batchv1alpha1.LifecyclePolicy{When: "pod.exitCode == 137"}, result{OK: true}},
		{"when does not hold", batchv1alpha1.LifecyclePolicy{When: "pod.exitCode == 1"}, result{}},
		{"compile error", batchv1alpha1.LifecyclePolicy{When: "pod.exitCode"}, result{Compile: true}},
		{"run-time error", batchv1alpha1.LifecyclePolicy{When: "tasks.ghost.failed > 0"}, result{Eval: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := cond(tc.policy)
			var ce *CompileError
			var ee *EvalError
			got := result{OK: ok, Compile: errors.As(err, &ce), Eval: errors.As(err, &ee)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTaskReferences(t *testing.T) {
	cases := []struct {
		expr string
		want []string
	}{
		{"pod.exitCode == 137", nil},
		{"tasks.worker.succeeded >= 2", []string{"worker"}},
		{"tasks['ps'].failed > 0 || tasks.worker.failed > 0 || tasks.ps.running == 0", []string{"ps", "worker"}},
		{"has(tasks.worker) && 'ps' in tasks && tasks[?'chief'].hasValue()", nil},
		{"tasks.all(t, tasks[t].failed == 0)", nil},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			x, err := e.Compile(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, x.TaskReferences()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileCache(t *testing.T) {
	e := newTestEngine(t, WithCacheSize(2))
	a1, err := e.Compile("event == 'a'")
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := e.Compile("event == 'a'")
	if a1 != a2 {
		t.Errorf("a second Compile of the same text should come from the cache")
	}
	_, bad1 := e.Compile("event ==")
	_, bad2 := e.Compile("event ==")
	if bad1 == nil || bad1 != bad2 {
		t.Errorf("compile errors should be cached: %v, %v", bad1, bad2)
	}
	if _, err := e.Compile("event == 'c'"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(2, e.exprs.len()); diff != "" {
		t.Errorf("cache size (-want +got):\n%s", diff)
	}
	a3, _ := e.Compile("event == 'a'")
	if a3 == a1 {
		t.Errorf("the least recently used expression should have been evicted")
	}

	uncached := newTestEngine(t, WithCacheSize(0))
	u1, _ := uncached.Compile("event == 'a'")
	u2, _ := uncached.Compile("event == 'a'")
	if u1 == u2 || uncached.exprs.len() != 0 {
		t.Errorf("WithCacheSize(0) should disable the cache")
	}
}

func TestCompileCacheConcurrent(t *testing.T) {
	e := newTestEngine(t, WithCacheSize(8))
	exprs := make([]string, 16)
	for i := range exprs {
		exprs[i] = fmt.Sprintf("pod.index == %d", i)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(exprs))
	in := NewJobInput(makeJob("j").obj(), nil, 0).ForEvent("", "", nil)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range exprs {
				x := exprs[(i+g)%len(exprs)]
				if _, err := e.EvaluateBool(context.Background(), x, in); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := e.exprs.len(); n > 8 {
		t.Errorf("cache holds %d expressions, more than its size 8", n)
	}
}

func TestEngineLimits(t *testing.T) {
	e := newTestEngine(t)
	if diff := cmp.Diff([]uint64{DefaultCostLimit, DefaultMaxEstimatedCost}, []uint64{e.CostLimit(), e.MaxEstimatedCost()}); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	e = newTestEngine(t, WithCostLimit(10), WithMaxEstimatedCost(20), WithCostLimit(0))
	if diff := cmp.Diff([]uint64{10, 20}, []uint64{e.CostLimit(), e.MaxEstimatedCost()}); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}
