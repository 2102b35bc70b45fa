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

// Package api holds the scheduler's own view of the cluster: resources, tasks (pods), jobs
// (PodGroups with their pods), nodes and queues, and the bookkeeping that keeps their sums
// right as tasks change state.
package api

import (
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Resource is an amount of compute: CPU in millicores, memory in bytes and every other resource
// (extended resources such as nvidia.com/gpu, ephemeral-storage, hugepages) in its own unit.
// The zero value is empty. The pod count is not a Resource dimension.
type Resource struct {
	// MilliCPU is CPU in millicores.
	MilliCPU int64
	// Memory is memory in bytes.
	Memory int64
	// Scalar holds every other resource by name. Nil when there are none.
	Scalar map[corev1.ResourceName]int64
}

// NewResource converts a ResourceList. The "pods" entry is left out.
func NewResource(rl corev1.ResourceList) Resource {
	var r Resource
	for name, q := range rl {
		r.AddQuantity(name, q)
	}
	return r
}

// AddQuantity adds a quantity of one resource. Quota-only names (count/*, requests.*,
// limits.*), which a PodGroup's minResources carries when it is computed as quota usage, as
// Volcano's controller does, are not compute a node offers and are left out.
func (r *Resource) AddQuantity(name corev1.ResourceName, q resource.Quantity) {
	if isQuotaOnly(name) {
		return
	}
	switch name {
	case corev1.ResourceCPU:
		r.MilliCPU += q.MilliValue()
	case corev1.ResourceMemory:
		r.Memory += q.Value()
	case corev1.ResourcePods:
	default:
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[name] += q.Value()
	}
}

// isQuotaOnly reports whether name is a ResourceQuota accounting name rather than a resource.
func isQuotaOnly(name corev1.ResourceName) bool {
	n := string(name)
	return strings.HasPrefix(n, "count/") || strings.HasPrefix(n, corev1.DefaultResourceRequestsPrefix) ||
		strings.HasPrefix(n, "limits.")
}

// Get returns the amount of one resource.
func (r *Resource) Get(name corev1.ResourceName) int64 {
	switch name {
	case corev1.ResourceCPU:
		return r.MilliCPU
	case corev1.ResourceMemory:
		return r.Memory
	default:
		return r.Scalar[name]
	}
}

// Set sets the amount of one resource.
func (r *Resource) Set(name corev1.ResourceName, v int64) {
	switch name {
	case corev1.ResourceCPU:
		r.MilliCPU = v
	case corev1.ResourceMemory:
		r.Memory = v
	default:
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[name] = v
	}
}

// Clone returns a deep copy.
func (r Resource) Clone() Resource {
	out := Resource{MilliCPU: r.MilliCPU, Memory: r.Memory}
	if len(r.Scalar) > 0 {
		out.Scalar = make(map[corev1.ResourceName]int64, len(r.Scalar))
		for k, v := range r.Scalar {
			out.Scalar[k] = v
		}
	}
	return out
}

// Add adds o to r.
func (r *Resource) Add(o *Resource) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	for k, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = make(map[corev1.ResourceName]int64, len(o.Scalar))
		}
		r.Scalar[k] += v
	}
}

// Sub subtracts o from r. Amounts may go below zero; callers that need a floor use SubFloor.
func (r *Resource) Sub(o *Resource) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	for k, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = make(map[corev1.ResourceName]int64, len(o.Scalar))
		}
		r.Scalar[k] -= v
	}
}

// SubFloor subtracts o from r, not going below zero in any dimension.
func (r *Resource) SubFloor(o *Resource) {
	r.Sub(o)
	r.MilliCPU = max(r.MilliCPU, 0)
	r.Memory = max(r.Memory, 0)
	for k, v := range r.Scalar {
		if v < 0 {
			r.Scalar[k] = 0
		}
	}
}

// IsEmpty reports whether every dimension is zero or less.
func (r *Resource) IsEmpty() bool {
	if r.MilliCPU > 0 || r.Memory > 0 {
		return false
	}
	for _, v := range r.Scalar {
		if v > 0 {
			return false
		}
	}
	return true
}

