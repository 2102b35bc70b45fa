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

package naming

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestNames(t *testing.T) {
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"pod", PodName("train", "worker", 3), "train-worker-3"},
		{"pod with dashes", PodName("my-job", "ps-a", 0), "my-job-ps-a-0"},
		{"podgroup", PodGroupName("train", "8f7e6d5c-0000-1111-2222-333344445555"), "train-8f7e6d5c-0000-1111-2222-333344445555"},
		{"template uid", TemplateUID("train", "worker"), "train-worker"},
		{"svc configmap", SvcConfigMapName("train"), "train-svc"},
		{"service", ServiceName("train"), "train"},
		{"network policy", NetworkPolicyName("train"), "train"},
		{"ssh secret", SSHSecretName("train"), "train-ssh"},
		{"plugin resource key", PluginResourceKey("ssh"), "plugin-ssh"},
		{"volume resource key", VolumeResourceKey("data"), "volume-pvc-data"},
		{"task key", TaskKey("mpi-worker"), "mpi_worker"},
		{"task env key", TaskEnvKey("mpi-worker"), "MPI_WORKER"},
		{"task env key plain", TaskEnvKey("ps"), "PS"},
		{"default task name", DefaultTaskName(12), "default12"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTaskName(t *testing.T) {
	named := func(names ...string) []batchv1alpha1.TaskSpec {
		tasks := make([]batchv1alpha1.TaskSpec, len(names))
		for i, n := range names {
			tasks[i].Name = n
		}
		return tasks
	}
	cases := []struct {
		name      string
		tasks     []batchv1alpha1.TaskSpec
		wantNames []string
		// wantIndex maps a name to TaskIndex's answer.
		wantIndex map[string]int
	}{
		{
			name:      "one unnamed task",
			tasks:     named(""),
			wantNames: []string{"default0"},
			wantIndex: map[string]int{"default0": 0, "": -1, "default": -1},
		},
		{
			name:      "several unnamed tasks are named by position",
			tasks:     named("", "", ""),
			wantNames: []string{"default0", "default1", "default2"},
			wantIndex: map[string]int{"default0": 0, "default1": 1, "default2": 2, "default3": -1},
		},
		{
			name:      "names are kept, unnamed tasks count every position",
			tasks:     named("ps", "", "worker", ""),
			wantNames: []string{"ps", "default1", "worker", "default3"},
			wantIndex: map[string]int{"ps": 0, "default1": 1, "worker": 2, "default3": 3, "default0": -1, "default2": -1},
		},
		{
			name:      "a name that looks like a default is a name",
			tasks:     named("default1", "default0"),
			wantNames: []string{"default1", "default0"},
			wantIndex: map[string]int{"default1": 0, "default0": 1},
		},
		{
			name:      "no tasks",
			tasks:     nil,
			wantNames: []string{},
			wantIndex: map[string]int{"default0": -1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]string, 0, len(tc.tasks))
			for i := range tc.tasks {
				got = append(got, TaskName(tc.tasks, i))
			}
			if diff := cmp.Diff(tc.wantNames, got); diff != "" {
				t.Errorf("TaskName (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNames, TaskNames(tc.tasks)); diff != "" {
				t.Errorf("TaskNames (-want +got):\n%s", diff)
			}
			gotIndex := make(map[string]int, len(tc.wantIndex))
			for name := range tc.wantIndex {
				gotIndex[name] = TaskIndex(tc.tasks, name)
			}
			if diff := cmp.Diff(tc.wantIndex, gotIndex); diff != "" {
				t.Errorf("TaskIndex (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIndexFromPodName(t *testing.T) {
	cases := []struct {
		name      string
		pod       string
		wantIndex int
		wantErr   bool
	}{
		{name: "simple", pod: "train-worker-7", wantIndex: 7},
		{name: "dashes in job and task", pod: "my-job-ps-a-12", wantIndex: 12},
		{name: "no dash", pod: "worker", wantErr: true},
		{name: "trailing dash", pod: "train-worker-", wantErr: true},
		{name: "not a number", pod: "train-worker-x", wantErr: true},
		{name: "last segment only", pod: "train-worker--1", wantIndex: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := IndexFromPodName(tc.pod)
			if diff := cmp.Diff(tc.wantErr, err != nil); diff != "" {
				t.Fatalf("error %v (-wantErr +gotErr):\n%s", err, diff)
			}
			if diff := cmp.Diff(tc.wantIndex, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodIndexAndTask(t *testing.T) {
	cases := []struct {
		name      string
		pod       *corev1.Pod
		wantIndex int
		wantErr   bool
		wantTask  string
		wantFound bool
	}{
		{
			name: "annotation wins over name",
			pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "train-worker-3", Annotations: map[string]string{
				batchv1alpha1.TaskIndex: "5", batchv1alpha1.TaskSpecKey: "worker",
			}}},
			wantIndex: 5, wantTask: "worker", wantFound: true,
		},
		{
			name:      "name when no annotation",
			pod:       &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "train-worker-3"}},
			wantIndex: 3,
		},
		{
			name: "bad annotation",
			pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "train-worker-3", Annotations: map[string]string{
				batchv1alpha1.TaskIndex: "three",
			}}},
			wantErr: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PodIndex(tc.pod)
			if diff := cmp.Diff(tc.wantErr, err != nil); diff != "" {
				t.Fatalf("error %v (-wantErr +gotErr):\n%s", err, diff)
			}
			if diff := cmp.Diff(tc.wantIndex, got); diff != "" {
				t.Errorf("index (-want +got):\n%s", diff)
			}
			task, found := PodTaskName(tc.pod)
			if diff := cmp.Diff([]any{tc.wantTask, tc.wantFound}, []any{task, found}); diff != "" {
				t.Errorf("task (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClaimAndVolumeNames(t *testing.T) {
	job := "train"
	a := JobClaimName(job, "/data")
	if diff := cmp.Diff(a, JobClaimName(job, "/data")); diff != "" {
		t.Errorf("JobClaimName is not deterministic (-first +second):\n%s", diff)
	}
	if a == JobClaimName(job, "/scratch") {
		t.Errorf("JobClaimName gives %q for two mount paths", a)
	}
	if diff := cmp.Diff(len("train-pvc-")+12, len(a)); diff != "" {
		t.Errorf("JobClaimName %q length (-want +got):\n%s", a, diff)
	}
	if !strings.HasPrefix(a, "train-pvc-") {
		t.Errorf("JobClaimName %q does not start with train-pvc-", a)
	}

	cases := []struct {
		name   string
		volume batchv1alpha1.VolumeSpec
		want   string
	}{
		{"existing claim", batchv1alpha1.VolumeSpec{MountPath: "/data", VolumeClaimName: "shared"}, "shared"},
		{"claim the job makes", batchv1alpha1.VolumeSpec{MountPath: "/data", VolumeClaim: &corev1.PersistentVolumeClaimSpec{}}, a},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ClaimName(job, &tc.volume)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	for _, claim := range []string{"shared", "a.b.c", strings.Repeat("x", 253), "-", "team.data-" + strings.Repeat("long", 20)} {
		v := VolumeName(claim)
		if errs := validation.IsDNS1123Label(v); len(errs) != 0 {
			t.Errorf("VolumeName(%q) = %q is not a DNS label: %v", claim, v, errs)
		}
		if diff := cmp.Diff(v, VolumeName(claim)); diff != "" {
			t.Errorf("VolumeName(%q) is not deterministic:\n%s", claim, diff)
		}
	}
	if VolumeName("a.b") == VolumeName("a-b") {
		t.Errorf("VolumeName gives the same name for a.b and a-b")
	}
}

func TestHosts(t *testing.T) {
	cases := []struct {
		name          string
		task          batchv1alpha1.TaskSpec
		wantHostname  string
		wantSubdomain string
		wantHosts     []string
	}{
		{
			name:          "defaults",
			task:          batchv1alpha1.TaskSpec{Name: "worker", Replicas: 3},
			wantHostname:  "train-worker-1",
			wantSubdomain: "train",
			wantHosts:     []string{"train-worker-0.train", "train-worker-1.train", "train-worker-2.train"},
		},
		{
			name: "template hostname gives one entry",
			task: batchv1alpha1.TaskSpec{Name: "ps", Replicas: 2, Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Hostname: "param", Subdomain: "net"},
			}},
			wantHostname:  "param",
			wantSubdomain: "net",
			wantHosts:     []string{"param.net"},
		},
		{
			name:          "no replicas",
			task:          batchv1alpha1.TaskSpec{Name: "idle"},
			wantHostname:  "train-idle-1",
			wantSubdomain: "train",
			wantHosts:     []string{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := []any{Hostname("train", tc.task.Name, &tc.task, 1), Subdomain("train", &tc.task), TaskHosts("train", tc.task.Name, &tc.task)}
			want := []any{tc.wantHostname, tc.wantSubdomain, tc.wantHosts}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
