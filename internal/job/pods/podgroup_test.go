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

package pods

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

func TestBuildPodGroup(t *testing.T) {
	ps := makeTask("ps", 1, ctr("main", rl("cpu", "1", "memory", "2Gi"), nil))
	worker := makeTask("worker", 8, ctr("main", rl("cpu", "2", "nvidia.com/gpu", "1"), nil))
	worker.MinAvailable = ptr.To[int32](2)
	worker.PartitionPolicy = &batchv1alpha1.PartitionPolicySpec{
		TotalPartitions: 2, PartitionSize: 4, MinPartitions: 1,
		NetworkTopology: &batchv1alpha1.NetworkTopologySpec{Mode: batchv1alpha1.HardNetworkTopologyMode, HighestTierAllowed: ptr.To[int32](1)},
	}
	eval := makeTask("eval", 2)
	eval.PartitionPolicy = &batchv1alpha1.PartitionPolicySpec{TotalPartitions: 1, PartitionSize: 2, MinPartitions: 1}
	job := makeJob("train").Task(ps).Task(worker).Task(eval).Obj()
	job.Spec.Queue = "research"
	job.Spec.PriorityClassName = "batch"
	job.Spec.NetworkTopology = &batchv1alpha1.NetworkTopologySpec{Mode: batchv1alpha1.SoftNetworkTopologyMode, HighestTierName: "rack"}
	job.Labels = map[string]string{"team": "ml", "app.kubernetes.io/instance": "argo-app", "argocd.argoproj.io/instance": "custom-key-app", "kustomize.toolkit.fluxcd.io/name": "batch"}
	job.Annotations = map[string]string{
		"volcano.sh/preemptable":                           "true",
		"argocd.argoproj.io/tracking-id":                   "app:batch.volcano.sh/Job:ns/train",
		"kubectl.kubernetes.io/last-applied-configuration": "{}",
	}

	got := BuildPodGroup(job, 3, map[string]int32{"batch": 10})
	want := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{
			Name:            "train-1111-2222",
			Namespace:       "ns",
			Labels:          map[string]string{"team": "ml"},
			Annotations:     map[string]string{"volcano.sh/preemptable": "true"},
			OwnerReferences: ownerRefs("train"),
		},
		Spec: schedulingv1beta1.PodGroupSpec{
			MinMember:         3,
			MinTaskMember:     map[string]int32{"ps": 1, "worker": 2, "eval": 2},
			Queue:             "research",
			PriorityClassName: "batch",
			// All tasks have the job's priority: ps (1 pod), then 2 workers, in spec order.
			MinResources: ptr.To(rl("pods", "3", "count/pods", "3",
				"cpu", "5", "requests.cpu", "5", "memory", "2Gi", "requests.memory", "2Gi",
				"nvidia.com/gpu", "2", "requests.nvidia.com/gpu", "2")),
			NetworkTopology: &schedulingv1beta1.NetworkTopologySpec{Mode: "soft", HighestTierName: "rack"},
			SubGroupPolicy: []schedulingv1beta1.SubGroupPolicySpec{
				{
					Name:            "worker",
					NetworkTopology: &schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierAllowed: ptr.To[int32](1)},
					SubGroupSize:    ptr.To[int32](4),
					MinSubGroups:    ptr.To[int32](1),
					LabelSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": "worker"}},
					MatchLabelKeys:  []string{"volcano.sh/partition-id"},
				},
				{
					Name:           "eval",
					SubGroupSize:   ptr.To[int32](2),
					MinSubGroups:   ptr.To[int32](1),
					LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": "eval"}},
					MatchLabelKeys: []string{"volcano.sh/partition-id"},
				},
			},
		},
	}
	if diff := cmp.Diff(want, got, quantityByValue); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBuildPodGroupEmpty(t *testing.T) {
	job := makeJob("j").Task(makeTask("t", 0)).Obj()
	got := BuildPodGroup(job, 0, nil)
	want := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "j-1111-2222", Namespace: "ns", OwnerReferences: ownerRefs("j")},
		Spec:       schedulingv1beta1.PodGroupSpec{MinTaskMember: map[string]int32{"t": 0}, Queue: "default"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBuildPodGroupUnnamedTasks(t *testing.T) {
	partitioned := makeTask("", 4)
	partitioned.PartitionPolicy = &batchv1alpha1.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2}
	job := makeJob("j").Task(makeTask("", 1)).Task(makeTask("ps", 2)).Task(partitioned).Obj()
	got := BuildPodGroup(job, 7, nil)
	wantMinTaskMember := map[string]int32{"default0": 1, "ps": 2, "default2": 4}
	if diff := cmp.Diff(wantMinTaskMember, got.Spec.MinTaskMember); diff != "" {
		t.Errorf("minTaskMember (-want +got):\n%s", diff)
	}
	wantSubGroups := []schedulingv1beta1.SubGroupPolicySpec{{
		Name:           "default2",
		SubGroupSize:   ptr.To[int32](2),
		MinSubGroups:   ptr.To[int32](0),
		LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": "default2"}},
		MatchLabelKeys: []string{"volcano.sh/partition-id"},
	}}
	if diff := cmp.Diff(wantSubGroups, got.Spec.SubGroupPolicy); diff != "" {
		t.Errorf("subGroupPolicy (-want +got):\n%s", diff)
	}
}