// Equal reports whether r and o hold the same amounts (a missing scalar equals zero).
func (r *Resource) Equal(o *Resource) bool {
	if r.MilliCPU != o.MilliCPU || r.Memory != o.Memory {
		return false
	}
	for k, v := range r.Scalar {
		if o.Scalar[k] != v {
			return false
		}
	}
	for k, v := range o.Scalar {
		if r.Scalar[k] != v {
			return false
		}
	}
	return true
}

// LessEqual reports whether every positive dimension of r fits in o.
func (r *Resource) LessEqual(o *Resource) bool {
	if r.MilliCPU > 0 && r.MilliCPU > o.MilliCPU {
		return false
	}
	if r.Memory > 0 && r.Memory > o.Memory {
		return false
	}
	for k, v := range r.Scalar {
		if v > 0 && v > o.Scalar[k] {
			return false
		}
	}
	return true
}

// Insufficient returns, in a stable order, the resources r asks for that o cannot hold.
func (r *Resource) Insufficient(o *Resource) []corev1.ResourceName {
	var out []corev1.ResourceName
	if r.MilliCPU > 0 && r.MilliCPU > o.MilliCPU {
		out = append(out, corev1.ResourceCPU)
	}
	if r.Memory > 0 && r.Memory > o.Memory {
		out = append(out, corev1.ResourceMemory)
	}
	if len(r.Scalar) > 0 {
		var scalars []corev1.ResourceName
		for k, v := range r.Scalar {
			if v > 0 && v > o.Scalar[k] {
				scalars = append(scalars, k)
			}
		}
		sort.Slice(scalars, func(i, j int) bool { return scalars[i] < scalars[j] })
		out = append(out, scalars...)
	}
	return out
}

// Names returns the dimensions r names with a positive amount, cpu and memory first.
func (r *Resource) Names() []corev1.ResourceName {
	var out []corev1.ResourceName
	if r.MilliCPU > 0 {
		out = append(out, corev1.ResourceCPU)
	}
	if r.Memory > 0 {
		out = append(out, corev1.ResourceMemory)
	}
	var scalars []corev1.ResourceName
	for k, v := range r.Scalar {
		if v > 0 {
			scalars = append(scalars, k)
		}
	}
	sort.Slice(scalars, func(i, j int) bool { return scalars[i] < scalars[j] })
	return append(out, scalars...)
}

// ResourceList converts r back to a ResourceList, leaving out zero dimensions.
func (r *Resource) ResourceList() corev1.ResourceList {
	out := corev1.ResourceList{}
	if r.MilliCPU != 0 {
		out[corev1.ResourceCPU] = *resource.NewMilliQuantity(r.MilliCPU, resource.DecimalSI)
	}
	if r.Memory != 0 {
		out[corev1.ResourceMemory] = *resource.NewQuantity(r.Memory, resource.BinarySI)
	}
	for k, v := range r.Scalar {
		if v != 0 {
			out[k] = *resource.NewQuantity(v, resource.DecimalSI)
		}
	}
	return out
}

// FormatAmount renders an amount of one resource the way a user writes it in a manifest.
func FormatAmount(name corev1.ResourceName, v int64) string {
	switch name {
	case corev1.ResourceCPU:
		q := resource.NewMilliQuantity(v, resource.DecimalSI)
		return q.String()
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		q := resource.NewQuantity(v, resource.BinarySI)
		return q.String()
	default:
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			q := resource.NewQuantity(v, resource.BinarySI)
			return q.String()
		}
		return strconv.FormatInt(v, 10)
	}
}

// String renders the positive dimensions as "cpu 2, memory 4Gi, nvidia.com/gpu 1".
func (r Resource) String() string {
	names := r.Names()
	if len(names) == 0 {
		return "nothing"
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, string(n)+" "+FormatAmount(n, r.Get(n)))
	}
	return strings.Join(parts, ", ")
}
