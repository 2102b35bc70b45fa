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

	corev1 "k8s.io/api/core/v1"
)

func TestHCCLRankOnPodCreate(t *testing.T) {
	job := testJob(task("master", 2), task("worker", 3))
	withRank := testPod("worker", 0, false)
	withRank.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "RANK", Value: "7"}}
	annotated := testPod("worker", 1, false)
	annotated.Annotations["hccl/rankIndex"] = "42"
	cases := map[string]struct {
		pod  *corev1.Pod
		want string
	}{
		"a master's rank is its index":         {pod: testPod("master", 1, false), want: "1"},
		"a worker's rank follows the masters":  {pod: testPod("worker", 2, false), want: "4"},
		"a RANK the containers set is taken":   {pod: withRank, want: "7"},
		"a pod that carries the rank keeps it": {pod: annotated, want: "42"},
		"a pod of another task gets no rank":   {pod: testPod("eval", 0, false)},
	}
	job.Spec.Tasks = append(job.Spec.Tasks, task("eval", 1))
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := mustNew(t, HCCLRankPluginName, nil, job).OnPodCreate(tc.pod, job); err != nil {
				t.Fatal(err)
			}
			if got := tc.pod.Annotations["hccl/rankIndex"]; got != tc.want {
				t.Errorf("hccl/rankIndex = %q, want %q", got, tc.want)
			}
		})
	}
}
