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

package lifecycle

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestEffectiveSpec(t *testing.T) {
	tests := []struct {
		name string
		in   batchv1alpha1.JobSpec
		want batchv1alpha1.JobSpec
	}{
		{
			name: "empty fields take their defaults",
			in:   batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{Name: "ps", Replicas: 1}, {Replicas: 2}}},
			want: batchv1alpha1.JobSpec{
				SchedulerName: "volcano", MinAvailable: 3, MaxRetry: 3,
				Tasks: []batchv1alpha1.TaskSpec{
					{Name: "ps", Replicas: 1, MinAvailable: ptr.To[int32](1), MaxRetry: 3},
					{Name: "default1", Replicas: 2, MinAvailable: ptr.To[int32](2), MaxRetry: 3},
				},
			},
		},
		{
			name: "set fields are kept",
			in: batchv1alpha1.JobSpec{
				SchedulerName: "other", MinAvailable: 2, MaxRetry: 5,
				Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 4, MinAvailable: ptr.To[int32](1), MaxRetry: -1}},
			},
			want: batchv1alpha1.JobSpec{
				SchedulerName: "other", MinAvailable: 2, MaxRetry: 5,
				Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 4, MinAvailable: ptr.To[int32](1), MaxRetry: -1}},
			},
		},
		{
			name: "job minAvailable sums the tasks' minAvailable",
			in: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{
				{Name: "ps", Replicas: 2, MinAvailable: ptr.To[int32](1)}, {Name: "w", Replicas: 3},
			}},
			want: batchv1alpha1.JobSpec{
				SchedulerName: "volcano", MinAvailable: 4, MaxRetry: 3,
				Tasks: []batchv1alpha1.TaskSpec{
					{Name: "ps", Replicas: 2, MinAvailable: ptr.To[int32](1), MaxRetry: 3},
					{Name: "w", Replicas: 3, MinAvailable: ptr.To[int32](3), MaxRetry: 3},
				},
			},
		},
		{
			name: "a partitioned task's minAvailable is minPartitions partitions",
			in: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 8,
				PartitionPolicy: &batchv1alpha1.PartitionPolicySpec{TotalPartitions: 4, PartitionSize: 2, MinPartitions: 3}}}},
			want: batchv1alpha1.JobSpec{
				SchedulerName: "volcano", MinAvailable: 6, MaxRetry: 3,
				Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 8, MinAvailable: ptr.To[int32](6), MaxRetry: 3,
					PartitionPolicy: &batchv1alpha1.PartitionPolicySpec{TotalPartitions: 4, PartitionSize: 2, MinPartitions: 3}}},
			},
		},
		{
			name: "framework plugins imply svc, mpi also ssh; named plugins keep their arguments",
			in: batchv1alpha1.JobSpec{
				Plugins: map[string][]string{"mpi": {"--master=m"}, "svc": {"--disable-network-policy=true"}},
				Tasks:   []batchv1alpha1.TaskSpec{{Name: "m", Replicas: 1}},
			},
			want: batchv1alpha1.JobSpec{
				SchedulerName: "volcano", MinAvailable: 1, MaxRetry: 3,
				Plugins: map[string][]string{"mpi": {"--master=m"}, "svc": {"--disable-network-policy=true"}, "ssh": {}},
				Tasks:   []batchv1alpha1.TaskSpec{{Name: "m", Replicas: 1, MinAvailable: ptr.To[int32](1), MaxRetry: 3}},
			},
		},
		{
			name: "tensorflow and pytorch imply svc",
			in: batchv1alpha1.JobSpec{
				Plugins: map[string][]string{"tensorflow": nil, "pytorch": {}},
				Tasks:   []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 1}},
			},
			want: batchv1alpha1.JobSpec{
				SchedulerName: "volcano", MinAvailable: 1, MaxRetry: 3,
				Plugins: map[string][]string{"tensorflow": nil, "pytorch": {}, "svc": {}},
				Tasks:   []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 1, MinAvailable: ptr.To[int32](1), MaxRetry: 3}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in.DeepCopy()
			got, err := EffectiveSpec(in, "volcano")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("effective spec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(&tc.in, in); diff != "" {
				t.Errorf("the input changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestEffectiveSpecErrors(t *testing.T) {
	tests := []struct {
		name string
		spec *batchv1alpha1.JobSpec
		want []string // fragments of the error
	}{
		{name: "no spec", want: []string{"spec"}},
		{name: "no tasks", spec: &batchv1alpha1.JobSpec{}, want: []string{"spec.tasks", "add at least one task"}},
		{
			name: "duplicate task names",
			spec: &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 1}, {Name: "w", Replicas: 1}}},
			want: []string{"spec.tasks[1].name", "Duplicate"},
		},
		{
			name: "task minAvailable above replicas",
			spec: &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 1, MinAvailable: ptr.To[int32](2)}}},
			want: []string{"spec.tasks[0].minAvailable", "lower minAvailable or raise replicas"},
		},
		{
			name: "job minAvailable above the replicas",
			spec: &batchv1alpha1.JobSpec{MinAvailable: 3, Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 2}}},
			want: []string{"spec.minAvailable", "lower minAvailable or add replicas"},
		},
		{
			name: "task maxRetry below -1",
			spec: &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 1, MaxRetry: -2}}},
			want: []string{"spec.tasks[0].maxRetry", "-1 means no limit"},
		},
		{
			name: "job maxRetry below 0",
			spec: &batchv1alpha1.JobSpec{MaxRetry: -1, Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 1}}},
			want: []string{"spec.maxRetry"},
		},
		{
			name: "partitions that do not add up",
			spec: &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 3,
				PartitionPolicy: &batchv1alpha1.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2}}}},
			want: []string{"spec.tasks[0].replicas", "totalPartitions * partitionSize (4)"},
		},
		{
			name: "dependsOn on itself and on an unknown task",
			spec: &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{{Name: "w", Replicas: 1,
				DependsOn: &batchv1alpha1.DependsOn{Name: []string{"w", "nope"}}}}},
			want: []string{"spec.tasks[0].dependsOn.name[0]", "cannot depend on itself", "spec.tasks[0].dependsOn.name[1]", "nope"},
		},
		{
			name: "a dependsOn cycle",
			spec: &batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{
				{Name: "a", Replicas: 1, DependsOn: &batchv1alpha1.DependsOn{Name: []string{"b"}}},
				{Name: "b", Replicas: 1, DependsOn: &batchv1alpha1.DependsOn{Name: []string{"a"}}},
			}},
			want: []string{"a -> b -> a", "remove one of these dependencies"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := EffectiveSpec(tc.spec, "volcano")
			if err == nil {
				t.Fatal("no error")
			}
			for _, fragment := range tc.want {
				if !strings.Contains(err.Error(), fragment) {
					t.Errorf("error %q does not contain %q", err, fragment)
				}
			}
		})
	}
}

