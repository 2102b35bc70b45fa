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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

func errStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

const ann = "metadata.annotations[caldera.sh/policies]"

func TestDecodePolicies(t *testing.T) {
	cases := []struct {
		name  string
		value string
		want  []batchv1alpha1.LifecyclePolicy
		errs  []string
	}{
		{name: "empty", value: ""},
		{name: "blank", value: " \n"},
		{name: "null", value: "null"},
		{name: "empty list", value: "[]"},
		{
			name: "every field",
			value: `
- event: PodFailed
  action: RestartPod
  when: pod.exitCode == 137 || pod.containers.exists(c, c.reason == 'OOMKilled')
- events: [PodPending]
  action: RestartTask
  timeout: 5m
- exitCode: 3
  action: AbortJob
- action: CompleteJob
  when: "tasks['worker'].succeeded >= 2"
`,
			want: []batchv1alpha1.LifecyclePolicy{
				{Event: busv1alpha1.PodFailedEvent, Action: busv1alpha1.RestartPodAction,
					When: "pod.exitCode == 137 || pod.containers.exists(c, c.reason == 'OOMKilled')"},
				{Events: []busv1alpha1.Event{busv1alpha1.PodPendingEvent}, Action: busv1alpha1.RestartTaskAction,
					Timeout: &metav1.Duration{Duration: 5 * time.Minute}},
				{ExitCode: ptr.To[int32](3), Action: busv1alpha1.AbortJobAction},
				{Action: busv1alpha1.CompleteJobAction, When: "tasks['worker'].succeeded >= 2"},
			},
		},
		{
			name:  "JSON",
			value: `[{"event":"PodFailed","action":"RestartPod","when":"pod.exitCode == 137"}]`,
			want: []batchv1alpha1.LifecyclePolicy{
				{Event: busv1alpha1.PodFailedEvent, Action: busv1alpha1.RestartPodAction, When: "pod.exitCode == 137"},
			},
		},
		{
			name:  "null field",
			value: "- event: PodFailed\n  action: RestartJob\n  when: null\n",
			want:  []batchv1alpha1.LifecyclePolicy{{Event: busv1alpha1.PodFailedEvent, Action: busv1alpha1.RestartJobAction}},
		},
		{
			name:  "same event twice, one with when",
			value: "- event: PodFailed\n  action: RestartJob\n- event: PodFailed\n  when: pod.exitCode == 1\n  action: AbortJob\n",
			want: []batchv1alpha1.LifecyclePolicy{
				{Event: busv1alpha1.PodFailedEvent, Action: busv1alpha1.RestartJobAction},
				{Event: busv1alpha1.PodFailedEvent, Action: busv1alpha1.AbortJobAction, When: "pod.exitCode == 1"},
			},
		},
		{
			name:  "star alone",
			value: "- event: '*'\n  action: RestartJob\n",
			want:  []batchv1alpha1.LifecyclePolicy{{Event: busv1alpha1.AnyEvent, Action: busv1alpha1.RestartJobAction}},
		},
		// strict decoding
		{
			name:  "unknown field",
			value: "- evnt: PodFailed\n  action: RestartJob\n",
			errs:  []string{ann + "[0].evnt: Forbidden: unknown field: a policy has the fields action, event, events, exitCode, timeout, when (did you mean event?)"},
		},
		{
			name:  "field names are case-sensitive",
			value: "- Event: PodFailed\n  action: RestartJob\n",
			errs:  []string{ann + "[0].Event: Forbidden: unknown field: a policy has the fields action, event, events, exitCode, timeout, when (did you mean event?)"},
		},
		{
			name:  "quoted exit code",
			value: "- exitCode: '137'\n  action: RestartJob\n",
			errs:  []string{ann + `[0].exitCode: Invalid value: "137": must be an integer (a 32-bit exit code), not a string`},
		},
		{
			name:  "exit code out of range",
			value: "- exitCode: 99999999999\n  action: RestartJob\n",
			errs:  []string{ann + `[0].exitCode: Invalid value: "99999999999": must be an integer (a 32-bit exit code)`},
		},
		{
			name:  "bad timeout",
			value: "- timeout: 5 parsecs\n  event: PodPending\n  action: RestartJob\n",
			errs:  []string{ann + `[0].timeout: Invalid value: "5 parsecs": must be a duration such as 90s or 5m`},
		},
		{
			name:  "unquoted boolean when",
			value: "- when: true\n  action: RestartJob\n",
			errs:  []string{ann + `[0].when: Invalid value: "true": must be a string (quote the expression), not a boolean`},
		},
		{
			name:  "number event",
			value: "- event: 5\n  action: RestartJob\n",
			errs:  []string{ann + `[0].event: Invalid value: "5": must be a string, not a number`},
		},
		{
			name:  "events not a list",
			value: "- events: PodFailed\n  action: RestartJob\n",
			errs:  []string{ann + `[0].events: Invalid value: "PodFailed": must be a list of strings, not a string`},
		},
		{
			name:  "not a list",
			value: "event: PodFailed\naction: RestartJob\n",
			errs: []string{ann + `: Invalid value: "event: PodFailed\naction: RestartJob\n": must be a YAML list of lifecycle policies ` +
				`with the schema of spec.policies, for example '[{event: PodFailed, action: RestartJob}]'`},
		},
		{
			name:  "item not a mapping",
			value: "- PodFailed\n",
			errs:  []string{ann + `[0]: Invalid value: "\"PodFailed\"": must be a policy: a mapping of action, event, events, exitCode, timeout and when`},
		},
		{
			name:  "null item",
			value: "- null\n",
			errs:  []string{ann + `[0]: Invalid value: "null": must be a policy: a mapping of action, event, events, exitCode, timeout and when`},
		},
		{
			name:  "bad YAML",
			value: "- event: [\n",
			errs:  []string{ann + `: Invalid value: "- event: [\n": is not valid YAML: yaml: line 1: did not find expected node content`},
		},
		{
			name:  "duplicate key",
			value: "- event: PodFailed\n  event: PodEvicted\n  action: RestartJob\n",
			errs: []string{ann + `: Invalid value: "- event: PodFailed\n  event: PodEvicted\n  action: RestartJob\n": ` +
				`is not valid YAML: yaml: unmarshal errors: line 2: key "event" already set in map`},
		},
		{
			name:  "several documents",
			value: "- event: PodFailed\n  action: RestartJob\n---\n- event: PodEvicted\n  action: RestartJob\n",
			errs: []string{ann + `: Invalid value: "- event: PodFailed\n  action: RestartJob\n---\n- event: PodEvicted\n  action: RestartJob\n": ` +
				`holds more than one YAML document: put all the policies in one list, without ---`},
		},
		{
			name:  "nested too deeply",
			value: strings.Repeat("{a: ", 65) + "1" + strings.Repeat("}", 65),
			errs: []string{ann + `: Invalid value: "` + strings.Repeat("{a: ", 50) + `...": ` +
				`nests [ and { more than 64 deep: write the policies as a plain YAML list`},
		},
		{
			name:  "too many",
			value: strings.Repeat("- event: PodFailed\n  when: 'true'\n  action: RestartJob\n", 33),
			errs:  []string{ann + ": Too many: 33: must have at most 32 items"},
		},
		// the CRD's rules
		{
			name:  "no action",
			value: "- event: PodFailed\n",
			errs: []string{ann + "[0].action: Required value: a policy must name its action: one of AbortJob, RestartJob, " +
				"RestartTask, RestartPod, RestartPartition, TerminateJob, CompleteJob, ResumeJob"},
		},
		{
			name:  "unknown action",
			value: "- event: PodFailed\n  action: Restart\n",
			errs: []string{ann + `[0].action: Unsupported value: "Restart": supported values: "AbortJob", "RestartJob", "RestartTask", ` +
				`"RestartPod", "RestartPartition", "TerminateJob", "CompleteJob", "ResumeJob"`},
		},
		{
			name:  "internal action",
			value: "- event: PodFailed\n  action: SyncJob\n",
			errs: []string{ann + `[0].action: Unsupported value: "SyncJob": supported values: "AbortJob", "RestartJob", "RestartTask", ` +
				`"RestartPod", "RestartPartition", "TerminateJob", "CompleteJob", "ResumeJob"`},
		},
		{
			name:  "unknown event",
			value: "- event: PodFail\n  action: RestartJob\n",
			errs: []string{ann + `[0].event: Unsupported value: "PodFail": supported values: "*", "PodFailed", "PodEvicted", ` +
				`"PodPending", "Unknown", "TaskCompleted", "TaskFailed", "JobUpdated"`},
		},
		{
			name:  "internal event in events",
			value: "- events: [PodFailed, OutOfSync]\n  action: RestartJob\n",
			errs: []string{ann + `[0].events[1]: Unsupported value: "OutOfSync": supported values: "*", "PodFailed", "PodEvicted", ` +
				`"PodPending", "Unknown", "TaskCompleted", "TaskFailed", "JobUpdated"`},
		},
		{
			name:  "too many events",
			value: "- events: [" + strings.TrimSuffix(strings.Repeat("PodFailed, ", 17), ", ") + "]\n  when: 'true'\n  action: RestartJob\n",
			errs:  []string{ann + "[0].events: Too many: 17: must have at most 16 items"},
		},
		{
			name:  "event and exit code",
			value: "- event: PodFailed\n  exitCode: 3\n  action: RestartJob\n",
			errs:  []string{ann + "[0].exitCode: Invalid value: 3: must not specify event and exitCode simultaneously: a policy matches either events or an exit code"},
		},
		{
			name:  "nothing to match",
			value: "- action: RestartJob\n",
			errs:  []string{ann + "[0]: Required value: either event, exitCode or when should be specified"},
		},
		{
			name:  "exit code 0",
			value: "- exitCode: 0\n  action: RestartJob\n",
			errs:  []string{ann + "[0].exitCode: Invalid value: 0: 0 is not a valid error code: exitCode matches failures only"},
		},
		{
			name:  "negative timeout",
			value: "- event: PodPending\n  timeout: -5m\n  action: RestartJob\n",
			errs:  []string{ann + `[0].timeout: Invalid value: "-5m0s": must not be negative`},
		},
		{
			name:  "star with another policy",
			value: "- event: '*'\n  action: RestartJob\n- event: PodFailed\n  action: AbortJob\n",
			errs: []string{ann + `[0].event: Invalid value: "*": if there's * here, no other policy should be here: ` +
				`a policy on event * must be the only policy and name no other event`},
		},
		{
			name:  "star with another event",
			value: "- events: ['*', PodFailed]\n  action: RestartJob\n",
			errs: []string{ann + `[0].events: Invalid value: "*": if there's * here, no other policy should be here: ` +
				`a policy on event * must be the only policy and name no other event`},
		},
		{
			name:  "duplicate event",
			value: "- event: PodFailed\n  action: RestartJob\n- events: [PodEvicted, PodFailed]\n  action: AbortJob\n",
			errs: []string{ann + `[1].events[1]: Invalid value: "PodFailed": duplicate event across different policies: ` +
				`policy 0 already handles it; each event may appear in one policy without a when condition`},
		},
		{
			name:  "duplicate exit code",
			value: "- exitCode: 3\n  action: RestartJob\n- exitCode: 3\n  action: AbortJob\n",
			errs: []string{ann + `[1].exitCode: Invalid value: 3: duplicate exitCode across different policies: ` +
				`policy 0 already handles it; each exit code may appear in one policy without a when condition`},
		},
		{
			name:  "bad when",
			value: "- event: PodFailed\n  action: RestartJob\n  when: pod.exitcode == 1\n- action: AbortJob\n  when: elapsed\n",
			errs: []string{
				ann + `[0].when: Invalid value: "pod.exitcode == 1": line 1, column 4: unknown field 'exitcode' (did you mean 'exitCode'?)`,
				ann + `[1].when: Invalid value: "elapsed": the expression returns google.protobuf.Duration, but a policy condition must return bool: ` +
					`compare the value, for example pod.exitCode == 137`,
			},
		},
		{
			name:  "several errors",
			value: "- {}\n- event: Nope\n  action: Nope\n",
			errs: []string{
				ann + "[0].action: Required value: a policy must name its action: one of AbortJob, RestartJob, RestartTask, RestartPod, " +
					"RestartPartition, TerminateJob, CompleteJob, ResumeJob",
				ann + "[0]: Required value: either event, exitCode or when should be specified",
				ann + `[1].action: Unsupported value: "Nope": supported values: "AbortJob", "RestartJob", "RestartTask", "RestartPod", ` +
					`"RestartPartition", "TerminateJob", "CompleteJob", "ResumeJob"`,
				ann + `[1].event: Unsupported value: "Nope": supported values: "*", "PodFailed", "PodEvicted", "PodPending", "Unknown", ` +
					`"TaskCompleted", "TaskFailed", "JobUpdated"`,
			},
		},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := e.DecodePolicies(tc.value)
			if diff := cmp.Diff(tc.errs, errStrings(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("policies (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodePoliciesCached(t *testing.T) {
	e := newTestEngine(t)
	v := "- event: PodFailed\n  action: RestartJob\n"
	a, _ := e.DecodePolicies(v)
	a[0].Action = "Changed"
	b, _ := e.DecodePolicies(v)
	if diff := cmp.Diff(busv1alpha1.RestartJobAction, b[0].Action); diff != "" {
		t.Errorf("changing a returned policy changed the cache (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(1, e.annotations.len()); diff != "" {
		t.Errorf("cached annotations (-want +got):\n%s", diff)
	}
}

func TestEncodePoliciesRoundTrip(t *testing.T) {
	policies := []batchv1alpha1.LifecyclePolicy{
		{Event: busv1alpha1.PodFailedEvent, Action: busv1alpha1.RestartPodAction, When: "pod.exitCode == 137"},
		{Events: []busv1alpha1.Event{busv1alpha1.PodPendingEvent}, Action: busv1alpha1.RestartTaskAction,
			Timeout: &metav1.Duration{Duration: 90 * time.Second}},
		{ExitCode: ptr.To[int32](-1), Action: busv1alpha1.AbortJobAction},
		{Action: busv1alpha1.AbortJobAction, When: "!has(pod.name) && elapsed > duration('6h')"},
	}
	s, err := EncodePolicies(policies)
	if err != nil {
		t.Fatal(err)
	}
	got, errs := newTestEngine(t).DecodePolicies(s)
	if len(errs) > 0 {
		t.Fatalf("DecodePolicies(%q): %v", s, errs)
	}
	if diff := cmp.Diff(policies, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	empty, err := EncodePolicies(nil)
	if diff := cmp.Diff("[]\n", empty); diff != "" || err != nil {
		t.Errorf("EncodePolicies(nil) = %q, %v", empty, err)
	}
}

func TestValidatePoliciesSpec(t *testing.T) {
	// spec.policies may leave the action out; the rest of the rules hold.
	policies := []batchv1alpha1.LifecyclePolicy{{Event: busv1alpha1.PodFailedEvent}, {Event: busv1alpha1.PodFailedEvent}}
	got := errStrings(ValidatePolicies(policies, field.NewPath("spec", "policies"), false))
	want := []string{`spec.policies[1].event: Invalid value: "PodFailed": duplicate event across different policies: ` +
		`policy 0 already handles it; each event may appear in one policy without a when condition`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidateJob(t *testing.T) {
	cases := []struct {
		name string
		job  *batchv1alpha1.Job
		want []string
	}{
		{
			name: "valid everywhere",
			job: makeJob("j").
				task("ps", 1, batchv1alpha1.LifecyclePolicy{Event: busv1alpha1.PodFailedEvent, Action: busv1alpha1.TerminateJobAction,
					When: "task.name == 'ps'"}).
				task("worker", 2).
				policies(batchv1alpha1.LifecyclePolicy{Action: busv1alpha1.CompleteJobAction, When: "tasks.worker.succeeded >= 2"}).
				annotation(batchv1alpha1.PoliciesAnnotation, "- action: AbortJob\n  when: elapsed > duration('6h')\n").obj(),
		},
		{name: "nil", job: nil},
		{
			name: "errors in each place",
			job: makeJob("j").
				task("ps", 1).
				task("worker", 2,
					batchv1alpha1.LifecyclePolicy{Event: busv1alpha1.PodFailedEvent, When: "pod.exitCode == '1'"},
					batchv1alpha1.LifecyclePolicy{Event: busv1alpha1.PodEvictedEvent, When: "pod.exitCode == 1"}).
				policies(
					batchv1alpha1.LifecyclePolicy{When: "tasks.wroker.succeeded >= 2"},
					batchv1alpha1.LifecyclePolicy{When: "pod.exitCode"}).
				annotation(batchv1alpha1.PoliciesAnnotation, "- action: AbortJob\n  when: tasks['chief'].failed > 0\n- action: AbortJob\n  when: job.foo\n").obj(),
			want: []string{
				`spec.tasks[1].policies[0].when: Invalid value: "pod.exitCode == '1'": line 1, column 14: operator == cannot be applied to (int, string): ` +
					`compare values of the same type, converting one with int(), string() or duration() if needed`,
				`spec.policies[0].when: Invalid value: "tasks.wroker.succeeded >= 2": reads task "wroker", which the job does not have; ` +
					`its tasks are ps, worker (did you mean "worker"?); to allow a missing task, test it with 'wroker' in tasks`,
				`spec.policies[1].when: Invalid value: "pod.exitCode": the expression returns int, but a policy condition must return bool: ` +
					`compare the value, for example pod.exitCode == 137`,
				ann + `[1].when: Invalid value: "job.foo": line 1, column 4: unknown field 'foo'`,
			},
		},
		{
			name: "a valid annotation reading a missing task",
			job: makeJob("j").task("worker", 2).
				annotation(batchv1alpha1.PoliciesAnnotation, "- action: AbortJob\n  when: tasks['chief'].failed > 0\n").obj(),
			want: []string{
				ann + `[0].when: Invalid value: "tasks['chief'].failed > 0": reads task "chief", which the job does not have; ` +
					`its tasks are worker; to allow a missing task, test it with 'chief' in tasks`,
			},
		},
		{
			name: "invalid annotation YAML",
			job:  makeJob("j").task("worker", 2).annotation(batchv1alpha1.PoliciesAnnotation, "{").obj(),
			want: []string{ann + `: Invalid value: "{": is not valid YAML: yaml: line 1: did not find expected node content`},
		},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, errStrings(e.ValidateJob(tc.job))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicies(t *testing.T) {
	type entry struct {
		Path  string
		Event busv1alpha1.Event
	}
	pol := func(ev busv1alpha1.Event) batchv1alpha1.LifecyclePolicy {
		return batchv1alpha1.LifecyclePolicy{Event: ev, Action: busv1alpha1.RestartJobAction}
	}
	job := makeJob("j").
		task("ps", 1, pol(busv1alpha1.PodFailedEvent)).
		task("worker", 2, pol(busv1alpha1.PodEvictedEvent), pol(busv1alpha1.TaskFailedEvent)).
		policies(pol(busv1alpha1.PodPendingEvent), pol(busv1alpha1.JobUnknownEvent)).
		annotation(batchv1alpha1.PoliciesAnnotation, "- event: TaskCompleted\n  action: CompleteJob\n").obj()
	cases := []struct {
		name string
		job  *batchv1alpha1.Job
		task string
		want []entry
		errs []string
	}{
		{"worker event", job, "worker", []entry{
			{"spec.tasks[1].policies[0]", busv1alpha1.PodEvictedEvent},
			{"spec.tasks[1].policies[1]", busv1alpha1.TaskFailedEvent},
			{"spec.policies[0]", busv1alpha1.PodPendingEvent},
			{"spec.policies[1]", busv1alpha1.JobUnknownEvent},
			{ann + "[0]", busv1alpha1.TaskCompletedEvent},
		}, nil},
		{"job event", job, "", []entry{
			{"spec.policies[0]", busv1alpha1.PodPendingEvent},
			{"spec.policies[1]", busv1alpha1.JobUnknownEvent},
			{ann + "[0]", busv1alpha1.TaskCompletedEvent},
		}, nil},
		{"unknown task", job, "ghost", []entry{
			{"spec.policies[0]", busv1alpha1.PodPendingEvent},
			{"spec.policies[1]", busv1alpha1.JobUnknownEvent},
			{ann + "[0]", busv1alpha1.TaskCompletedEvent},
		}, nil},
		{"invalid annotation", makeJob("j").task("ps", 1, pol(busv1alpha1.PodFailedEvent)).
			annotation(batchv1alpha1.PoliciesAnnotation, "- event: Nope\n  action: RestartJob\n").obj(), "ps",
			[]entry{{"spec.tasks[0].policies[0]", busv1alpha1.PodFailedEvent}},
			[]string{ann + `[0].event: Unsupported value: "Nope": supported values: "*", "PodFailed", "PodEvicted", "PodPending", ` +
				`"Unknown", "TaskCompleted", "TaskFailed", "JobUpdated"`}},
		{"nil job", nil, "ps", nil, nil},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps, errs := e.Policies(tc.job, tc.task)
			var got []entry
			for _, p := range ps {
				got = append(got, entry{p.Path.String(), p.Event})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, errStrings(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	type result struct {
		Policies []batchv1alpha1.LifecyclePolicy
		Errs     []string
	}
	restart := batchv1alpha1.LifecyclePolicy{Event: busv1alpha1.PodFailedEvent, Action: busv1alpha1.RestartJobAction}
	cases := []struct {
		name string
		job  *batchv1alpha1.Job
		want result
	}{
		{"nil", nil, result{}},
		{"no annotation", makeJob("j").task("a", 1).obj(), result{}},
		{"annotation", makeJob("j").task("a", 1).annotation(batchv1alpha1.PoliciesAnnotation, "- event: PodFailed\n  action: RestartJob\n").obj(),
			result{Policies: []batchv1alpha1.LifecyclePolicy{restart}}},
		{"invalid annotation", makeJob("j").task("a", 1).annotation(batchv1alpha1.PoliciesAnnotation, "- event: PodFailed\n").obj(),
			result{Errs: []string{ann + "[0].action: Required value: a policy must name its action: one of AbortJob, RestartJob, " +
				"RestartTask, RestartPod, RestartPartition, TerminateJob, CompleteJob, ResumeJob"}}},
		{"invalid spec, valid annotation", makeJob("j").task("a", 1).policies(batchv1alpha1.LifecyclePolicy{When: "pod"}).
			annotation(batchv1alpha1.PoliciesAnnotation, "- event: PodFailed\n  action: RestartJob\n").obj(),
			result{Policies: []batchv1alpha1.LifecyclePolicy{restart}, Errs: []string{`spec.policies[0].when: Invalid value: "pod": ` +
				`the expression returns caldera.Pod, but a policy condition must return bool: compare the value, for example pod.exitCode == 137`}}},
	}
	e := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps, errs := e.Check(tc.job)
			if diff := cmp.Diff(tc.want, result{ps, errStrings(errs)}, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
