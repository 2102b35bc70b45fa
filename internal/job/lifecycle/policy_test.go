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

package lifecycle

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

// on is a policy taking action on events.
func on(action busv1alpha1.Action, events ...busv1alpha1.Event) batchv1alpha1.LifecyclePolicy {
	p := batchv1alpha1.LifecyclePolicy{Action: action}
	if len(events) == 1 {
		p.Event = events[0]
	} else {
		p.Events = events
	}
	return p
}

// onExit is a policy taking action on an exit code.
func onExit(action busv1alpha1.Action, code int32) batchv1alpha1.LifecyclePolicy {
	return batchv1alpha1.LifecyclePolicy{Action: action, ExitCode: ptr.To(code)}
}

// when adds a when expression to p.
func when(p batchv1alpha1.LifecyclePolicy, expr string) batchv1alpha1.LifecyclePolicy {
	p.When = expr
	return p
}

// after adds a timeout to p.
func after(p batchv1alpha1.LifecyclePolicy, d time.Duration) batchv1alpha1.LifecyclePolicy {
	p.Timeout = &metav1.Duration{Duration: d}
	return p
}

// whenTable evaluates when expressions by name: "true", "false", or "error".
func whenTable(calls *[]string) WhenFunc {
	return func(p batchv1alpha1.LifecyclePolicy) (bool, error) {
		*calls = append(*calls, p.When)
		switch p.When {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, errors.New("no such key: pod.nope")
	}
}

func TestResolvePolicy(t *testing.T) {
	failed := podReq("w", 0, busv1alpha1.PodFailedEvent)
	failedWith := func(code int32) Request { r := failed; r.ExitCode = ptr.To(code); return r }
	pending := podReq("w", 0, busv1alpha1.PodPendingEvent)
	evicted := podReq("w", 0, busv1alpha1.PodEvictedEvent)
	unknown := Request{Event: busv1alpha1.JobUnknownEvent}
	outOfSync := podReq("w", 0, busv1alpha1.OutOfSyncEvent)
	sync := Decision{Action: busv1alpha1.SyncJobAction}
	decision := func(action busv1alpha1.Action, req Request, policy string) Decision {
		return Decision{Action: action, Target: targetOf(action, req), Event: req.Event, Policy: policy, Reason: string(req.Event)}
	}

	tests := []struct {
		name      string
		taskP     []batchv1alpha1.LifecyclePolicy
		jobP      []batchv1alpha1.LifecyclePolicy
		extra     []batchv1alpha1.LifecyclePolicy
		req       Request
		want      Decision
		wantCalls []string
		wantErr   string
	}{
		{
			name: "a Command's action wins over every policy",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.AnyEvent)},
			req:  CommandRequest(busv1alpha1.AbortJobAction),
			want: Decision{Action: busv1alpha1.AbortJobAction, Event: busv1alpha1.CommandIssuedEvent, Reason: ReasonCommandIssued},
		},
		{
			name: "internal events match no policy, not even *",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.AnyEvent)},
			req:  outOfSync,
			want: Decision{Action: busv1alpha1.SyncJobAction, Event: busv1alpha1.OutOfSyncEvent},
		},
		{
			name: "a request without an event matches no policy",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.AnyEvent)},
			req:  Request{},
			want: sync,
		},
		{
			name: "* matches any event",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.AnyEvent)},
			req:  failed,
			want: decision(busv1alpha1.RestartJobAction, failed, "spec.policies[0]"),
		},
		{
			name: "a request of another job of the same name is stale",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.PodFailedEvent)},
			req:  func() Request { r := failed; r.JobUID = "other"; return r }(),
			want: Decision{Action: busv1alpha1.SyncJobAction, Event: busv1alpha1.PodFailedEvent, Stale: true},
		},
		{
			name: "a pod of an earlier run is stale",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.PodFailedEvent)},
			req:  func() Request { r := failed; r.JobVersion = ptr.To[int32](0); return r }(),
			want: Decision{Action: busv1alpha1.SyncJobAction, Event: busv1alpha1.PodFailedEvent, Stale: true},
		},
		{
			name: "a job-level request is never stale",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.JobUnknownEvent)},
			req:  unknown,
			want: decision(busv1alpha1.RestartJobAction, unknown, "spec.policies[0]"),
		},
		{
			name:  "the task's policies come before the job's",
			taskP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartTaskAction, busv1alpha1.PodFailedEvent)},
			jobP:  []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.PodFailedEvent)},
			req:   failed,
			want:  decision(busv1alpha1.RestartTaskAction, failed, "spec.tasks[1].policies[0]"),
		},
		{
			name:  "another task's policies are not consulted",
			taskP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartTaskAction, busv1alpha1.PodFailedEvent)},
			req:   podReq("ps", 0, busv1alpha1.PodFailedEvent),
			want:  Decision{Action: busv1alpha1.SyncJobAction, Event: busv1alpha1.PodFailedEvent},
		},
		{
			name:  "the job's policies apply when the task's do not match",
			taskP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartTaskAction, busv1alpha1.PodEvictedEvent)},
			jobP:  []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.TerminateJobAction, busv1alpha1.PodEvictedEvent, busv1alpha1.PodFailedEvent)},
			req:   failed,
			want:  decision(busv1alpha1.TerminateJobAction, failed, "spec.policies[0]"),
		},
		{
			name:  "the annotation's policies come last",
			jobP:  []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.PodEvictedEvent)},
			extra: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.AbortJobAction, busv1alpha1.PodEvictedEvent), on(busv1alpha1.TerminateJobAction, busv1alpha1.PodFailedEvent)},
			req:   failed,
			want:  decision(busv1alpha1.TerminateJobAction, failed, AnnotationPoliciesPath+"[1]"),
		},
		{
			name: "an exit code matches",
			jobP: []batchv1alpha1.LifecyclePolicy{onExit(busv1alpha1.TerminateJobAction, 3)},
			req:  failedWith(3),
			want: decision(busv1alpha1.TerminateJobAction, failedWith(3), "spec.policies[0]"),
		},
		{
			name: "another exit code does not",
			jobP: []batchv1alpha1.LifecyclePolicy{onExit(busv1alpha1.TerminateJobAction, 3)},
			req:  failedWith(1),
			want: Decision{Action: busv1alpha1.SyncJobAction, Event: busv1alpha1.PodFailedEvent},
		},
		{
			name: "policies are consulted in order: an exit code policy before an event policy wins",
			jobP: []batchv1alpha1.LifecyclePolicy{onExit(busv1alpha1.TerminateJobAction, 3), on(busv1alpha1.RestartJobAction, busv1alpha1.PodFailedEvent)},
			req:  failedWith(3),
			want: decision(busv1alpha1.TerminateJobAction, failedWith(3), "spec.policies[0]"),
		},
		{
			name:  "PodPending without a timeout is skipped; the next match has one",
			taskP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.AbortJobAction, busv1alpha1.PodPendingEvent)},
			jobP:  []batchv1alpha1.LifecyclePolicy{after(on(busv1alpha1.RestartPodAction, busv1alpha1.PodPendingEvent), 5*time.Minute)},
			req:   pending,
			want: func() Decision {
				d := decision(busv1alpha1.RestartPodAction, pending, "spec.policies[0]")
				d.Delay = 5 * time.Minute
				return d
			}(),
		},
		{
			name: "an eviction does not count as a retry",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.PodEvictedEvent)},
			req:  evicted,
			want: func() Decision {
				d := decision(busv1alpha1.RestartJobAction, evicted, "spec.policies[0]")
				d.KeepRetryCount = true
				return d
			}(),
		},
		{
			name: "a pod failed by a disruption does not count as a retry",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartJobAction, busv1alpha1.PodFailedEvent)},
			req:  func() Request { r := failed; r.Disrupted = true; return r }(),
			want: func() Decision {
				d := decision(busv1alpha1.RestartJobAction, failed, "spec.policies[0]")
				d.KeepRetryCount = true
				return d
			}(),
		},
		{
			name: "partition actions target the request's partition",
			jobP: []batchv1alpha1.LifecyclePolicy{on(busv1alpha1.RestartPartitionAction, busv1alpha1.PodFailedEvent)},
			req:  func() Request { r := failed; r.Partition = "2"; return r }(),
			want: func() Decision {
				d := decision(busv1alpha1.RestartPartitionAction, failed, "spec.policies[0]")
				d.Target = Target{Task: "w", Partition: "2"}
				return d
			}(),
		},
		{
			name:      "when true: the policy fires",
			jobP:      []batchv1alpha1.LifecyclePolicy{when(on(busv1alpha1.RestartJobAction, busv1alpha1.PodFailedEvent), "true")},
			req:       failed,
			want:      decision(busv1alpha1.RestartJobAction, failed, "spec.policies[0]"),
			wantCalls: []string{"true"},
		},
		{
			name: "when false: the next policy is consulted",
			jobP: []batchv1alpha1.LifecyclePolicy{
				when(on(busv1alpha1.RestartJobAction, busv1alpha1.PodFailedEvent), "false"),
				on(busv1alpha1.TerminateJobAction, busv1alpha1.PodFailedEvent),
			},
			req:       failed,
			want:      decision(busv1alpha1.TerminateJobAction, failed, "spec.policies[1]"),
			wantCalls: []string{"false"},
		},
		{
			name:      "when is not evaluated when the event does not match",
			jobP:      []batchv1alpha1.LifecyclePolicy{when(on(busv1alpha1.RestartJobAction, busv1alpha1.PodEvictedEvent), "true")},
			req:       failed,
			want:      Decision{Action: busv1alpha1.SyncJobAction, Event: busv1alpha1.PodFailedEvent},
			wantCalls: nil,
		},
		{
			name:      "a when error is returned with the policy's path",
			taskP:     []batchv1alpha1.LifecyclePolicy{when(on(busv1alpha1.RestartJobAction, busv1alpha1.PodFailedEvent), "error")},
			req:       failed,
			wantErr:   "spec.tasks[1].policies[0].when: no such key: pod.nope",
			wantCalls: []string{"error"},
		},
		{
			name: "a policy with only when is consulted for internal events too",
			extra: []batchv1alpha1.LifecyclePolicy{
				{Action: busv1alpha1.TerminateJobAction, When: "false"},
				{Action: busv1alpha1.CompleteJobAction, When: "true"},
			},
			req: outOfSync,
			want: Decision{Action: busv1alpha1.CompleteJobAction, Event: busv1alpha1.OutOfSyncEvent,
				Policy: AnnotationPoliciesPath + "[1]", Reason: ReasonPolicyCondition},
			wantCalls: []string{"false", "true"},
		},
		{
			name:  "a stale request consults policies with only a when condition",
			taskP: []batchv1alpha1.LifecyclePolicy{{Action: busv1alpha1.AbortJobAction, When: "true"}},
			req:   func() Request { r := failed; r.JobVersion = ptr.To[int32](0); return r }(),
			want: Decision{Action: busv1alpha1.AbortJobAction, Event: busv1alpha1.PodFailedEvent,
				Policy: "spec.tasks[1].policies[0]", Reason: ReasonPolicyCondition, Stale: true},
			wantCalls: []string{"true"},
		},
		{
			name:    "a matching policy without a valid action is an error",
			jobP:    []batchv1alpha1.LifecyclePolicy{{Event: busv1alpha1.PodFailedEvent}},
			req:     failed,
			wantErr: `spec.policies[0].action: unsupported action ""`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := newJob([]batchv1alpha1.TaskSpec{task("ps", 1), task("w", 2, taskPolicies(tc.taskP...))}, jobPolicies(tc.jobP...))
			var calls []string
			got, err := ResolvePolicy(job, tc.req, tc.extra, whenTable(&calls))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Decision{}, "Message")); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, calls); diff != "" {
				t.Errorf("when evaluations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolvePolicyMessages(t *testing.T) {
	job := newJob([]batchv1alpha1.TaskSpec{task("w", 2)}, jobPolicies(onExit(busv1alpha1.RestartJobAction, 3)))
	req := podReq("w", 0, busv1alpha1.PodFailedEvent)
	req.ExitCode = ptr.To[int32](3)
	got, err := ResolvePolicy(job, req, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "event PodFailed of pod j-w-0 (exit code 3) matched exit code 3 of spec.policies[0] (RestartJob)"
	if got.Message != want {
		t.Errorf("message %q, want %q", got.Message, want)
	}

	job.Spec.Policies = []batchv1alpha1.LifecyclePolicy{{Action: busv1alpha1.AbortJobAction, When: "job.retryCount > 1"}}
	if _, err := ResolvePolicy(job, req, nil, nil); err == nil || !strings.Contains(err.Error(), "no evaluator") {
		t.Errorf("a when policy without an evaluator: error %v", err)
	}
}

func TestScopeOf(t *testing.T) {
	want := map[busv1alpha1.Action]Scope{
		busv1alpha1.RestartJobAction: JobScope, busv1alpha1.AbortJobAction: JobScope, busv1alpha1.ResumeJobAction: JobScope,
		busv1alpha1.TerminateJobAction: JobScope, busv1alpha1.CompleteJobAction: JobScope, busv1alpha1.SyncJobAction: JobScope,
		busv1alpha1.RestartTaskAction: TaskScope, busv1alpha1.RestartPodAction: PodScope, busv1alpha1.RestartPartitionAction: PartitionScope,
	}
	for a, s := range want {
		if got := ScopeOf(a); got != s {
			t.Errorf("ScopeOf(%s) = %s, want %s", a, got, s)
		}
	}
}
