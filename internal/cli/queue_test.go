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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

func podGroup(queue string, phase schedulingv1beta1.PodGroupPhase) schedulingv1beta1.PodGroup {
	return schedulingv1beta1.PodGroup{
		Spec:   schedulingv1beta1.PodGroupSpec{Queue: queue},
		Status: schedulingv1beta1.PodGroupStatus{Phase: phase},
	}
}

func TestCountPodGroups(t *testing.T) {
	got := countPodGroups([]schedulingv1beta1.PodGroup{
		podGroup("gpu", schedulingv1beta1.PodGroupInqueue),
		podGroup("gpu", schedulingv1beta1.PodGroupRunning),
		podGroup("gpu", schedulingv1beta1.PodGroupRunning),
		podGroup("gpu", schedulingv1beta1.PodGroupCompleted),
		podGroup("gpu", schedulingv1beta1.PodGroupUnknown),
		podGroup("gpu", schedulingv1beta1.PodGroupPending),
		podGroup("", schedulingv1beta1.PodGroupPending),
		podGroup("default", ""),
	})
	want := map[string]podGroupCounts{
		"gpu":     {inqueue: 1, pending: 1, running: 2, unknown: 1, completed: 1},
		"default": {pending: 1},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(podGroupCounts{})); diff != "" {
		t.Errorf("countPodGroups (-want +got):\n%s", diff)
	}
}

