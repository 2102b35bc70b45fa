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

package proportion

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/metrics"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

type queueSpec struct {
	weight     int32
	capability string
	guarantee  string
	request    int64 // millicores
	allocated  int64 // millicores
	// idle: the queue has no job (no usage).
	idle bool
}

func TestAttrs(t *testing.T) {
	total := api.Resource{MilliCPU: 8000, Memory: 64 << 30}
	cases := map[string]struct {
		queues map[string]queueSpec
		// elastic is the elastic-cluster argument.
		elastic bool
		// shared is the cpu (millicores) pods of no job leave to the queues; 0 means all of it.
		shared int64
		// want is each queue's deserved cpu (millicores) and share.
		want map[string][2]float64
	}{
		"weights 1:3 split a contended cluster": {
			queues: map[string]queueSpec{"a": {weight: 1, request: 8000}, "b": {weight: 3, request: 8000}},
			want:   map[string][2]float64{"a": {2000, 0}, "b": {6000, 0}},
		},
		"queues divide what pods of no job leave": {
			queues: map[string]queueSpec{"a": {weight: 1, request: 2000, allocated: 2000}, "b": {weight: 1, request: 2000, allocated: 2000},
				"c": {weight: 1, request: 1000}, "d": {weight: 1, request: 1000}},
			shared: 4000,
			want:   map[string][2]float64{"a": {1000, 2}, "b": {1000, 2}, "c": {1000, 0}, "d": {1000, 0}},
		},
		"a queue asking for less leaves the rest to the others": {
			queues: map[string]queueSpec{"a": {weight: 1, request: 1000, allocated: 1000}, "b": {weight: 1, request: 20000}},
			want:   map[string][2]float64{"a": {1000, 1}, "b": {7000, 0}},
		},
		"capability caps the deserved share": {
			queues: map[string]queueSpec{"a": {weight: 3, capability: "2", request: 8000}, "b": {weight: 1, request: 8000}},
			want:   map[string][2]float64{"a": {2000, 0}, "b": {6000, 0}},
		},
		"guarantee is a floor and is set aside from the others": {
			queues: map[string]queueSpec{"a": {weight: 1, guarantee: "3", request: 8000, allocated: 1500}, "b": {weight: 7, request: 8000}},
			want:   map[string][2]float64{"a": {3000, 0.5}, "b": {5000, 0}},
		},
		"the guarantee of a queue with no job is set aside from the others' capability (Volcano's totalGuarantee)": {
			queues: map[string]queueSpec{"a": {weight: 1, request: 8000}, "idle": {weight: 1, guarantee: "3", idle: true}},
			want:   map[string][2]float64{"a": {5000, 0}},
		},
		"the guarantees of every other queue add up": {
			queues: map[string]queueSpec{"a": {weight: 1, request: 8000}, "b": {weight: 1, guarantee: "2", request: 1000, allocated: 1000},
				"idle": {weight: 1, guarantee: "3", idle: true}},
			want: map[string][2]float64{"a": {3000, 0}, "b": {2000, 0.5}},
		},
		"elastic: the guarantee of a queue with no job takes nothing": {
			queues:  map[string]queueSpec{"a": {weight: 1, request: 8000}, "idle": {weight: 1, guarantee: "3", idle: true}},
			elastic: true,
			want:    map[string][2]float64{"a": {8000, 0}},
		},
		"a lone queue deserves what it asks, up to the cluster": {
			queues: map[string]queueSpec{"a": {weight: 1, request: 20000, allocated: 4000}},
			want:   map[string][2]float64{"a": {8000, 0.5}},
		},
		"elastic: a lone queue deserves what it asks, beyond the cluster": {
			queues:  map[string]queueSpec{"a": {weight: 1, request: 20000, allocated: 4000}},
			elastic: true,
			want:    map[string][2]float64{"a": {20000, 0.2}},
		},
		"elastic: every queue deserves its request, weights do not split the nodes": {
			queues:  map[string]queueSpec{"a": {weight: 1, request: 8000}, "b": {weight: 3, request: 8000}},
			elastic: true,
			want:    map[string][2]float64{"a": {8000, 0}, "b": {8000, 0}},
		},
		"elastic: the queue's own capability still caps it": {
			queues:  map[string]queueSpec{"a": {weight: 1, capability: "2", request: 20000, allocated: 1000}},
			elastic: true,
			want:    map[string][2]float64{"a": {2000, 0.5}},
		},
		"elastic: guarantee is a floor, others' guarantees take nothing": {
			queues:  map[string]queueSpec{"a": {weight: 1, guarantee: "3", request: 1000}, "b": {weight: 1, guarantee: "7", request: 20000}},
			elastic: true,
			want:    map[string][2]float64{"a": {3000, 0}, "b": {20000, 0}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			queues := map[string]*api.QueueInfo{}
			usage := map[string]*snapshot.QueueUsage{}
			for q, spec := range tc.queues {
				w := st.MakeQueue(q, spec.weight)
				if spec.capability != "" {
					w.Capability(corev1.ResourceCPU, spec.capability)
				}
				if spec.guarantee != "" {
					w.Guarantee(corev1.ResourceCPU, spec.guarantee)
				}
				queues[q] = api.NewQueueInfo(w.Obj())
				if spec.idle {
					continue
				}
				usage[q] = &snapshot.QueueUsage{Request: api.Resource{MilliCPU: spec.request}, Allocated: api.Resource{MilliCPU: spec.allocated},
					Phases: map[schedulingv1beta1.PodGroupPhase]int32{}, Jobs: 1}
			}
			shared := total
			if tc.shared > 0 {
				shared.MilliCPU = tc.shared
			}
			attrs := Attrs(queues, usage, &total, &shared, tc.elastic)
			got := map[string][2]float64{}
			for q, a := range attrs {
				got[q] = [2]float64{math.Round(a.Deserved[corev1.ResourceCPU]), a.Share}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("deserved/share mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShareMessage(t *testing.T) {
	total := api.Resource{MilliCPU: 8000}
	q := api.NewQueueInfo(st.MakeQueue("q", 2).Obj())
	cases := map[string]struct {
		attr         *QueueAttr
		queues       int
		elastic      bool
		guaranteedTo string
		want         string
	}{
		"the guarantees of other queues": {attr: &QueueAttr{Deserved: Vec{"cpu": 5000}, Allocated: Vec{"cpu": 5000}, Capability: Vec{"cpu": 5000}}, queues: 1,
			guaranteedTo: "the guarantee of queue idle (3)",
			want: "queue q holds 5 of cpu, all it may hold: the cluster's 8 less the guarantee of queue idle (3); " +
				"wait for the queue's pods to finish, or lower those queues' spec.guarantee, or add nodes"},
		"elastic: a capability beyond the nodes is still the queue's cap": {attr: &QueueAttr{Deserved: Vec{"cpu": 16000}, Allocated: Vec{"cpu": 16000}, Capability: Vec{"cpu": 16000}}, queues: 1, elastic: true,
			want: "queue q has reached its capability of cpu: 16 allocated of 16; raise spec.capability or wait for the queue's pods to finish"},
		"capability": {attr: &QueueAttr{Deserved: Vec{"cpu": 2000}, Allocated: Vec{"cpu": 2000}, Capability: Vec{"cpu": 2000}}, queues: 2,
			want: "queue q has reached its capability of cpu: 2 allocated of 2; raise spec.capability or wait for the queue's pods to finish"},
		"cluster": {attr: &QueueAttr{Deserved: Vec{"cpu": 8000}, Allocated: Vec{"cpu": 8000}, Capability: Vec{"cpu": math.Inf(1)}}, queues: 1,
			want: "the cluster's cpu is all in use: queue q holds 8 of the 8 that the nodes offer to queues; add nodes or wait for running pods to finish"},
		"weights": {attr: &QueueAttr{Deserved: Vec{"cpu": 4000}, Allocated: Vec{"cpu": 4000}, Capability: Vec{"cpu": math.Inf(1)}}, queues: 2,
			want: "queue q holds its deserved share of cpu, 4 of the 8 the queues share by its weight 2 against the other queues with work; wait for its pods to finish or raise its weight"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ShareMessage(tc.attr, q, corev1.ResourceCPU, tc.queues, &total, &total, tc.elastic, tc.guaranteedTo)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQuotaMessage(t *testing.T) {
	cases := map[string]struct {
		capability, base float64
		guaranteedTo     string
		want             string
	}{
		"the queue's own capability": {capability: 4000, base: 3000,
			want: "queue resource quota insufficient: queue q can hold 4 of cpu and already holds 3 for running and admitted jobs; " +
				"this PodGroup's minResources need 2 more; wait for the queue's jobs to finish, or raise the queue's capability, or lower minResources"},
		"what the guarantees of other queues leave": {capability: 0, base: 0, guaranteedTo: "the guarantee of queue q1 (8)",
			want: "queue resource quota insufficient: queue q can hold 0 of cpu, the cluster's 8 less the guarantee of queue q1 (8), " +
				"and already holds 0 for running and admitted jobs; this PodGroup's minResources need 2 more; " +
				"wait for the queue's jobs to finish, or lower those queues' spec.guarantee, or add nodes, or lower minResources"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := QuotaMessage("q", corev1.ResourceCPU, tc.capability, tc.base, "this PodGroup's minResources", 2000, 8000, tc.guaranteedTo)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGuaranteedTo(t *testing.T) {
	queues := func(guarantees map[string]string) map[string]*api.QueueInfo {
		out := map[string]*api.QueueInfo{}
		for name, g := range guarantees {
			w := st.MakeQueue(name, 1)
			if g != "" {
				w.Guarantee(corev1.ResourceCPU, g)
			}
			out[name] = api.NewQueueInfo(w.Obj())
		}
		return out
	}
	cases := map[string]struct {
		guarantees map[string]string
		want       string
	}{
		"none":                           {guarantees: map[string]string{"q": "2", "b": ""}, want: ""},
		"one, the queue's own left out":  {guarantees: map[string]string{"q": "2", "b": "1500m"}, want: "the guarantee of queue b (1500m)"},
		"a zero guarantee holds nothing": {guarantees: map[string]string{"b": "0", "c": "1"}, want: "the guarantee of queue c (1)"},
		"several, by name, at most three": {guarantees: map[string]string{"e": "1", "d": "1", "c": "2", "b": "3", "a": ""},
			want: "the guarantees of queues b (3), c (2), d (1), 1 more"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, GuaranteedTo(queues(tc.guarantees), "q", corev1.ResourceCPU)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueueMetrics(t *testing.T) {
	queues := map[string]*api.QueueInfo{
		"b":    api.NewQueueInfo(st.MakeQueue("b", 3).Obj()),
		"a":    api.NewQueueInfo(st.MakeQueue("a", 1).Obj()),
		"idle": api.NewQueueInfo(st.MakeQueue("idle", 2).Obj()),
	}
	attrs := map[string]*QueueAttr{
		"a": {Name: "a", Weight: 1, Share: 0.5,
			Allocated: Vec{corev1.ResourceCPU: 1000}, Deserved: Vec{corev1.ResourceCPU: 2000}, Request: Vec{corev1.ResourceCPU: 3000}},
		"b": {Name: "b", Weight: 3, Share: 1,
			Allocated: Vec{corev1.ResourceMemory: 1 << 30}, Deserved: Vec{corev1.ResourceMemory: 1 << 30}, Request: Vec{corev1.ResourceMemory: 2 << 30}},
	}
	want := []metrics.Queue{
		{Name: "a", Weight: 1, Share: 0.5,
			Allocated: Vec{corev1.ResourceCPU: 1000}, Deserved: Vec{corev1.ResourceCPU: 2000}, Request: Vec{corev1.ResourceCPU: 3000}},
		{Name: "b", Weight: 3, Share: 1,
			Allocated: Vec{corev1.ResourceMemory: 1 << 30}, Deserved: Vec{corev1.ResourceMemory: 1 << 30}, Request: Vec{corev1.ResourceMemory: 2 << 30}},
		{Name: "idle", Weight: 2},
	}
	if diff := cmp.Diff(want, QueueMetrics(queues, attrs)); diff != "" {
		t.Errorf("QueueMetrics (-want +got):\n%s", diff)
	}
}
