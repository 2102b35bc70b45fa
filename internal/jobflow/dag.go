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

// Package jobflow holds the pure decisions of JobFlows: the DAG's checks, which flows get their
// job next, the patch of a flow onto its template, the `when` CEL conditions, the flow's phase,
// status and conditions. The controller gathers the jobs and templates and applies the result.
package jobflow

import (
	"fmt"
	"slices"
	"strings"

	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
)

// SpecError is bad input in a JobFlow's spec: the flow is Stalled with Reason and Message until
// the spec (or, for a missing template, the templates) change.
type SpecError struct {
	// Reason is a condition reason of the flow API, such as DependencyCycle.
	Reason string
	// Message says what is wrong and names the flows at fault.
	Message string
}

// Error returns the message.
func (e *SpecError) Error() string { return e.Message }

// JobName is the name of a flow's job: <jobflow>-<flow>, as Volcano names it.
func JobName(jobFlow, flow string) string {
	return jobFlow + "-" + flow
}

// Order checks the DAG of flows (every target names a flow, there is no cycle) and returns the
// flow names in a topological order: each flow after its targets, ties in spec order. The error
// is a *SpecError naming the unknown target or the flows of a cycle.
func Order(flows []flowv1alpha1.Flow) ([]string, error) {
	index := make(map[string]int, len(flows))
	for i, f := range flows {
		index[f.Name] = i
	}
	for _, f := range flows {
		for _, t := range targets(f) {
			if _, ok := index[t]; !ok {
				return nil, &SpecError{Reason: flowv1alpha1.UnknownTargetReason,
					Message: fmt.Sprintf("flow %s depends on %s, which is not a flow of this JobFlow: add it to spec.flows or remove it from dependsOn.targets", f.Name, t)}
			}
		}
	}
	// Depth-first search; state 1 is on the current path, 2 is done.
	state := make([]int, len(flows))
	order := make([]string, 0, len(flows))
	var path []string
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case 2:
			return nil
		case 1:
			start := slices.Index(path, flows[i].Name)
			cycle := append(slices.Clone(path[start:]), flows[i].Name)
			return &SpecError{Reason: flowv1alpha1.DependencyCycleReason,
				Message: fmt.Sprintf("spec.flows has a dependency cycle: %s; remove one of these dependsOn.targets", strings.Join(cycle, " -> "))}
		}
		state[i] = 1
		path = append(path, flows[i].Name)
		for _, t := range targets(flows[i]) {
			if err := visit(index[t]); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		state[i] = 2
		order = append(order, flows[i].Name)
		return nil
	}
	for i := range flows {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// targets returns the flow's dependsOn.targets.
func targets(f flowv1alpha1.Flow) []string {
	if f.DependsOn == nil {
		return nil
	}
	return f.DependsOn.Targets
}
