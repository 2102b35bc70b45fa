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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

func TestRecordCommand(t *testing.T) {
	full := make([]string, MaxHandledCommands)
	for i := range full {
		full[i] = fmt.Sprintf("u%d", i)
	}
	tests := []struct {
		name    string
		handled []string
		uid     string
		want    []string
	}{
		{name: "first", uid: "a", want: []string{"a"}},
		{name: "appended last", handled: []string{"a"}, uid: "b", want: []string{"a", "b"}},
		{name: "recorded once", handled: []string{"a", "b"}, uid: "a", want: []string{"a", "b"}},
		{name: "the oldest goes when full", handled: full, uid: "new", want: append(append([]string{}, full[1:]...), "new")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RecordCommand(tc.handled, tc.uid)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("RecordCommand (-want +got):\n%s", diff)
			}
			if !CommandHandled(got, tc.uid) {
				t.Errorf("CommandHandled(%q) = false after RecordCommand", tc.uid)
			}
		})
	}
}

func TestQueueState(t *testing.T) {
	const (
		open    = schedulingv1beta1.QueueStateOpen
		closed  = schedulingv1beta1.QueueStateClosed
		closing = schedulingv1beta1.QueueStateClosing
	)
	tests := []struct {
		name              string
		stored, requested schedulingv1beta1.QueueState
		podGroups         int32
		want              schedulingv1beta1.QueueState
	}{
		{name: "a new queue is open", want: open},
		{name: "a stored state stays", stored: closed, podGroups: 3, want: closed},
		{name: "a closing queue without PodGroups is closed", stored: closing, want: closed},
		{name: "a closing queue with PodGroups stays closing", stored: closing, podGroups: 1, want: closing},
		{name: "close with PodGroups is closing", stored: open, requested: closed, podGroups: 2, want: closing},
		{name: "close of an empty queue is closed", stored: open, requested: closed, want: closed},
		{name: "closing drains to closed", stored: closing, requested: closed, want: closed},
		{name: "open reopens a closed queue", stored: closed, requested: open, podGroups: 2, want: open},
		{name: "open reopens a closing queue", stored: closing, requested: open, podGroups: 2, want: open},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, QueueState(tc.stored, tc.requested, tc.podGroups)); diff != "" {
				t.Errorf("QueueState (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueueRequestInTree(t *testing.T) {
	const (
		open   = schedulingv1beta1.QueueStateOpen
		closed = schedulingv1beta1.QueueStateClosed
	)
	tests := []struct {
		name   string
		queues map[string]QueueRequest
		queue  string
		want   schedulingv1beta1.QueueState
	}{
		{name: "a top queue keeps its own request", queues: map[string]QueueRequest{"q": {Requested: closed}}, queue: "q", want: closed},
		{name: "a top queue without a request asks nothing", queues: map[string]QueueRequest{"q": {}}, queue: "q", want: ""},
		{name: "a queue under root asks nothing", queues: map[string]QueueRequest{"q": {Parent: "root"}, "root": {}}, queue: "q", want: ""},
		{
			name:   "closing a parent closes its child",
			queues: map[string]QueueRequest{"p": {Requested: closed}, "c": {Parent: "p"}},
			queue:  "c", want: closed,
		},
		{
			name:   "closing a grandparent closes a grandchild",
			queues: map[string]QueueRequest{"g": {Requested: closed}, "p": {Parent: "g"}, "c": {Parent: "p", Requested: open}},
			queue:  "c", want: closed,
		},
		{
			name:   "a child cannot be opened under a closed parent",
			queues: map[string]QueueRequest{"p": {Requested: closed}, "c": {Parent: "p", Requested: open}},
			queue:  "c", want: closed,
		},
		{
			name:   "reopening the parent reopens a child closed with it",
			queues: map[string]QueueRequest{"p": {Requested: open}, "c": {Parent: "p"}},
			queue:  "c", want: open,
		},
		{
			name:   "a child closed on its own stays closed when the parent opens",
			queues: map[string]QueueRequest{"p": {Requested: open}, "c": {Parent: "p", Requested: closed}},
			queue:  "c", want: closed,
		},
		{
			name:   "a missing parent ends the walk",
			queues: map[string]QueueRequest{"c": {Parent: "gone", Requested: open}},
			queue:  "c", want: open,
		},
		{
			name:   "a loop of parents ends",
			queues: map[string]QueueRequest{"a": {Parent: "b"}, "b": {Parent: "a"}},
			queue:  "a", want: open,
		},
		{name: "an unknown queue asks nothing", queues: map[string]QueueRequest{}, queue: "x", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := QueueRequestInTree(tc.queue, func(name string) (QueueRequest, bool) {
				q, ok := tc.queues[name]
				return q, ok
			})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("QueueRequestInTree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestedQueueState(t *testing.T) {
	tests := []struct {
		action busv1alpha1.Action
		want   schedulingv1beta1.QueueState
		ok     bool
	}{
		{action: busv1alpha1.OpenQueueAction, want: schedulingv1beta1.QueueStateOpen, ok: true},
		{action: busv1alpha1.CloseQueueAction, want: schedulingv1beta1.QueueStateClosed, ok: true},
		{action: busv1alpha1.AbortJobAction},
	}
	for _, tc := range tests {
		got, ok := RequestedQueueState(tc.action)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RequestedQueueState(%s) = %q, %v; want %q, %v", tc.action, got, ok, tc.want, tc.ok)
		}
	}
}
