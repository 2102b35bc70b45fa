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
	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// PodSlot is a pod to create: the task and the index within it. Its name is
// naming.PodName(job, Task, Index).
type PodSlot struct {
	// Task is the effective name of the task (naming.TaskName).
	Task string
	// Index is the pod's index within the task.
	Index int
}

// DependenciesMet reports whether the pods of task may be created: it has no dependsOn, or the
// tasks it names have each reached their minAvailable (with its default) ready pods, counting
// a pod as ready when it runs with every container ready or when it has succeeded. Iteration
// any needs one such task, all (or unset) needs every one. A dependency not in spec is never
// met. pods are the job's pods.
func DependenciesMet(spec *batchv1alpha1.JobSpec, task string, pods []*corev1.Pod) bool {
	t := findTask(spec, task)
	if t == nil || t.DependsOn == nil || len(t.DependsOn.Name) == 0 {
		return true
	}
	anyOf := t.DependsOn.Iteration == batchv1alpha1.IterationAny
	for _, name := range t.DependsOn.Name {
		met := dependencyReady(spec, name, pods)
		if met && anyOf {
			return true
		}
		if !met && !anyOf {
			return false
		}
	}
	return !anyOf
}

// dependencyReady reports whether the named task has minAvailable ready or succeeded pods.
func dependencyReady(spec *batchv1alpha1.JobSpec, name string, pods []*corev1.Pod) bool {
	dep := findTask(spec, name)
	if dep == nil {
		return false
	}
	var ready int32
	for _, p := range podsOfTask(pods, name) {
		if isDeleting(p) {
			continue
		}
		if containersReady(p) || p.Status.Phase == corev1.PodSucceeded {
			ready++
		}
	}
	return ready >= taskMinAvailable(dep)
}

// MissingPods are the pods to create for job (named jobName) so every task has its replicas:
// the indexes 0..replicas-1 for which no pod of that name exists (a pod being deleted still
// holds its name), in task then index order, leaving out the tasks whose dependencies are not
// met.
func MissingPods(jobName string, spec *batchv1alpha1.JobSpec, pods []*corev1.Pod) []PodSlot {
	names := make(map[string]bool, len(pods))
	for _, p := range pods {
		names[p.Name] = true
	}
	var slots []PodSlot
	for ti, t := range spec.Tasks {
		task := naming.TaskName(spec.Tasks, ti)
		if !DependenciesMet(spec, task, pods) {
			continue
		}
		for i := range int(t.Replicas) {
			if !names[naming.PodName(jobName, task, i)] {
				slots = append(slots, PodSlot{Task: task, Index: i})
			}
		}
	}
	return slots
}
