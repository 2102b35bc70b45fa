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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// quantities compares resource quantities by value.
var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestParseResourceList(t *testing.T) {
	cases := []struct {
		name    string
		spec    string
		want    corev1.ResourceList
		wantErr string
	}{
		{name: "empty is no resources", spec: ""},
		{name: "blank is no resources", spec: "  "},
		{
			name: "the default",
			spec: "cpu=1000m,memory=100Mi",
			want: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("100Mi")},
		},
		{
			name: "spaces and extended resources",
			spec: " cpu = 2 , nvidia.com/gpu=1",
			want: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), "nvidia.com/gpu": resource.MustParse("1")},
		},
		{
			name:    "no equals sign",
			spec:    "cpu",
			wantErr: `-R/--requests: "cpu" is not <resource>=<quantity>: write for example cpu=1000m,memory=100Mi`,
		},
		{
			name:    "empty quantity",
			spec:    "cpu=",
			wantErr: `-R/--requests: "cpu=" is not <resource>=<quantity>: write for example cpu=1000m,memory=100Mi`,
		},
		{
			name:    "bad quantity",
			spec:    "memory=lots",
			wantErr: "-R/--requests: memory=lots: the quantity is not valid (quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'): write for example cpu=500m or memory=1Gi",
		},
		{
			name:    "negative quantity",
			spec:    "cpu=-1",
			wantErr: "-R/--requests: cpu=-1 is negative: give a quantity of zero or more",
		},
		{
			name:    "twice",
			spec:    "cpu=1,cpu=2",
			wantErr: "-R/--requests: cpu is given twice: give each resource once",
		},
		{
			name:    "bad name",
			spec:    "c p u=1",
			wantErr: `-R/--requests: "c p u" is not a resource name (name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')): use names such as cpu, memory or nvidia.com/gpu`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseResourceList("-R/--requests", tc.spec)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got, quantities); diff != "" {
				t.Errorf("resources (-want +got):\n%s", diff)
			}
		})
	}
}

// runFlags returns the flags of `vcctl job run` with Volcano's defaults, changed by edit.
func runFlags(edit func(*jobRunFlags)) jobRunFlags {
	f := jobRunFlags{
		namespace:    defaultNamespace,
		image:        defaultImage,
		minAvailable: 1,
		replicas:     1,
		requests:     defaultResources,
		limits:       defaultResources,
		scheduler:    defaultScheduler,
		changed:      map[string]bool{},
	}
	if edit != nil {
		edit(&f)
	}
	return f
}

// flagJob is the job built from flags, as buildJobFromFlags makes it.
func flagJob(name, namespace string, edit func(*batchv1alpha1.Job)) *batchv1alpha1.Job {
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m"), corev1.ResourceMemory: resource.MustParse("100Mi")}
	job := &batchv1alpha1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: batchv1alpha1.JobSpec{
			MinAvailable:  1,
			SchedulerName: "volcano",
			Tasks: []batchv1alpha1.TaskSpec{{
				Replicas: 1,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:            name,
						Image:           "busybox",
						ImagePullPolicy: corev1.PullIfNotPresent,
						Resources:       corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()},
					}},
				}},
			}},
		},
	}
	if edit != nil {
		edit(job)
	}
	return job
}

