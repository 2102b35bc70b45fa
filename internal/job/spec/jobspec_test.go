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

package spec

import (
	"testing"

	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestJobMinAvailable(t *testing.T) {
	task := func(name string, replicas int32, deps ...string) batchv1alpha1.TaskSpec {
		t := batchv1alpha1.TaskSpec{Name: name, Replicas: replicas}
		if len(deps) > 0 {
			t.DependsOn = &batchv1alpha1.DependsOn{Name: deps}
		}
		return t
	}
	cases := map[string]struct {
		spec batchv1alpha1.JobSpec
		want int32
	}{
		"spec.minAvailable":         {spec: batchv1alpha1.JobSpec{MinAvailable: 2, Tasks: []batchv1alpha1.TaskSpec{task("a", 5)}}, want: 2},
		"the tasks' sum":            {spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("a", 2), task("b", 3)}}, want: 5},
		"a task's own minAvailable": {spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{Name: "a", Replicas: 4, MinAvailable: ptr.To[int32](1)}, task("b", 3)}}, want: 4},
		"dependsOn gangs the tasks that start first": {
			spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("master", 1), task("worker", 3, "master")}}, want: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := JobMinAvailable(&tc.spec); got != tc.want {
				t.Errorf("JobMinAvailable = %d, want %d", got, tc.want)
			}
		})
	}
}
