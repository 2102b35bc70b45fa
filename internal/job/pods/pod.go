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

// Package pods builds what a job's children should look like: each pod, and the job's
// PodGroup (the gang the scheduler places all or nothing). It decides and never acts: the job
// controller compares these objects with what the cluster holds and makes the API match.
//
// Pods and PodGroups carry Volcano's names, labels and annotations, so tools written for Volcano
// (vcctl, dashboards, scripts reading /etc/volcano) keep working.
package pods

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/gitops"
	"github.com/caldera-sh/caldera/internal/job/naming"
	jobplugins "github.com/caldera-sh/caldera/internal/job/plugins"
)

// PodOptions are the settings, beyond the job, that shape its pods.
type PodOptions struct {
	// DefaultSchedulerName is the scheduler of pods when neither the task's template nor the
	// job names one: the manager's --scheduler-name.
	DefaultSchedulerName string
	// Plugins are the job's plugins (jobplugins.ForJob); each changes the pod in this order.
	Plugins []jobplugins.Plugin
}

// jobKind is the group, version and kind of Job, for owner references.
var jobKind = batchv1alpha1.GroupVersion.WithKind("Job")

// BuildPod returns the pod at an index of the job's task whose effective name
// (naming.TaskName) is taskName, as it should be created: the task's
// template with Volcano's name, labels and annotations, the job's scheduler, priority class and
// volumes, the job as controller owner, and then each plugin's changes.
//
// The error is a *field.Error for a job whose pods the API server would reject (a name or label
// too long), or the error of a plugin (*jobplugins.Error). The job is not changed.
func BuildPod(job *batchv1alpha1.Job, taskName string, index int, opts PodOptions) (*corev1.Pod, error) {
	ti := naming.TaskIndex(job.Spec.Tasks, taskName)
	if ti < 0 {
		return nil, field.NotFound(field.NewPath("spec", "tasks"), taskName)
	}
	task := &job.Spec.Tasks[ti]
	taskPath := field.NewPath("spec", "tasks").Index(ti)
	if index < 0 || index >= int(task.Replicas) {
		return nil, field.Invalid(taskPath.Child("replicas"), task.Replicas,
			fmt.Sprintf("pod index %d is outside the task's %d replicas", index, task.Replicas))
	}
	if err := checkPodNames(job, taskName, taskPath, index); err != nil {
		return nil, err
	}

	template := task.Template.DeepCopy()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:            naming.PodName(job.Name, taskName, index),
			Namespace:       job.Namespace,
			Labels:          template.Labels,
			Annotations:     template.Annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, jobKind)},
		},
		Spec: template.Spec,
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}

	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = job.Spec.SchedulerName
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = opts.DefaultSchedulerName
	}
	if pod.Spec.PriorityClassName == "" {
		pod.Spec.PriorityClassName = job.Spec.PriorityClassName
	}
	if err := mountJobVolumes(pod, job); err != nil {
		return nil, err
	}
	stampPod(pod, job, taskName, task, index)

	for _, p := range opts.Plugins {
		if err := p.OnPodCreate(pod, job); err != nil {
			return nil, err
		}
	}
	return pod, nil
}

// stampPod sets the labels and annotations that tie a pod to its job, task (named taskName, its
// effective name), index and PodGroup.
func stampPod(pod *corev1.Pod, job *batchv1alpha1.Job, taskName string, task *batchv1alpha1.TaskSpec, index int) {
	idx := strconv.Itoa(index)
	a := pod.Annotations
	a[batchv1alpha1.TaskIndex] = idx
	a[batchv1alpha1.TaskSpecKey] = taskName
	a[schedulingv1beta1.KubeGroupNameAnnotationKey] = naming.PodGroupName(job.Name, job.UID)
	a[batchv1alpha1.JobNameKey] = job.Name
	a[batchv1alpha1.QueueNameKey] = job.Spec.Queue
	a[batchv1alpha1.JobVersion] = strconv.Itoa(int(job.Status.Version))
	a[batchv1alpha1.TemplateUID] = naming.TemplateUID(job.Name, taskName)
	a[batchv1alpha1.JobRetryCountKey] = strconv.Itoa(int(job.Status.RetryCount))
	if task.TopologyPolicy != "" {
		a[batchv1alpha1.NumaPolicyKey] = string(task.TopologyPolicy)
	}
	for _, key := range []string{batchv1alpha1.PreemptableKey, batchv1alpha1.CooldownTimeKey, batchv1alpha1.RevocableZoneKey} {
		if v, ok := job.Annotations[key]; ok {
			a[key] = v
		}
	}
	// A disruption budget is either a minimum available or a maximum unavailable, never both.
	if v, ok := job.Annotations[batchv1alpha1.JDBMinAvailableKey]; ok {
		a[batchv1alpha1.JDBMinAvailableKey] = v
	} else if v, ok := job.Annotations[batchv1alpha1.JDBMaxUnavailableKey]; ok {
		a[batchv1alpha1.JDBMaxUnavailableKey] = v
	}

	l := pod.Labels
	l[batchv1alpha1.TaskIndex] = idx
	l[batchv1alpha1.JobNameKey] = job.Name
	l[batchv1alpha1.TaskSpecKey] = taskName
	l[batchv1alpha1.JobNamespaceKey] = job.Namespace
	l[batchv1alpha1.QueueNameKey] = job.Spec.Queue
	for _, key := range []string{batchv1alpha1.PreemptableKey, batchv1alpha1.CooldownTimeKey} {
		if v, ok := job.Labels[key]; ok {
			l[key] = v
		}
	}
	if pp := task.PartitionPolicy; pp != nil && pp.PartitionSize > 0 {
		l[batchv1alpha1.PartitionIDKey] = strconv.Itoa(index / int(pp.PartitionSize))
	}
}

