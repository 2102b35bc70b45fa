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

package api

import (
	"encoding/binary"
	"hash/fnv"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// TaskID identifies a task: the pod's UID.
type TaskID = types.UID

// TaskStatus is where a task is in its scheduling life.
type TaskStatus uint8

// Task statuses. Allocated and Pipelined exist only inside a scheduling cycle; Binding lasts from
// the cycle's decision until the API server confirms the bind.
const (
	// Pending: not placed.
	Pending TaskStatus = iota
	// Allocated: placed in this cycle, not yet handed to the binder.
	Allocated
	// Pipelined: promised a node whose resources are being released.
	Pipelined
	// Binding: handed to the binder; the bind is not yet confirmed.
	Binding
	// Bound: the pod has a node and has not started.
	Bound
	// Running: the pod runs.
	Running
	// Releasing: the pod is being deleted or evicted and still holds its node's resources.
	Releasing
	// Succeeded: the pod finished successfully.
	Succeeded
	// Failed: the pod failed.
	Failed
	// Unknown: the pod's state is not known.
	Unknown
	// Gated: not placed and held back: the pod has scheduling gates (spec.schedulingGates), or
	// the API server refused its bind for a reason this version of the pod will not outgrow.
	// A held task is never placed; it is pending again when the pod changes.
	Gated
	numStatuses
)

var statusNames = [...]string{"Pending", "Allocated", "Pipelined", "Binding", "Bound", "Running", "Releasing", "Succeeded", "Failed", "Unknown", "Gated"}

// QueueAllocationGate is the scheduling gate Volcano (v1.15) puts on pods to hold them until
// their queue has room for them. A pod held only by it counts toward its gang's valid tasks, as
// Volcano counts it; any other gate is foreign and the pod does not count.
const QueueAllocationGate = "scheduling.volcano.sh/queue-allocation-gate"

// SchedulingGates returns the names of a pod's scheduling gates.
func SchedulingGates(pod *corev1.Pod) []string {
	if pod == nil || len(pod.Spec.SchedulingGates) == 0 {
		return nil
	}
	out := make([]string, len(pod.Spec.SchedulingGates))
	for i, g := range pod.Spec.SchedulingGates {
		out[i] = g.Name
	}
	return out
}

// ForeignGated reports whether a pod carries a scheduling gate other than QueueAllocationGate.
func ForeignGated(pod *corev1.Pod) bool {
	if pod == nil {
		return false
	}
	for _, g := range pod.Spec.SchedulingGates {
		if g.Name != QueueAllocationGate {
			return true
		}
	}
	return false
}

// String returns the status's name.
func (s TaskStatus) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "TaskStatus(" + strconv.Itoa(int(s)) + ")"
}

// AllocatedStatus reports whether a task in status s counts as placed for its job: allocated in
// this cycle, binding, bound or running.
func AllocatedStatus(s TaskStatus) bool {
	switch s {
	case Allocated, Binding, Bound, Running:
		return true
	}
	return false
}

// OccupiesNode reports whether a task in status s holds resources on its node.
func OccupiesNode(s TaskStatus) bool {
	return AllocatedStatus(s) || s == Releasing
}

// TaskInfo is the scheduler's view of one pod. The Pod and Resreq are shared and never changed;
// the rest is copied with the TaskInfo.
type TaskInfo struct {
	// UID is the pod's UID.
	UID TaskID
	// Job is the job the task belongs to.
	Job JobID
	// Name and Namespace are the pod's.
	Name, Namespace string
	// TaskRole is the task name inside the job (annotation or label volcano.sh/task-spec).
	TaskRole string
	// Pod is the pod as last seen. Read only.
	Pod *corev1.Pod
	// Resreq is what the pod requests (init containers, sidecars and overhead included). Read only.
	Resreq *Resource
	// BestEffort is true when the pod requests nothing.
	BestEffort bool
	// NodeName is the node the task is on or placed on.
	NodeName string
	// Status is the task's status.
	Status TaskStatus
	// Priority is the pod's priority.
	Priority int32
	// Preemptable is false when the pod is marked volcano.sh/preemptable=false.
	Preemptable bool
	// PreemptionNever is true when the pod's preemptionPolicy is Never: it may not evict others.
	PreemptionNever bool
	// CreationTime is the pod's creation time.
	CreationTime time.Time
	// NominatedNode is a node promised to the task by an earlier preemption or reclaim.
	NominatedNode string
	// PredicateKey summarises what node filters depend on (requests, node selector, affinity,
	// tolerations, host ports): two tasks of one job with the same key pass and fail the same
	// nodes.
	PredicateKey uint64
}

