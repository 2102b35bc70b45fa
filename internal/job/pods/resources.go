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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Resource names of a pod's quota usage besides the resources themselves.
const (
	// CountPodsResource counts pods, as a ResourceQuota does.
	CountPodsResource corev1.ResourceName = "count/pods"
)

// podResourcesOptions are the options Caldera computes a pod's requests and limits with, in the
// PodGroup's minResources (which gates admission) and in the scheduler (which allocates): the
// defaults of k8s.io/component-helpers/resource, that is pod-level resources, init containers
// and restartable sidecars, and the overhead, all counted. Both must use these, so that a gang
// is never admitted that cannot then be placed.
var podResourcesOptions = resourcehelper.PodResourcesOptions{}

// PodRequests returns what a pod of this spec requests once the API server has created it: the
// API server's defaulting of requests (CreatedPod), then resourcehelper.PodRequests, the
// function the scheduler charges a pod with (pod-level requests for cpu, memory and hugepages;
// the larger of the running containers with their sidecars and the heaviest init container
// with the sidecars started before it; plus the overhead).
func PodRequests(spec *corev1.PodSpec) corev1.ResourceList {
	return resourcehelper.PodRequests(CreatedPod(spec), podResourcesOptions)
}

// PodLimits returns the limits of a pod of this spec: resourcehelper.PodLimits of CreatedPod.
// The overhead is added only to limits that are set.
func PodLimits(spec *corev1.PodSpec) corev1.ResourceList {
	return resourcehelper.PodLimits(CreatedPod(spec), podResourcesOptions)
}

// CreatedPod returns a pod of this spec with the requests the API server fills in when it
// creates the pod (a Job's pod template is stored without them):
//
//   - a container (or init container) that sets a limit and no request for a resource requests
//     its limit;
//   - when pod-level limits are set, a supported pod-level resource (cpu, memory, hugepages-*)
//     with no pod-level request requests what the containers request together, for cpu and
//     memory when some container requests it, and else its pod-level limit.
//
// spec is not changed; the containers' resources are copied, the rest is shared.
func CreatedPod(spec *corev1.PodSpec) *corev1.Pod {
	pod := &corev1.Pod{Spec: *spec}
	pod.Spec.Containers = defaultContainerRequests(spec.Containers)
	pod.Spec.InitContainers = defaultContainerRequests(spec.InitContainers)
	if spec.Resources == nil || len(spec.Resources.Limits) == 0 {
		return pod
	}
	podLevel := spec.Resources.DeepCopy()
	requests := podLevel.Requests
	if requests == nil {
		requests = corev1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerRequests(pod, podResourcesOptions) {
		if _, ok := requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && overcommitAllowed(name) {
			requests[name] = q.DeepCopy()
		}
	}
	for name, q := range podLevel.Limits {
		if _, ok := requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			requests[name] = q.DeepCopy()
		}
	}
	if len(requests) > 0 {
		podLevel.Requests = requests
	}
	pod.Spec.Resources = podLevel
	return pod
}

// defaultContainerRequests returns containers with each limit that has no request copied to
// the request; a container that needs no change is shared with the input.
func defaultContainerRequests(containers []corev1.Container) []corev1.Container {
	var out []corev1.Container
	for i := range containers {
		res := &containers[i].Resources
		missing := false
		for name := range res.Limits {
			if _, ok := res.Requests[name]; !ok {
				missing = true
				break
			}
		}
		if !missing {
			continue
		}
		if out == nil {
			out = slices.Clone(containers)
		}
		requests := make(corev1.ResourceList, len(res.Limits)+len(res.Requests))
		for name, q := range res.Requests {
			requests[name] = q.DeepCopy()
		}
		for name, q := range res.Limits {
			if _, ok := requests[name]; !ok {
				requests[name] = q.DeepCopy()
			}
		}
		out[i].Resources.Requests = requests
	}
	if out == nil {
		return containers
	}
	return out
}

// overcommitAllowed reports whether requests of a resource may be below its limits: native
// resources (no domain, or a kubernetes.io domain) except hugepages.
func overcommitAllowed(name corev1.ResourceName) bool {
	s := string(name)
	native := !strings.Contains(s, "/") || strings.Contains(s, "kubernetes.io/")
	return native && !strings.HasPrefix(s, corev1.ResourceHugePagesPrefix)
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

// addTo adds src to dst, resource by resource.
func addTo(dst, src corev1.ResourceList) {
	for name, q := range src {
		sum := dst[name].DeepCopy()
		sum.Add(q)
		dst[name] = sum
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
