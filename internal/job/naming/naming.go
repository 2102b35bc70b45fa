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

// Package naming holds the names of a job's children: pods, the PodGroup, the objects of job
// plugins, claims and volumes, and the hostnames pods reach each other by.
//
// Every name is a pure function of the job, so a repeated create after a restart finds the object
// it made before instead of making a second one. The names are the ones Volcano uses, so scripts
// and tools written for Volcano find the same objects.
package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// Suffixes and prefixes of the names below.
const (
	// SvcPluginName is the name of the svc plugin, also the suffix of its ConfigMap.
	SvcPluginName = "svc"
	// SSHPluginName is the name of the ssh plugin, also the suffix of its Secret.
	SSHPluginName = "ssh"

	// pluginResourcePrefix prefixes a plugin's key in status.controlledResources.
	pluginResourcePrefix = "plugin-"
	// volumeResourcePrefix prefixes a claim's key in status.controlledResources.
	volumeResourcePrefix = "volume-pvc-"
)

// defaultTaskNamePrefix starts the name of an unnamed task: default<i>, i its position in
// spec.tasks, as Volcano's mutating webhook names it (v1alpha1.DefaultTaskSpec + index).
const defaultTaskNamePrefix = "default"

// TaskName is the effective name of tasks[i], the task at position i of a job's spec.tasks: its
// name, or default<i> when it has none, the name Volcano's mutating webhook writes into the
// spec. Caldera writes nothing back: every place that names a task (pod names, the task-spec
// label and annotation, the PodGroup's minTaskMember, status.taskStatusCount, dependsOn,
// policies, plugins, vcctl) calls this function instead. i must be an index of tasks.
func TaskName(tasks []batchv1alpha1.TaskSpec, i int) string {
	if name := tasks[i].Name; name != "" {
		return name
	}
	return DefaultTaskName(i)
}

// DefaultTaskName is the effective name of an unnamed task at position i of spec.tasks:
// default<i>.
func DefaultTaskName(i int) string {
	return defaultTaskNamePrefix + strconv.Itoa(i)
}

// TaskIndex is the position in tasks of the task whose TaskName is name, or -1 when there is
// none. The CRD keeps effective names unique, so there is at most one.
func TaskIndex(tasks []batchv1alpha1.TaskSpec, name string) int {
	for i := range tasks {
		if TaskName(tasks, i) == name {
			return i
		}
	}
	return -1
}

// TaskNames lists the TaskName of every task, in spec order.
func TaskNames(tasks []batchv1alpha1.TaskSpec) []string {
	names := make([]string, len(tasks))
	for i := range tasks {
		names[i] = TaskName(tasks, i)
	}
	return names
}

// PodName is the name of the pod of a task at an index: <job>-<task>-<index>.
func PodName(jobName, taskName string, index int) string {
	return fmt.Sprintf("%s-%s-%d", jobName, taskName, index)
}

// PodGroupName is the name of a job's PodGroup: <job>-<job UID>. A job deleted and created again
// under the same name gets a new UID, so it never adopts the PodGroup of its predecessor.
func PodGroupName(jobName string, uid types.UID) string {
	return jobName + "-" + string(uid)
}

// TemplateUID is the value of the volcano.sh/template-uid annotation of a task's pods: <job>-<task>.
func TemplateUID(jobName, taskName string) string {
	return jobName + "-" + taskName
}

// IndexFromPodName returns the index at the end of a pod name <job>-<task>-<index>.
func IndexFromPodName(podName string) (int, error) {
	i := strings.LastIndexByte(podName, '-')
	if i < 0 || i == len(podName)-1 {
		return 0, fmt.Errorf("pod name %q does not end in -<index>", podName)
	}
	index, err := strconv.Atoi(podName[i+1:])
	if err != nil || index < 0 {
		return 0, fmt.Errorf("pod name %q does not end in -<index>: %q is not a non-negative integer", podName, podName[i+1:])
	}
	return index, nil
}

// PodIndex returns the index of a job's pod within its task: the volcano.sh/task-index
// annotation when the pod has it, else the number at the end of its name.
func PodIndex(pod *corev1.Pod) (int, error) {
	if v, ok := pod.Annotations[batchv1alpha1.TaskIndex]; ok {
		index, err := strconv.Atoi(v)
		if err != nil || index < 0 {
			return 0, fmt.Errorf("pod %q: annotation %s=%q is not a non-negative integer", pod.Name, batchv1alpha1.TaskIndex, v)
		}
		return index, nil
	}
	return IndexFromPodName(pod.Name)
}

// PodTaskName returns the task of a job's pod, from its volcano.sh/task-spec annotation.
func PodTaskName(pod *corev1.Pod) (string, bool) {
	name, ok := pod.Annotations[batchv1alpha1.TaskSpecKey]
	return name, ok && name != ""
}

