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

package framework

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

const (
	// NodeNamePrefix starts the name of every node CreateNodes makes: kwok-node-0, kwok-node-1, ...
	NodeNamePrefix = "kwok-node-"
	// GPUNodeNamePrefix starts the name of every node CreateGPUNodes makes: kwok-gpu-node-0, ...
	GPUNodeNamePrefix = "kwok-gpu-node-"
	// GPUResource is the extended resource GPU nodes offer, as NVIDIA's device plugin names it.
	GPUResource corev1.ResourceName = "nvidia.com/gpu"
	// GPUDriver is the Dynamic Resource Allocation driver GPU nodes publish their GPUs as, in a
	// ResourceSlice each, as NVIDIA's DRA driver names itself; the DeviceClass of the same name
	// selects them.
	GPUDriver = "gpu.nvidia.com"
	// NodeRegion is the topology.kubernetes.io/region of every node CreateNodes and
	// CreateGPUNodes make.
	NodeRegion = "region-1"
)

// NodeZones are the topology.kubernetes.io/zone values CreateNodes and CreateGPUNodes give their
// nodes in turn: node i is in NodeZones[i%3].
var NodeZones = []string{"zone-a", "zone-b", "zone-c"}

// DefaultNodeCapacity is the capacity CreateNodes and NewKWOKNode give a node when none is
// asked for: 32 CPUs, 256Gi of memory, 1Ti of ephemeral storage and 110 pods.
func DefaultNodeCapacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("32"),
		corev1.ResourceMemory:           resource.MustParse("256Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("1Ti"),
		corev1.ResourcePods:             resource.MustParse("110"),
	}
}

// GPUNodeCapacity is DefaultNodeCapacity plus gpus of GPUResource.
func GPUNodeCapacity(gpus int) corev1.ResourceList {
	capacity := DefaultNodeCapacity()
	capacity[GPUResource] = *resource.NewQuantity(int64(gpus), resource.DecimalSI)
	return capacity
}

// NewKWOKNode builds (without creating it) a node that KWOK started by the framework manages:
// annotated KWOKNodeAnnotation=KWOKNodeAnnotationValue, labelled type=kwok and with the usual
// kubernetes.io/hostname, os and arch labels, no taints, and capacity and allocatable both set to
// capacity (DefaultNodeCapacity when nil). Change it as a test needs, then create it.
func NewKWOKNode(name string, capacity corev1.ResourceList) *corev1.Node {
	if capacity == nil {
		capacity = DefaultNodeCapacity()
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				KWOKNodeLabel:                   "kwok",
				corev1.LabelHostname:            name,
				corev1.LabelOSStable:            "linux",
				corev1.LabelArchStable:          "amd64",
				"node-role.kubernetes.io/agent": "",
			},
			Annotations: map[string]string{
				KWOKNodeAnnotation:             KWOKNodeAnnotationValue,
				"node.alpha.kubernetes.io/ttl": "0",
			},
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity.DeepCopy(),
			Allocatable: capacity.DeepCopy(),
		},
	}
}

// NodeNames returns the names CreateNodes gives count nodes: kwok-node-0 to kwok-node-<count-1>.
func NodeNames(count int) []string {
	names := make([]string, count)
	for i := range names {
		names[i] = NodeNamePrefix + strconv.Itoa(i)
	}
	return names
}

// CreateNodes creates the nodes kwok-node-0 to kwok-node-<count-1> with NewKWOKNode and the given
// capacity (DefaultNodeCapacity when nil), node i with the InternalIP 10.128.x.y of the number
// i+1, in the region NodeRegion and the zone NodeZones[i%3], and returns their names. A node of that name that
// already exists is left as it is. Use WaitForNodesReady to wait until KWOK has made them Ready.
func (f *Framework) CreateNodes(ctx context.Context, count int, capacity corev1.ResourceList) ([]string, error) {
	return f.createNodes(ctx, NodeNamePrefix, 0, count, capacity, nil)
}

