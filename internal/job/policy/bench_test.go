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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

const (
	benchOOM        = "pod.exitCode == 137 || pod.containers.exists(c, c.reason == 'OOMKilled')"
	benchDisruption = "pod.conditions.exists(c, c.type == 'DisruptionTarget' && c.status == 'True')"
	benchWorkers    = "tasks.worker.succeeded >= 2"
	benchPS         = "task.name == 'ps' && event == 'PodFailed'"
	benchElapsed    = "elapsed > duration('6h')"
)

// benchJob is a job of 1000 pods (8 ps, 992 workers) with five policies with when, spread over
// the task, the job and the annotation, and pods as the API server returns them: labels,
// annotations, a container status and four conditions each.
func benchJob() (*batchv1alpha1.Job, []corev1.Pod) {
	policy := func(ev busv1alpha1.Event, a busv1alpha1.Action, when string) batchv1alpha1.LifecyclePolicy {
		return batchv1alpha1.LifecyclePolicy{Event: ev, Action: a, When: when}
	}
	job := makeJob("bench").
		task("ps", 8, policy(busv1alpha1.PodFailedEvent, busv1alpha1.TerminateJobAction, benchPS)).
		task("worker", 992, policy(busv1alpha1.PodFailedEvent, busv1alpha1.RestartPodAction, benchOOM)).
		policies(
			policy(busv1alpha1.PodFailedEvent, busv1alpha1.RestartJobAction, benchDisruption),
			policy("", busv1alpha1.CompleteJobAction, benchWorkers)).
		annotation(batchv1alpha1.PoliciesAnnotation, "- action: AbortJob\n  when: "+benchElapsed+"\n").
		phase(batchv1alpha1.Running).obj()
	var out []corev1.Pod
	add := func(task string, n int) {
		for i := range n {
			phase := corev1.PodRunning
			c := runningC("main", 0)
			switch {
			case i%10 == 9:
				phase, c = corev1.PodSucceeded, terminated("main", 0, "Completed")
			case i%50 == 7:
				phase, c = corev1.PodFailed, terminated("main", 137, "OOMKilled")
			}
			p := makePod("bench", task, i, phase).node(fmt.Sprintf("node-%d", i%64)).container(c).
				condition(corev1.PodScheduled, corev1.ConditionTrue, "", "").
				condition(corev1.PodInitialized, corev1.ConditionTrue, "", "").
				condition(corev1.ContainersReady, corev1.ConditionTrue, "", "").
				condition(corev1.PodReady, corev1.ConditionTrue, "", "")
			p.Labels[batchv1alpha1.QueueNameKey] = "default"
			p.Labels[batchv1alpha1.JobNamespaceKey] = "ns"
			p.Annotations = map[string]string{
				batchv1alpha1.JobVersion:       "0",
				batchv1alpha1.TemplateUID:      "bench-" + task,
				"scheduling.k8s.io/group-name": "bench-0f8a",
			}
			out = append(out, p.Pod)
		}
	}
	add("ps", 8)
	add("worker", 992)
	return job, out
}

// evalPolicies evaluates, as the lifecycle state machine would in the worst case (no policy
// matches before the last), the when of every policy consulted for the event.
func evalPolicies(b *testing.B, e *Engine, job *batchv1alpha1.Job, in *Input, task string) {
	policies, errs := e.Policies(job, task)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	cond := e.Condition(context.Background(), in)
	for i := range policies {
		if _, err := cond(policies[i].LifecyclePolicy); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPolicyEvalPodEvent is the cost of one pod event of a 1000-pod job: building the
// variables (counting the pods when a policy reads a count) and evaluating the five policies
// consulted for the pod's task, with the expressions compiled and the annotation decoded once.
func BenchmarkPolicyEvalPodEvent(b *testing.B) {
	job, pods := benchJob()
	failed := &pods[57] // worker-49, OOMKilled
	e := newTestEngine(b)
	elapsed := 2 * time.Hour

	b.Run("pods", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			in := NewJobInput(job, pods, elapsed).ForEvent(busv1alpha1.PodFailedEvent, "", failed)
			evalPolicies(b, e, job, in, "worker")
		}
	})
	b.Run("counts", func(b *testing.B) {
		counts := CountPods(pods)
		b.ReportAllocs()
		for b.Loop() {
			in := NewJobInputFromCounts(job, counts, elapsed).ForEvent(busv1alpha1.PodFailedEvent, "", failed)
			evalPolicies(b, e, job, in, "worker")
		}
	})
	b.Run("shared-job-input", func(b *testing.B) {
		ji := NewJobInput(job, pods, elapsed)
		b.ReportAllocs()
		for b.Loop() {
			evalPolicies(b, e, job, ji.ForEvent(busv1alpha1.PodFailedEvent, "", failed), "worker")
		}
	})
}

// BenchmarkCountPods is the cost of counting 1000 pods by task and state.
func BenchmarkCountPods(b *testing.B) {
	_, pods := benchJob()
	b.ReportAllocs()
	for b.Loop() {
		CountPods(pods)
	}
}

// BenchmarkCompile is the cost of compiling an expression: without the cache (parse, check,
// cost estimate, plan) and from the cache.
func BenchmarkCompile(b *testing.B) {
	for _, expr := range []string{benchOOM, benchWorkers, benchElapsed} {
		b.Run("uncached/"+expr, func(b *testing.B) {
			e := newTestEngine(b, WithCacheSize(0))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Compile(expr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("cached", func(b *testing.B) {
		e := newTestEngine(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.Compile(benchOOM); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodePolicies is the cost of decoding, validating and compiling an annotation of
// four policies without the cache.
func BenchmarkDecodePolicies(b *testing.B) {
	value := "- event: PodFailed\n  action: RestartPod\n  when: " + benchOOM + "\n" +
		"- event: PodFailed\n  action: RestartJob\n  when: " + benchDisruption + "\n" +
		"- action: CompleteJob\n  when: " + benchWorkers + "\n" +
		"- action: AbortJob\n  when: " + benchElapsed + "\n"
	e := newTestEngine(b, WithCacheSize(0))
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := e.DecodePolicies(value); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkCostLimitRefusal is how long it takes to refuse an expression that could go over the
// run-time cost limit on a job too large for the compile-time bounds.
func BenchmarkCostLimitRefusal(b *testing.B) {
	e := newTestEngine(b)
	x, err := e.Compile("job.labels.all(a, job.labels.all(b, b != 'x'))")
	if err != nil {
		b.Fatal(err)
	}
	job := bigLabels(3000)
	b.ReportAllocs()
	for b.Loop() {
		in := NewJobInput(job, nil, 0).ForEvent("", "", nil)
		if _, err := x.EvaluateBool(context.Background(), in); !errors.Is(err, ErrCostLimitExceeded) {
			b.Fatalf("want the cost limit, got %v", err)
		}
	}
}
