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
	corev1 "k8s.io/api/core/v1"
)

// NodeTask is a pod as its node accounts for it. Entries are never changed in place: a change
// replaces the entry, so copies of a node may share them.
type NodeTask struct {
	// UID is the pod's UID.
	UID TaskID
	// Job is the pod's job; empty for pods the scheduler does not schedule.
	Job JobID
	// Namespace and Name are the pod's.
	Namespace, Name string
	// Resreq is what the pod requests. Read only.
	Resreq *Resource
	// Status is the pod's task status.
	Status TaskStatus
	// Pod is the pod as last seen. Read only.
	Pod *corev1.Pod
}

// NodeInfo is a node with the pods it holds and the sums the scheduler needs.
type NodeInfo struct {
	// Name is the node's name.
	Name string
	// Node is the node as last seen; nil while only pods naming the node are known. Read only.
	Node *corev1.Node
	// Allocatable is what the node offers to pods.
	Allocatable Resource
	// MaxPods is the number of pods the node takes (allocatable "pods"); 0 means no limit given.
	MaxPods int32
	// Used is what the pods on the node (running, bound, binding, allocated or releasing) request.
	Used Resource
	// Releasing is what pods being deleted or evicted still hold.
	Releasing Resource
	// ReleasingPods counts the pods on the node being deleted or evicted.
	ReleasingPods int32
	// Foreign is what pods of no job (pods of other schedulers, static and DaemonSet pods) hold,
	// part of Used: room no queue can be given while they run.
	Foreign Resource
	// Pipelined is what is promised to tasks waiting for releasing resources.
	Pipelined Resource
	// PodCount is the number of pods on the node, pipelined ones included.
	PodCount int32
	// Tasks are the pods on the node by UID.
	Tasks map[TaskID]*NodeTask
	// Ready is true when the node's Ready condition is True.
	Ready bool
	// Unschedulable mirrors spec.unschedulable.
	Unschedulable bool
	// AntiAffinityPods counts the pods on the node with a required pod anti-affinity.
	AntiAffinityPods int32
}

// NewNodeInfo returns the NodeInfo of a node (which may be nil while the node is not known).
func NewNodeInfo(name string, node *corev1.Node) *NodeInfo {
	n := &NodeInfo{Name: name, Tasks: map[TaskID]*NodeTask{}}
	n.SetNode(node)
	return n
}

// SetNode updates the node object and what derives from it.
func (n *NodeInfo) SetNode(node *corev1.Node) {
	n.Node = node
	if node == nil {
		n.Allocatable, n.MaxPods, n.Ready, n.Unschedulable = Resource{}, 0, false, false
		return
	}
	n.Allocatable = NewResource(node.Status.Allocatable)
	if q, ok := node.Status.Allocatable[corev1.ResourcePods]; ok {
		n.MaxPods = int32(q.Value())
	} else {
		n.MaxPods = 0
	}
	n.Unschedulable = node.Spec.Unschedulable
	n.Ready = false
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			n.Ready = c.Status == corev1.ConditionTrue
		}
	}
}

// Clone returns a copy whose sums and task set may be changed without touching n.
func (n *NodeInfo) Clone() *NodeInfo {
	c := *n
	c.Allocatable = n.Allocatable.Clone()
	c.Used = n.Used.Clone()
	c.Releasing = n.Releasing.Clone()
	c.Pipelined = n.Pipelined.Clone()
	c.Foreign = n.Foreign.Clone()
	c.Tasks = make(map[TaskID]*NodeTask, len(n.Tasks))
	for k, v := range n.Tasks {
		c.Tasks[k] = v
	}
	return &c
}

// AddTask accounts for a pod on the node, replacing an entry with the same UID.
func (n *NodeInfo) AddTask(t *NodeTask) {
	if old, ok := n.Tasks[t.UID]; ok {
		n.account(old, -1)
	}
	n.Tasks[t.UID] = t
	n.account(t, 1)
}

// RemoveTask forgets a pod on the node.
func (n *NodeInfo) RemoveTask(uid TaskID) {
	if old, ok := n.Tasks[uid]; ok {
		n.account(old, -1)
		delete(n.Tasks, uid)
	}
}

