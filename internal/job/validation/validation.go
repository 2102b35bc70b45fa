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

// Package validation holds the checks of a Job that its CRD rules cannot state, because they
// need a graph walk or other objects: a dependsOn cycle and the job's queue. The admission
// webhook runs them at apply time and the job controller runs them again at reconcile time, so
// a cluster without the webhook gets the same answers, as conditions.
package validation

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// DependsOnCycle reports a cycle among the tasks' dependsOn, naming the tasks on it (by their
// effective names, naming.TaskName); nil when the dependencies form a directed acyclic graph.
func DependsOnCycle(spec *batchv1alpha1.JobSpec) *field.Error {
	index := map[string]int{}
	for i := range spec.Tasks {
		index[naming.TaskName(spec.Tasks, i)] = i
	}
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(spec.Tasks))
	var path []string
	var cycle []string
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = visiting
		path = append(path, naming.TaskName(spec.Tasks, i))
		if d := spec.Tasks[i].DependsOn; d != nil {
			for _, name := range d.Name {
				j, ok := index[name]
				if !ok {
					continue // the CRD rule reports unknown names
				}
				if state[j] == visiting {
					start := 0
					for k, n := range path {
						if n == name {
							start = k
						}
					}
					cycle = append(append([]string{}, path[start:]...), name)
					return true
				}
				if state[j] == unvisited && visit(j) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = done
		return false
	}
	for i := range spec.Tasks {
		if state[i] == unvisited && visit(i) {
			first := index[cycle[0]]
			return field.Invalid(field.NewPath("spec", "tasks").Index(first).Child("dependsOn", "name"),
				spec.Tasks[first].DependsOn.Name,
				fmt.Sprintf("tasks depend on each other in a cycle (%s): dependsOn must form a directed acyclic graph; remove one of these dependencies",
					strings.Join(cycle, " -> ")))
		}
	}
	return nil
}

// FirstStage returns the tasks that start first, those without dependsOn (by their effective
// names, naming.TaskName), and how many pods they have: the only pods that can exist before
// dependsOn lets another task start.
func FirstStage(spec *batchv1alpha1.JobSpec) (names []string, pods int32) {
	for i, t := range spec.Tasks {
		if t.DependsOn == nil || len(t.DependsOn.Name) == 0 {
			names = append(names, naming.TaskName(spec.Tasks, i))
			pods += t.Replicas
		}
	}
	return names, pods
}

// DependsOnDeadlock reports a spec.minAvailable that can never be met because of dependsOn: the
// tasks that depend on others are created only once those run, and those run only once the gang
// of minAvailable pods is placed, so a minAvailable above the pods of the tasks that start first
// waits forever. (Without spec.minAvailable, the gang is the first stage's on its own; see
// jobspec.JobMinAvailable.)
func DependsOnDeadlock(spec *batchv1alpha1.JobSpec) *field.Error {
	if spec.MinAvailable <= 0 {
		return nil
	}
	names, pods := FirstStage(spec)
	if len(names) == len(spec.Tasks) || spec.MinAvailable <= pods {
		return nil
	}
	return field.Invalid(field.NewPath("spec", "minAvailable"), spec.MinAvailable,
		fmt.Sprintf("the gang can never form: only the %d pods of the tasks without dependsOn (%s) can exist before it starts, "+
			"and the other tasks are created once those run; set spec.minAvailable to at most %d, or leave it out to gang the first tasks on their own",
			pods, strings.Join(names, ", "), pods))
}

// QueueAdmission reports why a job may not be submitted to the queue named by spec.queue:
// queue is nil when it does not exist, and queues are all the queues (to find its children).
// It returns nil when the queue is an open leaf queue.
func QueueAdmission(spec *batchv1alpha1.JobSpec, queue *schedulingv1beta1.Queue, queues []schedulingv1beta1.Queue) *field.Error {
	path := field.NewPath("spec", "queue")
	name := spec.Queue
	if name == "" {
		name = schedulingv1beta1.DefaultQueue
	}
	if name == schedulingv1beta1.RootQueue {
		return field.Invalid(path, name, "can not submit job to root queue: name a leaf queue")
	}
	if queue == nil {
		return field.NotFound(path, fmt.Sprintf("%s (create the queue or name an existing one)", name))
	}
	switch state := queue.Status.State; state {
	case "", schedulingv1beta1.QueueStateOpen:
	default:
		return field.Invalid(path, name, fmt.Sprintf("can only submit job to queue with state `Open`, queue `%s` status is `%s`: open the queue (vcctl queue operate -n %s -a open) or name another", name, state, name))
	}
	var children []string
	for i := range queues {
		if queues[i].Spec.Parent == name {
			children = append(children, queues[i].Name)
		}
	}
	if len(children) > 0 {
		sort.Strings(children)
		return field.Invalid(path, name, fmt.Sprintf("can only submit job to leaf queue, queue `%s` has %d child queues (%s): name one of them", name, len(children), strings.Join(children, ", ")))
	}
	return nil
}
