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

package plugins

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestTensorflowOnPodCreate(t *testing.T) {
	psWorker := testJob(task("ps", 1), task("worker", 2))
	roles := testJob(task("chief", 1), task("ps-a", 1), task("trainer", 2), task("eval", 1), task("extra", 1))
	cases := []struct {
		name    string
		job     *batchv1alpha1.Job
		args    []string
		pod     *corev1.Pod
		wantEnv []corev1.EnvVar
	}{
		{
			name: "worker",
			job:  psWorker,
			pod:  testPod("worker", 1, true),
			wantEnv: []corev1.EnvVar{{Name: "TF_CONFIG", Value: `{"cluster":{"ps":["train-ps-0.train:2222"],` +
				`"worker":["train-worker-0.train:2222","train-worker-1.train:2222"]},"task":{"type":"worker","index":1}}`}},
		},
		{
			name: "ps",
			job:  psWorker,
			pod:  testPod("ps", 0, false),
			wantEnv: []corev1.EnvVar{{Name: "TF_CONFIG", Value: `{"cluster":{"ps":["train-ps-0.train:2222"],` +
				`"worker":["train-worker-0.train:2222","train-worker-1.train:2222"]},"task":{"type":"ps","index":0}}`}},
		},
		{
			name: "renamed roles, port, and a task that plays no role",
			job:  roles,
			args: []string{"--ps=ps-a", "--worker=trainer", "--evaluator=eval", "--port=5000"},
			pod:  testPod("extra", 0, false),
			wantEnv: []corev1.EnvVar{{Name: "TF_CONFIG", Value: `{"cluster":{"ps":["train-ps-a-0.train:5000"],` +
				`"worker":["train-trainer-0.train:5000","train-trainer-1.train:5000"],` +
				`"chief":["train-chief-0.train:5000"],"evaluator":["train-eval-0.train:5000"]},"task":{"type":"extra","index":0}}`}},
		},
		{
			name: "chief",
			job:  roles,
			args: []string{"--ps=ps-a", "--worker=trainer", "--evaluator=eval"},
			pod:  testPod("chief", 0, false),
			wantEnv: []corev1.EnvVar{{Name: "TF_CONFIG", Value: `{"cluster":{"ps":["train-ps-a-0.train:2222"],` +
				`"worker":["train-trainer-0.train:2222","train-trainer-1.train:2222"],` +
				`"chief":["train-chief-0.train:2222"],"evaluator":["train-eval-0.train:2222"]},"task":{"type":"chief","index":0}}`}},
		},
		{
			name: "a single pod needs no cluster",
			job:  testJob(task("worker", 1)),
			pod:  testPod("worker", 0, false),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := mustNew(t, TensorflowPluginName, tc.args, tc.job).OnPodCreate(tc.pod, tc.job); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantEnv, tc.pod.Spec.Containers[0].Env); diff != "" {
				t.Errorf("container env (-want +got):\n%s", diff)
			}
			for _, c := range tc.pod.Spec.InitContainers {
				if len(c.Env) != 0 {
					t.Errorf("init container %q got env %v", c.Name, c.Env)
				}
			}
		})
	}
}