// HasRequiredAntiAffinity reports whether a pod has a required pod anti-affinity term.
func HasRequiredAntiAffinity(pod *corev1.Pod) bool {
	return pod != nil && pod.Spec.Affinity != nil && pod.Spec.Affinity.PodAntiAffinity != nil &&
		len(pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// HasRequiredPodAffinity reports whether a pod has a required pod affinity or anti-affinity term.
func HasRequiredPodAffinity(pod *corev1.Pod) bool {
	return HasRequiredAntiAffinity(pod) || (pod != nil && pod.Spec.Affinity != nil && pod.Spec.Affinity.PodAffinity != nil &&
		len(pod.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0)
}

// HasPlacementRules reports whether where a pod may or would rather go depends on other pods: it
// has topology spread constraints or preferred inter-pod (anti-)affinity terms (required ones:
// HasRequiredPodAffinity).
func HasPlacementRules(pod *corev1.Pod) bool {
	if pod == nil {
		return false
	}
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		return true
	}
	a := pod.Spec.Affinity
	return a != nil && (a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
}

// UsesClaims reports whether a pod has a volume backed by a PersistentVolumeClaim (its own or a
// generic ephemeral one): where it may go then depends on its volumes, which are its alone.
func UsesClaims(pod *corev1.Pod) bool {
	if pod == nil {
		return false
	}
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].PersistentVolumeClaim != nil || pod.Spec.Volumes[i].Ephemeral != nil {
			return true
		}
	}
	return false
}

// UsesResourceClaims reports whether a pod asks for devices through ResourceClaims (Dynamic
// Resource Allocation): where it may go then depends on the devices its claims can have, which
// are its alone (or its claims' other consumers').
func UsesResourceClaims(pod *corev1.Pod) bool {
	return pod != nil && len(pod.Spec.ResourceClaims) > 0
}

// HasHostPorts reports whether a pod asks for host ports: whether it fits a node then depends on
// the node's other pods, not only on its free resources.
func HasHostPorts(pod *corev1.Pod) bool {
	if pod == nil {
		return false
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			for _, p := range c.Ports {
				if p.HostPort > 0 {
					return true
				}
			}
		}
	}
	return false
}

func (n *NodeInfo) account(t *NodeTask, sign int32) {
	if HasRequiredAntiAffinity(t.Pod) && (OccupiesNode(t.Status) || t.Status == Pipelined) {
		n.AntiAffinityPods += sign
	}
	add := func(r *Resource) {
		if sign > 0 {
			r.Add(t.Resreq)
		} else {
			r.Sub(t.Resreq)
		}
	}
	if t.Job == "" && (t.Status == Releasing || AllocatedStatus(t.Status)) {
		add(&n.Foreign)
	}
	switch {
	case t.Status == Releasing:
		add(&n.Used)
		add(&n.Releasing)
		n.ReleasingPods += sign
		n.PodCount += sign
	case AllocatedStatus(t.Status):
		add(&n.Used)
		n.PodCount += sign
	case t.Status == Pipelined:
		add(&n.Pipelined)
		n.PodCount += sign
	}
}

// Idle is what is free on the node now.
func (n *NodeInfo) Idle() Resource {
	idle := n.Allocatable.Clone()
	idle.Sub(&n.Used)
	return idle
}

// FutureIdle is what will be free once releasing pods are gone and pipelined tasks placed.
func (n *NodeInfo) FutureIdle() Resource {
	idle := n.Idle()
	idle.Add(&n.Releasing)
	idle.Sub(&n.Pipelined)
	return idle
}

// FitsIdle reports whether req fits in what is free now, less what tasks promised the node
// (pipelined) will take, without building the idle sum.
func (n *NodeInfo) FitsIdle(req *Resource) bool {
	if req.MilliCPU > 0 && req.MilliCPU > n.Allocatable.MilliCPU-n.Used.MilliCPU-n.Pipelined.MilliCPU {
		return false
	}
	if req.Memory > 0 && req.Memory > n.Allocatable.Memory-n.Used.Memory-n.Pipelined.Memory {
		return false
	}
	for k, v := range req.Scalar {
		if v > 0 && v > n.Allocatable.Scalar[k]-n.Used.Scalar[k]-n.Pipelined.Scalar[k] {
			return false
		}
	}
	return true
}

// FitsFutureIdle reports whether req fits once releasing pods are gone, pipelined tasks counted.
func (n *NodeInfo) FitsFutureIdle(req *Resource) bool {
	free := func(a, u, r, p int64) int64 { return a - u + r - p }
	if req.MilliCPU > 0 && req.MilliCPU > free(n.Allocatable.MilliCPU, n.Used.MilliCPU, n.Releasing.MilliCPU, n.Pipelined.MilliCPU) {
		return false
	}
	if req.Memory > 0 && req.Memory > free(n.Allocatable.Memory, n.Used.Memory, n.Releasing.Memory, n.Pipelined.Memory) {
		return false
	}
	for k, v := range req.Scalar {
		if v > 0 && v > free(n.Allocatable.Scalar[k], n.Used.Scalar[k], n.Releasing.Scalar[k], n.Pipelined.Scalar[k]) {
			return false
		}
	}
	return true
}

// PodsFull reports whether the node takes no more pods.
func (n *NodeInfo) PodsFull() bool { return n.MaxPods > 0 && n.PodCount >= n.MaxPods }