func TestTaskMinMember(t *testing.T) {
	cases := []struct {
		name string
		task batchv1alpha1.TaskSpec
		want int32
	}{
		{"replicas", batchv1alpha1.TaskSpec{Replicas: 4}, 4},
		{"minAvailable", batchv1alpha1.TaskSpec{Replicas: 4, MinAvailable: ptr.To[int32](1)}, 1},
		{"minAvailable 0", batchv1alpha1.TaskSpec{Replicas: 4, MinAvailable: ptr.To[int32](0)}, 0},
		{"partitions", batchv1alpha1.TaskSpec{Replicas: 8, PartitionPolicy: &batchv1alpha1.PartitionPolicySpec{
			TotalPartitions: 4, PartitionSize: 2, MinPartitions: 3}}, 6},
		{"partitions without a minimum", batchv1alpha1.TaskSpec{Replicas: 8, PartitionPolicy: &batchv1alpha1.PartitionPolicySpec{
			TotalPartitions: 4, PartitionSize: 2}}, 8},
		{"minAvailable before partitions", batchv1alpha1.TaskSpec{Replicas: 8, MinAvailable: ptr.To[int32](5), PartitionPolicy: &batchv1alpha1.PartitionPolicySpec{
			TotalPartitions: 4, PartitionSize: 2, MinPartitions: 3}}, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, TaskMinMember(&tc.task)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMinResources(t *testing.T) {
	small := func(name string, replicas int32) batchv1alpha1.TaskSpec {
		return makeTask(name, replicas, ctr("main", rl("cpu", "1"), nil))
	}
	big := func(name string, replicas int32) batchv1alpha1.TaskSpec {
		return makeTask(name, replicas, ctr("main", rl("cpu", "4"), nil))
	}
	withClass := func(task batchv1alpha1.TaskSpec, class string) batchv1alpha1.TaskSpec {
		task.Template.Spec.PriorityClassName = class
		return task
	}
	withMin := func(task batchv1alpha1.TaskSpec, n int32) batchv1alpha1.TaskSpec {
		task.MinAvailable = &n
		return task
	}
	usage := func(pods int, cpu string) corev1.ResourceList {
		n := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8"}[pods]
		return rl("pods", n, "count/pods", n, "cpu", cpu, "requests.cpu", cpu)
	}
	cases := []struct {
		name         string
		tasks        []batchv1alpha1.TaskSpec
		jobClass     string
		minAvailable int32
		priorities   map[string]int32
		want         corev1.ResourceList
	}{
		{
			name:         "spec order among equals",
			tasks:        []batchv1alpha1.TaskSpec{small("a", 2), big("b", 2)},
			minAvailable: 3,
			want:         usage(3, "6"), // a, a, b
		},
		{
			name:         "higher priority first",
			tasks:        []batchv1alpha1.TaskSpec{small("a", 2), withClass(big("b", 2), "high")},
			minAvailable: 3,
			priorities:   map[string]int32{"high": 1000},
			want:         usage(3, "9"), // b, b, a
		},
		{
			name:         "the job's class for templates without one",
			tasks:        []batchv1alpha1.TaskSpec{withClass(small("a", 2), "low"), big("b", 2)},
			jobClass:     "high",
			minAvailable: 2,
			priorities:   map[string]int32{"high": 1000, "low": -5},
			want:         usage(2, "8"), // b, b
		},
		{
			name:         "an unknown class counts as 0",
			tasks:        []batchv1alpha1.TaskSpec{withClass(small("a", 1), "gone"), withClass(big("b", 1), "neg")},
			minAvailable: 1,
			priorities:   map[string]int32{"neg": -1},
			want:         usage(1, "1"), // a
		},
		{
			name:         "each task's minimum first, then the rest by priority",
			tasks:        []batchv1alpha1.TaskSpec{withMin(withClass(big("b", 4), "high"), 1), withMin(small("a", 4), 2)},
			minAvailable: 5,
			priorities:   map[string]int32{"high": 10},
			want:         usage(5, "14"), // minima: b, a, a; then b, b
		},
		{
			name:         "minAvailable below the sum of minima takes by priority",
			tasks:        []batchv1alpha1.TaskSpec{withMin(small("a", 4), 2), withMin(withClass(big("b", 4), "high"), 2)},
			minAvailable: 3,
			priorities:   map[string]int32{"high": 10},
			want:         usage(3, "9"), // b, b, a
		},
		{
			name: "init containers and sidecars",
			tasks: []batchv1alpha1.TaskSpec{func() batchv1alpha1.TaskSpec {
				task := makeTask("a", 2, ctr("main", rl("cpu", "1"), nil))
				task.Template.Spec.InitContainers = []corev1.Container{ctr("setup", rl("cpu", "3"), nil), sidecar("proxy", rl("cpu", "500m"))}
				return task
			}()},
			minAvailable: 2,
			want:         usage(2, "6"), // max(3, 1+0.5) per pod
		},
		{
			name:         "minAvailable larger than the replicas stops at the replicas",
			tasks:        []batchv1alpha1.TaskSpec{small("a", 2)},
			minAvailable: 5,
			want:         usage(2, "2"),
		},
		{
			name:         "none",
			tasks:        []batchv1alpha1.TaskSpec{small("a", 2)},
			minAvailable: 0,
			want:         corev1.ResourceList{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := makeJob("j")
			for _, task := range tc.tasks {
				j.Task(task)
			}
			job := j.Obj()
			job.Spec.PriorityClassName = tc.jobClass
			if diff := cmp.Diff(tc.want, MinResources(job, tc.minAvailable, tc.priorities), quantityByValue); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestUpdatePodGroup(t *testing.T) {
	job := makeJob("train").Task(makeTask("ps", 1, ctr("main", rl("cpu", "1"), nil))).Task(makeTask("worker", 2, ctr("main", rl("cpu", "1"), nil))).Obj()
	job.Labels = map[string]string{"team": "ml"}
	desired := BuildPodGroup(job, 3, nil)

	// existing is the desired PodGroup after an API round trip: quantities re-parsed, status set,
	// and metadata and labels written by others.
	existing := func() *schedulingv1beta1.PodGroup {
		pg := desired.DeepCopy()
		pg.ResourceVersion = "42"
		pg.Labels["other"] = "kept"
		pg.Status = schedulingv1beta1.PodGroupStatus{Phase: schedulingv1beta1.PodGroupInqueue, Running: 1}
		res := corev1.ResourceList{}
		for name, q := range *pg.Spec.MinResources {
			res[name] = *resourceMustParse(q.String())
		}
		pg.Spec.MinResources = &res
		return pg
	}

	cases := []struct {
		name        string
		existing    func() *schedulingv1beta1.PodGroup
		desired     func() *schedulingv1beta1.PodGroup
		wantChanged bool
		want        func() *schedulingv1beta1.PodGroup
	}{
		{
			name:     "in step",
			existing: existing,
			desired:  func() *schedulingv1beta1.PodGroup { return desired.DeepCopy() },
			want:     existing,
		},
		{
			name: "empty and missing maps are equal",
			existing: func() *schedulingv1beta1.PodGroup {
				pg := existing()
				pg.Spec.MinResources = &corev1.ResourceList{}
				pg.Spec.SubGroupPolicy = []schedulingv1beta1.SubGroupPolicySpec{}
				return pg
			},
			desired: func() *schedulingv1beta1.PodGroup {
				pg := desired.DeepCopy()
				pg.Spec.MinResources = nil
				return pg
			},
			want: func() *schedulingv1beta1.PodGroup {
				pg := existing()
				pg.Spec.MinResources = &corev1.ResourceList{}
				pg.Spec.SubGroupPolicy = []schedulingv1beta1.SubGroupPolicySpec{}
				return pg
			},
		},
		{
			name:     "scale up: minMember, minTaskMember and minResources follow, status and others' labels stay",
			existing: existing,
			desired: func() *schedulingv1beta1.PodGroup {
				scaled := job.DeepCopy()
				scaled.Spec.Tasks[1].Replicas = 4
				return BuildPodGroup(scaled, 5, nil)
			},
			wantChanged: true,
			want: func() *schedulingv1beta1.PodGroup {
				pg := existing()
				pg.Spec.MinMember = 5
				pg.Spec.MinTaskMember = map[string]int32{"ps": 1, "worker": 4}
				pg.Spec.MinResources = ptr.To(rl("pods", "5", "count/pods", "5", "cpu", "5", "requests.cpu", "5"))
				return pg
			},
		},
		{
			name:     "a removed task leaves minTaskMember",
			existing: existing,
			desired: func() *schedulingv1beta1.PodGroup {
				pg := desired.DeepCopy()
				delete(pg.Spec.MinTaskMember, "ps")
				return pg
			},
			wantChanged: true,
			want: func() *schedulingv1beta1.PodGroup {
				pg := existing()
				pg.Spec.MinTaskMember = map[string]int32{"worker": 2}
				return pg
			},
		},
		{
			name:     "queue, priority, topology, labels, annotations",
			existing: existing,
			desired: func() *schedulingv1beta1.PodGroup {
				pg := desired.DeepCopy()
				pg.Spec.Queue = "other"
				pg.Spec.PriorityClassName = "high"
				pg.Spec.NetworkTopology = &schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierAllowed: ptr.To[int32](2)}
				pg.Labels["team"] = "infra"
				pg.Annotations = map[string]string{"volcano.sh/preemptable": "true"}
				return pg
			},
			wantChanged: true,
			want: func() *schedulingv1beta1.PodGroup {
				pg := existing()
				pg.Spec.Queue = "other"
				pg.Spec.PriorityClassName = "high"
				pg.Spec.NetworkTopology = &schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierAllowed: ptr.To[int32](2)}
				pg.Labels["team"] = "infra"
				pg.Annotations = map[string]string{"volcano.sh/preemptable": "true"}
				return pg
			},
		},
		{
			name: "a lost controller reference is restored",
			existing: func() *schedulingv1beta1.PodGroup {
				pg := existing()
				pg.OwnerReferences = nil
				return pg
			},
			desired:     func() *schedulingv1beta1.PodGroup { return desired.DeepCopy() },
			wantChanged: true,
			want:        existing,
		},
		{
			name:     "subgroups follow a partition policy",
			existing: existing,
			desired: func() *schedulingv1beta1.PodGroup {
				partitioned := job.DeepCopy()
				partitioned.Spec.Tasks[1].PartitionPolicy = &batchv1alpha1.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 1}
				return BuildPodGroup(partitioned, 3, nil)
			},
			wantChanged: true,
			want: func() *schedulingv1beta1.PodGroup {
				pg := existing()
				pg.Spec.SubGroupPolicy = []schedulingv1beta1.SubGroupPolicySpec{{
					Name:           "worker",
					SubGroupSize:   ptr.To[int32](1),
					MinSubGroups:   ptr.To[int32](0),
					LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": "worker"}},
					MatchLabelKeys: []string{"volcano.sh/partition-id"},
				}}
				return pg
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.existing()
			before := in.DeepCopy()
			got, changed := UpdatePodGroup(in, tc.desired())
			if diff := cmp.Diff(tc.wantChanged, changed); diff != "" {
				t.Errorf("changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want(), got, quantityByValue); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, in, quantityByValue); diff != "" {
				t.Errorf("existing changed (-before +after):\n%s", diff)
			}
		})
	}
}