// CreateGPUNodes creates the nodes kwok-gpu-node-0 to kwok-gpu-node-<count-1> as CreateNodes
// does, each with GPUNodeCapacity(gpus), the labels NVIDIA's GPU feature discovery sets
// (nvidia.com/gpu.present, nvidia.com/gpu.count, nvidia.com/gpu.product), untainted so that
// manifests written for any cluster fit, and returns their names. Each node also publishes its
// GPUs for Dynamic Resource Allocation: a ResourceSlice of GPUDriver with gpu-0 to gpu-<gpus-1>,
// selected by the DeviceClass GPUDriver.
// Their InternalIPs follow those of CreateNodes' first 1000 nodes.
func (f *Framework) CreateGPUNodes(ctx context.Context, count, gpus int) ([]string, error) {
	if gpus < 1 {
		return nil, fmt.Errorf("GPUs per node %d: must be 1 or more", gpus)
	}
	names, err := f.createNodes(ctx, GPUNodeNamePrefix, 1000, count, GPUNodeCapacity(gpus), func(node *corev1.Node) {
		node.Labels["nvidia.com/gpu.present"] = "true"
		node.Labels["nvidia.com/gpu.count"] = strconv.Itoa(gpus)
		node.Labels["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3"
	})
	if err != nil || count == 0 {
		return names, err
	}
	// The same GPUs, published for Dynamic Resource Allocation as NVIDIA's DRA driver would.
	objs := []client.Object{wrappers.GPUClass(GPUDriver, GPUDriver)}
	for _, name := range names {
		objs = append(objs, wrappers.GPUSlice(name, GPUDriver, gpus))
	}
	for _, obj := range objs {
		if err := f.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("publishing the GPUs of the GPU nodes: creating %s: %w", obj.GetName(), err)
		}
	}
	return names, nil
}

// createNodes creates count KWOK nodes named prefix<i>, node i with the InternalIP of the number
// ipOffset+i+1, region and zone labels, and whatever customize adds.
func (f *Framework) createNodes(ctx context.Context, prefix string, ipOffset, count int, capacity corev1.ResourceList, customize func(*corev1.Node)) ([]string, error) {
	if count < 0 {
		return nil, fmt.Errorf("node count %d: must be 0 or more", count)
	}
	names := make([]string, count)
	for i := range names {
		names[i] = prefix + strconv.Itoa(i)
		node := NewKWOKNode(names[i], capacity)
		node.Labels[corev1.LabelTopologyRegion] = NodeRegion
		node.Labels[corev1.LabelTopologyZone] = NodeZones[i%len(NodeZones)]
		ip := ipOffset + i + 1
		node.Status.Addresses = []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.128.%d.%d", ip/256, ip%256)},
			{Type: corev1.NodeHostName, Address: names[i]},
		}
		if customize != nil {
			customize(node)
		}
		if err := f.Client.Create(ctx, node); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating node %s: %w", names[i], err)
		}
	}
	return names, nil
}

// WaitForNodesReady waits until every named node has the condition Ready=True and, when
// kube-controller-manager runs, until its node lifecycle controller has lifted the taint
// node.kubernetes.io/not-ready that the API server puts on a new node, for at most Timeout. Until
// then a node is Ready but takes no pod. It fails at once, with KWOK's log, when KWOK is not
// running.
func (f *Framework) WaitForNodesReady(ctx context.Context, names ...string) error {
	var notReady []string
	err := wait.PollUntilContextTimeout(ctx, Interval, Timeout, true, func(ctx context.Context) (bool, error) {
		if err := f.kwokRunning(ctx); err != nil {
			return false, err
		}
		notReady = notReady[:0]
		for _, name := range names {
			var node corev1.Node
			if err := f.Client.Get(ctx, client.ObjectKey{Name: name}, &node); err != nil {
				if apierrors.IsNotFound(err) {
					notReady = append(notReady, name)
					continue
				}
				return false, err
			}
			if !NodeReady(&node) || (f.controllerManager != nil && hasNotReadyTaint(&node)) {
				notReady = append(notReady, name)
			}
		}
		return len(notReady) == 0, nil
	})
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || wait.Interrupted(err)) {
		return fmt.Errorf("nodes %v not Ready, or still tainted %s, after %s: %w", notReady, corev1.TaintNodeNotReady, Timeout, err)
	}
	return err
}

// hasNotReadyTaint reports whether node carries the taint node.kubernetes.io/not-ready.
func hasNotReadyTaint(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady {
			return true
		}
	}
	return false
}

// NodeReady reports whether node has the condition Ready=True.
func NodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