func TestTensorflowPodWithoutTask(t *testing.T) {
	job := testJob(task("ps", 1), task("worker", 2))
	pod := testPod("worker", 0, false)
	pod.Annotations = nil
	err := mustNew(t, TensorflowPluginName, nil, job).OnPodCreate(pod, job)
	want := `spec.plugins.tensorflow: pod "train-worker-0" has no volcano.sh/task-spec annotation; build the job's pods with their task`
	if err == nil {
		t.Fatal("no error")
	}
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPytorchOnPodCreate(t *testing.T) {
	job := testJob(task("master", 1), task("worker", 2), task("extra", 2))
	env := func(rank string) []corev1.EnvVar {
		e := []corev1.EnvVar{
			{Name: "MASTER_ADDR", Value: "train-master-0.train"},
			{Name: "MASTER_PORT", Value: "23456"},
			{Name: "WORLD_SIZE", Value: "3"},
		}
		if rank != "" {
			e = append(e, corev1.EnvVar{Name: "RANK", Value: rank})
		}
		return e
	}
	port := []corev1.ContainerPort{{Name: "pytorchjob-port", ContainerPort: 23456}}
	cases := []struct {
		name string
		job  *batchv1alpha1.Job
		args []string
		pod  *corev1.Pod
		want func() *corev1.Pod
	}{
		{
			name: "master",
			job:  job,
			pod:  testPod("master", 0, false),
			want: func() *corev1.Pod {
				p := testPod("master", 0, false)
				p.Spec.Containers[0].Env = env("0")
				p.Spec.Containers[0].Ports = port
				return p
			},
		},
		{
			name: "second worker",
			job:  job,
			pod:  testPod("worker", 1, false),
			want: func() *corev1.Pod {
				p := testPod("worker", 1, false)
				p.Spec.Containers[0].Env = env("2")
				p.Spec.Containers[0].Ports = port
				return p
			},
		},
		{
			name: "a task neither master nor worker gets no rank",
			job:  job,
			pod:  testPod("extra", 0, false),
			want: func() *corev1.Pod {
				p := testPod("extra", 0, false)
				p.Spec.Containers[0].Env = env("")
				p.Spec.Containers[0].Ports = port
				return p
			},
		},
		{
			name: "a port the container opens already is kept; init containers untouched",
			job:  job,
			args: []string{"--port=29500"},
			pod: func() *corev1.Pod {
				p := testPod("master", 0, true)
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "rdzv", ContainerPort: 29500}}
				return p
			}(),
			want: func() *corev1.Pod {
				p := testPod("master", 0, true)
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "rdzv", ContainerPort: 29500}}
				p.Spec.Containers[0].Env = []corev1.EnvVar{
					{Name: "MASTER_ADDR", Value: "train-master-0.train"},
					{Name: "MASTER_PORT", Value: "29500"},
					{Name: "WORLD_SIZE", Value: "3"},
					{Name: "RANK", Value: "0"},
				}
				return p
			},
		},
		{
			name: "worker waits for the master",
			job:  job,
			args: []string{"--wait-master-enabled", "--wait-master-timeout=60", "--wait-master-image=alpine:3"},
			pod:  testPod("worker", 0, true),
			want: func() *corev1.Pod {
				p := testPod("worker", 0, true)
				p.Spec.Containers[0].Env = env("1")
				p.Spec.Containers[0].Ports = port
				p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{
					Name:    "wait-for-master",
					Image:   "alpine:3",
					Command: []string{"sh", "-c", WaitForMasterScript("train-master-0.train", 23456, 60)},
				})
				return p
			},
		},
		{
			name: "the master does not wait for itself",
			job:  job,
			args: []string{"--wait-master-enabled"},
			pod:  testPod("master", 0, false),
			want: func() *corev1.Pod {
				p := testPod("master", 0, false)
				p.Spec.Containers[0].Env = env("0")
				p.Spec.Containers[0].Ports = port
				return p
			},
		},
		{
			name: "no master task, no change",
			job:  testJob(task("worker", 2)),
			pod:  testPod("worker", 0, false),
			want: func() *corev1.Pod { return testPod("worker", 0, false) },
		},
		{
			name: "two masters: workers rank after them",
			job:  testJob(task("master", 2), task("worker", 2)),
			pod:  testPod("worker", 0, false),
			want: func() *corev1.Pod {
				p := testPod("worker", 0, false)
				p.Spec.Containers[0].Env = []corev1.EnvVar{
					{Name: "MASTER_ADDR", Value: "train-master-0.train"},
					{Name: "MASTER_PORT", Value: "23456"},
					{Name: "WORLD_SIZE", Value: "4"},
					{Name: "RANK", Value: "2"},
				}
				p.Spec.Containers[0].Ports = port
				return p
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := mustNew(t, PytorchPluginName, tc.args, tc.job).OnPodCreate(tc.pod, tc.job); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want(), tc.pod); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWaitForMasterScript(t *testing.T) {
	want := `host='train-master-0.train'
port=23456
timeout=300
echo "waiting up to ${timeout}s for the master at ${host}:${port}"
elapsed=0
while :; do
  if command -v nc >/dev/null 2>&1; then
    nc -z -w 2 "$host" "$port" >/dev/null 2>&1 && break
  elif command -v bash >/dev/null 2>&1; then
    bash -c "exec 3<>/dev/tcp/$host/$port" >/dev/null 2>&1 && break
  else
    nslookup "$host" >/dev/null 2>&1 && break
  fi
  if [ "$elapsed" -ge "$timeout" ]; then
    echo "the master at ${host}:${port} is not reachable after ${timeout}s" >&2
    exit 1
  fi
  sleep 2
  elapsed=$((elapsed + 2))
done
echo "the master at ${host}:${port} is reachable"
`
	if diff := cmp.Diff(want, WaitForMasterScript("train-master-0.train", 23456, 300)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMPIOnPodCreate(t *testing.T) {
	fixed := task("worker", 3)
	fixed.Template.Spec.Hostname = "w"
	port := func(n int32) []corev1.ContainerPort {
		return []corev1.ContainerPort{{Name: "mpijob-port", ContainerPort: n}}
	}
	cases := []struct {
		name string
		job  *batchv1alpha1.Job
		args []string
		pod  *corev1.Pod
		want func() *corev1.Pod
	}{
		{
			name: "master gets the workers in MPI_HOST, in every container",
			job:  testJob(task("master", 1), task("worker", 2)),
			pod:  testPod("master", 0, true),
			want: func() *corev1.Pod {
				p := testPod("master", 0, true)
				hosts := []corev1.EnvVar{{Name: "MPI_HOST", Value: "train-worker-0.train,train-worker-1.train"}}
				p.Spec.InitContainers[0].Ports, p.Spec.InitContainers[0].Env = port(22), hosts
				p.Spec.Containers[0].Ports, p.Spec.Containers[0].Env = port(22), hosts
				return p
			},
		},
		{
			name: "worker gets the port only",
			job:  testJob(task("master", 1), task("worker", 2)),
			args: []string{"--port=2022"},
			pod:  testPod("worker", 1, true),
			want: func() *corev1.Pod {
				p := testPod("worker", 1, true)
				p.Spec.InitContainers[0].Ports = port(2022)
				p.Spec.Containers[0].Ports = port(2022)
				return p
			},
		},
		{
			name: "renamed roles; a fixed worker hostname is one host",
			job:  testJob(task("head", 1), fixed),
			args: []string{"--master=head"},
			pod:  testPod("head", 0, false),
			want: func() *corev1.Pod {
				p := testPod("head", 0, false)
				p.Spec.Containers[0].Ports = port(22)
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "MPI_HOST", Value: "w.train"}}
				return p
			},
		},
		{
			name: "no worker task: no MPI_HOST",
			job:  testJob(task("master", 1)),
			pod:  testPod("master", 0, false),
			want: func() *corev1.Pod {
				p := testPod("master", 0, false)
				p.Spec.Containers[0].Ports = port(22)
				return p
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := mustNew(t, MPIPluginName, tc.args, tc.job).OnPodCreate(tc.pod, tc.job); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want(), tc.pod); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFrameworkPluginsMakeNoObjects(t *testing.T) {
	job := testJob(task("master", 1), task("worker", 2))
	for _, name := range []string{TensorflowPluginName, PytorchPluginName, MPIPluginName} {
		t.Run(name, func(t *testing.T) {
			objs, err := mustNew(t, name, nil, job).Objects(job, Existing{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(Objects{}, objs); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTensorflowOtherJob checks that a plugin given a job other than the one it was built for
// lists that job's servers.
func TestTensorflowOtherJob(t *testing.T) {
	built := testJob(task("ps", 1), task("worker", 1))
	scaled := testJob(task("ps", 1), task("worker", 2))
	pod := testPod("worker", 1, false)
	if err := mustNew(t, TensorflowPluginName, nil, built).OnPodCreate(pod, scaled); err != nil {
		t.Fatal(err)
	}
	want := []corev1.EnvVar{{Name: "TF_CONFIG", Value: `{"cluster":{"ps":["train-ps-0.train:2222"],` +
		`"worker":["train-worker-0.train:2222","train-worker-1.train:2222"]},"task":{"type":"worker","index":1}}`}}
	if diff := cmp.Diff(want, pod.Spec.Containers[0].Env); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
