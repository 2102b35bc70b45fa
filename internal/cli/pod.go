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
	"fmt"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// podListFilter narrows `vcctl pod list` as Volcano's flags do.
type podListFilter struct {
	// job keeps the pods of this job (-j/--job, label volcano.sh/job-name).
	job string
	// queue keeps the pods of this queue (-q/--queue): job pods by their volcano.sh/queue-name
	// label, other pods by their scheduling.volcano.sh/queue-name annotation.
	queue string
}

// selectPods returns the pods `vcctl pod list` shows, sorted by namespace and name: those of
// the job when -j is given (all of which must then be in the -q queue, if given), else those of
// the queue when -q is given, else the pods of every job.
func selectPods(pods []corev1.Pod, f podListFilter) ([]corev1.Pod, error) {
	var out []corev1.Pod
	for i := range pods {
		pod := &pods[i]
		jobName, isJobPod := pod.Labels[batchv1alpha1.JobNameKey]
		switch {
		case f.job != "":
			if jobName != f.job {
				continue
			}
			if q, ok := pod.Labels[batchv1alpha1.QueueNameKey]; ok && f.queue != "" && q != f.queue {
				return nil, fmt.Errorf("job %s is in queue %s, not %s: drop -q/--queue or check -j/--job", f.job, q, f.queue)
			}
		case f.queue != "":
			if pod.Labels[batchv1alpha1.QueueNameKey] != f.queue && pod.Annotations[schedulingv1beta1.QueueNameAnnotationKey] != f.queue {
				continue
			}
		default:
			if !isJobPod {
				continue
			}
		}
		out = append(out, *pod)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// formatPodList renders `vcctl pod list`: Volcano's columns Name, Ready, Status, Restart and
// Age, with a leading Namespace column when listing all namespaces. No pods print
// "No resources found".
func formatPodList(pods []corev1.Pod, allNamespaces bool, now time.Time) string {
	if len(pods) == 0 {
		return noResources
	}
	header := []string{"Name", "Ready", "Status", "Restart", "Age"}
	if allNamespaces {
		header = append([]string{"Namespace"}, header...)
	}
	rows := make([][]string, 0, len(pods))
	for i := range pods {
		s := summarizePod(&pods[i], now)
		row := []string{pods[i].Name, s.ready, s.status, s.restarts, age(now, pods[i].CreationTimestamp.Time)}
		if allNamespaces {
			row = append([]string{pods[i].Namespace}, row...)
		}
		rows = append(rows, row)
	}
	return formatTable(header, rows)
}

// podSummary is what a pod list shows of a pod's state.
type podSummary struct {
	// ready is "<ready containers>/<containers>", sidecars counted as containers.
	ready string
	// status is the pod's phase or the most telling reason (Init:1/2, CrashLoopBackOff,
	// Completed, Terminating, ...), as kubectl shows it.
	status string
	// restarts is the number of container restarts, with the age of the last one.
	restarts string
}

// summarizePod computes the Ready, Status and Restart columns of a pod the way kubectl get pods
// does: init containers first (a pod still initializing shows Init:...), then the app
// containers, the first one with a reason winning; a pod being deleted shows Terminating.
func summarizePod(pod *corev1.Pod, now time.Time) podSummary {
	status := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		status = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			status = corev1.PodReasonSchedulingGated
		}
	}

	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
		}
	}
	total := len(pod.Spec.Containers) + len(sidecars)
	ready, restarts, sidecarRestarts := 0, 0, 0
	var lastRestart, lastSidecarRestart time.Time

	initializing := false
	for i, c := range pod.Status.InitContainerStatuses {
		restarts += int(c.RestartCount)
		lastRestart = later(lastRestart, c.LastTerminationState)
		if sidecars[c.Name] {
			sidecarRestarts += int(c.RestartCount)
			lastSidecarRestart = later(lastSidecarRestart, c.LastTerminationState)
		}
		switch {
		case c.State.Terminated != nil && c.State.Terminated.ExitCode == 0:
			continue
		case sidecars[c.Name] && c.Started != nil && *c.Started:
			if c.Ready {
				ready++
			}
			continue
		case c.State.Terminated != nil:
			status = "Init:" + terminatedReason(c.State.Terminated)
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
			status = "Init:" + c.State.Waiting.Reason
		default:
			status = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}

	if !initializing || podConditionTrue(pod, corev1.PodInitialized) {
		restarts, lastRestart = sidecarRestarts, lastSidecarRestart
		hasRunning := false
		// The first container with a reason wins, so walk them from the last.
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := pod.Status.ContainerStatuses[i]
			restarts += int(c.RestartCount)
			lastRestart = later(lastRestart, c.LastTerminationState)
			switch {
			case c.State.Waiting != nil && c.State.Waiting.Reason != "":
				status = c.State.Waiting.Reason
			case c.State.Terminated != nil:
				status = terminatedReason(c.State.Terminated)
			case c.Ready && c.State.Running != nil:
				hasRunning = true
				ready++
			}
		}
		if status == "Completed" && hasRunning {
			status = "NotReady"
			if podConditionTrue(pod, corev1.PodReady) {
				status = string(corev1.PodRunning)
			}
		}
	}

	terminal := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	switch {
	case pod.DeletionTimestamp != nil && pod.Status.Reason == "NodeLost":
		status = string(corev1.PodUnknown)
	case pod.DeletionTimestamp != nil && !terminal:
		status = "Terminating"
	}

	restartText := strconv.Itoa(restarts)
	if restarts > 0 && !lastRestart.IsZero() {
		restartText += " (" + age(now, lastRestart) + " ago)"
	}
	return podSummary{ready: fmt.Sprintf("%d/%d", ready, total), status: status, restarts: restartText}
}

// terminatedReason is a terminated container's reason, or its signal or exit code.
func terminatedReason(t *corev1.ContainerStateTerminated) string {
	switch {
	case t.Reason != "":
		return t.Reason
	case t.Signal != 0:
		return fmt.Sprintf("Signal:%d", t.Signal)
	default:
		return fmt.Sprintf("ExitCode:%d", t.ExitCode)
	}
}

// later returns the later of t and the end of a container's last termination.
func later(t time.Time, last corev1.ContainerState) time.Time {
	if last.Terminated != nil && last.Terminated.FinishedAt.After(t) {
		return last.Terminated.FinishedAt.Time
	}
	return t
}

func podConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