// Clone returns a copy that may be changed without touching t.
func (t *TaskInfo) Clone() *TaskInfo {
	c := *t
	return &c
}

// PodRequests returns what a pod asks of its node: resourcehelper.PodRequests with its default
// options (pod-level resources, init containers and restartable sidecars, overhead). The job
// controller computes a PodGroup's minResources with the same function and options
// (jobpods.PodRequests), so that the gang admitted is the gang charged; change both together.
func PodRequests(pod *corev1.Pod) Resource {
	return NewResource(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
}

// NewTaskInfo builds the task of a pod in job. prev, when given, is the task of an earlier
// version of the same pod: what it computed is reused when the pod's requests did not change.
// The predicate key is left to EnsurePredicateKey (only pending tasks need it).
func NewTaskInfo(pod *corev1.Pod, job JobID, prev *TaskInfo) *TaskInfo {
	var reqp *Resource
	if prev != nil && prev.Pod != nil && SameRequests(prev.Pod, pod) {
		reqp = prev.Resreq
	} else {
		req := PodRequests(pod)
		reqp = &req
	}
	t := &TaskInfo{
		UID:             pod.UID,
		Job:             job,
		Name:            pod.Name,
		Namespace:       pod.Namespace,
		TaskRole:        taskRole(pod),
		Pod:             pod,
		Resreq:          reqp,
		BestEffort:      reqp.IsEmpty(),
		NodeName:        pod.Spec.NodeName,
		Status:          PodStatus(pod),
		Priority:        corev1helpers.PodPriority(pod),
		Preemptable:     podPreemptable(pod),
		PreemptionNever: pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever,
		CreationTime:    pod.CreationTimestamp.Time,
	}
	return t
}

// EnsurePredicateKey computes the task's predicate key if it is not known yet.
func (t *TaskInfo) EnsurePredicateKey() {
	if t.PredicateKey == 0 && t.Pod != nil {
		t.PredicateKey = predicateKey(t.Pod, t.Resreq)
	}
}

// SameRequests reports whether two versions of a pod ask for the same resources (containers,
// init containers, overhead and pod-level resources).
func SameRequests(a, b *corev1.Pod) bool {
	if len(a.Spec.Containers) != len(b.Spec.Containers) || len(a.Spec.InitContainers) != len(b.Spec.InitContainers) {
		return false
	}
	for i := range a.Spec.Containers {
		if !sameResources(&a.Spec.Containers[i].Resources, &b.Spec.Containers[i].Resources) {
			return false
		}
	}
	for i := range a.Spec.InitContainers {
		ai, bi := &a.Spec.InitContainers[i], &b.Spec.InitContainers[i]
		if !sameResources(&ai.Resources, &bi.Resources) || !sameRestartPolicy(ai.RestartPolicy, bi.RestartPolicy) {
			return false
		}
	}
	if !sameList(a.Spec.Overhead, b.Spec.Overhead) {
		return false
	}
	if (a.Spec.Resources == nil) != (b.Spec.Resources == nil) {
		return false
	}
	if a.Spec.Resources != nil && !sameResources(a.Spec.Resources, b.Spec.Resources) {
		return false
	}
	// In-place resizes report the resources in force in the status.
	return len(a.Status.ContainerStatuses) == 0 && len(b.Status.ContainerStatuses) == 0 || equalStatusResources(a, b)
}

func sameRestartPolicy(a, b *corev1.ContainerRestartPolicy) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func sameResources(a, b *corev1.ResourceRequirements) bool {
	return sameList(a.Requests, b.Requests) && sameList(a.Limits, b.Limits)
}

func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}

