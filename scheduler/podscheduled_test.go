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

package scheduler

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// testJob builds a job in queue q with one task per status, named p0, p1, ... (UIDs u0, u1, ...).
func testJob(phase schedulingv1beta1.PodGroupPhase, statuses ...api.TaskStatus) *api.JobInfo {
	j := api.NewJobInfo("ns/pg")
	j.Namespace, j.Name, j.Queue, j.Phase = "ns", "pg", "q", phase
	for i, st := range statuses {
		uid := api.TaskID("u" + string(rune('0'+i)))
		name := "p" + string(rune('0'+i))
		j.Tasks[uid] = &api.TaskInfo{UID: uid, Job: j.UID, Name: name, Namespace: "ns", Status: st,
			Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: uid, ResourceVersion: "7"}}}
	}
	return j
}

func fitErrors(nodes int, reasons map[string]int) *api.FitErrors {
	fe := api.NewFitErrors(nodes)
	for r, n := range reasons {
		fe.AddN(r, n)
	}
	return fe
}

func TestPodScheduledDecisions(t *testing.T) {
	cpu := fitErrors(4, map[string]int{"Insufficient cpu": 3, "node(s) had untolerated taint {gpu: true}": 1})
	cases := []struct {
		name      string
		job       *api.JobInfo
		diagnosis *framework.JobDiagnosis
		queueHeld bool
		want      map[api.TaskID]podScheduled
	}{{
		name:      "no node fits the pod",
		job:       testJob(schedulingv1beta1.PodGroupInqueue, api.Pending),
		diagnosis: &framework.JobDiagnosis{TaskFit: map[api.TaskID]*api.FitErrors{"u0": cpu}, FirstFailedTask: "u0"},
		want: map[api.TaskID]podScheduled{"u0": {reason: corev1.PodReasonUnschedulable,
			message: "0/4 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 3 Insufficient cpu."}},
	}, {
		name: "a gang member that does not fit: every pending member is Unschedulable, placed ones are left alone",
		job:  testJob(schedulingv1beta1.PodGroupInqueue, api.Pending, api.Pending, api.Running, api.Gated),
		diagnosis: &framework.JobDiagnosis{TaskFit: map[api.TaskID]*api.FitErrors{"u1": cpu}, FirstFailedTask: "u1",
			ShareReasons: []string{"queue q is full"}},
		queueHeld: true,
		want: map[api.TaskID]podScheduled{
			"u0": {reason: corev1.PodReasonUnschedulable,
				message: "pod group ns/pg is placed whole and its pod p1 fits no node: 0/4 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 3 Insufficient cpu."},
			"u1": {reason: corev1.PodReasonUnschedulable,
				message: "0/4 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 3 Insufficient cpu."},
		},
	}, {
		name:      "held by the queue's share only",
		job:       testJob(schedulingv1beta1.PodGroupInqueue, api.Pending),
		diagnosis: &framework.JobDiagnosis{TaskFit: map[api.TaskID]*api.FitErrors{}, ShareReasons: []string{"queue q has reached its capability of cpu"}},
		queueHeld: true,
		want: map[api.TaskID]podScheduled{"u0": {reason: WaitingForQueueReason,
			message: "waiting for queue q: queue q has reached its capability of cpu"}},
	}, {
		name:      "not admitted, nothing explained",
		job:       testJob(schedulingv1beta1.PodGroupPending, api.Pending, api.Gated),
		queueHeld: true,
		want: map[api.TaskID]podScheduled{"u0": {reason: WaitingForQueueReason,
			message: "waiting for queue q: the PodGroup is waiting to be admitted to queue q"}},
	}, {
		name:      "neither fit errors nor the queue: left alone",
		job:       testJob(schedulingv1beta1.PodGroupInqueue, api.Pending),
		diagnosis: &framework.JobDiagnosis{Reasons: []string{"not enough valid pods"}},
	}, {
		name:      "nothing pending",
		job:       testJob(schedulingv1beta1.PodGroupRunning, api.Running, api.Binding),
		diagnosis: &framework.JobDiagnosis{TaskFit: map[api.TaskID]*api.FitErrors{"u9": cpu}, FirstFailedTask: "u9"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := podScheduledDecisions(tc.job, tc.diagnosis, tc.queueHeld)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(podScheduled{})); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodScheduledCondition(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-time.Hour))
	c := podScheduled{reason: corev1.PodReasonUnschedulable, message: "0/1 nodes are available: 1 Insufficient cpu."}
	withCond := func(status corev1.ConditionStatus, reason, msg string) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionFalse},
			{Type: corev1.PodScheduled, Status: status, Reason: reason, Message: msg, LastTransitionTime: earlier},
		}}}
	}
	cases := []struct {
		name       string
		pod        *corev1.Pod
		wantStored bool
		wantTime   metav1.Time
	}{
		{name: "no condition", pod: &corev1.Pod{}, wantTime: metav1.NewTime(now)},
		{name: "same condition stored", pod: withCond(corev1.ConditionFalse, c.reason, c.message), wantStored: true, wantTime: earlier},
		{name: "other message: the transition time is kept", pod: withCond(corev1.ConditionFalse, c.reason, "0/2 nodes are available."), wantTime: earlier},
		{name: "other reason", pod: withCond(corev1.ConditionFalse, WaitingForQueueReason, c.message), wantTime: earlier},
		{name: "was True", pod: withCond(corev1.ConditionTrue, "", ""), wantTime: metav1.NewTime(now)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := storedPodScheduled(tc.pod, c); got != tc.wantStored {
				t.Errorf("storedPodScheduled = %v, want %v", got, tc.wantStored)
			}
			want := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: c.reason,
				Message: c.message, LastTransitionTime: tc.wantTime}
			if diff := cmp.Diff(want, podScheduledCondition(tc.pod, c, now)); diff != "" {
				t.Errorf("condition (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodConditionPatch(t *testing.T) {
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: WaitingForQueueReason,
		Message: "waiting for queue q: x", LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	body, err := podConditionPatch("42", cond)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"metadata": map[string]any{"resourceVersion": "42"},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": "PodScheduled", "status": "False", "reason": WaitingForQueueReason, "message": "waiting for queue q: x",
			"lastTransitionTime": "2026-01-02T03:04:05Z", "lastProbeTime": nil,
		}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("patch (-want +got):\n%s", diff)
	}
}

