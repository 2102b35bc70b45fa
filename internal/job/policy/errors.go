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
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/common"
)

// CompileErrorReason says why an expression was rejected before it ran.
type CompileErrorReason string

const (
	// ReasonTooLong means the expression is longer than MaxExpressionLength.
	ReasonTooLong CompileErrorReason = "TooLong"
	// ReasonSyntax means the expression does not parse.
	ReasonSyntax CompileErrorReason = "Syntax"
	// ReasonType means the expression does not type-check: an unknown variable or field, or operands
	// of the wrong types.
	ReasonType CompileErrorReason = "Type"
	// ReasonResultType means the expression does not return bool.
	ReasonResultType CompileErrorReason = "ResultType"
	// ReasonUnsupported means the expression uses something policies do not allow, such as creating
	// an object.
	ReasonUnsupported CompileErrorReason = "Unsupported"
	// ReasonCost means the estimated cost of the expression is above the engine's limit.
	ReasonCost CompileErrorReason = "Cost"
)

// Issue is one problem found in an expression, with its position when it has one.
type Issue struct {
	// Line is the 1-based line of the problem, 0 when the problem has no position.
	Line int
	// Column is the 1-based column (in characters) of the problem, 0 when it has no position.
	Column int
	// Message says what is wrong, for a person.
	Message string
}

// String formats the issue as "line L, column C: message".
func (i Issue) String() string {
	if i.Line == 0 {
		return i.Message
	}
	return fmt.Sprintf("line %d, column %d: %s", i.Line, i.Column, i.Message)
}

// CompileError is returned for an expression that cannot be used: it does not parse, does not
// type-check, does not return bool, or is too costly.
type CompileError struct {
	// Expression is the expression's text.
	Expression string
	// Reason classifies the error.
	Reason CompileErrorReason
	// Issues are the problems found, in the order of their position.
	Issues []Issue
}

// Error implements error.
func (e *CompileError) Error() string {
	msgs := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		msgs[i] = is.String()
	}
	return fmt.Sprintf("invalid CEL expression %s: %s", quoteExpr(e.Expression), strings.Join(msgs, "; "))
}

// Detail is the error without the expression: the issues only.
func (e *CompileError) Detail() string {
	msgs := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		msgs[i] = is.String()
	}
	return strings.Join(msgs, "; ")
}

// ErrCostLimitExceeded is wrapped by the EvalError of an evaluation stopped by the run-time cost
// limit.
var ErrCostLimitExceeded = errors.New("cost limit exceeded")

// EvalError is returned when an expression fails at run time: a missing map key, a division by
// zero, an overflow, the cost limit, or a cancelled context.
type EvalError struct {
	// Expression is the expression's text.
	Expression string
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *EvalError) Error() string {
	return fmt.Sprintf("CEL expression %s failed: %v", quoteExpr(e.Expression), e.Err)
}

// Unwrap returns the cause.
func (e *EvalError) Unwrap() error {
	return e.Err
}

// maxQuotedExpr is how much of an expression error messages quote.
const maxQuotedExpr = 200

func quoteExpr(expr string) string {
	if utf8.RuneCountInString(expr) <= maxQuotedExpr {
		return fmt.Sprintf("%q", expr)
	}
	r := []rune(expr)
	return fmt.Sprintf("%q...", string(r[:maxQuotedExpr]))
}

var (
	undeclaredRE = regexp.MustCompile(`^undeclared reference to '([^']*)'.*$`)
	undefinedRE  = regexp.MustCompile(`^undefined field '([^']*)'$`)
	overloadRE   = regexp.MustCompile(`^found no matching overload for '([^']*)' applied to '(.*)'$`)

	operatorNames = map[string]string{
		"_==_": "==", "_!=_": "!=", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">=",
		"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%", "_&&_": "&&", "_||_": "||",
		"!_": "!", "-_": "unary -", "_[_]": "[]", "@in": "in", "_?_:_": "?:",
	}
)

// issuesFrom turns cel-go's errors into Issues, rewording the common ones so that a user can act
// on them.
func issuesFrom(errs []*common.Error) []Issue {
	out := make([]Issue, 0, len(errs))
	for _, e := range errs {
		is := Issue{Message: reword(e.Message)}
		if loc := e.Location; loc != nil && loc.Line() > 0 {
			is.Line, is.Column = loc.Line(), loc.Column()+1
		}
		out = append(out, is)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}

func reword(msg string) string {
	if m := undeclaredRE.FindStringSubmatch(msg); m != nil {
		s := fmt.Sprintf("unknown variable '%s': the variables are job, tasks, task, pod, event and elapsed", m[1])
		if hint := closest(m[1], variableNames); hint != "" {
			s += fmt.Sprintf(" (did you mean '%s'?)", hint)
		}
		return s
	}
	if m := undefinedRE.FindStringSubmatch(msg); m != nil {
		s := fmt.Sprintf("unknown field '%s'", m[1])
		if hint := closest(m[1], fieldNames); hint != "" {
			s += fmt.Sprintf(" (did you mean '%s'?)", hint)
		}
		return s
	}
	if m := overloadRE.FindStringSubmatch(msg); m != nil {
		op, ok := operatorNames[m[1]]
		if !ok {
			return fmt.Sprintf("%s cannot be applied to %s: check the types of the arguments", m[1], m[2])
		}
		return fmt.Sprintf("operator %s cannot be applied to %s: compare values of the same type, converting one with int(), string() or duration() if needed", op, m[2])
	}
	switch {
	case msg == "invalid duration argument":
		return "invalid duration: write a duration such as duration('90s'), duration('5m') or duration('1h30m')"
	case msg == "invalid timestamp argument":
		return "invalid timestamp: write an RFC 3339 timestamp such as timestamp('2026-01-02T15:04:05Z')"
	case msg == "invalid matches argument":
		return "invalid regular expression: matches() takes an RE2 regular expression"
	case msg == nestingLimitMessage:
		return fmt.Sprintf("all, exists, exists_one, map and filter are nested more than %d deep: flatten the expression", maxComprehensionNesting)
	case strings.HasPrefix(msg, "Syntax error: token recognition error at: '= '"):
		return msg + " (compare with ==)"
	}
	return msg
}

// nestingLimitMessage is cel-go's message for comprehensions nested too deeply.
const nestingLimitMessage = "comprehension exceeds nesting limit"

var (
	variableNames = []string{VarJob, VarTasks, VarTask, VarPod, VarEvent, VarElapsed}
	fieldNames    = func() []string {
		seen := map[string]bool{}
		var out []string
		for _, t := range objectTypes {
			for _, n := range t.names {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
		sort.Strings(out)
		return out
	}()
)

// closest returns the candidate nearest to s by edit distance (case-insensitive), if it is
// near enough to be a likely typo.
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := editDistance(ls, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best == s {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 64
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
