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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// podReq is the request of pod j-<task>-<index> at version 1 with event e.
func podReq(task string, index int, e busv1alpha1.Event) Request {
	name := naming.PodName("j", task, index)
	return Request{
		Event: e, JobUID: jobUID, JobVersion: ptr.To[int32](1),
		TaskName: task, PodName: name, PodUID: types.UID("uid-" + name),
	}
}

func TestPodRequests(t *testing.T) {
	spec := &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("w", 2), task("p", 1, taskRetry(-1))}}
	running := newPod("w", 0, corev1.PodRunning)
	pending := newPod("w", 0, corev1.PodPending)
	with := func(r Request, f func(*Request)) Request { f(&r); return r }

	tests := []struct {
		name     string
		old, cur *corev1.Pod
		others   []*corev1.Pod
		want     []Request
	}{
		{
			name: "a pod the controller did not make raises nothing",
			cur:  newPod("w", 0, corev1.PodRunning, func(p *corev1.Pod) { delete(p.Annotations, batchv1alpha1.JobVersion) }),
		},
		{
			name: "an added pending pod raises PodPending since its creation",
			cur:  pending,
			want: []Request{with(podReq("w", 0, busv1alpha1.PodPendingEvent), func(r *Request) { r.Since = t0.Add(-30 * time.Minute) })},
		},
		{
			name: "an added running pod raises PodRunning",
			cur:  running,
			want: []Request{podReq("w", 0, busv1alpha1.PodRunningEvent)},
		},
		{
			name: "an added failed pod raises PodFailed, so a restarted controller loses nothing",
			cur:  newPod("w", 0, corev1.PodFailed, exited(2)),
			want: []Request{with(podReq("w", 0, busv1alpha1.PodFailedEvent), func(r *Request) { r.ExitCode = ptr.To[int32](2) })},
		},
		{
			name: "Pending to Running raises PodRunning",
			old:  pending, cur: running,
			want: []Request{podReq("w", 0, busv1alpha1.PodRunningEvent)},
		},
		{
			name: "a running pod's update within the restart budget raises OutOfSync",
			old:  running, cur: newPod("w", 0, corev1.PodRunning, restarts(2)),
			want: []Request{podReq("w", 0, busv1alpha1.OutOfSyncEvent)},
		},
		{
			name:   "restarts of the task's pods, init containers included, reaching maxRetry raise TaskFailed",
			old:    running,
			cur:    newPod("w", 0, corev1.PodRunning, restarts(2)),
			others: []*corev1.Pod{newPod("w", 1, corev1.PodPending, initRestarts(1))},
			want:   []Request{podReq("w", 0, busv1alpha1.TaskFailedEvent)},
		},
		{
			name:   "restarts of finished and deleting pods do not count",
			old:    running,
			cur:    newPod("w", 0, corev1.PodRunning, restarts(2)),
			others: []*corev1.Pod{newPod("w", 1, corev1.PodFailed, restarts(5)), newPod("w", 2, corev1.PodRunning, restarts(5), deleting())},
			want:   []Request{podReq("w", 0, busv1alpha1.OutOfSyncEvent)},
		},
		{
			name: "a pod that starts running over the budget raises PodRunning and TaskFailed",
			old:  pending, cur: newPod("w", 0, corev1.PodRunning, restarts(3)),
			want: []Request{podReq("w", 0, busv1alpha1.PodRunningEvent), podReq("w", 0, busv1alpha1.TaskFailedEvent)},
		},
		{
			name: "maxRetry -1 never raises TaskFailed",
			old:  newPod("p", 0, corev1.PodRunning), cur: newPod("p", 0, corev1.PodRunning, restarts(100)),
			want: []Request{podReq("p", 0, busv1alpha1.OutOfSyncEvent)},
		},
		{
			name: "Running to Failed raises PodFailed with the exit code",
			old:  running, cur: newPod("w", 0, corev1.PodFailed, exited(137)),
			want: []Request{with(podReq("w", 0, busv1alpha1.PodFailedEvent), func(r *Request) { r.ExitCode = ptr.To[int32](137) })},
		},
		{
			name: "a pod failed by a disruption is marked disrupted",
			old:  running, cur: newPod("w", 0, corev1.PodFailed, exited(143), disrupted()),
			want: []Request{with(podReq("w", 0, busv1alpha1.PodFailedEvent), func(r *Request) {
				r.ExitCode, r.Disrupted = ptr.To[int32](143), true
			})},
		},
		{
			name: "a failed pod's later update raises OutOfSync",
			old:  newPod("w", 0, corev1.PodFailed), cur: newPod("w", 0, corev1.PodFailed),
			want: []Request{podReq("w", 0, busv1alpha1.OutOfSyncEvent)},
		},
		{
			name:   "the last replica of a task to succeed raises TaskCompleted",
			old:    running,
			cur:    newPod("w", 0, corev1.PodSucceeded),
			others: []*corev1.Pod{newPod("w", 1, corev1.PodSucceeded)},
			want:   []Request{podReq("w", 0, busv1alpha1.TaskCompletedEvent)},
		},
		{
			name:   "a replica that succeeds before the others raises OutOfSync",
			old:    running,
			cur:    newPod("w", 0, corev1.PodSucceeded),
			others: []*corev1.Pod{newPod("w", 1, corev1.PodRunning)},
			want:   []Request{podReq("w", 0, busv1alpha1.OutOfSyncEvent)},
		},
		{
			name: "a deletion the controller did not make raises PodEvicted",
			old:  running, cur: newPod("w", 0, corev1.PodRunning, deleting()),
			want: []Request{with(podReq("w", 0, busv1alpha1.PodEvictedEvent), func(r *Request) { r.Disrupted = true })},
		},
		{
			name: "the end of a deletion already seen raises OutOfSync",
			old:  newPod("w", 0, corev1.PodRunning, deleting()),
			want: []Request{podReq("w", 0, busv1alpha1.OutOfSyncEvent)},
		},
		{
			name: "a pod gone without its deletion seen raises PodEvicted",
			old:  running,
			want: []Request{with(podReq("w", 0, busv1alpha1.PodEvictedEvent), func(r *Request) { r.Disrupted = true })},
		},
		{
			name: "a pod the controller deletes raises OutOfSync",
			old:  newPod("w", 0, corev1.PodRunning, markedOutOfSync()), cur: newPod("w", 0, corev1.PodRunning, markedOutOfSync(), deleting()),
			want: []Request{podReq("w", 0, busv1alpha1.OutOfSyncEvent)},
		},
		{
			name: "a pod of an earlier run carries its version, and its partition",
			cur:  newPod("w", 1, corev1.PodRunning, podVersion(0), partition("1")),
			want: []Request{with(podReq("w", 1, busv1alpha1.PodRunningEvent), func(r *Request) {
				r.JobVersion, r.Partition = ptr.To[int32](0), "1"
			})},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods := tc.others
			if tc.old != nil {
				pods = append([]*corev1.Pod{tc.old}, pods...)
			}
			got := PodRequests(spec, tc.old, tc.cur, pods)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodGroupRequest(t *testing.T) {
	tests := []struct {
		old, cur schedulingv1beta1.PodGroupPhase
		want     Request
		wantOK   bool
	}{
		{old: schedulingv1beta1.PodGroupRunning, cur: schedulingv1beta1.PodGroupRunning},
		{old: schedulingv1beta1.PodGroupRunning, cur: schedulingv1beta1.PodGroupUnknown,
			want: Request{Event: busv1alpha1.JobUnknownEvent}, wantOK: true},
		{old: schedulingv1beta1.PodGroupPending, cur: schedulingv1beta1.PodGroupInqueue,
			want: Request{Event: busv1alpha1.OutOfSyncEvent}, wantOK: true},
		{old: "", cur: schedulingv1beta1.PodGroupPending, want: Request{Event: busv1alpha1.OutOfSyncEvent}, wantOK: true},
	}
	for _, tc := range tests {
		got, ok := PodGroupRequest(tc.old, tc.cur)
		if ok != tc.wantOK {
			t.Errorf("%s -> %s: ok %v, want %v", tc.old, tc.cur, ok, tc.wantOK)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s -> %s (-want +got):\n%s", tc.old, tc.cur, diff)
		}
	}
}

func TestCommandRequestAndIsInternal(t *testing.T) {
	want := Request{Event: busv1alpha1.CommandIssuedEvent, Action: busv1alpha1.AbortJobAction}
	if diff := cmp.Diff(want, CommandRequest(busv1alpha1.AbortJobAction)); diff != "" {
		t.Errorf("CommandRequest (-want +got):\n%s", diff)
	}
	internal := map[busv1alpha1.Event]bool{
		busv1alpha1.OutOfSyncEvent: true, busv1alpha1.CommandIssuedEvent: true, busv1alpha1.PodRunningEvent: true,
		busv1alpha1.PodFailedEvent: false, busv1alpha1.PodEvictedEvent: false, busv1alpha1.PodPendingEvent: false,
		busv1alpha1.JobUnknownEvent: false, busv1alpha1.TaskCompletedEvent: false, busv1alpha1.TaskFailedEvent: false,
	}
	for e, want := range internal {
		if got := IsInternal(e); got != want {
			t.Errorf("IsInternal(%s) = %v, want %v", e, got, want)
		}
	}
}