// mountJobVolumes mounts the claim of each job volume in every container and init container.
// Two job volumes of the same claim share one pod volume.
func mountJobVolumes(pod *corev1.Pod, job *batchv1alpha1.Job) error {
	added := map[string]bool{}
	for i := range job.Spec.Volumes {
		v := &job.Spec.Volumes[i]
		path := field.NewPath("spec", "volumes").Index(i)
		claim := naming.ClaimName(job.Name, v)
		volName := naming.VolumeName(claim)
		if !added[volName] {
			for j := range pod.Spec.Volumes {
				if pod.Spec.Volumes[j].Name == volName {
					return field.Invalid(path, claim, fmt.Sprintf(
						"the pod template already has a volume named %q; rename that volume in the task's template", volName))
				}
			}
			pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: volName, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
			}})
			added[volName] = true
		}
		for _, c := range containersOf(pod) {
			for _, m := range c.VolumeMounts {
				if m.MountPath == v.MountPath {
					return field.Invalid(path.Child("mountPath"), v.MountPath, fmt.Sprintf(
						"container %q of the task's template already mounts volume %q there; choose another mountPath or remove that mount",
						c.Name, m.Name))
				}
			}
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: volName, MountPath: v.MountPath})
		}
	}
	return nil
}

// checkPodNames checks that the pod's name and the label values taken from the job are valid,
// so that the API server does not reject every pod of the job. taskName is the task's effective
// name (naming.TaskName).
func checkPodNames(job *batchv1alpha1.Job, taskName string, taskPath *field.Path, index int) error {
	name := naming.PodName(job.Name, taskName, index)
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return field.Invalid(field.NewPath("metadata", "name"), job.Name, fmt.Sprintf(
			"the pod name %q is not valid (%s); shorten the job name or the task name", name, strings.Join(errs, "; ")))
	}
	for _, lv := range []struct {
		path  *field.Path
		value string
		label string
	}{
		{field.NewPath("metadata", "name"), job.Name, batchv1alpha1.JobNameKey},
		{taskPath.Child("name"), taskName, batchv1alpha1.TaskSpecKey},
		{field.NewPath("spec", "queue"), job.Spec.Queue, batchv1alpha1.QueueNameKey},
	} {
		if errs := validation.IsValidLabelValue(lv.value); len(errs) > 0 {
			return field.Invalid(lv.path, lv.value, fmt.Sprintf(
				"pods carry it in the %s label, and it is not a valid label value (%s); shorten it to at most 63 characters",
				lv.label, strings.Join(errs, "; ")))
		}
	}
	return nil
}

// containersOf returns pointers to a pod's init containers and containers.
func containersOf(pod *corev1.Pod) []*corev1.Container {
	out := make([]*corev1.Container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

// withoutTracking copies a job's labels or annotations, leaving out every key a GitOps tool
// tracks objects by (gitops.IsTrackingKey): a job's children are not applied from Git, and a tool
// that saw its keys on them would count them as its own and prune them.
func withoutTracking(m map[string]string) map[string]string {
	out := maps.Clone(m)
	maps.DeleteFunc(out, func(k, _ string) bool { return gitops.IsTrackingKey(k) })
	if len(out) == 0 {
		return nil
	}
	return out
}
