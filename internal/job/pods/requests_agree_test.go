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

package pods_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	jobpods "github.com/caldera-sh/caldera/internal/job/pods"
	"github.com/caldera-sh/caldera/scheduler/api"
)

func list(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func container(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "busybox", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func sidecarContainer(name string, requests corev1.ResourceList) corev1.Container {
	c := container(name, requests, nil)
	c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	return c
}

// TestMinResourcesMatchSchedulerCharge compares what the PodGroup's minResources asks for a
// gang (which gates admission in enqueue) with what the scheduler charges nodes for the same
// pods (allocate): the gang's minAvailable pods, each as the API server stores it. created is
// that stored pod spec, with the requests the API server fills in (checked against
// kube-apiserver v1.36): nil when it is the template as written. The two must be equal, or a
// gang is admitted that cannot be placed (or is held back though it fits).
func TestMinResourcesMatchSchedulerCharge(t *testing.T) {
	cases := []struct {
		name     string
		template corev1.PodSpec
		created  *corev1.PodSpec
	}{
		{
			name:     "containers",
			template: corev1.PodSpec{Containers: []corev1.Container{container("a", list("cpu", "500m", "memory", "1Gi"), nil), container("b", list("cpu", "1500m", "nvidia.com/gpu", "1"), list("nvidia.com/gpu", "1"))}},
		},
		{
			name:     "a limit without a request",
			template: corev1.PodSpec{Containers: []corev1.Container{container("a", nil, list("cpu", "2", "memory", "2Gi"))}},
			created:  &corev1.PodSpec{Containers: []corev1.Container{container("a", list("cpu", "2", "memory", "2Gi"), list("cpu", "2", "memory", "2Gi"))}},
		},
		{
			name: "init containers heavier than the containers",
			template: corev1.PodSpec{
				InitContainers: []corev1.Container{container("i1", list("cpu", "4"), nil), container("i2", list("memory", "8Gi", "ephemeral-storage", "10Gi"), nil)},
				Containers:     []corev1.Container{container("a", list("cpu", "1", "memory", "1Gi", "ephemeral-storage", "1Gi"), nil)},
			},
		},
		{
			name: "restartable sidecars",
			template: corev1.PodSpec{
				InitContainers: []corev1.Container{
					container("before", list("cpu", "3"), nil),
					sidecarContainer("proxy", list("cpu", "500m", "memory", "128Mi")),
					container("after", list("cpu", "3"), nil),
					sidecarContainer("log", list("cpu", "250m")),
				},
				Containers: []corev1.Container{container("a", list("cpu", "2", "memory", "1Gi"), nil)},
			},
		},
		{
			name: "overhead",
			template: corev1.PodSpec{
				Overhead:   list("cpu", "100m", "memory", "64Mi"),
				Containers: []corev1.Container{container("a", list("cpu", "1"), list("cpu", "1"))},
			},
		},
		{
			name: "pod-level requests",
			template: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: list("cpu", "4", "memory", "3Gi")},
				Containers: []corev1.Container{container("a", list("cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "1"), list("nvidia.com/gpu", "1"))},
			},
		},
		{
			name: "pod-level limits with container requests",
			template: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: list("cpu", "4"), Requests: list("memory", "3Gi")},
				Containers: []corev1.Container{container("a", list("cpu", "1", "memory", "1Gi"), nil)},
			},
			created: &corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: list("cpu", "4"), Requests: list("cpu", "1", "memory", "3Gi")},
				Containers: []corev1.Container{container("a", list("cpu", "1", "memory", "1Gi"), nil)},
			},
		},
		{
			name: "pod-level limits with container limits, init containers and sidecars",
			template: corev1.PodSpec{
				Resources:      &corev1.ResourceRequirements{Limits: list("cpu", "4", "memory", "4Gi")},
				InitContainers: []corev1.Container{container("i", list("memory", "2Gi"), nil), sidecarContainer("s", list("cpu", "500m"))},
				Containers:     []corev1.Container{container("a", nil, list("cpu", "2"))},
			},
			created: &corev1.PodSpec{
				Resources:      &corev1.ResourceRequirements{Limits: list("cpu", "4", "memory", "4Gi"), Requests: list("cpu", "2500m", "memory", "2Gi")},
				InitContainers: []corev1.Container{container("i", list("memory", "2Gi"), nil), sidecarContainer("s", list("cpu", "500m"))},
				Containers:     []corev1.Container{container("a", list("cpu", "2"), list("cpu", "2"))},
			},
		},
		{
			name: "pod-level limits alone",
			template: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: list("cpu", "4", "memory", "4Gi")},
				Overhead:   list("cpu", "250m"),
				Containers: []corev1.Container{container("a", nil, nil)},
			},
			created: &corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: list("cpu", "4", "memory", "4Gi"), Requests: list("cpu", "4", "memory", "4Gi")},
				Overhead:   list("cpu", "250m"),
				Containers: []corev1.Container{container("a", nil, nil)},
			},
		},
	}
	const replicas, minAvailable = 4, 3
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := &batchv1alpha1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid"},
				Spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{
					Name: "worker", Replicas: replicas, Template: corev1.PodTemplateSpec{Spec: tc.template},
				}}},
			}
			pg := jobpods.BuildPodGroup(job, minAvailable, nil)
			var admitted api.Resource
			if pg.Spec.MinResources != nil {
				admitted = api.NewResource(*pg.Spec.MinResources)
			}

			created := tc.created
			if created == nil {
				created = &tc.template
			}
			var charged api.Resource
			for range minAvailable {
				req := api.PodRequests(&corev1.Pod{Spec: *created})
				charged.Add(&req)
			}
			if diff := cmp.Diff(charged, admitted); diff != "" {
				t.Errorf("PodGroup minResources (+) differ from what the scheduler charges for %d pods (-):\n%s", minAvailable, diff)
			}

			// Per pod, too: jobpods' view of the stored pod equals the scheduler's.
			if diff := cmp.Diff(api.PodRequests(&corev1.Pod{Spec: *created}), api.NewResource(jobpods.PodRequests(&tc.template))); diff != "" {
				t.Errorf("jobpods.PodRequests (+) differs from api.PodRequests of the created pod (-):\n%s", diff)
			}
		})
	}
}
