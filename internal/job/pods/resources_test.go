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
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// quantityByValue compares quantities by value, not by representation.
var quantityByValue = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// rl builds a resource list from name, quantity pairs.
func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func ctr(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func sidecar(name string, requests corev1.ResourceList) corev1.Container {
	c := ctr(name, requests, nil)
	c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	return c
}

func TestPodRequestsAndLimits(t *testing.T) {
	cases := []struct {
		name       string
		spec       corev1.PodSpec
		wantReq    corev1.ResourceList
		wantLimits corev1.ResourceList
	}{
		{
			name:       "containers add up",
			spec:       corev1.PodSpec{Containers: []corev1.Container{ctr("a", rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1")), ctr("b", rl("cpu", "1500m"), nil)}},
			wantReq:    rl("cpu", "2", "memory", "1Gi"),
			wantLimits: rl("cpu", "1"),
		},
		{
			name:       "a limit without a request is the request",
			spec:       corev1.PodSpec{Containers: []corev1.Container{ctr("a", nil, rl("cpu", "2", "memory", "2Gi")), ctr("b", rl("cpu", "1"), nil)}},
			wantReq:    rl("cpu", "3", "memory", "2Gi"),
			wantLimits: rl("cpu", "2", "memory", "2Gi"),
		},
		{
			name: "the heaviest init container wins when it needs more than the containers",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("i1", rl("cpu", "4"), nil), ctr("i2", rl("memory", "8Gi"), nil)},
				Containers:     []corev1.Container{ctr("a", rl("cpu", "1", "memory", "1Gi"), nil)},
			},
			wantReq:    rl("cpu", "4", "memory", "8Gi"),
			wantLimits: rl(),
		},
		{
			name: "sidecars run with the containers and with later init containers",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{
					ctr("before", rl("cpu", "3"), nil),  // alone: 3
					sidecar("proxy", rl("cpu", "500m")), // from here on: +0.5
					ctr("after", rl("cpu", "3"), nil),   // 3 + 0.5
				},
				Containers: []corev1.Container{ctr("a", rl("cpu", "2"), nil)}, // 2 + 0.5
			},
			wantReq:    rl("cpu", "3500m"),
			wantLimits: rl(),
		},
		{
			name: "sidecars add to the containers when they need more",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("setup", rl("cpu", "1"), nil), sidecar("log", rl("cpu", "1"))},
				Containers:     []corev1.Container{ctr("a", rl("cpu", "2"), nil)},
			},
			wantReq:    rl("cpu", "3"),
			wantLimits: rl(),
		},
		{
			// The API server defaults the pod-level cpu request to the containers' (1), not to
			// the pod-level limit; pod-level resources cover cpu, memory and hugepages only.
			name: "pod-level requests replace the containers' sum for cpu, memory and hugepages",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: rl("cpu", "4"), Requests: rl("memory", "3Gi")},
				Containers: []corev1.Container{ctr("a", rl("cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "1"), nil)},
			},
			wantReq:    rl("cpu", "1", "memory", "3Gi", "nvidia.com/gpu", "1"),
			wantLimits: rl("cpu", "4"),
		},
		{
			name: "pod-level limits alone are the requests",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: rl("cpu", "4", "memory", "4Gi")},
				Containers: []corev1.Container{ctr("a", nil, nil)},
			},
			wantReq:    rl("cpu", "4", "memory", "4Gi"),
			wantLimits: rl("cpu", "4", "memory", "4Gi"),
		},
		{
			name: "overhead adds to requests, and to limits that are set",
			spec: corev1.PodSpec{
				Overhead:   rl("cpu", "100m", "memory", "64Mi"),
				Containers: []corev1.Container{ctr("a", rl("cpu", "1"), rl("cpu", "1"))},
			},
			wantReq:    rl("cpu", "1100m", "memory", "64Mi"),
			wantLimits: rl("cpu", "1100m"),
		},
		{
			name:       "nothing requested",
			spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}},
			wantReq:    rl(),
			wantLimits: rl(),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.wantReq, PodRequests(&tc.spec), quantityByValue); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantLimits, PodLimits(&tc.spec), quantityByValue); diff != "" {
				t.Errorf("limits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodQuotaUsage(t *testing.T) {
	cases := []struct {
		name string
		spec corev1.PodSpec
		want corev1.ResourceList
	}{
		{
			name: "cpu and memory with limits",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "2"))}},
			want: rl("pods", "1", "count/pods", "1",
				"cpu", "1", "requests.cpu", "1", "limits.cpu", "2",
				"memory", "1Gi", "requests.memory", "1Gi"),
		},
		{
			name: "extended resources, hugepages and ephemeral storage",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a",
				rl("nvidia.com/gpu", "2", "hugepages-2Mi", "100Mi", "ephemeral-storage", "1Gi"),
				rl("nvidia.com/gpu", "2", "hugepages-2Mi", "100Mi"))}},
			want: rl("pods", "1", "count/pods", "1",
				"nvidia.com/gpu", "2", "requests.nvidia.com/gpu", "2",
				"hugepages-2Mi", "100Mi", "requests.hugepages-2Mi", "100Mi",
				"ephemeral-storage", "1Gi", "requests.ephemeral-storage", "1Gi"),
		},
		{
			name: "an empty pod still counts as a pod",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}},
			want: rl("pods", "1", "count/pods", "1"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PodQuotaUsage(&tc.spec), quantityByValue); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodRequestsLeavesSpecAlone(t *testing.T) {
	spec := corev1.PodSpec{
		Overhead:       rl("cpu", "100m"),
		InitContainers: []corev1.Container{sidecar("s", rl("cpu", "1"))},
		Containers:     []corev1.Container{ctr("a", rl("cpu", "1"), rl("cpu", "1")), ctr("b", nil, rl("memory", "1Gi"))},
	}
	before := spec.DeepCopy()
	_ = PodQuotaUsage(&spec)
	if diff := cmp.Diff(before, &spec); diff != "" {
		t.Errorf("spec changed (-before +after):\n%s", diff)
	}
}

func resourceMustParse(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}
