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
)

// counts are a job's pods by phase, as written to its status.
type counts struct {
	pending, running, succeeded, failed, terminating, unknown int32
	// byTask counts each task's pods that are not terminating, by phase.
	byTask map[string]map[corev1.PodPhase]int32
}

// countPods counts pods; a pod being deleted, or among victims (by name), is terminating.
func countPods(pods []*corev1.Pod, victims map[string]bool) counts {
	c := counts{}
	for _, p := range pods {
		if isDeleting(p) || victims[p.Name] {
			c.terminating++
			continue
		}
		phase := p.Status.Phase
		if phase == "" {
			phase = corev1.PodPending
		}
		switch phase {
		case corev1.PodPending:
			c.pending++
		case corev1.PodRunning:
			c.running++
		case corev1.PodSucceeded:
			c.succeeded++
		case corev1.PodFailed:
			c.failed++
		default:
			c.unknown++
		}
		task := taskOf(p)
		if c.byTask == nil {
			c.byTask = map[string]map[corev1.PodPhase]int32{}
		}
		if c.byTask[task] == nil {
			c.byTask[task] = map[corev1.PodPhase]int32{}
		}
		c.byTask[task][phase]++
	}
	return c
}

// alive reports whether any pod is pending, running or terminating.
func (c counts) alive() bool {
	return c.pending != 0 || c.running != 0 || c.terminating != 0
}

// writeTo copies the counts into status.
func (c counts) writeTo(status *batchv1alpha1.JobStatus) {
	status.Pending, status.Running, status.Succeeded = c.pending, c.running, c.succeeded
	status.Failed, status.Terminating, status.Unknown = c.failed, c.terminating, c.unknown
	status.TaskStatusCount = nil
	for task, phases := range c.byTask {
		if status.TaskStatusCount == nil {
			status.TaskStatusCount = map[string]batchv1alpha1.TaskState{}
		}
		status.TaskStatusCount[task] = batchv1alpha1.TaskState{Phase: phases}
	}
}
