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

package pods

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
	jobplugins "github.com/caldera-sh/caldera/internal/job/plugins"
)

// jobWrapper builds test jobs.
type jobWrapper struct{ batchv1alpha1.Job }

func makeJob(name string) *jobWrapper {
	return &jobWrapper{batchv1alpha1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "1111-2222"},
		Spec:       batchv1alpha1.JobSpec{Queue: "default"},
	}}
}

func (j *jobWrapper) Task(t batchv1alpha1.TaskSpec) *jobWrapper {
	j.Spec.Tasks = append(j.Spec.Tasks, t)
	return j
}

func (j *jobWrapper) Obj() *batchv1alpha1.Job { return &j.Job }

func makeTask(name string, replicas int32, containers ...corev1.Container) batchv1alpha1.TaskSpec {
	if len(containers) == 0 {
		containers = []corev1.Container{{Name: "main", Image: "app"}}
	}
	return batchv1alpha1.TaskSpec{Name: name, Replicas: replicas, Template: corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{Containers: containers},
	}}
}

func ownerRefs(name string) []metav1.OwnerReference {
	return []metav1.OwnerReference{{
		APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: name, UID: "1111-2222",
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}}
}

func TestBuildPodMetadata(t *testing.T) {
	worker := makeTask("worker", 8)
	worker.TopologyPolicy = batchv1alpha1.NumaPolicyBestEffort
	worker.PartitionPolicy = &batchv1alpha1.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 4}
	worker.Template.Labels = map[string]string{"app": "trainer"}
	worker.Template.Annotations = map[string]string{"note": "from template"}
	job := makeJob("train").Task(worker).Obj()
	job.Spec.Queue = "research"
	job.Status.Version = 3
	job.Status.RetryCount = 2
	job.Labels = map[string]string{
		"volcano.sh/preemptable":         "true",
		"volcano.sh/cooldown-time":       "600s",
		"app.kubernetes.io/instance":     "argo-app",
		"team":                           "ml",
		"kustomize.toolkit.fluxcd.io/ok": "x",
	}
	job.Annotations = map[string]string{
		"volcano.sh/preemptable":         "false",
		"volcano.sh/cooldown-time":       "300s",
		"volcano.sh/revocable-zone":      "*",
		"volcano.sh/jdb-min-available":   "2",
		"volcano.sh/jdb-max-unavailable": "1",
		"argocd.argoproj.io/tracking-id": "app:batch.volcano.sh/Job:ns/train",
		"other":                          "not copied",
	}
	before := job.DeepCopy()

	pod, err := BuildPod(job, "worker", 5, PodOptions{DefaultSchedulerName: "volcano"})
	if err != nil {
		t.Fatal(err)
	}
	want := metav1.ObjectMeta{
		Name:      "train-worker-5",
		Namespace: "ns",
		Labels: map[string]string{
			"app":                      "trainer",
			"volcano.sh/task-index":    "5",
			"volcano.sh/job-name":      "train",
			"volcano.sh/task-spec":     "worker",
			"volcano.sh/job-namespace": "ns",
			"volcano.sh/queue-name":    "research",
			"volcano.sh/preemptable":   "true",
			"volcano.sh/cooldown-time": "600s",
			"volcano.sh/partition-id":  "1",
		},
		Annotations: map[string]string{
			"note":                            "from template",
			"volcano.sh/task-index":           "5",
			"volcano.sh/task-spec":            "worker",
			"scheduling.k8s.io/group-name":    "train-1111-2222",
			"volcano.sh/job-name":             "train",
			"volcano.sh/queue-name":           "research",
			"volcano.sh/job-version":          "3",
			"volcano.sh/template-uid":         "train-worker",
			"volcano.sh/job-retry-count":      "2",
			"volcano.sh/numa-topology-policy": "best-effort",
			"volcano.sh/preemptable":          "false",
			"volcano.sh/cooldown-time":        "300s",
			"volcano.sh/revocable-zone":       "*",
			"volcano.sh/jdb-min-available":    "2",
		},
		OwnerReferences: ownerRefs("train"),
	}
	if diff := cmp.Diff(want, pod.ObjectMeta); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, job); diff != "" {
		t.Errorf("job changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"app": "trainer"}, job.Spec.Tasks[0].Template.Labels); diff != "" {
		t.Errorf("template labels changed (-want +got):\n%s", diff)
	}
}

