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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

const (
	// MaxAnnotationPolicies is the most policies the caldera.sh/policies annotation may hold,
	// as spec.policies.
	MaxAnnotationPolicies = 32
	// maxPolicyEvents is the most events one policy may name, as in the CRD.
	maxPolicyEvents = 16
	// maxFlowDepth is how deeply [ and { may nest in the annotation.
	maxFlowDepth = 64
	// maxQuotedValue is how much of a bad value a field error quotes.
	maxQuotedValue = 200
)

// AnnotationPath is the field path of the caldera.sh/policies annotation in errors:
// metadata.annotations[caldera.sh/policies].
var AnnotationPath = field.NewPath("metadata", "annotations").Key(batchv1alpha1.PoliciesAnnotation)

// PolicyEvents are the events a policy may name, as the CRD allows them.
var PolicyEvents = []busv1alpha1.Event{
	busv1alpha1.AnyEvent, busv1alpha1.PodFailedEvent, busv1alpha1.PodEvictedEvent, busv1alpha1.PodPendingEvent,
	busv1alpha1.JobUnknownEvent, busv1alpha1.TaskCompletedEvent, busv1alpha1.TaskFailedEvent, busv1alpha1.JobUpdatedEvent,
}

// PolicyActions are the actions a policy may take, as the CRD allows them.
var PolicyActions = []busv1alpha1.Action{
	busv1alpha1.AbortJobAction, busv1alpha1.RestartJobAction, busv1alpha1.RestartTaskAction, busv1alpha1.RestartPodAction,
	busv1alpha1.RestartPartitionAction, busv1alpha1.TerminateJobAction, busv1alpha1.CompleteJobAction, busv1alpha1.ResumeJobAction,
}

// policyFields are the fields of a policy, in the order errors about unknown fields list them.
var policyFields = []string{"action", "event", "events", "exitCode", "timeout", "when"}

type decodedAnnotation struct {
	policies []batchv1alpha1.LifecyclePolicy
	errs     field.ErrorList
}

// DecodePolicies decodes the value of the caldera.sh/policies annotation: a YAML (or JSON) list
// of LifecyclePolicy, the schema of spec.policies. Decoding is strict: an unknown field, a
// duplicate key or a value of the wrong type is an error. Each policy is then validated as the
// CRD validates spec.policies (event and exitCode exclusive, exitCode not 0, known events and
// actions, * alone, no duplicate event or exit code among policies without when), must name an
// action, and its when is compiled. Every error names its field under AnnotationPath, for example
// metadata.annotations[caldera.sh/policies][1].when. When there is an error no policy is
// returned. An empty value holds no policies. Results are cached by value.
func (e *Engine) DecodePolicies(value string) ([]batchv1alpha1.LifecyclePolicy, field.ErrorList) {
	d := e.annotations.get(value, func() decodedAnnotation {
		ps, errs := e.decodePolicies(value)
		return decodedAnnotation{policies: ps, errs: errs}
	})
	return slices.Clone(d.policies), slices.Clone(d.errs)
}

