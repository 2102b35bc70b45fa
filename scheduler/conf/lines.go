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

package conf

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// pathPrefix matches the field path an error of Parse or Validate starts with, such as
// "tiers[1].plugins[0].name: ".
var pathPrefix = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.\-]*(?:\[\d+\])?(?:\.[A-Za-z][A-Za-z0-9_.\-]*(?:\[\d+\])?)*): `)

// pathStep is one step of a field path: a key, then optionally an index into its list.
var pathStep = regexp.MustCompile(`^([^.\[]+)(?:\[(\d+)\])?`)

// WithLines returns err with each of its problems (errors.Join of Parse or Validate) prefixed by
// the line of data it is about, as "line 7: tiers[1].plugins[0].name: unknown plugin ...". A
// problem whose field is not found in data is left as it is. A nil err stays nil.
func WithLines(data []byte, err error) error {
	if err == nil {
		return nil
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return err
	}
	doc := root.Content[0]
	var problems []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		problems = joined.Unwrap()
	} else {
		problems = []error{err}
	}
	out := make([]error, 0, len(problems))
	for _, p := range problems {
		if line := LineOf(doc, p.Error()); line > 0 {
			out = append(out, &lineError{line: line, err: p})
			continue
		}
		out = append(out, p)
	}
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...)
}

// lineError is a problem of a configuration with the line it is about.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.err) }
func (e *lineError) Unwrap() error { return e.err }

// LineOf returns the line (from 1) of the field a problem's message starts with, in the YAML
// document node doc, or 0 when the message names no field found there. A path that ends in a
// field the document does not hold (an unknown key is found; a missing one is not) gives the line
// of the deepest node found on the way.
func LineOf(doc *yaml.Node, message string) int {
	m := pathPrefix.FindStringSubmatch(message)
	if m == nil {
		return 0
	}
	node, line := doc, 0
	rest := m[1]
	for rest != "" {
		step := pathStep.FindStringSubmatch(rest)
		if step == nil {
			break
		}
		rest = strings.TrimPrefix(rest[len(step[0]):], ".")
		key, value := mappingEntry(node, step[1])
		if key == nil {
			// An argument name may itself hold dots (binpack.weight): try the rest of the
			// path as one key.
			if k, _ := mappingEntry(node, strings.TrimSuffix(step[0]+"."+rest, ".")); k != nil {
				return k.Line
			}
			return line
		}
		line, node = key.Line, value
		if step[2] != "" {
			i, _ := strconv.Atoi(step[2])
			if node.Kind != yaml.SequenceNode || i >= len(node.Content) {
				return line
			}
			node = node.Content[i]
			line = node.Line
		}
	}
	// An argument check names the argument after the path: "...arguments: sla-waiting-time: ...".
	if after := message[len(m[0]):]; node != nil {
		if name, _, ok := strings.Cut(after, ": "); ok && !strings.ContainsAny(name, " \"") {
			if k, _ := mappingEntry(node, name); k != nil {
				return k.Line
			}
		}
	}
	return line
}

// mappingEntry returns the key and value nodes of key in the mapping node, or nils.
func mappingEntry(node *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if node == nil || node.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		if node.Content[i].Value == key {
			return node.Content[i], node.Content[i+1]
		}
	}
	return nil, nil
}
