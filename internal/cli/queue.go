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

package cli

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// Bounds of a queue's weight, as the Queue CRD has them.
const (
	minQueueWeight = 1
	maxQueueWeight = 65535
)

// podGroupCounts counts a queue's PodGroups by phase.
type podGroupCounts struct {
	inqueue, pending, running, unknown, completed int
}

// countPodGroups counts PodGroups by queue and phase. A PodGroup without a queue counts for the
// default queue, where the API server's default puts it; phases other than the five are not
// counted.
func countPodGroups(podGroups []schedulingv1beta1.PodGroup) map[string]podGroupCounts {
	counts := map[string]podGroupCounts{}
	for i := range podGroups {
		pg := &podGroups[i]
		queue := pg.Spec.Queue
		if queue == "" {
			queue = schedulingv1beta1.DefaultQueue
		}
		c := counts[queue]
		switch pg.Status.Phase {
		case schedulingv1beta1.PodGroupInqueue:
			c.inqueue++
		case schedulingv1beta1.PodGroupPending:
			c.pending++
		case schedulingv1beta1.PodGroupRunning:
			c.running++
		case schedulingv1beta1.PodGroupUnknown:
			c.unknown++
		case schedulingv1beta1.PodGroupCompleted:
			c.completed++
		}
		counts[queue] = c
	}
	return counts
}

// queueListHeader is the header of `vcctl queue list` and `vcctl queue get`, Volcano's columns.
var queueListHeader = []string{"Name", "Weight", "State", "Parent", "Inqueue", "Pending", "Running", "Unknown", "Completed"}

// queueListWidths are the widths Volcano's `vcctl queue list` pads its columns to.
var queueListWidths = []int{25, 8, 8, 8, 8, 8, 8, 8, 8}

// formatQueueList renders `vcctl queue list` (and `get`, with one queue) exactly as Volcano's
// vcctl does, so that scripts parsing its output keep working: one row per queue, sorted by
// name, with its PodGroups counted by phase, every cell left-aligned and padded with spaces to
// Volcano's fixed width (the last one too; a longer cell runs into the next). No queues print
// "No resources found".
func formatQueueList(queues []schedulingv1beta1.Queue, counts map[string]podGroupCounts) string {
	if len(queues) == 0 {
		return noResources
	}
	sorted := append([]schedulingv1beta1.Queue(nil), queues...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var b strings.Builder
	writePadded(&b, queueListWidths, queueListHeader)
	for i := range sorted {
		q := &sorted[i]
		c := counts[q.Name]
		writePadded(&b, queueListWidths, []string{
			q.Name, itoa(q.Spec.Weight), string(q.Status.State), q.Spec.Parent,
			fmt.Sprint(c.inqueue), fmt.Sprint(c.pending), fmt.Sprint(c.running), fmt.Sprint(c.unknown), fmt.Sprint(c.completed),
		})
	}
	return b.String()
}

// Actions of `vcctl queue operate -a`.
const (
	queueActionOpen   = "open"
	queueActionClose  = "close"
	queueActionUpdate = "update"
)

// queueOperation is what `vcctl queue operate` does: create a Command with action, or (update)
// server-side apply the weight.
type queueOperation struct {
	// action is the Command's action for open and close; empty for update.
	action busv1alpha1.Action
	// weight is the new spec.weight for update; 0 otherwise.
	weight int32
}

// parseQueueOperation checks the flags of `vcctl queue operate` and says what to do. weightSet
// tells whether -w/--weight was given.
func parseQueueOperation(name, action string, weight int32, weightSet bool) (queueOperation, error) {
	if name == "" {
		return queueOperation{}, errors.New("queue name is required: pass -n/--name")
	}
	switch strings.ToLower(action) {
	case queueActionOpen, queueActionClose:
		if weightSet {
			return queueOperation{}, fmt.Errorf("-w/--weight is only used with -a %s: drop it, or change the weight "+
				"in a separate `vcctl queue operate -n %s -a update -w %d`", queueActionUpdate, name, weight)
		}
		if strings.ToLower(action) == queueActionOpen {
			return queueOperation{action: busv1alpha1.OpenQueueAction}, nil
		}
		return queueOperation{action: busv1alpha1.CloseQueueAction}, nil
	case queueActionUpdate:
		if !weightSet {
			return queueOperation{}, fmt.Errorf("-a update needs the new weight: pass -w/--weight %d to %d", minQueueWeight, maxQueueWeight)
		}
		if err := checkQueueWeight(weight); err != nil {
			return queueOperation{}, err
		}
		return queueOperation{weight: weight}, nil
	case "":
		return queueOperation{}, errors.New("action is required: pass -a/--action open, close or update")
	default:
		return queueOperation{}, fmt.Errorf("-a/--action %q is not an action: use open, close or update", action)
	}
}

func checkQueueWeight(weight int32) error {
	if weight < minQueueWeight || weight > maxQueueWeight {
		return fmt.Errorf("-w/--weight %d is out of range: a queue's weight is %d to %d", weight, minQueueWeight, maxQueueWeight)
	}
	return nil
}

// queueCreateFlags are the flags of `vcctl queue create`.
type queueCreateFlags struct {
	name   string
	weight int32
	state  string
	parent string
}

// buildQueue checks the flags of `vcctl queue create` and returns the queue to create, and the
// action to ask of the queue controller once it exists: CloseQueue for -S Closed, none for Open
// (a new queue is open).
func buildQueue(f queueCreateFlags) (*schedulingv1beta1.Queue, busv1alpha1.Action, error) {
	if f.name == "" {
		return nil, "", errors.New("queue name is required: pass -n/--name")
	}
	if errs := validation.IsDNS1123Subdomain(f.name); len(errs) > 0 {
		return nil, "", fmt.Errorf("-n/--name %q is not a valid queue name (%s): use lowercase letters, digits, '-' and '.'",
			f.name, strings.Join(errs, "; "))
	}
	if err := checkQueueWeight(f.weight); err != nil {
		return nil, "", err
	}
	if f.parent != "" {
		if errs := validation.IsDNS1123Subdomain(f.parent); len(errs) > 0 {
			return nil, "", fmt.Errorf("--parent %q is not a valid queue name (%s): name an existing queue", f.parent, strings.Join(errs, "; "))
		}
		if f.parent == f.name {
			return nil, "", fmt.Errorf("--parent %s is the queue itself: name another queue, such as root", f.parent)
		}
	}
	var action busv1alpha1.Action
	switch {
	case strings.EqualFold(f.state, string(schedulingv1beta1.QueueStateOpen)):
	case strings.EqualFold(f.state, string(schedulingv1beta1.QueueStateClosed)):
		action = busv1alpha1.CloseQueueAction
	default:
		return nil, "", fmt.Errorf("-S/--state %q is not a state a queue can be created in: use Open or Closed", f.state)
	}
	return &schedulingv1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: f.name},
		Spec: schedulingv1beta1.QueueSpec{
			Weight: f.weight,
			Parent: f.parent,
		},
	}, action, nil
}