func (e *Engine) decodePolicies(value string) ([]batchv1alpha1.LifecyclePolicy, field.ErrorList) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	if flowDepth(value) > maxFlowDepth {
		return nil, field.ErrorList{field.Invalid(AnnotationPath, shorten(value),
			fmt.Sprintf("nests [ and { more than %d deep: write the policies as a plain YAML list", maxFlowDepth))}
	}
	js, err := yaml.YAMLToJSONStrict([]byte(value))
	if err != nil {
		return nil, field.ErrorList{field.Invalid(AnnotationPath, shorten(value),
			fmt.Sprintf("is not valid YAML: %s", oneLine(err.Error())))}
	}
	if multipleDocuments(value) {
		return nil, field.ErrorList{field.Invalid(AnnotationPath, shorten(value),
			"holds more than one YAML document: put all the policies in one list, without ---")}
	}
	js = bytes.TrimSpace(js)
	if bytes.Equal(js, []byte("null")) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(js, &items); err != nil {
		return nil, field.ErrorList{field.Invalid(AnnotationPath, shorten(value),
			"must be a YAML list of lifecycle policies with the schema of spec.policies, for example '[{event: PodFailed, action: RestartJob}]'")}
	}
	if len(items) > MaxAnnotationPolicies {
		return nil, field.ErrorList{field.TooMany(AnnotationPath, len(items), MaxAnnotationPolicies)}
	}
	policies := make([]batchv1alpha1.LifecyclePolicy, len(items))
	var errs field.ErrorList
	for i, raw := range items {
		var perrs field.ErrorList
		policies[i], perrs = decodePolicy(raw, AnnotationPath.Index(i))
		errs = append(errs, perrs...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	errs = append(errs, ValidatePolicies(policies, AnnotationPath, true)...)
	for i := range policies {
		errs = append(errs, e.ValidateWhen(policies[i].When, AnnotationPath.Index(i).Child("when"))...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return policies, nil
}

// decodePolicy decodes one policy field by field, so that every error names its field.
func decodePolicy(raw json.RawMessage, path *field.Path) (batchv1alpha1.LifecyclePolicy, field.ErrorList) {
	var p batchv1alpha1.LifecyclePolicy
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return p, field.ErrorList{field.Invalid(path, shorten(string(raw)),
			"must be a policy: a mapping of action, event, events, exitCode, timeout and when")}
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs field.ErrorList
	for _, k := range keys {
		v := fields[k]
		fp := path.Child(k)
		var err error
		var want, wantKind string
		switch k {
		case "action":
			err, want, wantKind = decodeField(v, &p.Action), "a string", "a string"
		case "event":
			err, want, wantKind = decodeField(v, &p.Event), "a string", "a string"
		case "events":
			err, want, wantKind = decodeField(v, &p.Events), "a list of strings", "a list"
		case "exitCode":
			err, want, wantKind = decodeField(v, &p.ExitCode), "an integer (a 32-bit exit code)", "a number"
		case "timeout":
			err, want, wantKind = decodeField(v, &p.Timeout), "a duration such as 90s or 5m", "a string"
		case "when":
			err, want, wantKind = decodeField(v, &p.When), "a string (quote the expression)", "a string"
		default:
			msg := "unknown field: a policy has the fields " + strings.Join(policyFields, ", ")
			if hint := closest(k, policyFields); hint != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", hint)
			}
			errs = append(errs, field.Forbidden(fp, msg))
			continue
		}
		if err != nil {
			bad, kind := describeJSON(v)
			msg := "must be " + want
			if kind != "" && kind != wantKind {
				msg += ", not " + kind
			}
			errs = append(errs, field.Invalid(fp, bad, msg))
		}
	}
	return p, errs
}

// describeJSON returns a JSON value for an error message (a string's content, or the JSON text)
// and what kind of value it is: "a string", "a number", "a list", "a mapping", "a boolean" or
// "null".
func describeJSON(raw json.RawMessage) (string, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return shorten(s), "a string"
		}
	case '[':
		return shorten(string(raw)), "a list"
	case '{':
		return shorten(string(raw)), "a mapping"
	case 't', 'f':
		return string(raw), "a boolean"
	case 'n':
		return string(raw), "null"
	}
	return shorten(string(raw)), "a number"
}

// flowDepth returns how deeply [ and { nest in s, quoted or not. The YAML parser takes time that
// grows faster than the depth, and no list of policies needs more than a few levels.
func flowDepth(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}

// multipleDocuments reports whether a YAML text holds more than one non-empty document.
func multipleDocuments(value string) bool {
	d := yamlv2.NewDecoder(strings.NewReader(value))
	var doc any
	if err := d.Decode(&doc); err != nil {
		return false
	}
	for {
		doc = nil
		err := d.Decode(&doc)
		if err == io.EOF {
			return false
		}
		if err != nil || doc != nil {
			return true
		}
	}
}

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func decodeField(raw json.RawMessage, into any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(into); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data")
	}
	return nil
}

