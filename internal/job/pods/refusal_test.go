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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestRefusalMessage(t *testing.T) {
	job := &batchv1alpha1.Job{Spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{
		{Name: "ps", Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "ps"}}}}},
		{Name: "worker", Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "fetch"}},
			Containers:     []corev1.Container{{Name: "main"}, {Name: "sidecar"}},
		}}},
	}}}
	status := func(causes ...metav1.StatusCause) *metav1.Status {
		return &metav1.Status{Details: &metav1.StatusDetails{Causes: causes}}
	}
	cases := map[string]struct {
		task   string
		status *metav1.Status
		want   string
	}{
		"a container's resources": {
			task: "worker",
			status: status(metav1.StatusCause{Field: "spec.containers[1].resources.requests[cpu]",
				Message: `Invalid value: "-1": must be greater than or equal to 0`}),
			want: `task worker, container sidecar: spec.tasks[1].template.spec.containers[1].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
		},
		"an init container and a pod field": {
			task: "worker",
			status: status(metav1.StatusCause{Field: "spec.initContainers[0].image", Message: "Required value"},
				metav1.StatusCause{Field: "spec.restartPolicy", Message: `Unsupported value: "Sometimes"`}),
			want: `task worker, container fetch: spec.tasks[1].template.spec.initContainers[0].image: Required value; ` +
				`task worker: spec.tasks[1].template.spec.restartPolicy: Unsupported value: "Sometimes"`,
		},
		"no causes": {task: "worker", status: &metav1.Status{}, want: "the fallback"},
		"unknown task": {task: "x", status: status(metav1.StatusCause{Field: "spec.containers[0].name", Message: "bad"}),
			want: "the fallback"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, RefusalMessage(job, tc.task, tc.status, "the fallback")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