// SvcConfigMapName is the name of the svc plugin's ConfigMap of host lists: <job>-svc.
func SvcConfigMapName(jobName string) string {
	return jobName + "-" + SvcPluginName
}

// ServiceName is the name of the svc plugin's headless Service: <job>. It is also the
// subdomain of the job's pods.
func ServiceName(jobName string) string {
	return jobName
}

// RayHeadServiceName is the name of the Service the ray plugin puts in front of a job's Ray head.
func RayHeadServiceName(jobName string) string { return jobName + "-head-svc" }

// NetworkPolicyName is the name of the svc plugin's NetworkPolicy: <job>.
func NetworkPolicyName(jobName string) string {
	return jobName
}

// SSHSecretName is the name of the ssh plugin's Secret: <job>-ssh.
func SSHSecretName(jobName string) string {
	return jobName + "-" + SSHPluginName
}

// PluginResourceKey is a plugin's key in status.controlledResources: plugin-<name>.
func PluginResourceKey(pluginName string) string {
	return pluginResourcePrefix + pluginName
}

// VolumeResourceKey is a claim's key in status.controlledResources: volume-pvc-<claim>.
func VolumeResourceKey(claimName string) string {
	return volumeResourcePrefix + claimName
}

// JobClaimName is the name of the PersistentVolumeClaim a job makes for a volume that gives
// volumeClaim and no volumeClaimName: <job>-pvc-<12 characters>, the characters derived from
// the volume's mountPath (unique within a job), so the name survives a reordering of
// spec.volumes and a controller restart.
func JobClaimName(jobName, mountPath string) string {
	return jobName + "-pvc-" + shortHash(mountPath, 12)
}

// ClaimName is the claim mounted for a job volume: volumeClaimName when given, else the claim
// the job makes (JobClaimName).
func ClaimName(jobName string, volume *batchv1alpha1.VolumeSpec) string {
	if volume.VolumeClaimName != "" {
		return volume.VolumeClaimName
	}
	return JobClaimName(jobName, volume.MountPath)
}

// VolumeName is the name of the pod volume that mounts a job volume's claim: a DNS label made
// of a readable part of the claim name and a hash of all of it.
func VolumeName(claimName string) string {
	readable := strings.ToLower(strings.ReplaceAll(claimName, ".", "-"))
	// "pvc-" + up to 40 characters + "-" + 10 hex characters stays within 63.
	if len(readable) > 40 {
		readable = readable[:40]
	}
	readable = strings.Trim(readable, "-")
	if readable == "" {
		return "pvc-" + shortHash(claimName, 10)
	}
	return "pvc-" + readable + "-" + shortHash(claimName, 10)
}

// Hostname is the hostname of the pod at an index of a task named taskName (its TaskName):
// the template's hostname when it sets one, else the pod's name.
func Hostname(jobName, taskName string, task *batchv1alpha1.TaskSpec, index int) string {
	if task.Template.Spec.Hostname != "" {
		return task.Template.Spec.Hostname
	}
	return PodName(jobName, taskName, index)
}

// Subdomain is the subdomain of a task's pods: the template's subdomain when it sets one, else
// the job's name (the name of the svc plugin's headless Service).
func Subdomain(jobName string, task *batchv1alpha1.TaskSpec) string {
	if task.Template.Spec.Subdomain != "" {
		return task.Template.Spec.Subdomain
	}
	return ServiceName(jobName)
}

// DomainName is the name the pod at an index of a task named taskName (its TaskName) is
// reached by within the namespace: <hostname>.<subdomain>.
func DomainName(jobName, taskName string, task *batchv1alpha1.TaskSpec, index int) string {
	return Hostname(jobName, taskName, task, index) + "." + Subdomain(jobName, task)
}

// TaskHosts lists the domain names of the pods of a task named taskName (its TaskName) in index
// order. A template that sets a hostname gives all its pods the same name, so the list then has
// one entry.
func TaskHosts(jobName, taskName string, task *batchv1alpha1.TaskSpec) []string {
	if task.Replicas <= 0 {
		return []string{}
	}
	if task.Template.Spec.Hostname != "" {
		return []string{DomainName(jobName, taskName, task, 0)}
	}
	hosts := make([]string, 0, task.Replicas)
	for i := range int(task.Replicas) {
		hosts = append(hosts, DomainName(jobName, taskName, task, i))
	}
	return hosts
}

// TaskKey is a task's name with every '-' replaced by '_', as used in the svc plugin's
// <task>.host file names.
func TaskKey(taskName string) string {
	return strings.ReplaceAll(taskName, "-", "_")
}

// TaskEnvKey is a task's name as it appears in environment variable names: upper-cased, with
// every '-' replaced by '_'.
func TaskEnvKey(taskName string) string {
	return strings.ToUpper(TaskKey(taskName))
}

// shortHash returns the first n hex characters of the SHA-256 of s.
func shortHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}
