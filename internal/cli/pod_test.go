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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func labeledPod(namespace, name string, labels, annotations map[string]string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels, Annotations: annotations}}
}

func podNames(pods []corev1.Pod) []string {
	var names []string
	for _, p := range pods {
		names = append(names, p.Namespace+"/"+p.Name)
	}
	return names
}

func TestSelectPods(t *testing.T) {
	jobPod := func(ns, name, job, queue string) corev1.Pod {
		return labeledPod(ns, name, map[string]string{"volcano.sh/job-name": job, "volcano.sh/queue-name": queue}, nil)
	}
	pods := []corev1.Pod{
		jobPod("b", "train-worker-0", "train", "gpu"),
		jobPod("a", "train-worker-1", "train", "gpu"),
		jobPod("a", "serve-0", "serve", "default"),
		labeledPod("a", "plain", nil, map[string]string{"scheduling.volcano.sh/queue-name": "gpu"}),
		labeledPod("a", "unrelated", nil, nil),
	}
	cases := []struct {
		name    string
		filter  podListFilter
		want    []string
		wantErr string
	}{
		{name: "the pods of every job", want: []string{"a/serve-0", "a/train-worker-1", "b/train-worker-0"}},
		{name: "one job", filter: podListFilter{job: "train"}, want: []string{"a/train-worker-1", "b/train-worker-0"}},
		{name: "one job in its queue", filter: podListFilter{job: "train", queue: "gpu"}, want: []string{"a/train-worker-1", "b/train-worker-0"}},
		{name: "one job in another queue", filter: podListFilter{job: "train", queue: "default"},
			wantErr: "job train is in queue gpu, not default: drop -q/--queue or check -j/--job"},
		{name: "one queue: job pods by label, other pods by annotation", filter: podListFilter{queue: "gpu"},
			want: []string{"a/plain", "a/train-worker-1", "b/train-worker-0"}},
		{name: "no such job", filter: podListFilter{job: "none"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := selectPods(pods, tc.filter)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, podNames(got)); diff != "" {
				t.Errorf("selectPods (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarizePod(t *testing.T) {
	containers := func(names ...string) []corev1.Container {
		var cs []corev1.Container
		for _, n := range names {
			cs = append(cs, corev1.Container{Name: n})
		}
		return cs
	}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	waiting := func(reason string) corev1.ContainerState {
		return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
	}
	terminated := func(reason string, code int32) corev1.ContainerState {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code}}
	}
	lastTerminated := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 1, FinishedAt: metav1.NewTime(now.Add(-2 * time.Minute))}}

	cases := []struct {
		name string
		pod  corev1.Pod
		want podSummary
	}{
		{
			name: "pending, not scheduled",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodPending}},
			want: podSummary{ready: "0/1", status: "Pending", restarts: "0"},
		},
		{
			name: "scheduling gated",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
					{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated"}}}},
			want: podSummary{ready: "0/1", status: "SchedulingGated", restarts: "0"},
		},
		{
			name: "running and ready, one container restarted",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: containers("main", "log")},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
					{Name: "main", Ready: true, State: running, RestartCount: 2, LastTerminationState: lastTerminated},
					{Name: "log", Ready: true, State: running},
				}}},
			want: podSummary{ready: "2/2", status: "Running", restarts: "2 (2m ago)"},
		},
		{
			name: "crash looping: the first container's reason wins",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: containers("main", "log")},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
					{Name: "main", State: waiting("CrashLoopBackOff"), RestartCount: 5},
					{Name: "log", State: waiting("ImagePullBackOff")},
				}}},
			want: podSummary{ready: "0/2", status: "CrashLoopBackOff", restarts: "5"},
		},
		{
			name: "completed",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{
					{Name: "main", State: terminated("Completed", 0)}}}},
			want: podSummary{ready: "0/1", status: "Completed", restarts: "0"},
		},
		{
			name: "failed without a reason shows the exit code",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{
					{Name: "main", State: terminated("", 137)}}}},
			want: podSummary{ready: "0/1", status: "ExitCode:137", restarts: "0"},
		},
		{
			name: "one container done, another still running and the pod not ready",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: containers("main", "log")},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
					{Name: "main", State: terminated("Completed", 0)},
					{Name: "log", Ready: true, State: running},
				}}},
			want: podSummary{ready: "1/2", status: "NotReady", restarts: "0"},
		},
		{
			name: "initializing",
			pod: corev1.Pod{Spec: corev1.PodSpec{InitContainers: containers("fetch", "unpack"), Containers: containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{
					{Name: "fetch", State: terminated("Completed", 0)},
					{Name: "unpack", State: waiting("PodInitializing")},
				}}},
			want: podSummary{ready: "0/1", status: "Init:1/2", restarts: "0"},
		},
		{
			name: "init container failed",
			pod: corev1.Pod{Spec: corev1.PodSpec{InitContainers: containers("fetch"), Containers: containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{
					{Name: "fetch", State: terminated("Error", 1), RestartCount: 3},
				}}},
			want: podSummary{ready: "0/1", status: "Init:Error", restarts: "3"},
		},
		{
			name: "started sidecar counts as a ready container",
			pod: corev1.Pod{Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "proxy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}},
				Containers:     containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodRunning,
					Conditions: []corev1.PodCondition{
						{Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
						{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
					InitContainerStatuses: []corev1.ContainerStatus{
						{Name: "proxy", Started: ptr.To(true), Ready: true, State: running, RestartCount: 1}},
					ContainerStatuses: []corev1.ContainerStatus{{Name: "main", Ready: true, State: running}},
				}},
			want: podSummary{ready: "2/2", status: "Running", restarts: "1"},
		},
		{
			name: "being deleted",
			pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: ptr.To(metav1.NewTime(now))},
				Spec:   corev1.PodSpec{Containers: containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodRunning}},
			want: podSummary{ready: "0/1", status: "Terminating", restarts: "0"},
		},
		{
			name: "evicted",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: containers("main")},
				Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"}},
			want: podSummary{ready: "0/1", status: "Evicted", restarts: "0"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summarizePod(&tc.pod, now), cmp.AllowUnexported(podSummary{})); diff != "" {
				t.Errorf("summarizePod (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatPodList(t *testing.T) {
	pod := func(ns, name string, phase corev1.PodPhase, created time.Duration) corev1.Pod {
		return corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(now.Add(-created))},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main"}}},
			Status:     corev1.PodStatus{Phase: phase},
		}
	}
	pods := []corev1.Pod{
		pod("team-a", "train-worker-0", corev1.PodPending, 30*time.Second),
		pod("team-a", "train-ps-0", corev1.PodFailed, 3*time.Hour),
	}
	cases := []struct {
		name          string
		pods          []corev1.Pod
		allNamespaces bool
		want          string
	}{
		{name: "no pods", want: "No resources found\n"},
		{
			name: "one namespace",
			pods: pods,
			want: "" +
				"Name             Ready   Status    Restart   Age\n" +
				"train-worker-0   0/1     Pending   0         30s\n" +
				"train-ps-0       0/1     Failed    0         3h\n",
		},
		{
			name:          "all namespaces",
			pods:          pods[:1],
			allNamespaces: true,
			want: "" +
				"Namespace   Name             Ready   Status    Restart   Age\n" +
				"team-a      train-worker-0   0/1     Pending   0         30s\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, formatPodList(tc.pods, tc.allNamespaces, now)); diff != "" {
				t.Errorf("formatPodList (-want +got):\n%s", diff)
			}
		})
	}
}
