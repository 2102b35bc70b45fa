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
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
	celpolicy "github.com/caldera-sh/caldera/internal/job/policy"
)

// taskOf is the task a pod belongs to: the volcano.sh/task-spec annotation, else the label.
func taskOf(pod *corev1.Pod) string {
	if name, ok := naming.PodTaskName(pod); ok {
		return name
	}
	return pod.Labels[batchv1alpha1.TaskSpecKey]
}

// indexOf is a pod's index within its task (naming.PodIndex); ok is false when it has none.
func indexOf(pod *corev1.Pod) (int, bool) {
	i, err := naming.PodIndex(pod)
	return i, err == nil
}

// versionOf is the job version a pod was made for (the volcano.sh/job-version annotation).
func versionOf(pod *corev1.Pod) (int32, bool) {
	v, err := strconv.ParseInt(pod.Annotations[batchv1alpha1.JobVersion], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(v), true
}

// partitionOf is a pod's partition within its task (the volcano.sh/partition-id label).
func partitionOf(pod *corev1.Pod) string {
	return pod.Labels[batchv1alpha1.PartitionIDKey]
}

// isOutOfSync reports whether the controller marked the pod for deletion.
func isOutOfSync(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[batchv1alpha1.OutOfSyncKey]
	return ok
}

// isDeleting reports whether the pod is being deleted.
func isDeleting(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp != nil
}

// isAlive reports whether the pod holds or may soon hold resources: not being deleted and not
// finished.
func isAlive(pod *corev1.Pod) bool {
	return !isDeleting(pod) && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

// isReady reports whether the pod's Ready condition is True.
func isReady(pod *corev1.Pod) bool {
	return readyCondition(pod) != nil
}

// readyCondition is the pod's Ready condition when it is True, else nil.
func readyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// readySince is when the pod last became ready; zero when it is not ready.
func readySince(pod *corev1.Pod) metav1.Time {
	if c := readyCondition(pod); c != nil {
		return c.LastTransitionTime
	}
	return metav1.Time{}
}

// containersReady reports whether the pod runs and every one of its containers is ready.
func containersReady(pod *corev1.Pod) bool {
	if pod.Status.Phase != corev1.PodRunning || len(pod.Status.ContainerStatuses) == 0 {
		return false
	}
	for _, c := range pod.Status.ContainerStatuses {
		if !c.Ready {
			return false
		}
	}
	return true
}

// restartSum is the number of restarts of all the pod's containers, init containers included.
func restartSum(pod *corev1.Pod) int64 {
	var n int64
	for _, c := range pod.Status.InitContainerStatuses {
		n += int64(c.RestartCount)
	}
	for _, c := range pod.Status.ContainerStatuses {
		n += int64(c.RestartCount)
	}
	return n
}

// maxRestarts is the highest restart count among the pod's containers.
func maxRestarts(pod *corev1.Pod) int32 {
	var n int32
	for _, c := range pod.Status.ContainerStatuses {
		n = max(n, c.RestartCount)
	}
	return n
}

// exitCodeOf is the exit code a policy's exitCode is matched with: the one the CEL variable
// pod.exitCode holds (celpolicy.PodExitCode), nil when it is 0.
func exitCodeOf(pod *corev1.Pod) *int32 {
	if code := celpolicy.PodExitCode(pod); code != 0 {
		return &code
	}
	return nil
}

// isDisrupted reports whether the pod was stopped by a disruption rather than by its own work:
// a DisruptionTarget condition (preemption, eviction API, drain, taint) or a kubelet eviction.
func isDisrupted(pod *corev1.Pod) bool {
	if pod.Status.Reason == "Evicted" {
		return true
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// podsOfTask are the pods of the named task.
func podsOfTask(pods []*corev1.Pod, task string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if taskOf(p) == task {
			out = append(out, p)
		}
	}
	return out
}

// findPod is the pod with the given name, or nil.
func findPod(pods []*corev1.Pod, name string) *corev1.Pod {
	for _, p := range pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}