// ValidatePolicies checks a list of policies found at path with the rules the CRD applies to
// spec.policies and tasks[*].policies: event and events against exitCode, exitCode not 0, known
// events and actions, at most 16 events, timeout not negative, a policy on * alone in its list,
// and no event or exit code named by two policies without when. requireAction also demands an
// action, which the annotation's policies must name. when is not compiled here; see
// Engine.ValidateWhen.
func ValidatePolicies(policies []batchv1alpha1.LifecyclePolicy, path *field.Path, requireAction bool) field.ErrorList {
	var errs field.ErrorList
	star := -1
	for i := range policies {
		p := &policies[i]
		pp := path.Index(i)
		switch {
		case p.Action == "" && requireAction:
			errs = append(errs, field.Required(pp.Child("action"),
				"a policy must name its action: one of "+joinValues(PolicyActions)))
		case p.Action != "" && !slices.Contains(PolicyActions, p.Action):
			errs = append(errs, field.NotSupported(pp.Child("action"), p.Action, PolicyActions))
		}
		if p.Event != "" && !slices.Contains(PolicyEvents, p.Event) {
			errs = append(errs, field.NotSupported(pp.Child("event"), p.Event, PolicyEvents))
		}
		if len(p.Events) > maxPolicyEvents {
			errs = append(errs, field.TooMany(pp.Child("events"), len(p.Events), maxPolicyEvents))
		}
		for j, ev := range p.Events {
			if !slices.Contains(PolicyEvents, ev) {
				errs = append(errs, field.NotSupported(pp.Child("events").Index(j), ev, PolicyEvents))
			}
		}
		hasEvent := p.Event != "" || len(p.Events) > 0
		if p.ExitCode != nil && hasEvent {
			errs = append(errs, field.Invalid(pp.Child("exitCode"), *p.ExitCode,
				"must not specify event and exitCode simultaneously: a policy matches either events or an exit code"))
		}
		if !hasEvent && p.ExitCode == nil && p.When == "" {
			errs = append(errs, field.Required(pp,
				"either event, exitCode or when should be specified"))
		}
		if p.ExitCode != nil && *p.ExitCode == 0 {
			errs = append(errs, field.Invalid(pp.Child("exitCode"), int32(0),
				"0 is not a valid error code: exitCode matches failures only"))
		}
		if p.Timeout != nil && p.Timeout.Duration < 0 {
			errs = append(errs, field.Invalid(pp.Child("timeout"), p.Timeout.Duration.String(), "must not be negative"))
		}
		if p.Event == busv1alpha1.AnyEvent || slices.Contains(p.Events, busv1alpha1.AnyEvent) {
			star = i
		}
	}
	if star >= 0 {
		p := &policies[star]
		if len(policies) > 1 || namesOtherEvent(p) {
			errs = append(errs, field.Invalid(path.Index(star).Child(eventField(p)), string(busv1alpha1.AnyEvent),
				"if there's * here, no other policy should be here: a policy on event * must be the only policy and name no other event"))
		}
	}
	errs = append(errs, duplicates(policies, path)...)
	return errs
}

func namesOtherEvent(p *batchv1alpha1.LifecyclePolicy) bool {
	if p.Event != "" && p.Event != busv1alpha1.AnyEvent {
		return true
	}
	for _, ev := range p.Events {
		if ev != busv1alpha1.AnyEvent {
			return true
		}
	}
	return false
}

func eventField(p *batchv1alpha1.LifecyclePolicy) string {
	if p.Event == busv1alpha1.AnyEvent {
		return "event"
	}
	return "events"
}

// duplicates reports events and exit codes that two policies without when both name.
func duplicates(policies []batchv1alpha1.LifecyclePolicy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	eventOwner := map[busv1alpha1.Event]int{}
	codeOwner := map[int32]int{}
	for i := range policies {
		p := &policies[i]
		if p.When != "" {
			continue
		}
		seen := map[busv1alpha1.Event]bool{}
		check := func(ev busv1alpha1.Event, fp *field.Path) {
			if ev == "" || seen[ev] {
				return
			}
			seen[ev] = true
			if first, ok := eventOwner[ev]; ok {
				errs = append(errs, field.Invalid(fp, string(ev), fmt.Sprintf(
					"duplicate event across different policies: policy %d already handles it; each event may appear in one policy without a when condition", first)))
				return
			}
			eventOwner[ev] = i
		}
		check(p.Event, path.Index(i).Child("event"))
		for j, ev := range p.Events {
			check(ev, path.Index(i).Child("events").Index(j))
		}
		if p.ExitCode != nil {
			if first, ok := codeOwner[*p.ExitCode]; ok {
				errs = append(errs, field.Invalid(path.Index(i).Child("exitCode"), *p.ExitCode, fmt.Sprintf(
					"duplicate exitCode across different policies: policy %d already handles it; each exit code may appear in one policy without a when condition", first)))
			} else {
				codeOwner[*p.ExitCode] = i
			}
		}
	}
	return errs
}

// ValidateWhen compiles a policy's when found at path (for example spec.policies[0].when) and
// returns its error, if any, as a field error; an empty when is valid.
func (e *Engine) ValidateWhen(when string, path *field.Path) field.ErrorList {
	if when == "" {
		return nil
	}
	if _, err := e.Compile(when); err != nil {
		var ce *CompileError
		if errors.As(err, &ce) {
			return field.ErrorList{field.Invalid(path, shorten(when), ce.Detail())}
		}
		return field.ErrorList{field.Invalid(path, shorten(when), err.Error())}
	}
	return nil
}

