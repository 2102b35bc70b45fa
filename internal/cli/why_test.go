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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// whyJob is a job of two tasks, ps (1) and worker (2), in queue gpu, created 10 minutes before
// now, in phase.
func whyJob(phase batchv1alpha1.JobPhase, edit func(*batchv1alpha1.Job)) *batchv1alpha1.Job {
	job := &batchv1alpha1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "train", UID: "job-uid",
			CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Minute))},
		Spec: batchv1alpha1.JobSpec{
			Queue: "gpu", SchedulerName: "volcano", MinAvailable: 3,
			Tasks: []batchv1alpha1.TaskSpec{{Name: "ps", Replicas: 1}, {Name: "worker", Replicas: 2}},
		},
		Status: batchv1alpha1.JobStatus{State: batchv1alpha1.JobState{Phase: phase}, MinAvailable: 3},
	}
	if edit != nil {
		edit(job)
	}
	return job
}

// whyPodGroup is the job's PodGroup in phase, with an Unschedulable condition carrying message
// unless it is empty.
func whyPodGroup(phase schedulingv1beta1.PodGroupPhase, message string) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "train-job-uid", UID: "pg-uid",
			CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Minute))},
		Spec:   schedulingv1beta1.PodGroupSpec{Queue: "gpu", MinMember: 3, MinTaskMember: map[string]int32{"ps": 1, "worker": 2}},
		Status: schedulingv1beta1.PodGroupStatus{Phase: phase},
	}
	if message != "" {
		pg.Status.Conditions = []schedulingv1beta1.PodGroupCondition{{
			Type: schedulingv1beta1.PodGroupUnschedulableType, Status: corev1.ConditionTrue,
			Reason: schedulingv1beta1.NotEnoughResourcesReason, Message: message,
		}}
	}
	return pg
}

func whyQueue(state schedulingv1beta1.QueueState) *schedulingv1beta1.Queue {
	return &schedulingv1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: schedulingv1beta1.QueueSpec{Weight: 2,
			Deserved:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
			Capability: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}},
		Status: schedulingv1beta1.QueueStatus{State: state,
			Allocated: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}},
	}
}

// whyPod is the pod of task at index, bound to node unless node is empty.
func whyPod(task string, index int, node string, edit func(*corev1.Pod)) corev1.Pod {
	name := "train-" + task + "-" + string(rune('0'+index))
	pod := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, UID: types.UID(name),
			Annotations: map[string]string{batchv1alpha1.TaskSpecKey: task}},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if node != "" {
		pod.Status.Phase = corev1.PodRunning
	}
	if edit != nil {
		edit(&pod)
	}
	return pod
}

func podScheduledFalse(reason, message string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: message}}
	}
}

const queueShare = "- queue gpu: weight 2, deserved cpu=4, allocated cpu=4, capability cpu=8"

