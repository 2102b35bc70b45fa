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
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/naming"
	jobspec "github.com/caldera-sh/caldera/internal/job/spec"
)

// BuildPodGroup returns the PodGroup a job should have, for the gang size in force
// (minAvailable: spec.minAvailable, or the sum over tasks when that is 0).
//
// priorities maps PriorityClass names to their values; a task's pods have the priority of their
// template's priorityClassName, else the job's, and a class missing from the map counts as 0.
// The PodGroup carries the job's labels and annotations except the GitOps tracking ones.
func BuildPodGroup(job *batchv1alpha1.Job, minAvailable int32, priorities map[string]int32) *schedulingv1beta1.PodGroup {
	minTaskMember := make(map[string]int32, len(job.Spec.Tasks))
	var subGroups []schedulingv1beta1.SubGroupPolicySpec
	for i := range job.Spec.Tasks {
		task, name := &job.Spec.Tasks[i], naming.TaskName(job.Spec.Tasks, i)
		minTaskMember[name] = TaskMinMember(task)
		if pp := task.PartitionPolicy; pp != nil {
			subGroups = append(subGroups, schedulingv1beta1.SubGroupPolicySpec{
				Name:            name,
				NetworkTopology: networkTopology(pp.NetworkTopology),
				SubGroupSize:    ptr.To(pp.PartitionSize),
				MinSubGroups:    ptr.To(pp.MinPartitions),
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
					batchv1alpha1.TaskSpecKey: name,
				}},
				MatchLabelKeys: []string{batchv1alpha1.PartitionIDKey},
			})
		}
	}
	var minResources *corev1.ResourceList
	if r := MinResources(job, minAvailable, priorities); len(r) > 0 {
		minResources = &r
	}
	return &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{
			Name:            naming.PodGroupName(job.Name, job.UID),
			Namespace:       job.Namespace,
			Labels:          withoutTracking(job.Labels),
			Annotations:     withoutTracking(job.Annotations),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, jobKind)},
		},
		Spec: schedulingv1beta1.PodGroupSpec{
			MinMember:         minAvailable,
			MinTaskMember:     minTaskMember,
			Queue:             job.Spec.Queue,
			PriorityClassName: job.Spec.PriorityClassName,
			MinResources:      minResources,
			NetworkTopology:   networkTopology(job.Spec.NetworkTopology),
			SubGroupPolicy:    subGroups,
		},
	}
}

// TaskMinMember is the number of a task's pods that must be placed together: its minAvailable
// with its default (jobspec.TaskMinAvailable).
func TaskMinMember(task *batchv1alpha1.TaskSpec) int32 {
	return jobspec.TaskMinAvailable(task)
}

// MinResources is what a job's gang needs to start: the quota usage (PodQuotaUsage) of the
// minAvailable pods it would start first. Tasks are taken by priority, highest first (in spec
// order among equals): first each task's own minimum (TaskMinMember) while the count lasts,
// then the tasks' remaining replicas until minAvailable pods are counted.
func MinResources(job *batchv1alpha1.Job, minAvailable int32, priorities map[string]int32) corev1.ResourceList {
	type ranked struct {
		task     *batchv1alpha1.TaskSpec
		priority int32
	}
	tasks := make([]ranked, 0, len(job.Spec.Tasks))
	for i := range job.Spec.Tasks {
		task := &job.Spec.Tasks[i]
		class := task.Template.Spec.PriorityClassName
		if class == "" {
			class = job.Spec.PriorityClassName
		}
		tasks = append(tasks, ranked{task: task, priority: priorities[class]})
	}
	slices.SortStableFunc(tasks, func(a, b ranked) int {
		switch {
		case a.priority > b.priority:
			return -1
		case a.priority < b.priority:
			return 1
		}
		return 0
	})

	total := corev1.ResourceList{}
	left := minAvailable
	taken := make([]int32, len(tasks))
	take := func(i int, want int32) {
		n := min(want, left)
		if n <= 0 {
			return
		}
		addTo(total, scaled(PodQuotaUsage(&tasks[i].task.Template.Spec), n))
		taken[i] += n
		left -= n
	}
	for i := range tasks {
		take(i, min(TaskMinMember(tasks[i].task), tasks[i].task.Replicas))
	}
	for i := range tasks {
		take(i, tasks[i].task.Replicas-taken[i])
	}
	return total
}

