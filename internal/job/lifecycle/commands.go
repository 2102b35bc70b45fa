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
	"slices"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// MaxHandledCommands bounds status.handledCommands: the UIDs of the last Commands carried out.
// It must stay at or below the field's MaxItems.
const MaxHandledCommands = 32

// CommandHandled reports whether the Command with uid was carried out already: its UID is
// recorded in handled (status.handledCommands).
func CommandHandled(handled []string, uid string) bool {
	return slices.Contains(handled, uid)
}

// RecordCommand returns handled with uid added last, keeping the newest MaxHandledCommands.
// A Command is deleted only once this list is written, so a Command seen again (the delete
// failed, the cache lags) is deleted without being carried out twice.
func RecordCommand(handled []string, uid string) []string {
	if CommandHandled(handled, uid) {
		return handled
	}
	out := append(slices.Clone(handled), uid)
	if len(out) > MaxHandledCommands {
		out = out[len(out)-MaxHandledCommands:]
	}
	return out
}

// RequestedQueueState is the state an OpenQueue or CloseQueue Command asks a queue for: Open or
// Closed. ok is false for any other action.
func RequestedQueueState(action busv1alpha1.Action) (state schedulingv1beta1.QueueState, ok bool) {
	switch action {
	case busv1alpha1.OpenQueueAction:
		return schedulingv1beta1.QueueStateOpen, true
	case busv1alpha1.CloseQueueAction:
		return schedulingv1beta1.QueueStateClosed, true
	}
	return "", false
}

// QueueRequest is what QueueRequestInTree needs to know of one queue: the state its last queue
// Command requested (empty when none) and its parent (empty or "root" at the top).
type QueueRequest struct {
	Requested schedulingv1beta1.QueueState
	Parent    string
}

// maxQueueDepth bounds the walk up a queue's ancestors, so that a loop of parents ends.
const maxQueueDepth = 64

// QueueRequestInTree is the state requested of the queue name once its ancestors count, as in
// Volcano's hierarchical queues: Closed while any ancestor was asked to close (closing a queue
// closes its children, and a child cannot be opened under a closed parent); otherwise the
// queue's own request. A child queue with no request of its own is asked to be Open: it was
// closed with its parent and reopens with it. queues tells each queue's request and parent.
func QueueRequestInTree(name string, queues func(string) (QueueRequest, bool)) schedulingv1beta1.QueueState {
	own, ok := queues(name)
	if !ok {
		return ""
	}
	parent := own.Parent
	for depth := 0; parent != "" && parent != schedulingv1beta1.RootQueue && depth < maxQueueDepth; depth++ {
		q, ok := queues(parent)
		if !ok {
			break
		}
		if q.Requested == schedulingv1beta1.QueueStateClosed {
			return schedulingv1beta1.QueueStateClosed
		}
		parent = q.Parent
	}
	if own.Requested == "" && own.Parent != "" && own.Parent != schedulingv1beta1.RootQueue {
		return schedulingv1beta1.QueueStateOpen
	}
	return own.Requested
}

// QueueState is the state a queue's status should have, given the state stored in it, the
// state the last queue Command requested (empty when none) and how many PodGroups the queue
// holds. As in Volcano: a queue asked to open is Open; a queue asked to close is Closing while
// it holds PodGroups, then Closed; a queue with no state is Open; a Closing queue with no
// PodGroups left is Closed. The scheduler writes it: it is the one writer of a Queue's status.
func QueueState(stored, requested schedulingv1beta1.QueueState, podGroups int32) schedulingv1beta1.QueueState {
	switch requested {
	case schedulingv1beta1.QueueStateOpen:
		return schedulingv1beta1.QueueStateOpen
	case schedulingv1beta1.QueueStateClosed:
		if podGroups > 0 {
			return schedulingv1beta1.QueueStateClosing
		}
		return schedulingv1beta1.QueueStateClosed
	}
	switch {
	case stored == "":
		return schedulingv1beta1.QueueStateOpen
	case stored == schedulingv1beta1.QueueStateClosing && podGroups == 0:
		return schedulingv1beta1.QueueStateClosed
	}
	return stored
}