// formatQueueTree renders `vcctl queue list --tree`: the queues as the tree spec.parent makes
// (no parent: under root), each indented below its parent, with its state, weight, deserved,
// guarantee and capability from the spec, what it and the queues below it hold
// (status.allocated), and its PodGroups by phase. A queue whose parent does not exist is shown
// at the top, its parent named as missing; so is a loop of parents.
func formatQueueTree(queues []schedulingv1beta1.Queue, counts map[string]podGroupCounts) string {
	if len(queues) == 0 {
		return noResources
	}
	byName := map[string]*schedulingv1beta1.Queue{}
	for i := range queues {
		byName[queues[i].Name] = &queues[i]
	}
	children := map[string][]string{}
	var tops []string
	for name, q := range byName {
		parent := q.Spec.Parent
		if parent == "" && name != schedulingv1beta1.RootQueue {
			parent = schedulingv1beta1.RootQueue
		}
		if _, ok := byName[parent]; !ok || name == schedulingv1beta1.RootQueue {
			tops = append(tops, name)
			continue
		}
		children[parent] = append(children[parent], name)
	}
	sort.Strings(tops)
	for _, c := range children {
		sort.Strings(c)
	}
	amounts := func(l corev1.ResourceList) string {
		if len(l) == 0 {
			return "-"
		}
		names := make([]string, 0, len(l))
		for r := range l {
			names = append(names, string(r))
		}
		sort.Strings(names)
		parts := make([]string, 0, len(names))
		for _, r := range names {
			v := l[corev1.ResourceName(r)]
			parts = append(parts, r+"="+v.String())
		}
		return strings.Join(parts, ",")
	}
	var rows [][]string
	seen := map[string]bool{}
	var walk func(name, prefix, branch string)
	walk = func(name, prefix, branch string) {
		q := byName[name]
		seen[name] = true
		label := prefix + branch + name
		if p := q.Spec.Parent; p != "" && byName[p] == nil {
			label += " (parent " + p + " missing)"
		}
		c := counts[name]
		rows = append(rows, []string{label, string(q.Status.State), itoa(q.Spec.Weight), amounts(q.Spec.Deserved),
			amounts(q.Spec.Guarantee.Resource), amounts(q.Spec.Capability), amounts(q.Status.Allocated),
			fmt.Sprint(c.pending), fmt.Sprint(c.inqueue), fmt.Sprint(c.running), fmt.Sprint(c.completed)})
		kids := children[name]
		next := prefix
		switch branch {
		case "├─ ":
			next += "│  "
		case "└─ ":
			next += "   "
		}
		for i, k := range kids {
			if seen[k] {
				continue
			}
			b := "├─ "
			if i == len(kids)-1 {
				b = "└─ "
			}
			walk(k, next, b)
		}
	}
	for _, t := range tops {
		walk(t, "", "")
	}
	// Queues in a loop of parents are reached from no top: list them after, as they are.
	var rest []string
	for name := range byName {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		if seen[name] {
			continue
		}
		at := len(rows)
		walk(name, "", "")
		rows[at][0] = name + " (in a loop of parents)"
	}
	return formatTable([]string{"NAME", "STATE", "WEIGHT", "DESERVED", "GUARANTEE", "CAPABILITY", "ALLOCATED", "PENDING", "INQUEUE", "RUNNING", "COMPLETED"}, rows)
}
