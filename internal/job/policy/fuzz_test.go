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
	"testing"
	"time"

	"github.com/google/cel-go/interpreter"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

// FuzzCompileEvaluate compiles arbitrary expressions and evaluates those that compile against
// pod and job events, small and large. Nothing may panic; every failure must be a *CompileError
// or an *EvalError that says something; a compiled expression is within the estimated cost
// limit; and an expression that runs costs no more than the estimate its run was allowed on (the
// bound the evaluation relies on). The seed corpus is in testdata/fuzz/FuzzCompileEvaluate.
func FuzzCompileEvaluate(f *testing.F) {
	for _, s := range []string{
		"pod.exitCode == 137 || pod.containers.exists(c, c.reason == 'OOMKilled')",
		"tasks.worker.succeeded >= 2",
		"task.name == 'ps' && event == 'PodFailed'",
		"elapsed > duration('6h')",
	} {
		f.Add(s)
	}
	e := newTestEngine(f, WithCacheSize(64))
	job, ps := fixture()
	ji := NewJobInput(job, ps, 90*time.Minute)
	bigJob := bigLabels(100)
	bigJob.Annotations = map[string]string{"note": strings.Repeat("n", 5000)}
	bigPod := makePod("big", "worker", 1, corev1.PodFailed).status("Evicted", strings.Repeat("m", 5000))
	for i := range 70 {
		bigPod.container(withLast(terminated(fmt.Sprintf("c%d", i), int32(i), "OOMKilled"), 1, "Error"))
	}
	inputs := []*Input{
		ji.ForEvent(busv1alpha1.PodFailedEvent, "", &ps[3]),
		ji.ForEvent(busv1alpha1.JobUnknownEvent, "", nil),
		NewJobInput(nil, nil, 0).ForEvent("", "", nil),
		NewJobInput(bigJob, pods(bigPod), time.Hour).ForEvent(busv1alpha1.PodFailedEvent, "", bigPod.obj()),
	}
	f.Fuzz(func(t *testing.T, expr string) {
		x, err := e.Compile(expr)
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile(%q) error %v is not a *CompileError", expr, err)
			}
			if len(ce.Issues) == 0 || ce.Reason == "" {
				t.Fatalf("Compile(%q) error has no reason or issue: %#v", expr, ce)
			}
			for _, is := range ce.Issues {
				if strings.TrimSpace(is.Message) == "" || is.Line < 0 || is.Column < 0 {
					t.Fatalf("Compile(%q) gave an empty or misplaced issue: %#v", expr, is)
				}
			}
			return
		}
		if _, greatest := x.EstimatedCost(); greatest > e.MaxEstimatedCost() {
			t.Fatalf("Compile(%q) accepted an estimated cost %d above the limit", expr, greatest)
		}
		for i, in := range inputs {
			if _, err := x.EvaluateBool(context.Background(), in); err != nil {
				var ee *EvalError
				if !errors.As(err, &ee) || ee.Expression != expr || ee.Err == nil || err.Error() == "" {
					t.Fatalf("EvaluateBool(%q) error %v is not a well-formed *EvalError", expr, err)
				}
				if errors.Is(err, ErrCostLimitExceeded) {
					continue
				}
			}
			bound := x.maxCost
			if !in.WithinBounds() {
				var err error
				if bound, err = x.costBound(in); err != nil {
					t.Fatalf("costBound(%q): %v", expr, err)
				}
			}
			actual, err := x.actualCost(context.Background(), in)
			var cancelled interpreter.EvalCancelledError
			if errors.As(err, &cancelled) || actual > bound {
				t.Fatalf("%q on input %d: actual cost %d (%v) is above the estimate %d it ran on", expr, i, actual, err, bound)
			}
		}
	})
}

// FuzzDecodePolicies decodes arbitrary annotation values. Nothing may panic; every error must
// name a field under the annotation; a value that decodes must hold valid policies that survive
// an encode and decode round trip. The seed corpus is in testdata/fuzz/FuzzDecodePolicies.
func FuzzDecodePolicies(f *testing.F) {
	f.Add("- event: PodFailed\n  action: RestartPod\n  when: pod.exitCode == 137\n")
	f.Add("- action: AbortJob\n  when: elapsed > duration('6h')\n")
	e := newTestEngine(f, WithCacheSize(64))
	f.Fuzz(func(t *testing.T, value string) {
		policies, errs := e.DecodePolicies(value)
		if len(errs) > 0 {
			if policies != nil {
				t.Fatalf("DecodePolicies(%q) returned policies with errors", value)
			}
			for _, err := range errs {
				if !strings.HasPrefix(err.Field, AnnotationPath.String()) || err.Error() == "" {
					t.Fatalf("DecodePolicies(%q) error %v does not name the annotation", value, err)
				}
			}
			return
		}
		if verrs := ValidatePolicies(policies, AnnotationPath, true); len(verrs) > 0 {
			t.Fatalf("DecodePolicies(%q) accepted invalid policies: %v", value, verrs)
		}
		encoded, err := EncodePolicies(policies)
		if err != nil {
			t.Fatalf("EncodePolicies(%#v): %v", policies, err)
		}
		again, errs := e.DecodePolicies(encoded)
		if len(errs) > 0 {
			t.Fatalf("decoding the encoding %q of %q failed: %v", encoded, value, errs)
		}
		if diff := cmp.Diff(policies, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip of %q (-first +second):\n%s", value, diff)
		}
	})
}
