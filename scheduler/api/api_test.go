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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func TestResource(t *testing.T) {
	node := NewResource(rl("cpu", "4", "memory", "8Gi", "nvidia.com/gpu", "2", "pods", "110"))
	req := NewResource(rl("cpu", "1500m", "memory", "1Gi", "nvidia.com/gpu", "3"))
	type result struct {
		Node, Req    string
		Fits         bool
		Insufficient []corev1.ResourceName
		Sum          string
	}
	sum := node.Clone()
	sum.Add(&req)
	got := result{Node: node.String(), Req: req.String(), Fits: req.LessEqual(&node), Insufficient: req.Insufficient(&node), Sum: sum.String()}
	want := result{Node: "cpu 4, memory 8Gi, nvidia.com/gpu 2", Req: "cpu 1500m, memory 1Gi, nvidia.com/gpu 3", Fits: false,
		Insufficient: []corev1.ResourceName{"nvidia.com/gpu"}, Sum: "cpu 5500m, memory 9Gi, nvidia.com/gpu 5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestPodRequestsAndStatus(t *testing.T) {
	now := metav1.Now()
	pod := func(phase corev1.PodPhase, node string, deleting bool) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: node,
			InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "3")}}},
			Containers: []corev1.Container{
				{Name: "a", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1", "memory", "1Gi")}},
				{Name: "b", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1")}},
			}}, Status: corev1.PodStatus{Phase: phase}}
		if deleting {
			p.DeletionTimestamp = &now
		}
		return p
	}
	req := PodRequests(pod(corev1.PodPending, "", false))
	if diff := cmp.Diff("cpu 3, memory 1Gi", req.String()); diff != "" {
		t.Errorf("requests: the largest init container wins (-want +got):\n%s", diff)
	}
	cases := map[string]struct {
		pod  *corev1.Pod
		want TaskStatus
	}{
		"pending":          {pod: pod(corev1.PodPending, "", false), want: Pending},
		"bound":            {pod: pod(corev1.PodPending, "n", false), want: Bound},
		"running":          {pod: pod(corev1.PodRunning, "n", false), want: Running},
		"deleting":         {pod: pod(corev1.PodRunning, "n", true), want: Releasing},
		"deleting unbound": {pod: pod(corev1.PodPending, "", true), want: Releasing},
		"succeeded":        {pod: pod(corev1.PodSucceeded, "n", false), want: Succeeded},
		"failed":           {pod: pod(corev1.PodFailed, "n", false), want: Failed},
		"unknown":          {pod: pod(corev1.PodUnknown, "n", false), want: Unknown},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PodStatus(tc.pod)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFitErrors(t *testing.T) {
	fe := NewFitErrors(5)
	fe.AddN("Insufficient cpu", 3)
	fe.Add("node(s) were unschedulable")
	fe.Add("Insufficient memory")
	if diff := cmp.Diff("0/5 nodes are available: 1 Insufficient memory, 1 node(s) were unschedulable, 3 Insufficient cpu.", fe.Error()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestNodeAccounting(t *testing.T) {
	n := NewNodeInfo("n", &corev1.Node{Status: corev1.NodeStatus{Allocatable: rl("cpu", "4", "pods", "3"),
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}})
	one := Resource{MilliCPU: 1000}
	two := Resource{MilliCPU: 2000}
	n.AddTask(&NodeTask{UID: "a", Resreq: &one, Status: Running})
	n.AddTask(&NodeTask{UID: "b", Resreq: &two, Status: Releasing})
	n.AddTask(&NodeTask{UID: "c", Resreq: &one, Status: Pipelined})
	n.AddTask(&NodeTask{UID: "d", Resreq: &one, Status: Succeeded})
	idle, future := n.Idle(), n.FutureIdle()
	got := []string{idle.String(), future.String(), n.Releasing.String()}
	if diff := cmp.Diff([]string{"cpu 1", "cpu 2", "cpu 2"}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if !n.PodsFull() || !n.FitsFutureIdle(&two) || n.FitsIdle(&two) {
		t.Errorf("pods full %v, fits future idle %v, fits idle %v", n.PodsFull(), n.FitsFutureIdle(&two), n.FitsIdle(&two))
	}
	n.RemoveTask("b")
	if diff := cmp.Diff("cpu 1", n.Used.String()); diff != "" {
		t.Errorf("after removal (-want +got):\n%s", diff)
	}
}
