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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// runningPod is a pod KWOK has just started at t0, one container per script.
func runningPod(policy corev1.RestartPolicy, scripts ...string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec:       corev1.PodSpec{NodeName: "node-0", RestartPolicy: policy},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for i, s := range scripts {
		name := string(rune('a' + i))
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: name, Command: []string{"sh", "-c", s}})
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: name, Ready: true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(t0)}},
		})
	}
	return pod
}

// summary is what the table checks of a stepped pod.
type summary struct {
	Phase    corev1.PodPhase
	States   []string
	Restarts []int32
	Ready    corev1.ConditionStatus
	Next     time.Duration
	Changed  bool
}

func summarize(status *corev1.PodStatus, changed bool, next time.Time) summary {
	s := summary{Phase: status.Phase, Changed: changed}
	if !next.IsZero() {
		s.Next = next.Sub(t0)
	}
	for _, cs := range status.ContainerStatuses {
		switch {
		case cs.State.Terminated != nil:
			s.States = append(s.States, cs.State.Terminated.Reason+" "+string(rune('0'+cs.State.Terminated.ExitCode)))
		case cs.State.Waiting != nil:
			s.States = append(s.States, cs.State.Waiting.Reason)
		default:
			s.States = append(s.States, "Running")
		}
		s.Restarts = append(s.Restarts, cs.RestartCount)
	}
	for _, c := range status.Conditions {
		if c.Type == corev1.PodReady {
			s.Ready = c.Status
		}
	}
	return s
}

func TestStep(t *testing.T) {
	cases := map[string]struct {
		pod   *corev1.Pod
		after time.Duration
		want  summary
	}{
		"still sleeping": {
			pod: runningPod(corev1.RestartPolicyNever, "sleep 10"), after: 3 * time.Second,
			want: summary{Phase: corev1.PodRunning, States: []string{"Running"}, Restarts: []int32{0}, Ready: corev1.ConditionTrue, Next: 10 * time.Second, Changed: true},
		},
		"succeeds": {
			pod: runningPod(corev1.RestartPolicyNever, "sleep 10"), after: 10 * time.Second,
			want: summary{Phase: corev1.PodSucceeded, States: []string{"Completed 0"}, Restarts: []int32{0}, Ready: corev1.ConditionFalse, Changed: true},
		},
		"fails with its exit code": {
			pod: runningPod(corev1.RestartPolicyNever, "sleep 10s && exit 3"), after: time.Minute,
			want: summary{Phase: corev1.PodFailed, States: []string{"Error 3"}, Restarts: []int32{0}, Ready: corev1.ConditionFalse, Changed: true},
		},
		"OnFailure restarts after the back-off": {
			pod: runningPod(corev1.RestartPolicyOnFailure, "sleep 1; exit 1"), after: 2 * time.Second,
			want: summary{Phase: corev1.PodRunning, States: []string{"CrashLoopBackOff"}, Restarts: []int32{1}, Ready: corev1.ConditionFalse, Next: 11 * time.Second, Changed: true},
		},
		"OnFailure runs again once the back-off is over": {
			pod: runningPod(corev1.RestartPolicyOnFailure, "sleep 1; exit 1"), after: 11500 * time.Millisecond,
			want: summary{Phase: corev1.PodRunning, States: []string{"Running"}, Restarts: []int32{1}, Ready: corev1.ConditionTrue, Next: 12 * time.Second, Changed: true},
		},
		"OnFailure doubles the back-off": {
			// Runs 0-1 s, back-off 10 s, runs 11-12 s, back-off 20 s, runs 32-33 s.
			pod: runningPod(corev1.RestartPolicyOnFailure, "sleep 1; exit 1"), after: 20 * time.Second,
			want: summary{Phase: corev1.PodRunning, States: []string{"CrashLoopBackOff"}, Restarts: []int32{2}, Ready: corev1.ConditionFalse, Next: 32 * time.Second, Changed: true},
		},
		"OnFailure does not restart a success": {
			pod: runningPod(corev1.RestartPolicyOnFailure, "sleep 3"), after: 3 * time.Second,
			want: summary{Phase: corev1.PodSucceeded, States: []string{"Completed 0"}, Restarts: []int32{0}, Ready: corev1.ConditionFalse, Changed: true},
		},
		"Always restarts a success": {
			pod: runningPod(corev1.RestartPolicyAlways, "true"), after: time.Second,
			want: summary{Phase: corev1.PodRunning, States: []string{"CrashLoopBackOff"}, Restarts: []int32{1}, Ready: corev1.ConditionFalse, Next: 10 * time.Second, Changed: true},
		},
		"a pod ends when its last container does": {
			pod: runningPod(corev1.RestartPolicyNever, "sleep 1", "sleep 5"), after: 2 * time.Second,
			want: summary{Phase: corev1.PodRunning, States: []string{"Completed 0", "Running"}, Restarts: []int32{0, 0}, Ready: corev1.ConditionFalse, Next: 5 * time.Second, Changed: true},
		},
		"one failed container fails the pod": {
			pod: runningPod(corev1.RestartPolicyNever, "sleep 1", "exit 1"), after: 2 * time.Second,
			want: summary{Phase: corev1.PodFailed, States: []string{"Completed 0", "Error 1"}, Restarts: []int32{0, 0}, Ready: corev1.ConditionFalse, Changed: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			runs, ok := Runs(tc.pod)
			if !ok {
				t.Fatalf("Runs: the pod is not simulated")
			}
			status, changed, next := Step(tc.pod, runs, t0.Add(tc.after))
			if diff := cmp.Diff(tc.want, summarize(status, changed, next)); diff != "" {
				t.Errorf("Step after %s (-want +got):\n%s", tc.after, diff)
			}
			again := tc.pod.DeepCopy()
			again.Status = *status
			if _, changed, _ := Step(again, runs, t0.Add(tc.after)); changed {
				t.Errorf("a second Step at the same time changed the status again")
			}
		})
	}
}

func TestRunsLeavesPodsAlone(t *testing.T) {
	scripted := runningPod(corev1.RestartPolicyNever, "sleep 1")
	scripted.Annotations = map[string]string{simulateRunTime: "3s"}
	pending := runningPod(corev1.RestartPolicyNever, "sleep 1")
	pending.Status.Phase = corev1.PodPending
	deleting := runningPod(corev1.RestartPolicyNever, "sleep 1")
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	for name, pod := range map[string]*corev1.Pod{
		"scripted through annotations": scripted,
		"not running yet":              pending,
		"being deleted":                deleting,
		"one container not understood": runningPod(corev1.RestartPolicyNever, "sleep 1", "python3 train.py"),
	} {
		if _, ok := Runs(pod); ok {
			t.Errorf("%s: Runs took the pod", name)
		}
	}
}