func TestFormatQueueList(t *testing.T) {
	queue := func(name string, weight int32, state schedulingv1beta1.QueueState, parent string) schedulingv1beta1.Queue {
		return schedulingv1beta1.Queue{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       schedulingv1beta1.QueueSpec{Weight: weight, Parent: parent},
			Status:     schedulingv1beta1.QueueStatus{State: state, Running: 99},
		}
	}
	cases := []struct {
		name   string
		queues []schedulingv1beta1.Queue
		counts map[string]podGroupCounts
		want   string
	}{
		{name: "no queues", want: "No resources found\n"},
		{
			name: "sorted by name, counts from PodGroups rather than the status",
			queues: []schedulingv1beta1.Queue{
				queue("root", 1, schedulingv1beta1.QueueStateOpen, ""),
				queue("gpu-training", 10, schedulingv1beta1.QueueStateClosing, "root"),
				queue("default", 1, schedulingv1beta1.QueueStateOpen, "root"),
			},
			counts: map[string]podGroupCounts{
				"gpu-training": {inqueue: 1, pending: 2, running: 3, unknown: 4, completed: 5},
				"default":      {running: 12},
			},
			want: "" +
				"Name                     Weight  State   Parent  Inqueue Pending Running Unknown Completed\n" +
				"default                  1       Open    root    0       0       12      0       0       \n" +
				"gpu-training             10      Closing root    1       2       3       4       5       \n" +
				"root                     1       Open            0       0       0       0       0       \n",
		},
		{
			name:   "a name longer than Volcano's 25 columns runs into the weight, as in Volcano",
			queues: []schedulingv1beta1.Queue{queue("a-queue-name-longer-than-25", 1, schedulingv1beta1.QueueStateOpen, "root")},
			want: "" +
				"Name                     Weight  State   Parent  Inqueue Pending Running Unknown Completed\n" +
				"a-queue-name-longer-than-251       Open    root    0       0       0       0       0       \n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, formatQueueList(tc.queues, tc.counts)); diff != "" {
				t.Errorf("formatQueueList (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseQueueOperation(t *testing.T) {
	cases := []struct {
		name      string
		queue     string
		action    string
		weight    int32
		weightSet bool
		want      queueOperation
		wantErr   string
	}{
		{name: "open", queue: "q", action: "open", want: queueOperation{action: busv1alpha1.OpenQueueAction}},
		{name: "close", queue: "q", action: "close", want: queueOperation{action: busv1alpha1.CloseQueueAction}},
		{name: "any case", queue: "q", action: "Close", want: queueOperation{action: busv1alpha1.CloseQueueAction}},
		{name: "update", queue: "q", action: "update", weight: 8, weightSet: true, want: queueOperation{weight: 8}},
		{name: "no name", action: "open", wantErr: "queue name is required: pass -n/--name"},
		{name: "no action", queue: "q", wantErr: "action is required: pass -a/--action open, close or update"},
		{name: "unknown action", queue: "q", action: "drain",
			wantErr: `-a/--action "drain" is not an action: use open, close or update`},
		{name: "update without weight", queue: "q", action: "update",
			wantErr: "-a update needs the new weight: pass -w/--weight 1 to 65535"},
		{name: "update with weight 0", queue: "q", action: "update", weightSet: true,
			wantErr: "-w/--weight 0 is out of range: a queue's weight is 1 to 65535"},
		{name: "update with a weight too large", queue: "q", action: "update", weight: 70000, weightSet: true,
			wantErr: "-w/--weight 70000 is out of range: a queue's weight is 1 to 65535"},
		{name: "weight with open", queue: "q", action: "open", weight: 3, weightSet: true,
			wantErr: "-w/--weight is only used with -a update: drop it, or change the weight in a separate `vcctl queue operate -n q -a update -w 3`"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseQueueOperation(tc.queue, tc.action, tc.weight, tc.weightSet)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(queueOperation{})); diff != "" {
				t.Errorf("operation (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildQueue(t *testing.T) {
	cases := []struct {
		name       string
		flags      queueCreateFlags
		want       *schedulingv1beta1.Queue
		wantAction busv1alpha1.Action
		wantErr    string
	}{
		{
			name:  "Volcano's defaults",
			flags: queueCreateFlags{name: "test", weight: 1, state: "Open"},
			want:  &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: "test"}, Spec: schedulingv1beta1.QueueSpec{Weight: 1}},
		},
		{
			name:       "closed, with a parent",
			flags:      queueCreateFlags{name: "team-a", weight: 5, state: "closed", parent: "root"},
			want:       &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Spec: schedulingv1beta1.QueueSpec{Weight: 5, Parent: "root"}},
			wantAction: busv1alpha1.CloseQueueAction,
		},
		{name: "no name", flags: queueCreateFlags{weight: 1, state: "Open"}, wantErr: "queue name is required: pass -n/--name"},
		{name: "bad name", flags: queueCreateFlags{name: "Team A", weight: 1, state: "Open"},
			wantErr: `-n/--name "Team A" is not a valid queue name (a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')): use lowercase letters, digits, '-' and '.'`},
		{name: "weight 0", flags: queueCreateFlags{name: "q", state: "Open"},
			wantErr: "-w/--weight 0 is out of range: a queue's weight is 1 to 65535"},
		{name: "closing is not a state to create in", flags: queueCreateFlags{name: "q", weight: 1, state: "Closing"},
			wantErr: `-S/--state "Closing" is not a state a queue can be created in: use Open or Closed`},
		{name: "own parent", flags: queueCreateFlags{name: "q", weight: 1, state: "Open", parent: "q"},
			wantErr: "--parent q is the queue itself: name another queue, such as root"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, action, err := buildQueue(tc.flags)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("queue (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAction, action); diff != "" {
				t.Errorf("action (-want +got):\n%s", diff)
			}
		})
	}
}

func TestActionCommands(t *testing.T) {
	job := &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "train", UID: types.UID("uid-1")}}
	jobRef := metav1.OwnerReference{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: "train", UID: "uid-1",
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	queue := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: "gpu", UID: types.UID("uid-2")}}
	queueRef := metav1.OwnerReference{APIVersion: "scheduling.volcano.sh/v1beta1", Kind: "Queue", Name: "gpu", UID: "uid-2",
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	cases := []struct {
		name string
		got  *busv1alpha1.Command
		want *busv1alpha1.Command
	}{
		{
			name: "suspend",
			got:  jobActionCommand(job, busv1alpha1.AbortJobAction),
			want: &busv1alpha1.Command{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "train-abortjob-", Namespace: "team-a", OwnerReferences: []metav1.OwnerReference{jobRef}},
				Action:     "AbortJob", TargetObject: &jobRef,
			},
		},
		{
			name: "resume",
			got:  jobActionCommand(job, busv1alpha1.ResumeJobAction),
			want: &busv1alpha1.Command{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "train-resumejob-", Namespace: "team-a", OwnerReferences: []metav1.OwnerReference{jobRef}},
				Action:     "ResumeJob", TargetObject: &jobRef,
			},
		},
		{
			name: "close a queue, in namespace default",
			got:  queueActionCommand(queue, busv1alpha1.CloseQueueAction),
			want: &busv1alpha1.Command{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "gpu-closequeue-", Namespace: "default", OwnerReferences: []metav1.OwnerReference{queueRef}},
				Action:     "CloseQueue", TargetObject: &queueRef,
			},
		},
		{
			name: "open a queue",
			got:  queueActionCommand(queue, busv1alpha1.OpenQueueAction),
			want: &busv1alpha1.Command{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "gpu-openqueue-", Namespace: "default", OwnerReferences: []metav1.OwnerReference{queueRef}},
				Action:     "OpenQueue", TargetObject: &queueRef,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("command (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatQueueTree(t *testing.T) {
	cpu := func(v string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v)}
	}
	queue := func(name, parent string, capability, allocated corev1.ResourceList) schedulingv1beta1.Queue {
		return schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:   schedulingv1beta1.QueueSpec{Weight: 1, Parent: parent, Capability: capability},
			Status: schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateOpen, Allocated: allocated}}
	}
	got := formatQueueTree([]schedulingv1beta1.Queue{
		queue("root", "", nil, cpu("6")),
		queue("default", "", nil, nil),
		queue("team-a", "root", cpu("8"), cpu("6")),
		queue("team-a-dev", "team-a", cpu("4"), cpu("4")),
		queue("team-a-prod", "team-a", nil, cpu("2")),
		queue("lost", "gone", nil, nil),
	}, map[string]podGroupCounts{"team-a-dev": {running: 2}, "team-a-prod": {pending: 1, running: 1}})
	want := "" +
		"NAME                         STATE   WEIGHT   DESERVED   GUARANTEE   CAPABILITY   ALLOCATED   PENDING   INQUEUE   RUNNING   COMPLETED\n" +
		"lost (parent gone missing)   Open    1        -          -           -            -           0         0         0         0\n" +
		"root                         Open    1        -          -           -            cpu=6       0         0         0         0\n" +
		"├─ default                   Open    1        -          -           -            -           0         0         0         0\n" +
		"└─ team-a                    Open    1        -          -           cpu=8        cpu=6       0         0         0         0\n" +
		"   ├─ team-a-dev             Open    1        -          -           cpu=4        cpu=4       0         0         2         0\n" +
		"   └─ team-a-prod            Open    1        -          -           -            cpu=2       1         0         1         0\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("formatQueueTree (-want +got):\n%s", diff)
	}
}