func TestBuildJobFromFlags(t *testing.T) {
	cases := []struct {
		name    string
		flags   jobRunFlags
		want    *batchv1alpha1.Job
		wantErr string
	}{
		{
			name:  "Volcano's defaults",
			flags: runFlags(func(f *jobRunFlags) { f.name = "demo" }),
			want:  flagJob("demo", "default", nil),
		},
		{
			name: "every flag",
			flags: runFlags(func(f *jobRunFlags) {
				f.name, f.namespace, f.image = "train", "team-a", "pytorch:2"
				f.replicas, f.minAvailable = 4, 3
				f.requests, f.limits = "cpu=2,nvidia.com/gpu=1", "cpu=4,nvidia.com/gpu=1"
				f.scheduler, f.queue = "caldera", "gpu"
			}),
			want: flagJob("train", "team-a", func(j *batchv1alpha1.Job) {
				j.Spec.MinAvailable, j.Spec.SchedulerName, j.Spec.Queue = 3, "caldera", "gpu"
				j.Spec.Tasks[0].Replicas = 4
				c := &j.Spec.Tasks[0].Template.Spec.Containers[0]
				c.Image = "pytorch:2"
				c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), "nvidia.com/gpu": resource.MustParse("1")}
				c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), "nvidia.com/gpu": resource.MustParse("1")}
			}),
		},
		{
			name: "no requests or limits",
			flags: runFlags(func(f *jobRunFlags) {
				f.name, f.requests, f.limits = "demo", "", ""
			}),
			want: flagJob("demo", "default", func(j *batchv1alpha1.Job) {
				j.Spec.Tasks[0].Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
			}),
		},
		{
			name: "min 0 and replicas 0",
			flags: runFlags(func(f *jobRunFlags) {
				f.name, f.replicas, f.minAvailable = "demo", 0, 0
			}),
			want: flagJob("demo", "default", func(j *batchv1alpha1.Job) {
				j.Spec.MinAvailable, j.Spec.Tasks[0].Replicas = 0, 0
			}),
		},
		{
			name:    "no name",
			flags:   runFlags(nil),
			wantErr: "job name is required: pass -N/--name, or -f/--filename with a job manifest",
		},
		{
			name:    "name that cannot name a container",
			flags:   runFlags(func(f *jobRunFlags) { f.name = "My.Job" }),
			wantErr: `-N/--name "My.Job" is not a valid job name here (a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')): it also names the container, so use lowercase letters, digits and '-', at most 63 characters`,
		},
		{
			name:    "empty namespace",
			flags:   runFlags(func(f *jobRunFlags) { f.name, f.namespace = "demo", "" }),
			wantErr: "-n/--namespace is empty: name the namespace of the job (default is default)",
		},
		{
			name:    "empty image",
			flags:   runFlags(func(f *jobRunFlags) { f.name, f.image = "demo", "" }),
			wantErr: "-i/--image is empty: name the container image, for example busybox",
		},
		{
			name:    "min above replicas",
			flags:   runFlags(func(f *jobRunFlags) { f.name, f.minAvailable, f.replicas = "demo", 3, 2 }),
			wantErr: "-m/--min 3 is greater than -r/--replicas 2: the gang cannot be larger than the job; lower -m or raise -r",
		},
		{
			name:    "negative replicas",
			flags:   runFlags(func(f *jobRunFlags) { f.name, f.replicas = "demo", -1 }),
			wantErr: "-r/--replicas -1 is negative: give the number of pods, 1 or more",
		},
		{
			name:    "negative min",
			flags:   runFlags(func(f *jobRunFlags) { f.name, f.minAvailable = "demo", -1 }),
			wantErr: "-m/--min -1 is negative: give the gang size, 0 to 1",
		},
		{
			name:    "bad limits",
			flags:   runFlags(func(f *jobRunFlags) { f.name, f.limits = "demo", "cpu" }),
			wantErr: `-L/--limits: "cpu" is not <resource>=<quantity>: write for example cpu=1000m,memory=100Mi`,
		},
		{
			name:    "request above limit",
			flags:   runFlags(func(f *jobRunFlags) { f.name, f.requests, f.limits = "demo", "cpu=2", "cpu=1" }),
			wantErr: "-R/--requests cpu=2 is greater than -L/--limits cpu=1: a request must not exceed its limit",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := buildJobFromFlags(tc.flags)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got, quantities); diff != "" {
				t.Errorf("job (-want +got):\n%s", diff)
			}
		})
	}
}

const manifest = `# a job
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: from-file
  labels:
    volcano.sh/job-type: Train
spec:
  minAvailable: 2
  queue: gpu
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: busybox
`

// fileJob is the job of manifest, in namespace.
func fileJob(namespace string, edit func(*batchv1alpha1.Job)) *batchv1alpha1.Job {
	job := &batchv1alpha1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "from-file", Namespace: namespace,
			Labels: map[string]string{"volcano.sh/job-type": "Train"},
		},
		Spec: batchv1alpha1.JobSpec{
			MinAvailable: 2,
			Queue:        "gpu",
			Tasks: []batchv1alpha1.TaskSpec{{
				Name:     "worker",
				Replicas: 2,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
				}},
			}},
		},
	}
	if edit != nil {
		edit(job)
	}
	return job
}