// ValidateJob checks every when of a job, wherever it is written: spec.policies[*].when,
// spec.tasks[*].policies[*].when and the caldera.sh/policies annotation (decoded and validated
// in full, see DecodePolicies). An expression that reads a task the job does not have with a
// constant key (tasks.wroker) is an error too. Every error is returned, each with its path, for
// example spec.tasks[1].policies[0].when.
func (e *Engine) ValidateJob(job *batchv1alpha1.Job) field.ErrorList {
	if job == nil {
		return nil
	}
	tasks := naming.TaskNames(job.Spec.Tasks)
	var errs field.ErrorList
	check := func(p *batchv1alpha1.LifecyclePolicy, path *field.Path) {
		wp := path.Child("when")
		if werrs := e.ValidateWhen(p.When, wp); len(werrs) > 0 {
			errs = append(errs, werrs...)
			return
		}
		errs = append(errs, e.checkTaskRefs(p.When, tasks, wp)...)
	}
	for i := range job.Spec.Tasks {
		for j := range job.Spec.Tasks[i].Policies {
			check(&job.Spec.Tasks[i].Policies[j], field.NewPath("spec", "tasks").Index(i).Child("policies").Index(j))
		}
	}
	for i := range job.Spec.Policies {
		check(&job.Spec.Policies[i], field.NewPath("spec", "policies").Index(i))
	}
	if v, ok := job.Annotations[batchv1alpha1.PoliciesAnnotation]; ok {
		ps, aerrs := e.DecodePolicies(v)
		errs = append(errs, aerrs...)
		for i := range ps {
			errs = append(errs, e.checkTaskRefs(ps[i].When, tasks, AnnotationPath.Index(i).Child("when"))...)
		}
	}
	return errs
}

// Check is ValidateJob for the job controller: it returns every error of the job's policies
// (see ValidateJob) and the policies of the caldera.sh/policies annotation, decoded, to consult
// after spec.policies; nil when the annotation is missing or invalid.
func (e *Engine) Check(job *batchv1alpha1.Job) ([]batchv1alpha1.LifecyclePolicy, field.ErrorList) {
	errs := e.ValidateJob(job)
	if job == nil {
		return nil, errs
	}
	v, ok := job.Annotations[batchv1alpha1.PoliciesAnnotation]
	if !ok {
		return nil, errs
	}
	policies, aerrs := e.DecodePolicies(v)
	if len(aerrs) > 0 {
		return nil, errs
	}
	return policies, errs
}

func (e *Engine) checkTaskRefs(when string, tasks []string, path *field.Path) field.ErrorList {
	if when == "" {
		return nil
	}
	x, err := e.Compile(when)
	if err != nil {
		return nil
	}
	var errs field.ErrorList
	for _, name := range x.taskRefs {
		if slices.Contains(tasks, name) {
			continue
		}
		msg := fmt.Sprintf("reads task %q, which the job does not have; its tasks are %s", name, strings.Join(tasks, ", "))
		if hint := closest(name, tasks); hint != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", hint)
		}
		msg += fmt.Sprintf("; to allow a missing task, test it with '%s' in tasks", name)
		errs = append(errs, field.Invalid(path, shorten(when), msg))
	}
	return errs
}

// Policy is a lifecycle policy with the place it is written.
type Policy struct {
	batchv1alpha1.LifecyclePolicy
	// Path is where the policy is written: spec.tasks[i].policies[j], spec.policies[j] or
	// metadata.annotations[caldera.sh/policies][j].
	Path *field.Path
}

// Policies returns the policies consulted for an event about task (empty for an event about
// the whole job), in the order they are consulted: the task's own policies
// (spec.tasks[i].policies), then spec.policies, then the policies of the caldera.sh/policies
// annotation, each list in its own order. The first policy that matches the event (or exit
// code) and whose when holds decides. When the annotation is invalid its errors are returned
// and its policies left out.
func (e *Engine) Policies(job *batchv1alpha1.Job, task string) ([]Policy, field.ErrorList) {
	if job == nil {
		return nil, nil
	}
	var out []Policy
	if task != "" {
		if i := naming.TaskIndex(job.Spec.Tasks, task); i >= 0 {
			base := field.NewPath("spec", "tasks").Index(i).Child("policies")
			for j, p := range job.Spec.Tasks[i].Policies {
				out = append(out, Policy{LifecyclePolicy: p, Path: base.Index(j)})
			}
		}
	}
	base := field.NewPath("spec", "policies")
	for j, p := range job.Spec.Policies {
		out = append(out, Policy{LifecyclePolicy: p, Path: base.Index(j)})
	}
	v, ok := job.Annotations[batchv1alpha1.PoliciesAnnotation]
	if !ok {
		return out, nil
	}
	ps, errs := e.DecodePolicies(v)
	for j, p := range ps {
		out = append(out, Policy{LifecyclePolicy: p, Path: AnnotationPath.Index(j)})
	}
	return out, errs
}

// EncodePolicies renders policies as the value of the caldera.sh/policies annotation (YAML).
func EncodePolicies(policies []batchv1alpha1.LifecyclePolicy) (string, error) {
	if policies == nil {
		policies = []batchv1alpha1.LifecyclePolicy{}
	}
	b, err := yaml.Marshal(policies)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func joinValues[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxQuotedValue {
		return s
	}
	return string([]rune(s)[:maxQuotedValue]) + "..."
}
