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

package drf

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
)

func TestShare(t *testing.T) {
	total := api.Resource{MilliCPU: 10000, Memory: 100, Scalar: map[corev1.ResourceName]int64{"nvidia.com/gpu": 4}}
	cases := map[string]struct {
		alloc api.Resource
		want  float64
	}{
		"nothing":            {want: 0},
		"cpu dominates":      {alloc: api.Resource{MilliCPU: 5000, Memory: 10}, want: 0.5},
		"memory dominates":   {alloc: api.Resource{MilliCPU: 1000, Memory: 80}, want: 0.8},
		"gpus count as well": {alloc: api.Resource{MilliCPU: 1000, Scalar: map[corev1.ResourceName]int64{"nvidia.com/gpu": 3}}, want: 0.75},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Share(&tc.alloc, &total)); diff != "" {
				t.Errorf("share mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreemptable(t *testing.T) {
	total := api.Resource{MilliCPU: 10000}
	one := api.Resource{MilliCPU: 1000}
	jobs := map[api.JobID]*api.JobInfo{
		"ns/small": {UID: "ns/small", Allocated: api.Resource{MilliCPU: 1000}},
		"ns/big":   {UID: "ns/big", Allocated: api.Resource{MilliCPU: 6000}},
		"ns/mid":   {UID: "ns/mid", Allocated: api.Resource{MilliCPU: 2000}},
	}
	preemptor := &api.TaskInfo{Name: "p", Job: "ns/small", Resreq: &one}
	candidates := []*api.TaskInfo{
		{Name: "big-0", Job: "ns/big", Resreq: &one},
		{Name: "big-1", Job: "ns/big", Resreq: &one},
		{Name: "mid-0", Job: "ns/mid", Resreq: &one},
		{Name: "small-0", Job: "ns/small", Resreq: &one},
	}
	var got []string
	for _, v := range Preemptable(jobs, &total, preemptor, candidates) {
		got = append(got, v.Name)
	}
	// After the move the preemptor holds 0.2; big keeps at least that after losing two; mid would
	// drop to 0.1, below it. Tasks of its own job are left to the other plugins.
	if diff := cmp.Diff([]string{"big-0", "big-1", "small-0"}, got); diff != "" {
		t.Errorf("victims mismatch (-want +got):\n%s", diff)
	}
}
