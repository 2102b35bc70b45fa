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

// Package argoworkflows evaluates what Argo Workflows' executor evaluates for a resource
// template, with Argo's semantics, so that tests can run the workflows of samples/ without
// Argo: successCondition and failureCondition are label-selector requirements
// (k8s.io/apimachinery/pkg/labels) whose keys are gjson paths into the object's JSON; any
// failure requirement that matches fails the step at once, and the step succeeds once every
// success requirement matches. Output parameters are read with a kubectl JSONPath, as the
// executor's `kubectl get -o jsonpath` does. Template variables ({{inputs.parameters.x}}) are
// substituted as Argo's controller does before a template runs. Tests import it; nothing in
// Caldera does.
package argoworkflows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/jsonpath"
)

// Conditions are a resource template's successCondition and failureCondition, parsed.
type Conditions struct {
	success labels.Requirements
	failure labels.Requirements
}

// ParseConditions parses a resource template's successCondition and failureCondition; either
// may be empty.
func ParseConditions(success, failure string) (Conditions, error) {
	var c Conditions
	var err error
	if c.success, err = parse(success); err != nil {
		return c, fmt.Errorf("successCondition %q: %w", success, err)
	}
	if c.failure, err = parse(failure); err != nil {
		return c, fmt.Errorf("failureCondition %q: %w", failure, err)
	}
	return c, nil
}

// parse parses a condition as Argo does: labels.Parse, then its requirements.
func parse(condition string) (labels.Requirements, error) {
	if condition == "" {
		return nil, nil
	}
	selector, err := labels.Parse(condition)
	if err != nil {
		return nil, err
	}
	reqs, _ := selector.Requirements()
	return reqs, nil
}

// ErrFailureCondition is wrapped by the error Evaluate returns when a failure condition holds.
var ErrFailureCondition = fmt.Errorf("failure condition met")

// Evaluate reads the object's JSON as Argo's executor does on each poll. It returns an error
// wrapping ErrFailureCondition when a failure requirement matches (checked first: the step
// fails), true when every success requirement matches (the step succeeds), and false when the
// executor would poll again.
func (c Conditions) Evaluate(objJSON []byte) (bool, error) {
	obj := gjsonLabels(objJSON)
	for _, req := range c.failure {
		if req.Matches(obj) {
			return false, fmt.Errorf("%w: %s", ErrFailureCondition, req.String())
		}
	}
	matched := 0
	for _, req := range c.success {
		if req.Matches(obj) {
			matched++
		}
	}
	return matched >= len(c.success), nil
}

// gjsonLabels are the object's JSON read as labels: a label's key is a gjson path.
type gjsonLabels []byte

var _ labels.Labels = gjsonLabels(nil)

func (g gjsonLabels) Has(key string) bool { return gjson.GetBytes(g, key).Exists() }

func (g gjsonLabels) Get(key string) string { return gjson.GetBytes(g, key).String() }

func (g gjsonLabels) Lookup(key string) (string, bool) {
	r := gjson.GetBytes(g, key)
	return r.String(), r.Exists()
}

// JSONPath evaluates a kubectl JSONPath template ("{.status.state.phase}") on the object, as
// an output parameter's valueFrom.jsonPath is read.
func JSONPath(obj map[string]any, template string) (string, error) {
	jp := jsonpath.New("output")
	if err := jp.Parse(template); err != nil {
		return "", fmt.Errorf("jsonPath %q: %w", template, err)
	}
	var out bytes.Buffer
	if err := jp.Execute(&out, obj); err != nil {
		return "", fmt.Errorf("jsonPath %q: %w", template, err)
	}
	return out.String(), nil
}

// variable is a template variable reference, such as {{inputs.parameters.task}}.
var variable = regexp.MustCompile(`\{\{\s*([^{}\s]+)\s*\}\}`)

// Substitute replaces every {{name}} in s with vars[name]; a name with no value is an error, as
// Argo rejects a template that refers to an unknown variable.
func Substitute(s string, vars map[string]string) (string, error) {
	var missing []string
	out := variable.ReplaceAllStringFunc(s, func(ref string) string {
		name := variable.FindStringSubmatch(ref)[1]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return ref
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("unresolved variables: %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// SubstituteTemplate substitutes vars in every string of a template, given as any value that
// marshals to JSON (such as an Argo Template), and decodes the result into out.
func SubstituteTemplate(in any, vars map[string]string, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	// Substituting inside the JSON text is safe for values that need no JSON escaping, which
	// holds for the names, numbers and phases the samples pass around.
	s, err := Substitute(string(raw), vars)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(s), out)
}
