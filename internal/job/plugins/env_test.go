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
)

func TestEnvOnPodCreate(t *testing.T) {
	cases := []struct {
		name     string
		pod      func() *corev1.Pod
		wantInit []corev1.EnvVar
		wantMain []corev1.EnvVar
		wantErr  bool
	}{
		{
			name:     "index in every container and init container",
			pod:      func() *corev1.Pod { return testPod("worker", 3, true) },
			wantInit: []corev1.EnvVar{{Name: "VK_TASK_INDEX", Value: "3"}, {Name: "VC_TASK_INDEX", Value: "3"}},
			wantMain: []corev1.EnvVar{{Name: "VK_TASK_INDEX", Value: "3"}, {Name: "VC_TASK_INDEX", Value: "3"}},
		},
		{
			name: "a variable of the template by that name is replaced in place",
			pod: func() *corev1.Pod {
				p := testPod("worker", 0, false)
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "VC_TASK_INDEX", Value: "9"}, {Name: "A", Value: "a"}}
				return p
			},
			wantMain: []corev1.EnvVar{{Name: "VC_TASK_INDEX", Value: "0"}, {Name: "A", Value: "a"}, {Name: "VK_TASK_INDEX", Value: "0"}},
		},
		{
			name: "index from the name when the annotation is missing",
			pod: func() *corev1.Pod {
				p := testPod("worker", 12, false)
				p.Annotations = nil
				return p
			},
			wantMain: []corev1.EnvVar{{Name: "VK_TASK_INDEX", Value: "12"}, {Name: "VC_TASK_INDEX", Value: "12"}},
		},
		{
			name: "no index anywhere",
			pod: func() *corev1.Pod {
				p := testPod("worker", 1, false)
				p.Annotations = nil
				p.Name = "worker"
				return p
			},
			wantErr: true,
		},
	}
	job := testJob(task("worker", 20))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := tc.pod()
			err := mustNew(t, EnvPluginName, nil, job).OnPodCreate(pod, job)
			if diff := cmp.Diff(tc.wantErr, err != nil); diff != "" {
				t.Fatalf("error %v (-wantErr +gotErr):\n%s", err, diff)
			}
			if err != nil {
				return
			}
			var gotInit []corev1.EnvVar
			if len(pod.Spec.InitContainers) > 0 {
				gotInit = pod.Spec.InitContainers[0].Env
			}
			if diff := cmp.Diff(tc.wantInit, gotInit); diff != "" {
				t.Errorf("init container env (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMain, pod.Spec.Containers[0].Env); diff != "" {
				t.Errorf("container env (-want +got):\n%s", diff)
			}
			objs, err := mustNew(t, EnvPluginName, nil, job).Objects(job, Existing{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(Objects{}, objs); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}
