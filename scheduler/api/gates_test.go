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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestGatedCounting(t *testing.T) {
	type pod struct {
		gates []string
		node  string
		role  string
	}
	type result struct {
		Statuses                  []string
		Valid, Gated, Pending     int32
		HeldByGates, NeedsPending bool
		ValidByRole               map[string]int32
	}
	cases := map[string]struct {
		min  int32
		pods []pod
		want result
	}{
		"no gates": {min: 2, pods: []pod{{}, {}},
			want: result{Statuses: []string{"Pending", "Pending"}, Valid: 2, Pending: 2, NeedsPending: true, ValidByRole: map[string]int32{"w": 2}}},
		"a foreign gate does not count": {min: 2, pods: []pod{{}, {gates: []string{"example.com/hold"}}},
			want: result{Statuses: []string{"Pending", "Gated"}, Valid: 1, Gated: 1, Pending: 1, HeldByGates: true, NeedsPending: true, ValidByRole: map[string]int32{"w": 1}}},
		"the queue-allocation gate alone counts": {min: 2, pods: []pod{{}, {gates: []string{QueueAllocationGate}}},
			want: result{Statuses: []string{"Pending", "Gated"}, Valid: 2, Gated: 1, Pending: 1, NeedsPending: true, ValidByRole: map[string]int32{"w": 2}}},
		"the queue-allocation gate with a foreign one does not count": {min: 2, pods: []pod{{}, {gates: []string{QueueAllocationGate, "example.com/hold"}}},
			want: result{Statuses: []string{"Pending", "Gated"}, Valid: 1, Gated: 1, Pending: 1, HeldByGates: true, NeedsPending: true, ValidByRole: map[string]int32{"w": 1}}},
		"gated pods beyond minMember do not hold the gang": {min: 1, pods: []pod{{}, {gates: []string{"example.com/hold"}}},
			want: result{Statuses: []string{"Pending", "Gated"}, Valid: 1, Gated: 1, Pending: 1, NeedsPending: true, ValidByRole: map[string]int32{"w": 1}}},
		"every pod gated": {min: 2, pods: []pod{{gates: []string{"a"}}, {gates: []string{"b"}}},
			want: result{Statuses: []string{"Gated", "Gated"}, Valid: 0, Gated: 2, HeldByGates: true, ValidByRole: map[string]int32{}}},
		"a bound pod is not gated": {min: 2, pods: []pod{{node: "n1"}, {gates: []string{"example.com/hold"}, role: "ps"}},
			want: result{Statuses: []string{"Bound", "Gated"}, Valid: 1, Gated: 1, HeldByGates: true, ValidByRole: map[string]int32{"w": 1}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j := NewJobInfo("ns/pg")
			j.MinAvailable = tc.min
			var got result
			for i, p := range tc.pods {
				pd := &corev1.Pod{Spec: corev1.PodSpec{NodeName: p.node, Containers: []corev1.Container{{Name: "c"}}}}
				pd.Name, pd.Namespace, pd.UID = fmt.Sprint("p", i), "ns", TaskID(fmt.Sprint("p", i))
				for _, g := range p.gates {
					pd.Spec.SchedulingGates = append(pd.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: g})
				}
				if p.role != "" {
					pd.Annotations = map[string]string{"volcano.sh/task-spec": p.role}
				} else {
					pd.Annotations = map[string]string{"volcano.sh/task-spec": "w"}
				}
				task := NewTaskInfo(pd, j.UID, nil)
				j.AddTask(task)
				got.Statuses = append(got.Statuses, task.Status.String())
			}
			got.Valid, got.Gated, got.Pending = j.ValidTaskNum(), j.GatedTaskNum(), j.Count(Pending)
			got.HeldByGates, got.NeedsPending = j.HeldByGates(), j.HasPendingTasks()
			_, got.ValidByRole = j.RoleCounts()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			// Taking the tasks out undoes the counts.
			for uid := range j.Tasks {
				j.DeleteTask(uid)
			}
			if j.ValidTaskNum() != 0 || j.GatedTaskNum() != 0 {
				t.Errorf("after deleting every task: valid %d, gated %d, want 0 and 0", j.ValidTaskNum(), j.GatedTaskNum())
			}
		})
	}
}

func TestSchedulingGates(t *testing.T) {
	cases := map[string]struct {
		gates   []string
		names   []string
		foreign bool
	}{
		"none":                  {},
		"queue allocation only": {gates: []string{QueueAllocationGate}, names: []string{QueueAllocationGate}},
		"foreign":               {gates: []string{"example.com/a", "example.com/b"}, names: []string{"example.com/a", "example.com/b"}, foreign: true},
		"both":                  {gates: []string{QueueAllocationGate, "example.com/a"}, names: []string{QueueAllocationGate, "example.com/a"}, foreign: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pod := &corev1.Pod{}
			for _, g := range tc.gates {
				pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: g})
			}
			if diff := cmp.Diff(tc.names, SchedulingGates(pod)); diff != "" {
				t.Errorf("SchedulingGates (-want +got):\n%s", diff)
			}
			if got := ForeignGated(pod); got != tc.foreign {
				t.Errorf("ForeignGated() = %v, want %v", got, tc.foreign)
			}
		})
	}
}
