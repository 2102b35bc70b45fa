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

package policy

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// jobWrapper builds test jobs.
type jobWrapper struct{ batchv1alpha1.Job }

func makeJob(name string) *jobWrapper {
	return &jobWrapper{batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}}
}

func (w *jobWrapper) namespace(ns string) *jobWrapper { w.Namespace = ns; return w }

func (w *jobWrapper) label(k, v string) *jobWrapper {
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels[k] = v
	return w
}

func (w *jobWrapper) annotation(k, v string) *jobWrapper {
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	w.Annotations[k] = v
	return w
}

func (w *jobWrapper) task(name string, replicas int32, policies ...batchv1alpha1.LifecyclePolicy) *jobWrapper {
	w.Spec.Tasks = append(w.Spec.Tasks, batchv1alpha1.TaskSpec{Name: name, Replicas: replicas, Policies: policies})
	return w
}

func (w *jobWrapper) taskMinAvailable(min int32) *jobWrapper {
	w.Spec.Tasks[len(w.Spec.Tasks)-1].MinAvailable = ptr.To(min)
	return w
}

func (w *jobWrapper) minAvailable(n int32) *jobWrapper { w.Spec.MinAvailable = n; return w }

func (w *jobWrapper) policies(ps ...batchv1alpha1.LifecyclePolicy) *jobWrapper {
	w.Spec.Policies = append(w.Spec.Policies, ps...)
	return w
}

func (w *jobWrapper) phase(p batchv1alpha1.JobPhase) *jobWrapper { w.Status.State.Phase = p; return w }

func (w *jobWrapper) retries(retryCount, version int32) *jobWrapper {
	w.Status.RetryCount, w.Status.Version = retryCount, version
	return w
}

func (w *jobWrapper) obj() *batchv1alpha1.Job { return &w.Job }

// podWrapper builds test pods.
type podWrapper struct{ corev1.Pod }

func makePod(job, task string, index int, phase corev1.PodPhase) *podWrapper {
	idx := strconv.Itoa(index)
	return &podWrapper{corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      job + "-" + task + "-" + idx,
			Namespace: "ns",
			Labels: map[string]string{
				batchv1alpha1.JobNameKey:  job,
				batchv1alpha1.TaskSpecKey: task,
				batchv1alpha1.TaskIndex:   idx,
			},
		},
		Status: corev1.PodStatus{Phase: phase},
	}}
}

func (w *podWrapper) node(n string) *podWrapper { w.Spec.NodeName = n; return w }

func (w *podWrapper) status(reason, message string) *podWrapper {
	w.Status.Reason, w.Status.Message = reason, message
	return w
}

func (w *podWrapper) deleting() *podWrapper {
	w.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	return w
}

func (w *podWrapper) container(c corev1.ContainerStatus) *podWrapper {
	w.Status.ContainerStatuses = append(w.Status.ContainerStatuses, c)
	return w
}

func (w *podWrapper) initContainer(c corev1.ContainerStatus) *podWrapper {
	w.Status.InitContainerStatuses = append(w.Status.InitContainerStatuses, c)
	return w
}

func (w *podWrapper) condition(t corev1.PodConditionType, s corev1.ConditionStatus, reason, message string) *podWrapper {
	w.Status.Conditions = append(w.Status.Conditions, corev1.PodCondition{Type: t, Status: s, Reason: reason, Message: message})
	return w
}

func (w *podWrapper) obj() *corev1.Pod { return &w.Pod }

func terminated(name string, code int32, reason string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}}}
}

func runningC(name string, restarts int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, RestartCount: restarts, State: corev1.ContainerState{
		Running: &corev1.ContainerStateRunning{}}}
}

func waitingC(name, reason string, restarts int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, RestartCount: restarts, State: corev1.ContainerState{
		Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}
}

func withLast(c corev1.ContainerStatus, code int32, reason string) corev1.ContainerStatus {
	c.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}
	return c
}

func pods(ws ...*podWrapper) []corev1.Pod {
	out := make([]corev1.Pod, len(ws))
	for i, w := range ws {
		out[i] = w.Pod
	}
	return out
}

func newTestEngine(t testing.TB, opts ...Option) *Engine {
	t.Helper()
	e, err := NewEngine(opts...)
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	return e
}