func equalStatusResources(a, b *corev1.Pod) bool {
	if len(a.Status.ContainerStatuses) != len(b.Status.ContainerStatuses) {
		return false
	}
	for i := range a.Status.ContainerStatuses {
		ar, br := a.Status.ContainerStatuses[i].Resources, b.Status.ContainerStatuses[i].Resources
		if (ar == nil) != (br == nil) || ar != nil && !sameResources(ar, br) {
			return false
		}
	}
	return true
}

// PodStatus maps a pod to a task status.
func PodStatus(pod *corev1.Pod) TaskStatus {
	switch pod.Status.Phase {
	case corev1.PodRunning:
		if pod.DeletionTimestamp != nil {
			return Releasing
		}
		return Running
	case corev1.PodPending, "":
		if pod.DeletionTimestamp != nil {
			return Releasing
		}
		if pod.Spec.NodeName == "" {
			if len(pod.Spec.SchedulingGates) > 0 {
				return Gated
			}
			return Pending
		}
		return Bound
	case corev1.PodSucceeded:
		return Succeeded
	case corev1.PodFailed:
		return Failed
	default:
		return Unknown
	}
}

func taskRole(pod *corev1.Pod) string {
	if v, ok := pod.Annotations[batchv1alpha1.TaskSpecKey]; ok {
		return v
	}
	return pod.Labels[batchv1alpha1.TaskSpecKey]
}

func podPreemptable(pod *corev1.Pod) bool {
	if v, ok := pod.Annotations[schedulingv1beta1.PodPreemptable]; ok {
		b, err := strconv.ParseBool(v)
		return err == nil && b
	}
	if v, ok := pod.Labels[schedulingv1beta1.PodPreemptable]; ok {
		b, err := strconv.ParseBool(v)
		return err == nil && b
	}
	return true
}

// predicateKey hashes the parts of a pod that node filters read.
func predicateKey(pod *corev1.Pod, req *Resource) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	writeInt := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		_, _ = h.Write(buf[:])
	}
	writeStr := func(s string) {
		writeInt(int64(len(s)))
		_, _ = h.Write([]byte(s))
	}
	writeInt(req.MilliCPU)
	writeInt(req.Memory)
	for _, name := range sortedScalarNames(req.Scalar) {
		writeStr(string(name))
		writeInt(req.Scalar[name])
	}
	keys := make([]string, 0, len(pod.Spec.NodeSelector))
	for k := range pod.Spec.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		writeStr(k)
		writeStr(pod.Spec.NodeSelector[k])
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		// The marshalled form of the node affinity is stable for equal values.
		if b, err := a.NodeAffinity.Marshal(); err == nil {
			_, _ = h.Write(b)
		}
	}
	if a := pod.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		// Pod (anti-)affinity depends on other pods: give every such pod a key of its own.
		writeStr(string(pod.UID))
	} else if UsesClaims(pod) || UsesResourceClaims(pod) {
		// So do volumes and devices: each pod's claims are its own, and assumed as members are
		// placed.
		writeStr(string(pod.UID))
	}
	for i := range pod.Spec.Tolerations {
		if b, err := pod.Spec.Tolerations[i].Marshal(); err == nil {
			_, _ = h.Write(b)
		}
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				writeStr(string(p.Protocol))
				writeStr(p.HostIP)
				writeInt(int64(p.HostPort))
			}
		}
	}
	writeStr(pod.Spec.NodeName)
	return h.Sum64()
}

func sortedScalarNames(m map[corev1.ResourceName]int64) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
