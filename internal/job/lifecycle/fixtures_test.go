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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Test fixtures: a job "j" (UID "job-uid") made an hour before t0, whose pods are named
// j-<task>-<index> with UID "uid-<name>".

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

const jobUID = types.UID("job-uid")

// newClock is a clock stopped at t0.
func newClock() *clocktesting.FakePassiveClock {
	return clocktesting.NewFakePassiveClock(t0)
}

// taskOpt changes a task.
type taskOpt func(*batchv1alpha1.TaskSpec)

// task is a task with replicas and one container.
func task(name string, replicas int32, opts ...taskOpt) batchv1alpha1.TaskSpec {
	t := batchv1alpha1.TaskSpec{
		Name:     name,
		Replicas: replicas,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Image: "busybox"}},
		}},
	}
	for _, o := range opts {
		o(&t)
	}
	return t
}

func taskMin(n int32) taskOpt   { return func(t *batchv1alpha1.TaskSpec) { t.MinAvailable = ptr.To(n) } }
func taskRetry(n int32) taskOpt { return func(t *batchv1alpha1.TaskSpec) { t.MaxRetry = n } }
func taskPolicies(p ...batchv1alpha1.LifecyclePolicy) taskOpt {
	return func(t *batchv1alpha1.TaskSpec) { t.Policies = p }
}
func dependsOn(it batchv1alpha1.Iteration, names ...string) taskOpt {
	return func(t *batchv1alpha1.TaskSpec) { t.DependsOn = &batchv1alpha1.DependsOn{Name: names, Iteration: it} }
}

// jobOpt changes a job.
type jobOpt func(*batchv1alpha1.Job)

// newJob is job j with the given tasks, in phase Running at version 1.
func newJob(tasks []batchv1alpha1.TaskSpec, opts ...jobOpt) *batchv1alpha1.Job {
	j := &batchv1alpha1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: "j", Namespace: "ns", UID: jobUID, Generation: 4,
			CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour)),
		},
		Spec: batchv1alpha1.JobSpec{Tasks: tasks, Queue: "default"},
		Status: batchv1alpha1.JobStatus{
			State:   batchv1alpha1.JobState{Phase: batchv1alpha1.Running, Reason: batchv1alpha1.JobRunningReason},
			Version: 1,
		},
	}
	for _, o := range opts {
		o(j)
	}
	return j
}

func inPhase(p batchv1alpha1.JobPhase) jobOpt {
	return func(j *batchv1alpha1.Job) { j.Status.State.Phase = p }
}
func withState(p batchv1alpha1.JobPhase, reason, message string) jobOpt {
	return func(j *batchv1alpha1.Job) {
		j.Status.State = batchv1alpha1.JobState{Phase: p, Reason: reason, Message: message}
	}
}
func retried(n int32) jobOpt      { return func(j *batchv1alpha1.Job) { j.Status.RetryCount = n } }
func version(n int32) jobOpt      { return func(j *batchv1alpha1.Job) { j.Status.Version = n } }
func maxRetry(n int32) jobOpt     { return func(j *batchv1alpha1.Job) { j.Spec.MaxRetry = n } }
func minAvailable(n int32) jobOpt { return func(j *batchv1alpha1.Job) { j.Spec.MinAvailable = n } }
func minSuccess(n int32) jobOpt   { return func(j *batchv1alpha1.Job) { j.Spec.MinSuccess = ptr.To(n) } }
func suspend(b bool) jobOpt       { return func(j *batchv1alpha1.Job) { j.Spec.Suspend = ptr.To(b) } }
func jobPolicies(p ...batchv1alpha1.LifecyclePolicy) jobOpt {
	return func(j *batchv1alpha1.Job) { j.Spec.Policies = p }
}

// podOpt changes a pod.
type podOpt func(*corev1.Pod)

// newPod is the pod of job j at index of task, in phase, at job version 1, with one container.
func newPod(task string, index int32, phase corev1.PodPhase, opts ...podOpt) *corev1.Pod {
	name := naming.PodName("j", task, int(index))
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(t0.Add(-30 * time.Minute)),
			Annotations: map[string]string{
				batchv1alpha1.TaskSpecKey: task,
				batchv1alpha1.TaskIndex:   strconv.Itoa(int(index)),
				batchv1alpha1.JobVersion:  "1",
			},
			Labels: map[string]string{batchv1alpha1.TaskSpecKey: task},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: "j", UID: jobUID, Controller: ptr.To(true),
			}},
		},
		Spec:   corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{Name: "main"}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func podVersion(v int) podOpt {
	return func(p *corev1.Pod) { p.Annotations[batchv1alpha1.JobVersion] = strconv.Itoa(v) }
}
func deleting() podOpt {
	return func(p *corev1.Pod) { p.DeletionTimestamp = ptr.To(metav1.NewTime(t0.Add(-time.Second))) }
}
func markedOutOfSync() podOpt {
	return func(p *corev1.Pod) { p.Annotations[batchv1alpha1.OutOfSyncKey] = "true" }
}
func unscheduled() podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = "" } }
func partition(id string) podOpt {
	return func(p *corev1.Pod) { p.Labels[batchv1alpha1.PartitionIDKey] = id }
}
func restarts(n int32) podOpt {
	return func(p *corev1.Pod) { p.Status.ContainerStatuses[0].RestartCount = n }
}
func initRestarts(n int32) podOpt {
	return func(p *corev1.Pod) {
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", RestartCount: n}}
	}
}
func exited(code int32) podOpt {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses[0].State.Terminated = &corev1.ContainerStateTerminated{ExitCode: code}
	}
}
func created(t time.Time) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(t) }
}
func readyAt(t time.Time) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t),
		})
		p.Status.ContainerStatuses[0].Ready = true
	}
}
func disrupted() podOpt {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		})
	}
}

// podNames are the names of pods, in order.
func podNames(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