// networkTopology converts a job's network topology constraint to a PodGroup's.
func networkTopology(in *batchv1alpha1.NetworkTopologySpec) *schedulingv1beta1.NetworkTopologySpec {
	if in == nil {
		return nil
	}
	return &schedulingv1beta1.NetworkTopologySpec{
		Mode:               schedulingv1beta1.NetworkTopologyMode(in.Mode),
		HighestTierAllowed: copyInt32(in.HighestTierAllowed),
		HighestTierName:    in.HighestTierName,
	}
}

// UpdatePodGroup returns a copy of an existing PodGroup with what the job controller owns set as
// in the desired one, and whether that changed anything (so an update is needed). The job
// controller owns the spec fields it builds (minMember, minTaskMember, queue, priorityClassName,
// minResources, networkTopology, subGroupPolicy), the desired labels and annotations (others'
// keys are kept), and the controller owner reference. Status, and every other field, is left as
// found. Quantities compare by value, and an empty map equals a missing one.
func UpdatePodGroup(existing, desired *schedulingv1beta1.PodGroup) (*schedulingv1beta1.PodGroup, bool) {
	out := existing.DeepCopy()
	changed := false

	for key, value := range desired.Labels {
		if v, ok := out.Labels[key]; !ok || v != value {
			if out.Labels == nil {
				out.Labels = map[string]string{}
			}
			out.Labels[key] = value
			changed = true
		}
	}
	for key, value := range desired.Annotations {
		if v, ok := out.Annotations[key]; !ok || v != value {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[key] = value
			changed = true
		}
	}
	if ref := metav1.GetControllerOfNoCopy(desired); ref != nil && metav1.GetControllerOfNoCopy(out) == nil {
		out.OwnerReferences = append(out.OwnerReferences, *ref.DeepCopy())
		changed = true
	}

	want := desired.Spec
	have := &out.Spec
	if have.MinMember != want.MinMember {
		have.MinMember = want.MinMember
		changed = true
	}
	if !maps.Equal(have.MinTaskMember, want.MinTaskMember) {
		have.MinTaskMember = maps.Clone(want.MinTaskMember)
		changed = true
	}
	if have.Queue != want.Queue {
		have.Queue = want.Queue
		changed = true
	}
	if have.PriorityClassName != want.PriorityClassName {
		have.PriorityClassName = want.PriorityClassName
		changed = true
	}
	if !equalResources(have.MinResources, want.MinResources) {
		have.MinResources = nil
		if want.MinResources != nil {
			have.MinResources = ptr.To(want.MinResources.DeepCopy())
		}
		changed = true
	}
	if !equality.Semantic.DeepEqual(have.NetworkTopology, want.NetworkTopology) {
		have.NetworkTopology = want.NetworkTopology.DeepCopy()
		changed = true
	}
	if !(len(have.SubGroupPolicy) == 0 && len(want.SubGroupPolicy) == 0) &&
		!equality.Semantic.DeepEqual(have.SubGroupPolicy, want.SubGroupPolicy) {
		have.SubGroupPolicy = nil
		for i := range want.SubGroupPolicy {
			have.SubGroupPolicy = append(have.SubGroupPolicy, *want.SubGroupPolicy[i].DeepCopy())
		}
		changed = true
	}
	return out, changed
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	return ptr.To(*p)
}

// equalResources compares two resource lists by value; nil and empty are equal.
func equalResources(a, b *corev1.ResourceList) bool {
	var x, y corev1.ResourceList
	if a != nil {
		x = *a
	}
	if b != nil {
		y = *b
	}
	if len(x) != len(y) {
		return false
	}
	for name, q := range x {
		r, ok := y[name]
		if !ok || q.Cmp(r) != 0 {
			return false
		}
	}
	return true
}