// TestWantPodConditionsWritesOncePerChange checks that a condition is handed to the workers once
// per change, not for a pod that already carries it, and that the memory goes with the pods.
func TestWantPodConditionsWritesOncePerChange(t *testing.T) {
	w := newStatusWriter(&Scheduler{})
	defer w.queue.ShutDown()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	j := testJob(schedulingv1beta1.PodGroupInqueue, api.Pending, api.Pending)
	unfit := podScheduled{reason: corev1.PodReasonUnschedulable, message: "0/1 nodes are available: 1 Insufficient cpu."}
	queued := podScheduled{reason: WaitingForQueueReason, message: "waiting for queue q: full"}
	j.Tasks["u1"].Pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: unfit.reason, Message: unfit.message}}

	steps := []struct {
		name       string
		decided    map[api.TaskID]podScheduled
		wantWrites int
	}{
		{"first decision: only the pod without the condition", map[api.TaskID]podScheduled{"u0": unfit, "u1": unfit}, 1},
		{"same decision again", map[api.TaskID]podScheduled{"u0": unfit, "u1": unfit}, 1},
		{"a new reason", map[api.TaskID]podScheduled{"u0": queued, "u1": unfit}, 2},
		{"not worked on: nothing written", nil, 2},
	}
	var last podWrite
	writes := 0
	for _, st := range steps {
		w.wantPodConditions(j, st.decided, now, true)
		// Take what was handed over, as a worker would.
		for w.queue.Len() > 0 {
			k, _ := w.queue.Get()
			last = w.pods[k]
			delete(w.pods, k)
			w.queue.Done(k)
			writes++
		}
		if writes != st.wantWrites {
			t.Fatalf("%s: %d writes handed over, want %d", st.name, writes, st.wantWrites)
		}
	}
	if last.cond.Reason != WaitingForQueueReason || last.resourceVersion != "7" {
		t.Errorf("the last write is %+v, want reason %q over resourceVersion 7", last, WaitingForQueueReason)
	}

	j.Tasks["u0"].Status = api.Binding
	delete(j.Tasks, "u1")
	w.wantPodConditions(j, nil, now, true)
	if len(w.podMemory) != 0 {
		t.Errorf("memory kept for pods bound or gone: %v", w.podMemory)
	}
	w.wantPodConditions(testJob(schedulingv1beta1.PodGroupInqueue, api.Pending), map[api.TaskID]podScheduled{"u0": unfit}, now, true)
	w.forgetJobPods("ns/pg")
	if len(w.podMemory) != 0 {
		t.Errorf("memory kept for a job gone: %v", w.podMemory)
	}
}