func TestTemplateHash(t *testing.T) {
	base := func() *batchv1alpha1.JobSpec {
		return &batchv1alpha1.JobSpec{
			Tasks:   []batchv1alpha1.TaskSpec{task("w", 2)},
			Plugins: map[string][]string{"pytorch": {"--port=23456"}},
		}
	}
	tests := []struct {
		name   string
		change func(*batchv1alpha1.JobSpec)
		same   bool
	}{
		{name: "replicas change in place", change: func(s *batchv1alpha1.JobSpec) { s.Tasks[0].Replicas = 5 }, same: true},
		{name: "minAvailable changes in place", change: func(s *batchv1alpha1.JobSpec) { s.MinAvailable = 1 }, same: true},
		{name: "maxRetry changes in place", change: func(s *batchv1alpha1.JobSpec) { s.MaxRetry = 7 }, same: true},
		{name: "naming an implied plugin is no change", change: func(s *batchv1alpha1.JobSpec) { s.Plugins["svc"] = []string{} }, same: true},
		{name: "an image is a change", change: func(s *batchv1alpha1.JobSpec) { s.Tasks[0].Template.Spec.Containers[0].Image = "other" }},
		{name: "a template label is a change", change: func(s *batchv1alpha1.JobSpec) {
			s.Tasks[0].Template.Labels = map[string]string{"a": "b"}
		}},
		{name: "a volume is a change", change: func(s *batchv1alpha1.JobSpec) {
			s.Volumes = []batchv1alpha1.VolumeSpec{{MountPath: "/data", VolumeClaimName: "c"}}
		}},
		{name: "a plugin argument is a change", change: func(s *batchv1alpha1.JobSpec) { s.Plugins["pytorch"] = []string{"--port=1"} }},
		{name: "a new task is a change", change: func(s *batchv1alpha1.JobSpec) { s.Tasks = append(s.Tasks, task("ps", 1)) }},
	}
	before := TemplateHash(base())
	if before == "" || before != TemplateHash(base()) {
		t.Fatalf("TemplateHash is empty or unstable: %q", before)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			tc.change(s)
			if got := TemplateHash(s) == before; got != tc.same {
				t.Errorf("same hash = %v, want %v", got, tc.same)
			}
		})
	}
}
