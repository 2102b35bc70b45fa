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

package argoworkflows

import (
	"errors"
	"testing"
)

// TestEvaluate checks Argo's semantics on a vcjob's JSON: failure first, every success
// requirement, poll again otherwise.
func TestEvaluate(t *testing.T) {
	job := func(phase string) []byte {
		return []byte(`{"metadata":{"name":"j"},"status":{"state":{"phase":"` + phase + `"},"succeeded":2}}`)
	}
	cases := []struct {
		name             string
		success, failure string
		obj              []byte
		wantDone         bool
		wantFailed       bool
	}{
		{"completed", "status.state.phase == Completed", "status.state.phase in (Failed, Terminated, Aborted)", job("Completed"), true, false},
		{"single equals", "status.state.phase = Completed", "status.state.phase = Failed", job("Completed"), true, false},
		{"running polls again", "status.state.phase == Completed", "status.state.phase in (Failed, Terminated, Aborted)", job("Running"), false, false},
		{"failed", "status.state.phase == Completed", "status.state.phase in (Failed, Terminated, Aborted)", job("Failed"), false, true},
		{"aborted", "status.state.phase == Completed", "status.state.phase in (Failed, Terminated, Aborted)", job("Aborted"), false, true},
		{"no status yet", "status.state.phase == Completed", "status.state.phase in (Failed, Terminated, Aborted)", []byte(`{"metadata":{"name":"j"}}`), false, false},
		{"every success requirement", "status.state.phase == Completed,status.succeeded > 1", "", job("Completed"), true, false},
		{"one success requirement short", "status.state.phase == Completed,status.succeeded > 2", "", job("Completed"), false, false},
		{"no conditions", "", "", job("Pending"), true, false},
		{"notin", "status.state.phase notin (Pending, Running)", "", job("Completed"), true, false},
		{"exists", "status.state", "", job("Pending"), true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConditions(tc.success, tc.failure)
			if err != nil {
				t.Fatal(err)
			}
			done, err := c.Evaluate(tc.obj)
			if failed := errors.Is(err, ErrFailureCondition); failed != tc.wantFailed {
				t.Fatalf("failed = %v (%v), want %v", failed, err, tc.wantFailed)
			}
			if done != tc.wantDone {
				t.Fatalf("done = %v, want %v", done, tc.wantDone)
			}
		})
	}
}

func TestSubstitute(t *testing.T) {
	got, err := Substitute("{{workflow.name}}-{{ inputs.parameters.task }}-", map[string]string{
		"workflow.name": "wf", "inputs.parameters.task": "a",
	})
	if err != nil || got != "wf-a-" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := Substitute("{{inputs.parameters.missing}}", nil); err == nil {
		t.Fatal("an unknown variable must be an error")
	}
}

func TestJSONPath(t *testing.T) {
	got, err := JSONPath(map[string]any{"status": map[string]any{"state": map[string]any{"phase": "Completed"}}}, "{.status.state.phase}")
	if err != nil || got != "Completed" {
		t.Fatalf("got %q, %v", got, err)
	}
}
