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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestRayOnPodCreate(t *testing.T) {
	job := testJob(task("head", 1), task("worker", 2))
	type container struct {
		Command []string
		Ports   []corev1.ContainerPort
	}
	cases := []struct {
		name string
		args []string
		pod  *corev1.Pod
		want container
	}{
		{
			name: "the head starts the cluster and opens its ports",
			args: []string{"--headContainer=main"},
			pod:  testPod("head", 0, false),
			want: container{Command: []string{"sh", "-c", "ray start --head --block --dashboard-host=0.0.0.0 --port=6379 --dashboard-port=8265 --ray-client-server-port=10001"},
				Ports: []corev1.ContainerPort{{Name: "gcs", ContainerPort: 6379}, {Name: "dashboard", ContainerPort: 8265}, {Name: "client-server", ContainerPort: 10001}}},
		},
		{
			name: "a worker joins the head by its domain name",
			args: []string{"--workerContainer=main", "--port=2345"},
			pod:  testPod("worker", 1, false),
			want: container{Command: []string{"sh", "-c", "ray start --block --address=train-head-0.train:2345"}},
		},
		{
			name: "containers of other names are left alone",
			pod:  testPod("head", 0, false),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := mustNew(t, RayPluginName, tc.args, job).OnPodCreate(tc.pod, job); err != nil {
				t.Fatal(err)
			}
			c := tc.pod.Spec.Containers[0]
			if diff := cmp.Diff(tc.want, container{Command: c.Command, Ports: c.Ports}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRayObjects(t *testing.T) {
	job := testJob(task("head", 1), task("worker", 2))
	objs, err := mustNew(t, RayPluginName, []string{"--dashboardPort=9000"}, job).Objects(job, Existing{})
	if err != nil {
		t.Fatal(err)
	}
	port := func(name string, n int32) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Port: n, TargetPort: intstr.FromString(name), Protocol: corev1.ProtocolTCP}
	}
	want := Objects{Services: []*corev1.Service{{
		ObjectMeta: metav1.ObjectMeta{Name: "train-head-svc", Namespace: "ns", Labels: wantLabels(), OwnerReferences: wantOwner()},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"volcano.sh/job-name": "train", "volcano.sh/job-namespace": "ns", "volcano.sh/task-spec": "head"},
			Ports:    []corev1.ServicePort{port("gcs", 6379), port("dashboard", 9000), port("client-server", 10001)},
		},
	}}}
	if diff := cmp.Diff(want, objs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRayErrors(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"no head task": {args: []string{"--head=leader"}, want: `spec.plugins.ray: argument "--head=leader": the job has no task "leader"; name one of its tasks (head, worker)`},
		"bad port":     {args: []string{"--clientPort=0"}, want: `spec.plugins.ray: argument "--clientPort=0": must be a port number from 1 to 65535`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := New(RayPluginName, tc.args, testJob(task("head", 1), task("worker", 2)))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
	_, _, err := New(RayPluginName, nil, testJob(task("master", 1)))
	if want := `spec.plugins.ray: argument "--head=head": the job has no task "head"; name one of its tasks (master)`; err == nil || err.Error() != want {
		t.Errorf("a job without the default head task: error = %v, want %q", err, want)
	}
}