func TestJobFromManifest(t *testing.T) {
	cases := []struct {
		name    string
		data    string
		flags   jobRunFlags
		want    *batchv1alpha1.Job
		wantErr string
	}{
		{
			name:  "default namespace",
			data:  manifest,
			flags: runFlags(nil),
			want:  fileJob("default", nil),
		},
		{
			name:  "-n fills in the namespace",
			data:  manifest,
			flags: runFlags(func(f *jobRunFlags) { f.namespace, f.changed["namespace"] = "team-a", true }),
			want:  fileJob("team-a", nil),
		},
		{
			name:  "the file's namespace wins over -n's default",
			data:  strings.Replace(manifest, "  name: from-file\n", "  name: from-file\n  namespace: team-b\n", 1),
			flags: runFlags(nil),
			want:  fileJob("team-b", nil),
		},
		{
			name:    "-n disagreeing with the file",
			data:    strings.Replace(manifest, "  name: from-file\n", "  name: from-file\n  namespace: team-b\n", 1),
			flags:   runFlags(func(f *jobRunFlags) { f.namespace, f.changed["namespace"] = "team-a", true }),
			wantErr: "-n/--namespace team-a does not match metadata.namespace team-b in job.yaml: drop -n or make them agree",
		},
		{
			name:  "-N agreeing with the file",
			data:  manifest,
			flags: runFlags(func(f *jobRunFlags) { f.name = "from-file" }),
			want:  fileJob("default", nil),
		},
		{
			name:    "-N disagreeing with the file",
			data:    manifest,
			flags:   runFlags(func(f *jobRunFlags) { f.name = "other" }),
			wantErr: "-N/--name other does not match metadata.name from-file in job.yaml: drop -N or make them agree",
		},
		{
			name:  "-N names a job the file leaves unnamed",
			data:  "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nspec:\n  minAvailable: 2\n",
			flags: runFlags(func(f *jobRunFlags) { f.name = "named" }),
			want: &batchv1alpha1.Job{
				TypeMeta:   metav1.TypeMeta{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job"},
				ObjectMeta: metav1.ObjectMeta{Name: "named", Namespace: "default"},
				Spec:       batchv1alpha1.JobSpec{MinAvailable: 2},
			},
		},
		{
			name:  "generateName is kept",
			data:  "kind: Job\nmetadata:\n  generateName: run-\n",
			flags: runFlags(nil),
			want: &batchv1alpha1.Job{
				TypeMeta:   metav1.TypeMeta{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job"},
				ObjectMeta: metav1.ObjectMeta{GenerateName: "run-", Namespace: "default"},
			},
		},
		{
			name:    "no name anywhere",
			data:    "kind: Job\nspec:\n  minAvailable: 1\n",
			flags:   runFlags(nil),
			wantErr: "the job in job.yaml has no name: set metadata.name in the file or pass -N/--name",
		},
		{
			name: "server-owned fields of a saved object are dropped",
			data: strings.Replace(manifest, "  name: from-file\n",
				"  name: from-file\n  uid: 0c9f\n  resourceVersion: \"42\"\n  generation: 3\n  creationTimestamp: \"2026-01-02T03:04:05Z\"\n", 1) +
				"status:\n  state:\n    phase: Running\n",
			flags: runFlags(nil),
			want:  fileJob("default", nil),
		},
		{
			name:  "JSON",
			data:  `{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"j","uid":"u1","resourceVersion":"7"},"spec":{"queue":"q"}}`,
			flags: runFlags(nil),
			want: &batchv1alpha1.Job{
				TypeMeta:   metav1.TypeMeta{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job"},
				ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "default"},
				Spec:       batchv1alpha1.JobSpec{Queue: "q"},
			},
		},
		{
			name:    "another kind",
			data:    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: x\n",
			flags:   runFlags(nil),
			wantErr: "job.yaml holds a batch/v1 Job, not a Job: vcctl job run creates apiVersion: batch.volcano.sh/v1alpha1, kind: Job",
		},
		{
			name:    "unknown field",
			data:    manifest + "  minAvailble: 3\n",
			flags:   runFlags(nil),
			wantErr: `job.yaml is not a valid Job: error unmarshaling JSON: while decoding JSON: json: unknown field "minAvailble"`,
		},
		{
			name:    "two documents",
			data:    manifest + "---\n" + manifest,
			flags:   runFlags(nil),
			wantErr: "job.yaml holds 2 documents: vcctl job run creates one job, so keep one Job in the file",
		},
		{
			name:    "comments only",
			data:    "# nothing here\n---\n",
			flags:   runFlags(nil),
			wantErr: "job.yaml holds no job: write a batch.volcano.sh/v1alpha1 Job in it",
		},
		{
			name:    "not an object",
			data:    "- a\n- b\n",
			flags:   runFlags(nil),
			wantErr: "job.yaml is not a YAML or JSON object: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type v1.TypeMeta",
		},
		{
			name:    "flags that shape a job built from flags",
			data:    manifest,
			flags:   runFlags(func(f *jobRunFlags) { f.changed["replicas"] = true }),
			wantErr: "-r/--replicas cannot be used with -f/--filename: the job comes from job.yaml; edit the file instead",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jobFromManifest([]byte(tc.data), "job.yaml", tc.flags)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got, quantities); diff != "" {
				t.Errorf("job (-want +got):\n%s", diff)
			}
		})
	}
}
