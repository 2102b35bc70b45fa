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
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// listedJob is a job as the list shows it: name, namespace, queue, scheduler, replicas of
// two tasks and a status.
func listedJob(namespace, name string, edit func(*batchv1alpha1.Job)) batchv1alpha1.Job {
	job := batchv1alpha1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 2, 27, 8, 30, 0, 0, time.UTC)),
		},
		Spec: batchv1alpha1.JobSpec{
			Queue:         "default",
			SchedulerName: "volcano",
			Tasks:         []batchv1alpha1.TaskSpec{{Name: "ps", Replicas: 1}, {Name: "worker", Replicas: 3}},
		},
		Status: batchv1alpha1.JobStatus{
			State:        batchv1alpha1.JobState{Phase: batchv1alpha1.Running},
			MinAvailable: 4, Pending: 1, Running: 3, RetryCount: 1,
		},
	}
	if edit != nil {
		edit(&job)
	}
	return job
}

func jobNames(jobs []batchv1alpha1.Job) []string {
	var names []string
	for _, j := range jobs {
		names = append(names, j.Namespace+"/"+j.Name)
	}
	return names
}

func TestFilterJobs(t *testing.T) {
	jobs := []batchv1alpha1.Job{
		listedJob("b", "train-b", nil),
		listedJob("a", "train-a", func(j *batchv1alpha1.Job) { j.Spec.Queue = "gpu" }),
		listedJob("a", "serve", func(j *batchv1alpha1.Job) { j.Spec.SchedulerName = "default-scheduler" }),
	}
	cases := []struct {
		name   string
		filter jobListFilter
		want   []string
	}{
		{"no filter, sorted by namespace and name", jobListFilter{}, []string{"a/serve", "a/train-a", "b/train-b"}},
		{"queue", jobListFilter{queue: "gpu"}, []string{"a/train-a"}},
		{"scheduler", jobListFilter{scheduler: "volcano"}, []string{"a/train-a", "b/train-b"}},
		{"name contains the selector", jobListFilter{selector: "train"}, []string{"a/train-a", "b/train-b"}},
		{"all filters together", jobListFilter{queue: "default", scheduler: "volcano", selector: "-b"}, []string{"b/train-b"}},
		{"nothing matches", jobListFilter{queue: "none"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, jobNames(filterJobs(jobs, tc.filter))); diff != "" {
				t.Errorf("filterJobs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatJobList(t *testing.T) {
	jobs := []batchv1alpha1.Job{
		listedJob("team-a", "train", func(j *batchv1alpha1.Job) { j.Labels = map[string]string{"volcano.sh/job-type": "Train"} }),
		listedJob("default", "a-much-longer-name", func(j *batchv1alpha1.Job) {
			j.Status = batchv1alpha1.JobStatus{State: batchv1alpha1.JobState{Phase: batchv1alpha1.Completed}, Succeeded: 4, MinAvailable: 4}
		}),
		listedJob("default", "new", func(j *batchv1alpha1.Job) { j.Status = batchv1alpha1.JobStatus{} }),
	}
	cases := []struct {
		name          string
		jobs          []batchv1alpha1.Job
		allNamespaces bool
		want          string
	}{
		{name: "no jobs", want: "No resources found\n"},
		{
			name: "one namespace, padded to Volcano's widths (trailing spaces included)",
			jobs: jobs,
			want: "" +
				"Name                 Creation       Phase       JobType     Replicas    Min   Pending   Running   Succeeded   Failed    Unknown     RetryCount\n" +
				"train                2026-02-27     Running     Train       4           4     1         3         0           0         0           1         \n" +
				"a-much-longer-name   2026-02-27     Completed   Batch       4           4     0         0         4           0         0           0         \n" +
				"new                  2026-02-27                 Batch       4           0     0         0         0           0         0           0         \n",
		},
		{
			name:          "all namespaces",
			jobs:          jobs[:2],
			allNamespaces: true,
			want: "" +
				"Namespace   Name                 Creation       Phase       JobType     Replicas    Min   Pending   Running   Succeeded   Failed    Unknown     RetryCount\n" +
				"team-a      train                2026-02-27     Running     Train       4           4     1         3         0           0         0           1         \n" +
				"default     a-much-longer-name   2026-02-27     Completed   Batch       4           4     0         0         4           0         0           0         \n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, formatJobList(tc.jobs, tc.allNamespaces)); diff != "" {
				t.Errorf("formatJobList (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatJobView(t *testing.T) {
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}
	job := &batchv1alpha1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "team-a", Name: "train", Generation: 3,
			Labels:            map[string]string{"volcano.sh/job-type": "Train", "app": "mnist"},
			CreationTimestamp: metav1.NewTime(now.Add(-2 * time.Hour)),
		},
		Spec: batchv1alpha1.JobSpec{
			Queue: "gpu", SchedulerName: "volcano", MinAvailable: 3, MaxRetry: 3,
			Suspend: ptr.To(false),
			Plugins: map[string][]string{"svc": nil, "env": nil, "mpi": {"--master=ps"}},
			Tasks: []batchv1alpha1.TaskSpec{
				{Name: "ps", Replicas: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Image: "mnist:1", Resources: corev1.ResourceRequirements{Requests: res, Limits: res}},
					{Image: "sidecar:1", Resources: corev1.ResourceRequirements{Requests: res}},
				}}}},
				{Name: "worker", Replicas: 4, MinAvailable: ptr.To[int32](2), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Image: "mnist:1"}},
				}}},
			},
		},
		Status: batchv1alpha1.JobStatus{
			State: batchv1alpha1.JobState{
				Phase: batchv1alpha1.Running, Reason: "PodsRunning", Message: "3 of 5 pods run",
				LastTransitionTime: metav1.NewTime(now.Add(-5 * time.Minute)),
			},
			MinAvailable: 3, Pending: 2, Running: 3, RetryCount: 1, Version: 2, ObservedGeneration: 2,
			ControlledResources: map[string]string{"plugin-svc": "svc", "plugin-env": "env"},
			TaskStatusCount: map[string]batchv1alpha1.TaskState{
				"worker": {Phase: map[corev1.PodPhase]int32{corev1.PodRunning: 2, corev1.PodPending: 2}},
				"ps":     {Phase: map[corev1.PodPhase]int32{corev1.PodRunning: 1}},
			},
			Conditions: []metav1.Condition{
				{Type: "Ready", Status: metav1.ConditionFalse, Reason: "JobRunning", Message: "the job runs;\nnot done yet",
					LastTransitionTime: metav1.NewTime(now.Add(-5 * time.Minute))},
				{Type: "Reconciling", Status: metav1.ConditionTrue, Reason: "JobRunning", Message: "the job runs",
					LastTransitionTime: metav1.NewTime(now.Add(-5 * time.Minute))},
				{Type: "Stalled", Status: metav1.ConditionFalse, Reason: "JobRunning",
					LastTransitionTime: metav1.NewTime(now.Add(-90 * time.Second))},
			},
		},
	}
	events := []corev1.Event{
		{Type: "Normal", Reason: "Started", Message: "started the job", Count: 1,
			Source:        corev1.EventSource{Component: "caldera-job-controller"},
			LastTimestamp: metav1.NewTime(now.Add(-10 * time.Minute)), FirstTimestamp: metav1.NewTime(now.Add(-10 * time.Minute))},
		{Type: "Warning", Reason: "PodFailed", Message: " pod train-worker-1 failed ", Count: 3,
			Source:        corev1.EventSource{Component: "caldera-job-controller", Host: "node-1"},
			LastTimestamp: metav1.NewTime(now.Add(-time.Minute)), FirstTimestamp: metav1.NewTime(now.Add(-8 * time.Minute))},
		{Type: "Normal", Reason: "Created", Message: "created pod", ReportingController: "caldera",
			EventTime: metav1.NewMicroTime(now.Add(-9 * time.Minute))},
	}
	want := "" +
		"Name:           train\n" +
		"Namespace:      team-a\n" +
		"Labels:         app=mnist,volcano.sh/job-type=Train\n" +
		"Annotations:    <none>\n" +
		"Created:        2026-03-01T10:00:00Z (120m ago)\n" +
		"Queue:          gpu\n" +
		"Scheduler:      volcano\n" +
		"Min Available:  3\n" +
		"Max Retry:      3\n" +
		"Suspend:        false\n" +
		"Plugins:        env, mpi[--master=ps], svc\n" +
		"Tasks:\n" +
		"  NAME     REPLICAS   MIN   IMAGE               REQUESTS           LIMITS\n" +
		"  ps       1          1     mnist:1,sidecar:1   cpu=1,memory=2Gi   cpu=500m,memory=1Gi\n" +
		"  worker   4          2     mnist:1             <none>             <none>\n" +
		"Status:\n" +
		"  Phase:                 Running\n" +
		"  Reason:                PodsRunning\n" +
		"  Message:               3 of 5 pods run\n" +
		"  Last Transition:       2026-03-01T11:55:00Z (5m ago)\n" +
		"  Min Available:         3\n" +
		"  Pods:                  Pending 2, Running 3, Succeeded 0, Failed 0, Terminating 0, Unknown 0\n" +
		"  Retry Count:           1\n" +
		"  Version:               2\n" +
		"  Generation:            3 (observed 2: the controller has not yet taken up the latest spec)\n" +
		"  Controlled Resources:  plugin-env=env,plugin-svc=svc\n" +
		"Task Status:\n" +
		"  TASK     PENDING   RUNNING   SUCCEEDED   FAILED   UNKNOWN\n" +
		"  ps       0         1         0           0        0\n" +
		"  worker   2         2         0           0        0\n" +
		"Conditions:\n" +
		"  TYPE          STATUS   REASON       AGE   MESSAGE\n" +
		"  Ready         False    JobRunning   5m    the job runs; not done yet\n" +
		"  Reconciling   True     JobRunning   5m    the job runs\n" +
		"  Stalled       False    JobRunning   90s\n" +
		"Events:\n" +
		"  TYPE      REASON      AGE                FROM                             MESSAGE\n" +
		"  Normal    Started     10m                caldera-job-controller           started the job\n" +
		"  Normal    Created     9m                 caldera                          created pod\n" +
		"  Warning   PodFailed   60s (x3 over 8m)   caldera-job-controller, node-1   pod train-worker-1 failed\n"
	if diff := cmp.Diff(want, formatJobView(job, events, now)); diff != "" {
		t.Errorf("formatJobView (-want +got):\n%s", diff)
	}

	bare := &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "new", Generation: 1}}
	wantBare := "" +
		"Name:           new\n" +
		"Namespace:      default\n" +
		"Labels:         <none>\n" +
		"Annotations:    <none>\n" +
		"Created:        <unknown>\n" +
		"Queue:          <none>\n" +
		"Scheduler:      <none>\n" +
		"Min Available:  0\n" +
		"Max Retry:      0\n" +
		"Tasks:\n" +
		"  NAME   REPLICAS   MIN   IMAGE   REQUESTS   LIMITS\n" +
		"Status:\n" +
		"  Phase:            <none>\n" +
		"  Last Transition:  <unknown>\n" +
		"  Min Available:    0\n" +
		"  Pods:             Pending 0, Running 0, Succeeded 0, Failed 0, Terminating 0, Unknown 0\n" +
		"  Retry Count:      0\n" +
		"  Version:          0\n" +
		"  Generation:       1 (not yet observed by the controller)\n" +
		"Conditions:  <none>\n" +
		"Events:  <none>\n"
	if diff := cmp.Diff(wantBare, formatJobView(bare, nil, now)); diff != "" {
		t.Errorf("formatJobView of a new job (-want +got):\n%s", diff)
	}
}

func TestGenerationSummary(t *testing.T) {
	cases := []struct {
		generation, observed int64
		want                 string
	}{
		{0, 0, "0"},
		{1, 0, "1 (not yet observed by the controller)"},
		{2, 1, "2 (observed 1: the controller has not yet taken up the latest spec)"},
		{2, 2, "2"},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, generationSummary(tc.generation, tc.observed)); diff != "" {
			t.Errorf("generationSummary(%d, %d) (-want +got):\n%s", tc.generation, tc.observed, diff)
		}
	}
}