func TestExplainJob(t *testing.T) {
	insufficient := "0/4 nodes are available: 4 Insufficient cpu."
	unsatisfiable := "3 of 3 pods wait: this PodGroup's minResources ask for 24 cpu, more than queue gpu's capability of 8 cpu: " +
		"the gang can never be admitted; lower minResources (or the tasks' requests), or raise the queue's spec.capability"
	cases := []struct {
		name string
		in   whyInput
		want []string
	}{
		{
			name: "completed",
			in: whyInput{job: whyJob(batchv1alpha1.Completed, func(j *batchv1alpha1.Job) { j.Status.Succeeded = 3 }),
				podGroup: whyPodGroup(schedulingv1beta1.PodGroupCompleted, ""), queue: whyQueue(schedulingv1beta1.QueueStateOpen)},
			want: []string{
				"job team-a/train is Completed (queue gpu, PodGroup train-job-uid Completed)",
				"- nothing is wrong: the job completed (3 pods succeeded)",
			},
		},
		{
			name: "running with every pod bound",
			in: whyInput{job: whyJob(batchv1alpha1.Running, func(j *batchv1alpha1.Job) { j.Status.Running = 3 }),
				podGroup: whyPodGroup(schedulingv1beta1.PodGroupRunning, ""), queue: whyQueue(schedulingv1beta1.QueueStateOpen),
				pods: []corev1.Pod{whyPod("ps", 0, "n1", nil), whyPod("worker", 0, "n2", nil), whyPod("worker", 1, "n3", nil)}},
			want: []string{
				"job team-a/train is Running (queue gpu, PodGroup train-job-uid Running)",
				"- nothing is wrong: the job is running (3 running, 0 succeeded, minAvailable 3)",
			},
		},
		{
			name: "stalled because its queue is closed, not admitted",
			in: whyInput{
				job: whyJob(batchv1alpha1.Pending, func(j *batchv1alpha1.Job) {
					j.Status.Conditions = []metav1.Condition{{Type: batchv1alpha1.StalledCondition, Status: metav1.ConditionTrue,
						Reason: batchv1alpha1.QueueNotOpenReason, Message: "spec.queue: queue gpu is Closed"}}
				}),
				podGroup: whyPodGroup(schedulingv1beta1.PodGroupPending,
					"3 of 3 pods wait: queue gpu is Closed and admits no new PodGroups; open the queue or submit to an open one"),
				queue: whyQueue(schedulingv1beta1.QueueStateClosed),
			},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Pending)",
				"- the job is stalled (QueueNotOpen): spec.queue: queue gpu is Closed",
				"  next: open the queue (vcctl queue operate -n gpu -a open), or submit the job to an open queue",
				queueShare,
				"- the PodGroup is not admitted to queue gpu (Pending): 3 of 3 pods wait: queue gpu is Closed " +
					"and admits no new PodGroups; open the queue or submit to an open one",
				"  next: the message above says what holds it; the scheduler tries again every cycle",
			},
		},
		{
			name: "stalled because the gang can never fit: waiting will not help, said once",
			in: whyInput{
				job: whyJob(batchv1alpha1.Pending, func(j *batchv1alpha1.Job) {
					j.Status.Conditions = []metav1.Condition{{Type: batchv1alpha1.StalledCondition, Status: metav1.ConditionTrue,
						Reason: batchv1alpha1.UnsatisfiableReason, Message: unsatisfiable}}
				}),
				podGroup: func() *schedulingv1beta1.PodGroup {
					pg := whyPodGroup(schedulingv1beta1.PodGroupPending, unsatisfiable)
					pg.Status.Conditions[0].Reason = schedulingv1beta1.UnsatisfiableReason
					return pg
				}(),
				queue: whyQueue(schedulingv1beta1.QueueStateOpen),
			},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Pending)",
				"- the job is stalled (Unsatisfiable): " + unsatisfiable,
				"  next: waiting will not help: lower the PodGroup's minResources (the tasks' requests), or raise the queue's spec.capability " +
					"or add nodes, as the message says; the job waits again by itself once the gang can fit",
				queueShare,
				"- the scheduler says the gang can never fit (PodGroup Pending, Unsatisfiable): see above",
			},
		},
		{
			name: "a PodGroup the scheduler calls Unsatisfiable before the job says so",
			in: whyInput{
				job: whyJob(batchv1alpha1.Pending, nil),
				podGroup: func() *schedulingv1beta1.PodGroup {
					pg := whyPodGroup(schedulingv1beta1.PodGroupPending, unsatisfiable)
					pg.Status.Conditions[0].Reason = schedulingv1beta1.UnsatisfiableReason
					return pg
				}(),
				queue: whyQueue(schedulingv1beta1.QueueStateOpen),
			},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Pending)",
				queueShare,
				"- the scheduler says the gang can never fit (PodGroup Pending, Unsatisfiable): " + unsatisfiable,
				"  next: waiting will not help: lower the PodGroup's minResources (the tasks' requests), or raise the queue's spec.capability " +
					"or add nodes, as the message says; the job waits again by itself once the gang can fit",
			},
		},
		{
			name: "stalled before its PodGroup is made: no word about the PodGroup, and the event repeating the condition left out",
			in: whyInput{
				job: whyJob(batchv1alpha1.Pending, func(j *batchv1alpha1.Job) {
					j.Status.Conditions = []metav1.Condition{{Type: batchv1alpha1.StalledCondition, Status: metav1.ConditionTrue,
						Reason: batchv1alpha1.QueueNotOpenReason, Message: "spec.queue: queue gpu is Closed"}}
				}),
				queue: whyQueue(schedulingv1beta1.QueueStateClosed),
				events: []corev1.Event{{InvolvedObject: corev1.ObjectReference{UID: "job-uid"}, Type: corev1.EventTypeWarning,
					Reason: batchv1alpha1.QueueNotOpenReason, Message: "spec.queue: queue gpu is Closed", LastTimestamp: metav1.NewTime(now)}},
			},
			want: []string{
				"job team-a/train is Pending (queue gpu)",
				"- the job is stalled (QueueNotOpen): spec.queue: queue gpu is Closed",
				"  next: open the queue (vcctl queue operate -n gpu -a open), or submit the job to an open queue",
				queueShare,
			},
		},
		{
			name: "queue closed after admission: pods wait for the queue",
			in: whyInput{
				job:      whyJob(batchv1alpha1.Pending, nil),
				podGroup: whyPodGroup(schedulingv1beta1.PodGroupInqueue, ""),
				queue:    whyQueue(schedulingv1beta1.QueueStateClosed),
				pods: []corev1.Pod{
					whyPod("ps", 0, "", podScheduledFalse("WaitingForQueue", "waiting for queue gpu: queue gpu is Closed and places no new pods")),
				},
			},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Inqueue)",
				"- queue gpu is Closed: it admits no new PodGroups and places no new pods",
				"  next: vcctl queue operate -n gpu -a open, or submit the job to an open queue",
				queueShare,
				"- the gang is short: 0 of 3 pods (minAvailable) are bound to nodes",
				"- task ps: 1 of 1 pods exist, 0 bound, 1 needed (minTaskMember)",
				"- task worker: 0 of 2 pods exist, 0 bound, 2 needed (minTaskMember)",
				"  next: the job controller has not made all its pods: its events (vcctl job view) say why",
				"- 1 pod(s) (train-ps-0) wait for their queue: waiting for queue gpu: queue gpu is Closed and places no new pods",
				"  next: no autoscaler adds nodes for them; the queue lines above say what to change",
			},
		},
		{
			name: "not admitted for quota, with an SLA waiting time still running",
			in: whyInput{
				job: whyJob(batchv1alpha1.Pending, nil),
				podGroup: func() *schedulingv1beta1.PodGroup {
					pg := whyPodGroup(schedulingv1beta1.PodGroupPending, "3 of 3 pods wait: queue resource quota insufficient: "+
						"queue gpu can hold 8 of cpu and already holds 8 for running and admitted jobs")
					pg.Annotations = map[string]string{schedulingv1beta1.JobWaitingTime: "1h"}
					return pg
				}(),
				queue: whyQueue(schedulingv1beta1.QueueStateOpen),
			},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Pending)",
				queueShare,
				"- the PodGroup is not admitted to queue gpu (Pending): 3 of 3 pods wait: queue resource quota insufficient: " +
					"queue gpu can hold 8 of cpu and already holds 8 for running and admitted jobs",
				"  next: the message above says what holds it; the scheduler tries again every cycle",
				"- SLA waiting time 1h0m0s: waited 10m; at 2026-03-01T12:50:00Z (in 50m) the sla plugin admits it ahead of other jobs, " +
					"if its scheduler configuration enables sla",
			},
		},
		{
			name: "admitted, a gang that fits no node: pods Unschedulable with kube-scheduler's message",
			in: whyInput{
				job: whyJob(batchv1alpha1.Pending, nil),
				podGroup: whyPodGroup(schedulingv1beta1.PodGroupInqueue,
					"2 of 3 pods wait: pod train-worker-0 (and 1 more): "+insufficient),
				queue: whyQueue(schedulingv1beta1.QueueStateOpen),
				pods: []corev1.Pod{
					whyPod("ps", 0, "n1", nil),
					whyPod("worker", 0, "", podScheduledFalse(corev1.PodReasonUnschedulable, insufficient)),
					whyPod("worker", 1, "", podScheduledFalse(corev1.PodReasonUnschedulable, insufficient)),
				},
			},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Inqueue)",
				queueShare,
				"- the scheduler cannot place the gang: 2 of 3 pods wait: pod train-worker-0 (and 1 more): " + insufficient,
				"- the gang is short: 1 of 3 pods (minAvailable) are bound to nodes",
				"- task worker: 2 of 2 pods exist, 0 bound, 2 needed (minTaskMember)",
				"- 2 pod(s) (train-worker-0, train-worker-1) are Unschedulable: " + insufficient,
				"  next: free or add nodes that fit (an autoscaler adds them for Unschedulable pods), or lower the pods' requests",
			},
		},
		{
			name: "a pending pod without the condition falls back to its FailedScheduling event",
			in: whyInput{
				job:      whyJob(batchv1alpha1.Pending, func(j *batchv1alpha1.Job) { j.Spec.Tasks = j.Spec.Tasks[:1]; j.Spec.MinAvailable = 1 }),
				podGroup: whyPodGroup(schedulingv1beta1.PodGroupInqueue, ""),
				queue:    whyQueue(schedulingv1beta1.QueueStateOpen),
				pods:     []corev1.Pod{whyPod("ps", 0, "", nil)},
				events: []corev1.Event{
					{InvolvedObject: corev1.ObjectReference{UID: "train-ps-0"}, Reason: "FailedScheduling", Type: corev1.EventTypeWarning,
						Message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.", LastTimestamp: metav1.NewTime(now.Add(-time.Minute))},
					{InvolvedObject: corev1.ObjectReference{UID: "train-ps-0"}, Reason: "FailedScheduling", Type: corev1.EventTypeWarning,
						Message: "an older one", LastTimestamp: metav1.NewTime(now.Add(-5 * time.Minute))},
				},
			},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Inqueue)",
				queueShare,
				"- the gang is short: 0 of 3 pods (minAvailable) are bound to nodes",
				"- task ps: 1 of 1 pods exist, 0 bound, 1 needed (minTaskMember)",
				"- 1 pod(s) (train-ps-0) are FailedScheduling: 0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
				"  next: free or add nodes that fit (an autoscaler adds them for Unschedulable pods), or lower the pods' requests",
			},
		},
		{
			name: "a task waits for the task it depends on",
			in: whyInput{
				job: whyJob(batchv1alpha1.Pending, func(j *batchv1alpha1.Job) {
					j.Spec.Tasks[1].DependsOn = &batchv1alpha1.DependsOn{Name: []string{"ps"}}
				}),
				podGroup: whyPodGroup(schedulingv1beta1.PodGroupInqueue, ""),
				queue:    whyQueue(schedulingv1beta1.QueueStateOpen),
				pods:     []corev1.Pod{whyPod("ps", 0, "n1", nil)},
			},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Inqueue)",
				queueShare,
				"- task worker waits for all of ps (0 of 1 pods ready) (dependsOn): its pods are made once they are ready",
				"  next: nothing to do while those tasks start; if they do not, the lines about their pods say why",
				"- the gang is short: 1 of 3 pods (minAvailable) are bound to nodes",
				"- task worker: 0 of 2 pods exist, 0 bound, 2 needed (minTaskMember)",
			},
		},
		{
			name: "running with a crash-looping container and a job warning",
			in: whyInput{
				job: whyJob(batchv1alpha1.Running, func(j *batchv1alpha1.Job) {
					j.Spec.Tasks = j.Spec.Tasks[:1]
					j.Spec.MinAvailable = 1
				}),
				podGroup: func() *schedulingv1beta1.PodGroup {
					pg := whyPodGroup(schedulingv1beta1.PodGroupRunning, "")
					pg.Spec.MinMember, pg.Spec.MinTaskMember = 1, nil
					return pg
				}(),
				queue: whyQueue(schedulingv1beta1.QueueStateOpen),
				pods: []corev1.Pod{whyPod("ps", 0, "n1", func(p *corev1.Pod) {
					p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", RestartCount: 4,
						State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s"}}}}
				})},
				events: []corev1.Event{{InvolvedObject: corev1.ObjectReference{UID: "job-uid"}, Type: corev1.EventTypeWarning,
					Reason: "PolicyEvaluationFailed", Message: "no such key: x", LastTimestamp: metav1.NewTime(now.Add(-2 * time.Minute))}},
			},
			want: []string{
				"job team-a/train is Running (queue gpu, PodGroup train-job-uid Running)",
				"- pod train-ps-0: container main is CrashLoopBackOff (restarted 4 times): back-off 40s",
				"  next: kubectl logs -n team-a train-ps-0 -c main --previous, or fix the image or configuration",
				"- the job's event PolicyEvaluationFailed (2m ago): no such key: x",
			},
		},
		{
			name: "failed: stalled, with the pod that failed",
			in: whyInput{
				job: whyJob(batchv1alpha1.Failed, func(j *batchv1alpha1.Job) {
					j.Status.Conditions = []metav1.Condition{{Type: batchv1alpha1.StalledCondition, Status: metav1.ConditionTrue,
						Reason: batchv1alpha1.JobFailedReason, Message: "pod train-ps-0 failed and the policy fails the job"}}
				}),
				queue: whyQueue(schedulingv1beta1.QueueStateOpen),
				pods: []corev1.Pod{whyPod("ps", 0, "n1", func(p *corev1.Pod) {
					p.Status.Phase = corev1.PodFailed
					p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main",
						State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}}
				})},
			},
			want: []string{
				"job team-a/train is Failed (queue gpu)",
				"- the job is stalled (JobFailed): pod train-ps-0 failed and the policy fails the job",
				"  next: the job will not run again: read its pods' logs (kubectl logs), fix the cause, and run it again",
				"- pod train-ps-0 failed (container main exited with code 137: OOMKilled)",
				"  next: kubectl logs -n team-a train-ps-0; the job's policies decide whether it restarts",
			},
		},
		{
			name: "suspended by spec.suspend",
			in: whyInput{job: whyJob(batchv1alpha1.Aborted, func(j *batchv1alpha1.Job) { j.Spec.Suspend = ptr.To(true) }),
				queue: whyQueue(schedulingv1beta1.QueueStateOpen)},
			want: []string{
				"job team-a/train is Aborted (queue gpu)",
				"- the job is suspended: spec.suspend is true, so its pods are deleted and none are made",
				"  next: set spec.suspend to false (in Git, if the job is kept there) to run it again",
			},
		},
		{
			name: "aborted by a Command",
			in:   whyInput{job: whyJob(batchv1alpha1.Aborted, nil), queue: whyQueue(schedulingv1beta1.QueueStateOpen)},
			want: []string{
				"job team-a/train is Aborted (queue gpu)",
				"- the job was aborted (an AbortJob Command)",
				"  next: vcctl job resume -N train -n team-a",
			},
		},
		{
			name: "run as kubectl vc, the commands suggested are kubectl vc's",
			in:   whyInput{job: whyJob(batchv1alpha1.Aborted, nil), queue: whyQueue(schedulingv1beta1.QueueStateOpen), name: "kubectl vc"},
			want: []string{
				"job team-a/train is Aborted (queue gpu)",
				"- the job was aborted (an AbortJob Command)",
				"  next: kubectl vc job resume -N train -n team-a",
			},
		},
		{
			name: "no queue and no PodGroup yet",
			in:   whyInput{job: whyJob("", nil)},
			want: []string{
				"job team-a/train is Pending (queue gpu)",
				"- queue gpu does not exist, so the job's PodGroup is never admitted",
				"  next: create it (vcctl queue create -n gpu) or submit the job to an existing queue",
				"- the job has no PodGroup yet: the job controller makes it first",
				"  next: if this lasts, check that Caldera's manager runs and read the job's events (vcctl job view)",
			},
		},
		{
			name: "not admitted and nothing written: no scheduler serves the job",
			in: whyInput{job: whyJob(batchv1alpha1.Pending, func(j *batchv1alpha1.Job) { j.Spec.SchedulerName = "other" }),
				podGroup: whyPodGroup(schedulingv1beta1.PodGroupPending, ""), queue: whyQueue(schedulingv1beta1.QueueStateOpen)},
			want: []string{
				"job team-a/train is Pending (queue gpu, PodGroup train-job-uid Pending)",
				queueShare,
				"- the PodGroup is not admitted to queue gpu (Pending): the scheduler has not written why",
				"  next: check that a scheduler serves schedulerName other (Caldera's scheduler runs in the manager)",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.now = now
			if diff := cmp.Diff(tc.want, explainJob(tc.in)); diff != "" {
				t.Errorf("explainJob (-want +got):\n%s", diff)
			}
		})
	}
}
