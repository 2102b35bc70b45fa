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

package jobpods

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Resource names of a pod's quota usage besides the resources themselves.
const (
	// CountPodsResource counts pods, as a ResourceQuota does.
	CountPodsResource corev1.ResourceName = "count/pods"
)

// PodRequests returns what a pod of this spec requests once the API server has created it:
//
//   - a container that sets a limit and no request for a resource requests its limit (the API
//     server's defaulting);
//   - the pod needs, for each resource, the larger of what its containers and sidecars (init
//     containers that always restart) need together while running, and what the heaviest init
//     container needs together with the sidecars started before it;
//   - pod-level requests (spec.resources) replace the containers' sum for the resources they name;
//   - the pod's overhead is added.
func PodRequests(spec *corev1.PodSpec) corev1.ResourceList {
	return podResources(spec, containerRequests, podLevelRequests(spec), true)
}

// PodLimits returns the limits of a pod of this spec, by the same rules as PodRequests. A
// resource some container leaves without a limit is summed over the containers that set one,
// and the overhead is added only to resources that have a limit.
func PodLimits(spec *corev1.PodSpec) corev1.ResourceList {
	var podLevel corev1.ResourceList
	if spec.Resources != nil {
		podLevel = spec.Resources.Limits
	}
	return podResources(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits }, podLevel, false)
}

// PodQuotaUsage returns what a pod of this spec counts against a ResourceQuota, with the names a
// ResourceQuota uses: pods and count/pods (1 each); cpu, memory and ephemeral-storage both bare
// and as requests.<name>, and their limits as limits.<name>; hugepages-* bare and as requests.*;
// extended resources (such as nvidia.com/gpu) as requests.<name> and bare. Summed over the first
// minAvailable pods of a job, it is the PodGroup's minResources.
func PodQuotaUsage(spec *corev1.PodSpec) corev1.ResourceList {
	requests := PodRequests(spec)
	limits := PodLimits(spec)
	usage := corev1.ResourceList{
		corev1.ResourcePods: *resource.NewQuantity(1, resource.DecimalSI),
		CountPodsResource:   *resource.NewQuantity(1, resource.DecimalSI),
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q, ok := requests[name]; ok {
			usage[name] = q.DeepCopy()
			usage[corev1.DefaultResourceRequestsPrefix+name] = q.DeepCopy()
		}
		if q, ok := limits[name]; ok {
			usage[corev1.ResourceName("limits.")+name] = q.DeepCopy()
		}
	}
	for name, q := range requests {
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) || isExtendedResource(name) {
			usage[name] = q.DeepCopy()
			usage[corev1.DefaultResourceRequestsPrefix+name] = q.DeepCopy()
		}
	}
	return usage
}

// isExtendedResource reports whether a resource is an extended resource: a domain-qualified name
// outside the kubernetes.io domains, not a quota name.
func isExtendedResource(name corev1.ResourceName) bool {
	s := string(name)
	return strings.Contains(s, "/") && !strings.Contains(s, "kubernetes.io/") &&
		!strings.HasPrefix(s, string(corev1.DefaultResourceRequestsPrefix))
}

// containerRequests is what a container requests after defaulting: its requests, and its limits
// for the resources it sets no request for.
func containerRequests(c *corev1.Container) corev1.ResourceList {
	out := c.Resources.Requests.DeepCopy()
	for name, q := range c.Resources.Limits {
		if _, ok := out[name]; !ok {
			if out == nil {
				out = corev1.ResourceList{}
			}
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// podLevelRequests is the pod-level requests after defaulting: the pod-level limits for the
// resources that set no request.
func podLevelRequests(spec *corev1.PodSpec) corev1.ResourceList {
	if spec.Resources == nil {
		return nil
	}
	out := spec.Resources.Requests.DeepCopy()
	for name, q := range spec.Resources.Limits {
		if _, ok := out[name]; !ok {
			if out == nil {
				out = corev1.ResourceList{}
			}
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// podResources aggregates a per-container resource list over a pod (see PodRequests).
func podResources(spec *corev1.PodSpec, of func(*corev1.Container) corev1.ResourceList, podLevel corev1.ResourceList, overheadAlways bool) corev1.ResourceList {
	running := corev1.ResourceList{}
	for i := range spec.Containers {
		addTo(running, of(&spec.Containers[i]))
	}

	sidecars := corev1.ResourceList{}
	initPeak := corev1.ResourceList{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		own := of(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			// A sidecar keeps running: it adds to everything started after it.
			addTo(sidecars, own)
			maxInto(initPeak, sidecars)
			continue
		}
		// A regular init container runs alone beside the sidecars started before it.
		step := sidecars.DeepCopy()
		addTo(step, own)
		maxInto(initPeak, step)
	}
	addTo(running, sidecars)
	maxInto(running, initPeak)

	for name, q := range podLevel {
		running[name] = q.DeepCopy()
	}
	for name, q := range spec.Overhead {
		if _, ok := running[name]; ok || overheadAlways {
			sum := running[name].DeepCopy()
			sum.Add(q)
			running[name] = sum
		}
	}
	return running
}

// addTo adds src to dst, resource by resource.
func addTo(dst, src corev1.ResourceList) {
	for name, q := range src {
		sum := dst[name].DeepCopy()
		sum.Add(q)
		dst[name] = sum
	}
}

// maxInto raises each resource of dst to src's when src's is larger.
func maxInto(dst, src corev1.ResourceList) {
	for name, q := range src {
		if cur, ok := dst[name]; !ok || q.Cmp(cur) > 0 {
			dst[name] = q.DeepCopy()
		}
	}
}

// scaled returns list × n.
func scaled(list corev1.ResourceList, n int32) corev1.ResourceList {
	out := make(corev1.ResourceList, len(list))
	for name, q := range list {
		m := q.DeepCopy()
		m.Mul(int64(n))
		out[name] = m
	}
	return out
}
