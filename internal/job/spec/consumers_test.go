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

package spec_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
	jobplugins "github.com/caldera-sh/caldera/internal/job/plugins"
	jobpods "github.com/caldera-sh/caldera/internal/job/pods"
	celpolicy "github.com/caldera-sh/caldera/internal/job/policy"
)

// view is what one consumer of a job's spec takes the gang size and the plugins to be.
type view struct {
	MinAvailable     int32
	TaskMinAvailable map[string]int32
	Plugins          map[string][]string
}

func task(name string, replicas int32) batchv1alpha1.TaskSpec {
	return batchv1alpha1.TaskSpec{Name: name, Replicas: replicas, Template: corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
	}}
}

func withMin(t batchv1alpha1.TaskSpec, n int32) batchv1alpha1.TaskSpec {
	t.MinAvailable = ptr.To(n)
	return t
}

func partitioned(t batchv1alpha1.TaskSpec, total, size, minPartitions int32) batchv1alpha1.TaskSpec {
	t.PartitionPolicy = &batchv1alpha1.PartitionPolicySpec{TotalPartitions: total, PartitionSize: size, MinPartitions: minPartitions}
	return t
}

// TestConsumersAgree builds, for each job, what the lifecycle (EffectiveSpec), the PodGroup
// builder (minMember as the job controller passes it, minTaskMember), the job plugins
// (EffectivePlugins) and the CEL variables (job.minAvailable, tasks.<t>.minAvailable) take the
// gang size and the plugins to be, and requires them all to equal Volcano's answer.
func TestConsumersAgree(t *testing.T) {
	cases := []struct {
		name string
		spec batchv1alpha1.JobSpec
		want view
	}{
		{
			name: "replicas by default",
			spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("ps", 1), task("worker", 3)}},
			want: view{MinAvailable: 4, TaskMinAvailable: map[string]int32{"ps": 1, "worker": 3}},
		},
		{
			name: "task minAvailable",
			spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("ps", 1), withMin(task("worker", 6), 2)}},
			want: view{MinAvailable: 3, TaskMinAvailable: map[string]int32{"ps": 1, "worker": 2}},
		},
		{
			name: "job minAvailable wins",
			spec: batchv1alpha1.JobSpec{MinAvailable: 5, Tasks: []batchv1alpha1.TaskSpec{withMin(task("worker", 6), 2)}},
			want: view{MinAvailable: 5, TaskMinAvailable: map[string]int32{"worker": 2}},
		},
		{
			// Volcano: task minAvailable = minPartitions × partitionSize, job = the sum.
			name: "partitionPolicy.minPartitions",
			spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{partitioned(task("worker", 8), 4, 2, 2)}},
			want: view{MinAvailable: 4, TaskMinAvailable: map[string]int32{"worker": 4}},
		},
		{
			name: "partitionPolicy without minPartitions counts replicas",
			spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{partitioned(task("worker", 8), 4, 2, 0)}},
			want: view{MinAvailable: 8, TaskMinAvailable: map[string]int32{"worker": 8}},
		},
		{
			name: "task minAvailable beats minPartitions",
			spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{withMin(partitioned(task("worker", 8), 4, 2, 2), 6), task("ps", 1)}},
			want: view{MinAvailable: 7, TaskMinAvailable: map[string]int32{"worker": 6, "ps": 1}},
		},
		{
			name: "mpi implies svc and ssh",
			spec: batchv1alpha1.JobSpec{
				Tasks:   []batchv1alpha1.TaskSpec{task("master", 1), task("worker", 2)},
				Plugins: map[string][]string{"mpi": {"--master=master"}},
			},
			want: view{
				MinAvailable: 3, TaskMinAvailable: map[string]int32{"master": 1, "worker": 2},
				Plugins: map[string][]string{"mpi": {"--master=master"}, "svc": {}, "ssh": {}},
			},
		},
		{
			name: "pytorch and tensorflow imply svc; a named implied plugin keeps its arguments",
			spec: batchv1alpha1.JobSpec{
				Tasks:   []batchv1alpha1.TaskSpec{task("master", 1)},
				Plugins: map[string][]string{"pytorch": nil, "tensorflow": {}, "svc": {"--disable-network-policy=true"}},
			},
			want: view{
				MinAvailable: 1, TaskMinAvailable: map[string]int32{"master": 1},
				Plugins: map[string][]string{"pytorch": nil, "tensorflow": {}, "svc": {"--disable-network-policy=true"}},
			},
		},
		{
			name: "env implies nothing",
			spec: batchv1alpha1.JobSpec{Tasks: []batchv1alpha1.TaskSpec{task("w", 1)}, Plugins: map[string][]string{"env": {}}},
			want: view{MinAvailable: 1, TaskMinAvailable: map[string]int32{"w": 1}, Plugins: map[string][]string{"env": {}}},
		},
	}
	engine, err := celpolicy.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid"}, Spec: tc.spec}

			eff, err := lifecycle.EffectiveSpec(&job.Spec, "caldera")
			if err != nil {
				t.Fatalf("EffectiveSpec: %v", err)
			}
			fromLifecycle := view{MinAvailable: eff.MinAvailable, TaskMinAvailable: map[string]int32{}, Plugins: eff.Plugins}
			for _, task := range eff.Tasks {
				fromLifecycle.TaskMinAvailable[task.Name] = *task.MinAvailable
			}

			// The job controller builds the PodGroup from the raw job and the effective minAvailable.
			pg := jobpods.BuildPodGroup(job, eff.MinAvailable, nil)
			fromPodGroup := view{MinAvailable: pg.Spec.MinMember, TaskMinAvailable: pg.Spec.MinTaskMember,
				Plugins: jobplugins.EffectivePlugins(job.Spec.Plugins)}

			// CEL reads the raw job, as the job controller hands it over.
			in := celpolicy.NewJobInput(job, nil, 0).ForEvent(busv1alpha1.OutOfSyncEvent, "", nil)
			celInt := func(expr string) int32 {
				t.Helper()
				var limit int32
				for _, task := range job.Spec.Tasks {
					limit += task.Replicas
				}
				for n := int32(0); n <= limit; n++ {
					ok, err := engine.EvaluateBool(context.Background(), fmt.Sprintf("%s == %d", expr, n), in)
					if err != nil {
						t.Fatalf("%s: %v", expr, err)
					}
					if ok {
						return n
					}
				}
				return -1
			}
			fromCEL := view{MinAvailable: celInt("job.minAvailable"), TaskMinAvailable: map[string]int32{},
				Plugins: fromLifecycle.Plugins}
			for _, task := range job.Spec.Tasks {
				fromCEL.TaskMinAvailable[task.Name] = celInt(fmt.Sprintf("tasks[%q].minAvailable", task.Name))
			}

			for name, got := range map[string]view{"lifecycle": fromLifecycle, "PodGroup/plugins": fromPodGroup, "CEL": fromCEL} {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s disagrees with Volcano (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}
