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

package kubelet

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotations through which a pod scripts its own outcome on the local control plane (see
// config/kwok/stages.yaml). A pod carrying either is left to those stages.
const (
	simulateRunTime  = "caldera.sh/simulate-run-time"
	simulateExitCode = "caldera.sh/simulate-exit-code"
)

// Back-off between restarts of a failed container, as the kubelet's: 10 s, doubling up to 5 min.
const (
	initialBackOff = 10 * time.Second
	maxBackOff     = 5 * time.Minute
)

// Runs returns what each container of the pod does, in the order of spec.containers; ok is false
// when the simulated kubelet leaves the pod alone: it is not running on a node yet, is being
// deleted, scripts its outcome through annotations, or has a container whose command is not one
// Simulate understands.
func Runs(pod *corev1.Pod) (runs []Run, ok bool) {
	if pod.DeletionTimestamp != nil || pod.Spec.NodeName == "" || pod.Status.Phase != corev1.PodRunning {
		return nil, false
	}
	if _, scripted := pod.Annotations[simulateRunTime]; scripted {
		return nil, false
	}
	if _, scripted := pod.Annotations[simulateExitCode]; scripted {
		return nil, false
	}
	for _, c := range pod.Spec.Containers {
		run, ok := Simulate(c.Command, c.Args)
		if !ok {
			return nil, false
		}
		runs = append(runs, run)
	}
	return runs, len(runs) > 0
}

// Step returns the pod's status at now as a kubelet would report it, given what each container
// does (Runs), and when the status changes next (zero when it no longer changes by itself).
// changed is false when the status is already right. The pod is not modified.
func Step(pod *corev1.Pod, runs []Run, now time.Time) (status *corev1.PodStatus, changed bool, next time.Time) {
	status = pod.Status.DeepCopy()
	byName := map[string]int{}
	for i := range status.ContainerStatuses {
		byName[status.ContainerStatuses[i].Name] = i
	}
	done, succeeded := 0, 0
	for i, c := range pod.Spec.Containers {
		j, ok := byName[c.Name]
		if !ok {
			// KWOK writes every container's status when the pod starts; until then, wait.
			return status, false, time.Time{}
		}
		cs := &status.ContainerStatuses[j]
		at, terminal := stepContainer(cs, runs[i], restarts(pod.Spec.RestartPolicy), now)
		if terminal {
			done++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		}
		if !at.IsZero() && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	switch {
	case done == len(pod.Spec.Containers) && succeeded == done:
		status.Phase = corev1.PodSucceeded
	case done == len(pod.Spec.Containers):
		status.Phase = corev1.PodFailed
	}
	setReadiness(status, now)
	return status, !statusEqual(&pod.Status, status), next
}

// restartPolicy tells which exits a container restarts after.
type restartPolicy func(exitCode int32) bool

func restarts(p corev1.RestartPolicy) restartPolicy {
	switch p {
	case corev1.RestartPolicyNever:
		return func(int32) bool { return false }
	case corev1.RestartPolicyOnFailure:
		return func(code int32) bool { return code != 0 }
	}
	return func(int32) bool { return true }
}

// stepContainer moves one container's status on to now: a running container whose run is over
// terminates, and restarts after the back-off if its pod's policy says so. It returns when the
// container changes next (zero: never by itself) and whether it has terminated for good.
func stepContainer(cs *corev1.ContainerStatus, run Run, restart restartPolicy, now time.Time) (next time.Time, terminal bool) {
	for {
		switch {
		case cs.State.Terminated != nil:
			return time.Time{}, true
		case cs.State.Running != nil:
			ends := cs.State.Running.StartedAt.Add(run.Duration)
			if now.Before(ends) {
				return ends, false
			}
			terminated := &corev1.ContainerStateTerminated{
				ExitCode:   run.ExitCode,
				Reason:     "Completed",
				Message:    run.Message,
				StartedAt:  cs.State.Running.StartedAt,
				FinishedAt: metav1.NewTime(ends),
			}
			if run.ExitCode != 0 {
				terminated.Reason = "Error"
			}
			cs.Ready, cs.Started = false, ptr(false)
			if !restart(run.ExitCode) {
				cs.State = corev1.ContainerState{Terminated: terminated}
				return time.Time{}, true
			}
			cs.RestartCount++
			cs.LastTerminationState = corev1.ContainerState{Terminated: terminated}
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason:  "CrashLoopBackOff",
				Message: fmt.Sprintf("back-off %s restarting failed container=%s", backOff(cs.RestartCount), cs.Name),
			}}
		case cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil:
			starts := cs.LastTerminationState.Terminated.FinishedAt.Add(backOff(cs.RestartCount))
			if now.Before(starts) {
				return starts, false
			}
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(starts)}}
			cs.Ready, cs.Started = true, ptr(true)
		default:
			// Waiting for something this step does not drive (an image pull, say).
			return time.Time{}, false
		}
	}
}

// backOff is the kubelet's wait before the restart-th restart of a container.
func backOff(restart int32) time.Duration {
	d := initialBackOff
	for i := int32(1); i < restart && d < maxBackOff; i++ {
		d *= 2
	}
	return min(d, maxBackOff)
}

// setReadiness sets the pod's Ready and ContainersReady conditions from its containers, with the
// kubelet's reasons.
func setReadiness(status *corev1.PodStatus, now time.Time) {
	var notReady []string
	for _, cs := range status.ContainerStatuses {
		if !cs.Ready {
			notReady = append(notReady, cs.Name)
		}
	}
	cond := corev1.PodCondition{Status: corev1.ConditionTrue}
	switch {
	case status.Phase == corev1.PodSucceeded || status.Phase == corev1.PodFailed:
		cond = corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "PodCompleted"}
	case len(notReady) > 0:
		cond = corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
			Message: fmt.Sprintf("containers with unready status: %v", notReady)}
	}
	for _, t := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
		c := cond
		c.Type = t
		setCondition(status, c, now)
	}
}

// setCondition sets a pod condition, keeping its transition time unless the status changes.
func setCondition(status *corev1.PodStatus, c corev1.PodCondition, now time.Time) {
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		} else {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		*old = c
		return
	}
	c.LastTransitionTime = metav1.NewTime(now)
	status.Conditions = append(status.Conditions, c)
}

// statusEqual compares the parts of a pod status the step writes.
func statusEqual(a, b *corev1.PodStatus) bool {
	if a.Phase != b.Phase || len(a.ContainerStatuses) != len(b.ContainerStatuses) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.ContainerStatuses {
		x, y := a.ContainerStatuses[i], b.ContainerStatuses[i]
		if x.RestartCount != y.RestartCount || x.Ready != y.Ready ||
			(x.State.Running == nil) != (y.State.Running == nil) ||
			(x.State.Waiting == nil) != (y.State.Waiting == nil) ||
			(x.State.Terminated == nil) != (y.State.Terminated == nil) {
			return false
		}
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message {
			return false
		}
	}
	return true
}

func ptr[T any](v T) *T { return &v }