func TestBuildPodJDBMaxUnavailableAndMinimalJob(t *testing.T) {
	job := makeJob("j").Task(makeTask("t", 1)).Obj()
	job.Spec.Queue = ""
	job.Annotations = map[string]string{"volcano.sh/jdb-max-unavailable": "10%"}
	pod, err := BuildPod(job, "t", 0, PodOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      "j-t-0",
			Namespace: "ns",
			Labels: map[string]string{
				"volcano.sh/task-index": "0", "volcano.sh/job-name": "j", "volcano.sh/task-spec": "t",
				"volcano.sh/job-namespace": "ns", "volcano.sh/queue-name": "",
			},
			Annotations: map[string]string{
				"volcano.sh/task-index": "0", "volcano.sh/task-spec": "t", "scheduling.k8s.io/group-name": "j-1111-2222",
				"volcano.sh/job-name": "j", "volcano.sh/queue-name": "", "volcano.sh/job-version": "0",
				"volcano.sh/template-uid": "j-t", "volcano.sh/job-retry-count": "0",
				"volcano.sh/jdb-max-unavailable": "10%",
			},
			OwnerReferences: ownerRefs("j"),
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "app"}}},
	}
	if diff := cmp.Diff(want, pod); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBuildPodUnnamedTasks(t *testing.T) {
	// Two unnamed tasks are default0 and default1 (naming.TaskName), told apart by their image.
	job := makeJob("j").
		Task(makeTask("", 1, corev1.Container{Name: "main", Image: "first"})).
		Task(makeTask("", 2, corev1.Container{Name: "main", Image: "second"})).
		Obj()
	before := job.DeepCopy()
	type meta struct {
		Name, Image, TaskSpecLabel, TaskSpecAnnotation, TemplateUID string
	}
	cases := []struct {
		task  string
		index int
		want  meta
	}{
		{task: "default0", index: 0, want: meta{"j-default0-0", "first", "default0", "default0", "j-default0"}},
		{task: "default1", index: 1, want: meta{"j-default1-1", "second", "default1", "default1", "j-default1"}},
	}
	for _, tc := range cases {
		t.Run(tc.task, func(t *testing.T) {
			pod, err := BuildPod(job, tc.task, tc.index, PodOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := meta{pod.Name, pod.Spec.Containers[0].Image, pod.Labels[batchv1alpha1.TaskSpecKey],
				pod.Annotations[batchv1alpha1.TaskSpecKey], pod.Annotations[batchv1alpha1.TemplateUID]}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := BuildPod(job, "", 0, PodOptions{}); err == nil {
		t.Errorf("BuildPod of task \"\" succeeded; an unnamed task is found by its effective name only")
	}
	if diff := cmp.Diff(before, job); diff != "" {
		t.Errorf("job changed (-before +after):\n%s", diff)
	}
}

func TestBuildPodSchedulerAndPriority(t *testing.T) {
	cases := []struct {
		name          string
		podScheduler  string
		jobScheduler  string
		defaultSched  string
		podPriority   string
		jobPriority   string
		wantScheduler string
		wantPriority  string
	}{
		{name: "pod's own", podScheduler: "custom", jobScheduler: "job-sched", defaultSched: "volcano",
			podPriority: "high", jobPriority: "low", wantScheduler: "custom", wantPriority: "high"},
		{name: "job's", jobScheduler: "job-sched", defaultSched: "volcano", jobPriority: "low",
			wantScheduler: "job-sched", wantPriority: "low"},
		{name: "default", defaultSched: "volcano", wantScheduler: "volcano"},
		{name: "none", wantScheduler: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := makeTask("t", 1)
			task.Template.Spec.SchedulerName = tc.podScheduler
			task.Template.Spec.PriorityClassName = tc.podPriority
			job := makeJob("j").Task(task).Obj()
			job.Spec.SchedulerName = tc.jobScheduler
			job.Spec.PriorityClassName = tc.jobPriority
			pod, err := BuildPod(job, "t", 0, PodOptions{DefaultSchedulerName: tc.defaultSched})
			if err != nil {
				t.Fatal(err)
			}
			got := []string{pod.Spec.SchedulerName, pod.Spec.PriorityClassName}
			if diff := cmp.Diff([]string{tc.wantScheduler, tc.wantPriority}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildPodVolumes(t *testing.T) {
	task := makeTask("t", 1, corev1.Container{Name: "main", VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}}})
	task.Template.Spec.InitContainers = []corev1.Container{{Name: "init"}}
	task.Template.Spec.Volumes = []corev1.Volume{{Name: "cache"}}
	job := makeJob("j").Task(task).Obj()
	job.Spec.Volumes = []batchv1alpha1.VolumeSpec{
		{MountPath: "/data", VolumeClaimName: "shared"},
		{MountPath: "/out", VolumeClaim: &corev1.PersistentVolumeClaimSpec{}},
		{MountPath: "/data2", VolumeClaimName: "shared"},
	}
	made := naming.JobClaimName("j", "/out")
	sharedVol, madeVol := naming.VolumeName("shared"), naming.VolumeName(made)

	pod, err := BuildPod(job, "t", 0, PodOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantVolumes := []corev1.Volume{
		{Name: "cache"},
		{Name: sharedVol, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "shared"}}},
		{Name: madeVol, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: made}}},
	}
	jobMounts := []corev1.VolumeMount{
		{Name: sharedVol, MountPath: "/data"},
		{Name: madeVol, MountPath: "/out"},
		{Name: sharedVol, MountPath: "/data2"},
	}
	if diff := cmp.Diff(wantVolumes, pod.Spec.Volumes); diff != "" {
		t.Errorf("volumes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(jobMounts, pod.Spec.InitContainers[0].VolumeMounts); diff != "" {
		t.Errorf("init container mounts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append([]corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}}, jobMounts...), pod.Spec.Containers[0].VolumeMounts); diff != "" {
		t.Errorf("container mounts (-want +got):\n%s", diff)
	}
}

func TestBuildPodErrors(t *testing.T) {
	long := strings.Repeat("a", 64)
	cases := []struct {
		name    string
		job     func() *batchv1alpha1.Job
		task    string
		index   int
		plugins map[string][]string
		want    string
	}{
		{
			name: "unknown task",
			job:  func() *batchv1alpha1.Job { return makeJob("j").Task(makeTask("t", 1)).Obj() },
			task: "x",
			want: `spec.tasks: Not found: "x"`,
		},
		{
			name:  "index past the replicas",
			job:   func() *batchv1alpha1.Job { return makeJob("j").Task(makeTask("a", 1)).Task(makeTask("t", 2)).Obj() },
			task:  "t",
			index: 2,
			want:  "spec.tasks[1].replicas: Invalid value: 2: pod index 2 is outside the task's 2 replicas",
		},
		{
			name: "job name too long for a label",
			job:  func() *batchv1alpha1.Job { return makeJob(long).Task(makeTask("t", 1)).Obj() },
			task: "t",
			want: `metadata.name: Invalid value: "` + long + `": pods carry it in the volcano.sh/job-name label, and it is not a valid label value (must be no more than 63 bytes); shorten it to at most 63 characters`,
		},
		{
			name: "queue too long for a label",
			job: func() *batchv1alpha1.Job {
				j := makeJob("j").Task(makeTask("t", 1)).Obj()
				j.Spec.Queue = "q." + long
				return j
			},
			task: "t",
			want: `spec.queue: Invalid value: "q.` + long + `": pods carry it in the volcano.sh/queue-name label, and it is not a valid label value (must be no more than 63 bytes); shorten it to at most 63 characters`,
		},
		{
			name: "job volume over a template mount",
			job: func() *batchv1alpha1.Job {
				j := makeJob("j").Task(makeTask("t", 1, corev1.Container{Name: "main", VolumeMounts: []corev1.VolumeMount{{Name: "x", MountPath: "/data"}}})).Obj()
				j.Spec.Volumes = []batchv1alpha1.VolumeSpec{{MountPath: "/data", VolumeClaimName: "c"}}
				return j
			},
			task: "t",
			want: `spec.volumes[0].mountPath: Invalid value: "/data": container "main" of the task's template already mounts volume "x" there; choose another mountPath or remove that mount`,
		},
		{
			name:    "plugin error",
			job:     func() *batchv1alpha1.Job { return makeJob(strings.Repeat("b", 60)).Task(makeTask("t", 1)).Obj() },
			task:    "t",
			plugins: map[string][]string{"svc": nil},
			want: `spec.plugins.svc: the pod name "` + strings.Repeat("b", 60) + `-t-0" becomes its hostname, which must be a DNS label of at most 63 characters (must be no more than 63 characters); ` +
				`shorten the job name or the task name, or set hostname in the task's template`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := tc.job()
			job.Spec.Plugins = tc.plugins
			plugins, _, err := jobplugins.ForJob(job)
			if err != nil {
				t.Fatal(err)
			}
			_, err = BuildPod(job, tc.task, tc.index, PodOptions{Plugins: plugins})
			if err == nil {
				t.Fatal("no error")
			}
			var fe *field.Error
			var pe *jobplugins.Error
			if !errors.As(err, &fe) && !errors.As(err, &pe) {
				t.Errorf("error %T is neither a *field.Error nor a *jobplugins.Error", err)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildPodAppliesPluginsInOrder(t *testing.T) {
	job := makeJob("train").Task(makeTask("ps", 1)).Task(makeTask("worker", 2)).Obj()
	job.Spec.Plugins = map[string][]string{"env": nil, "tensorflow": {"--port=3333"}}
	plugins, _, err := jobplugins.ForJob(job)
	if err != nil {
		t.Fatal(err)
	}
	pod, err := BuildPod(job, "worker", 1, PodOptions{Plugins: plugins})
	if err != nil {
		t.Fatal(err)
	}
	cmRef := func(key string) corev1.EnvVar {
		return corev1.EnvVar{Name: key, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "train-svc"}, Key: key}}}
	}
	wantEnv := []corev1.EnvVar{
		{Name: "VK_TASK_INDEX", Value: "1"},
		{Name: "VC_TASK_INDEX", Value: "1"},
		cmRef("VC_PS_HOSTS"), cmRef("VC_PS_NUM"), cmRef("VC_WORKER_HOSTS"), cmRef("VC_WORKER_NUM"),
		{Name: "TF_CONFIG", Value: `{"cluster":{"ps":["train-ps-0.train:3333"],"worker":["train-worker-0.train:3333","train-worker-1.train:3333"]},"task":{"type":"worker","index":1}}`},
	}
	if diff := cmp.Diff(wantEnv, pod.Spec.Containers[0].Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"train-worker-1", "train"}, []string{pod.Spec.Hostname, pod.Spec.Subdomain}); diff != "" {
		t.Errorf("hostname, subdomain (-want +got):\n%s", diff)
	}
}
