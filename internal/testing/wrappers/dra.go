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

package wrappers

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// GPUClass is a DeviceClass of every device of driver.
func GPUClass(name, driver string) *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", driver)},
		}}},
	}
}

// GPUSlice is the ResourceSlice a node's driver publishes for count fake GPUs, gpu-0 to
// gpu-<count-1>, in a pool named after the node; each has an index attribute and 80Gi of memory.
func GPUSlice(node, driver string, count int) *resourcev1.ResourceSlice {
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-" + driver},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   driver,
			NodeName: ptr.To(node),
			Pool:     resourcev1.ResourcePool{Name: node, ResourceSliceCount: 1},
		},
	}
	for i := 0; i < count; i++ {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{
			Name: fmt.Sprintf("gpu-%d", i),
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
				"index": {IntValue: ptr.To(int64(i))},
			},
			Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{
				"memory": {Value: resource.MustParse("80Gi")},
			},
		})
	}
	return s
}

// GPUClaim is a ResourceClaim for count devices of class.
func GPUClaim(namespace, name, class string, count int64) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       gpuClaimSpec(class, count),
	}
}

// GPUClaimTemplate is a ResourceClaimTemplate of claims for count devices of class.
func GPUClaimTemplate(namespace, name, class string, count int64) *resourcev1.ResourceClaimTemplate {
	return &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       resourcev1.ResourceClaimTemplateSpec{Spec: gpuClaimSpec(class, count)},
	}
}

func gpuClaimSpec(class string, count int64) resourcev1.ResourceClaimSpec {
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name: "gpu",
		Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: class,
			AllocationMode:  resourcev1.DeviceAllocationModeExactCount,
			Count:           count,
		},
	}}}}
}

// ClaimFromTemplate gives the last task's pods a claim made from the ResourceClaimTemplate
// template, used by every container.
func (w *JobWrapper) ClaimFromTemplate(name, template string) *JobWrapper {
	spec := &w.lastTask().Template.Spec
	spec.ResourceClaims = append(spec.ResourceClaims, corev1.PodResourceClaim{Name: name, ResourceClaimTemplateName: ptr.To(template)})
	for i := range spec.Containers {
		spec.Containers[i].Resources.Claims = append(spec.Containers[i].Resources.Claims, corev1.ResourceClaim{Name: name})
	}
	return w
}
