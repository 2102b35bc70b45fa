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

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=jobs,shortName=vcjob;vj
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="STATUS",type=string,JSONPath=`.status.state.phase`
// +kubebuilder:printcolumn:name="MINAVAILABLE",type=integer,JSONPath=`.status.minAvailable`
// +kubebuilder:printcolumn:name="RUNNINGS",type=integer,JSONPath=`.status.running`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="QUEUE",type=string,priority=1,JSONPath=`.spec.queue`
// +kubebuilder:printcolumn:name="READY",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].status`

// Job is a batch job of one or more tasks (pod templates) scheduled as a gang.
// It is Volcano's batch.volcano.sh/v1alpha1 Job, field for field.
// +kubebuilder:validation:XValidation:rule="!has(self.metadata.name) || size(self.metadata.name) <= 63",message="metadata.name must be at most 63 characters: it is a label value on every pod of the job; choose a shorter name"
// +kubebuilder:validation:XValidation:rule="!has(self.metadata.name) || !has(self.spec.tasks) || self.spec.tasks.all(i, t, size(self.metadata.name) + (has(t.name) ? size(t.name) : 7 + size(string(i))) + size(string(has(t.replicas) && t.replicas > 1 ? t.replicas - 1 : 0)) + 2 <= 63)",message="pod names <job>-<task>-<index> must be at most 63 characters (they are also host names): shorten metadata.name or the task names (an unnamed task is named default<i>, i its position)",fieldPath=".spec.tasks",reason=FieldValueInvalid
type Job struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired behaviour of the job.
	// +required
	Spec JobSpec `json:"spec,omitempty"`

	// status is the observed state of the job, written by the controller.
	// +optional
	Status JobStatus `json:"status,omitempty"`
}

// JobSpec is the desired behaviour of a Job.
//
// Every field may be edited from Git: replicas and minAvailable change in place, a change to a
// pod template, volumes or plugins restarts the job at a new status.version, and the other fields
// take effect at the next decision that reads them.
//
// +kubebuilder:validation:XValidation:rule="!has(self.minAvailable) || !has(self.tasks) || self.minAvailable <= self.tasks.map(t, has(t.replicas) ? t.replicas : 0).sum()",message="job 'minAvailable' should not be greater than total replicas in tasks: lower spec.minAvailable or add replicas",fieldPath=".minAvailable"
// +kubebuilder:validation:XValidation:rule="!has(self.tasks) || self.tasks.all(i, t, !has(t.dependsOn) || !has(t.dependsOn.name) || ((has(t.name) ? !(t.name in t.dependsOn.name) : !t.dependsOn.name.exists(d, d.startsWith('default') && d.substring(7) == string(i))) && sets.contains(self.tasks.filter(u, has(u.name)).map(u, u.name), t.dependsOn.name.filter(d, !(d.matches('^default(0|[1-9][0-9]?)$') && int(d.substring(7)) < size(self.tasks) && !has(self.tasks[int(d.substring(7))].name))))))",message="spec.tasks[*].dependsOn.name must name other tasks of this job (an unnamed task is named default<i>, i its position): remove the task itself and names that are not tasks",fieldPath=".tasks",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.plugins) || !('mpi' in self.plugins) || self.plugins['mpi'].size() > 0 || !has(self.tasks) || self.tasks.exists(t, has(t.name) && t.name == 'master')",message="the mpi plugin needs its master task: name a task master, or pass --master=<task> in spec.plugins.mpi",fieldPath=".plugins",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.queue) || self.queue != 'root'",message="jobs cannot be submitted to the root queue: name a leaf queue such as default",fieldPath=".queue"
type JobSpec struct {
	// schedulerName is the scheduler of the job's pods, used for every pod template that does not
	// name one. Empty means the manager's --scheduler-name (default volcano).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`

	// minAvailable is the gang size: the number of pods that must be placed together for any of
	// them to start. Empty or 0 means the sum over tasks of their minAvailable (or replicas).
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinAvailable int32 `json:"minAvailable,omitempty"`

	// volumes are mounted into every container of every pod of the job.
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=mountPath
	// +optional
	Volumes []VolumeSpec `json:"volumes,omitempty"`

	// tasks are the pod templates of the job, each with a number of replicas. A task without a
	// name is named default<i>, i its position in this list (default0, default1, ...), as
	// Volcano names it; the name is computed when the job is reconciled, never written here.
	// The effective names (given or default) must be unique.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.name) || self.exists_one(u, has(u.name) && u.name == t.name))",messageExpression="'duplicated task name ' + self.map(t, has(t.name) && !self.exists_one(u, has(u.name) && u.name == t.name), t.name)[0] + ': give each task its own name'"
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.name) || !(t.name.matches('^default(0|[1-9][0-9]?)$') && int(t.name.substring(7)) < size(self) && !has(self[int(t.name.substring(7))].name)))",messageExpression="self.map(t, has(t.name) && (t.name.matches('^default(0|[1-9][0-9]?)$') && int(t.name.substring(7)) < size(self) && !has(self[int(t.name.substring(7))].name)), 'duplicated task name ' + t.name + ': spec.tasks[' + t.name.substring(7) + '] has no name, so it is named ' + t.name + ' too (a task without a name is named default<i>, i its position); rename one of them')[0]"
	// +listType=atomic
	// +required
	Tasks []TaskSpec `json:"tasks,omitempty" patchStrategy:"merge" patchMergeKey:"name"` // the strategic merge of JobFlow patches (jobflow.PatchSpec)

	// policies are the job's lifecycle policies: when an event happens (or a CEL condition holds),
	// take an action. A task's own policies are consulted before these.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="!self.exists(p, !has(p.when) && ((has(p.event) && p.event == '*') || (has(p.events) && '*' in p.events))) || self.all(p, has(p.when) || ((!has(p.event) || p.event == '*') && (!has(p.events) || p.events.all(e, e == '*'))))",message="if there's * here, no other policy should be here: a policy on event '*' matches every event, so no other policy may name an event (exitCode policies and policies with a when condition may stay); remove the other events or the '*' policy"
	// +kubebuilder:validation:XValidation:rule="['*', 'PodFailed', 'PodEvicted', 'PodPending', 'Unknown', 'TaskCompleted', 'TaskFailed', 'JobUpdated'].all(e, self.filter(p, !has(p.when) && ((has(p.event) && p.event == e) || (has(p.events) && e in p.events))).size() <= 1)",messageExpression="'duplicate event ' + ['*', 'PodFailed', 'PodEvicted', 'PodPending', 'Unknown', 'TaskCompleted', 'TaskFailed', 'JobUpdated'].filter(e, self.filter(p, !has(p.when) && ((has(p.event) && p.event == e) || (has(p.events) && e in p.events))).size() > 1)[0] + ' across different policies: an event may appear in one policy only (policies with a when condition aside); merge those policies'"
	// +kubebuilder:validation:XValidation:rule="self.filter(p, !has(p.when) && has(p.exitCode)).map(p, p.exitCode).distinct().size() == self.filter(p, !has(p.when) && has(p.exitCode)).size()",message="duplicate exitCode across different policies: an exit code may appear in one policy only (policies with a when condition aside); merge those policies"
	// +listType=atomic
	// +optional
	Policies []LifecyclePolicy `json:"policies,omitempty"`

	// plugins are the job plugins to run, by name, each with its arguments: env, svc, ssh,
	// tensorflow, pytorch, mpi, ray, hcclrank. Plugins that others imply (svc for tensorflow,
	// pytorch, mpi and ray; ssh for mpi) are added when the job is reconciled, never written here.
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['env', 'svc', 'ssh', 'tensorflow', 'pytorch', 'mpi', 'ray', 'hcclrank'])",messageExpression="'unable to find job plugin: ' + self.filter(k, !(k in ['env', 'svc', 'ssh', 'tensorflow', 'pytorch', 'mpi', 'ray', 'hcclrank']))[0] + ': the plugins are env, svc, ssh, tensorflow, pytorch, mpi, ray and hcclrank'"
	// +optional
	Plugins map[string][]string `json:"plugins,omitempty"`

	// runningEstimate is the user's estimate of the job's run time.
	// +optional
	RunningEstimate *metav1.Duration `json:"runningEstimate,omitempty"`

	// queue is the queue the job is scheduled in.
	// +kubebuilder:default=default
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || !format.dns1123Subdomain().validate(self).hasValue()",message="must be the name of a Queue: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +optional
	Queue string `json:"queue,omitempty"`

	// maxRetry is the number of times the job may run before it is marked Failed: a job that is
	// restarting with status.retryCount >= maxRetry fails. Resuming a job (ResumeJob, or
	// spec.suspend back to false) and a restart caused by an eviction do not count as retries.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxRetry int32 `json:"maxRetry,omitempty"`

	// ttlSecondsAfterFinished is how long a finished job (Completed, Failed, Terminated or
	// Aborted) is kept before it is deleted. Unset means it is kept.
	// +kubebuilder:validation:Minimum=0
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`

	// priorityClassName is the priority of the job, used for pods that do not name one and for
	// the job's PodGroup.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || !format.dns1123Subdomain().validate(self).hasValue()",message="must be the name of a PriorityClass: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// minSuccess is the number of pods that must succeed for the job to be Completed; once it is
	// reached the job completes at once.
	// +kubebuilder:validation:Minimum=1
	// +optional
	MinSuccess *int32 `json:"minSuccess,omitempty"`

	// networkTopology constrains how far the job's pods may spread across the network topology.
	// +optional
	NetworkTopology *NetworkTopologySpec `json:"networkTopology,omitempty"`

	// suspend holds the job when true: its running and pending pods are deleted and it stays
	// Aborted; setting it back to false resumes it, without counting a retry. This is the way to
	// pause a job from Git.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`
}

// NetworkTopologyMode is how strictly a network topology constraint is held: hard or soft.
// +kubebuilder:validation:Enum=hard;soft
type NetworkTopologyMode string

const (
	// HardNetworkTopologyMode is a constraint the job's pods must keep.
	HardNetworkTopologyMode NetworkTopologyMode = "hard"
	// SoftNetworkTopologyMode is a constraint kept when possible.
	SoftNetworkTopologyMode NetworkTopologyMode = "soft"
)

// NetworkTopologySpec constrains a job or a partition to a part of the network topology.
// +kubebuilder:validation:XValidation:rule="!(has(self.highestTierAllowed) && has(self.highestTierName))",message="must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously: keep one of them"
type NetworkTopologySpec struct {
	// mode is hard (the constraint must hold) or soft (it holds when possible).
	// +kubebuilder:default=hard
	// +optional
	Mode NetworkTopologyMode `json:"mode,omitempty"`

	// highestTierAllowed is the highest network tier the pods may span.
	// +kubebuilder:validation:Minimum=0
	// +optional
	HighestTierAllowed *int32 `json:"highestTierAllowed,omitempty"`

	// highestTierName is the name of the highest network tier the pods may span.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	HighestTierName string `json:"highestTierName,omitempty"`
}

// VolumeSpec is a volume mounted into every container of the job.
// +kubebuilder:validation:XValidation:rule="(has(self.volumeClaimName) && size(self.volumeClaimName) > 0) || has(self.volumeClaim)",message="either volumeClaim or volumeClaimName must be specified: volumeClaimName mounts an existing PersistentVolumeClaim, volumeClaim has the job create one"
// +kubebuilder:validation:XValidation:rule="!(has(self.volumeClaimName) && size(self.volumeClaimName) > 0 && has(self.volumeClaim))",message="conflict: to use an existing PVC set only volumeClaimName; to have the job create one set only volumeClaim",fieldPath=".volumeClaimName"
type VolumeSpec struct {
	// mountPath is the path in the container where the volume is mounted; it must not contain ':'.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="!self.contains(':')",message="mountPath must not contain ':'"
	// +required
	MountPath string `json:"mountPath"`

	// volumeClaimName is the name of an existing PersistentVolumeClaim to mount.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || !format.dns1123Subdomain().validate(self).hasValue()",message="must be the name of a PersistentVolumeClaim: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +optional
	VolumeClaimName string `json:"volumeClaimName,omitempty"`

	// volumeClaim is the spec of a PersistentVolumeClaim the job creates and mounts.
	// +optional
	VolumeClaim *corev1.PersistentVolumeClaimSpec `json:"volumeClaim,omitempty"`
}

// LifecyclePolicy says what to do when something happens to a job, a task or a pod: when the
// event matches (or the exit code), and the when condition (if any) holds, take the action.
// Policies are consulted in order: the task's own policies, then the job's, then those of the
// caldera.sh/policies annotation; the first that matches wins.
// +kubebuilder:validation:XValidation:rule="!(has(self.exitCode) && (has(self.event) || has(self.events)))",message="must not specify event and exitCode simultaneously: a policy matches events or an exit code; split it into two policies",fieldPath=".exitCode"
// +kubebuilder:validation:XValidation:rule="has(self.event) || has(self.events) || has(self.exitCode) || has(self.when)",message="either event, events, exitCode or when should be specified: say what the policy matches"
// +kubebuilder:validation:XValidation:rule="has(self.action) || !(has(self.event) || has(self.events) || has(self.when))",message="action is required: one of AbortJob, RestartJob, RestartTask, RestartPod, RestartPartition, TerminateJob, CompleteJob, ResumeJob",fieldPath=".action",reason=FieldValueRequired
type LifecyclePolicy struct {
	// action is what to do: AbortJob, RestartJob, RestartTask, RestartPod, RestartPartition,
	// TerminateJob, CompleteJob or ResumeJob.
	// +kubebuilder:validation:Enum=AbortJob;RestartJob;RestartTask;RestartPod;RestartPartition;TerminateJob;CompleteJob;ResumeJob
	// +optional
	Action busv1alpha1.Action `json:"action,omitempty"`

	// event is the event the policy matches: *, PodFailed, PodEvicted, PodPending, Unknown,
	// TaskCompleted, TaskFailed or JobUpdated. A PodPending policy needs a timeout.
	// +kubebuilder:validation:Enum="*";PodFailed;PodEvicted;PodPending;Unknown;TaskCompleted;TaskFailed;JobUpdated
	// +optional
	Event busv1alpha1.Event `json:"event,omitempty"`

	// events are several events the policy matches, as for event.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Enum="*";PodFailed;PodEvicted;PodPending;Unknown;TaskCompleted;TaskFailed;JobUpdated
	// +listType=atomic
	// +optional
	Events []busv1alpha1.Event `json:"events,omitempty"`

	// exitCode is the exit code of a failed pod's first terminated container that the policy
	// matches. It must not be 0, and must not be given with event or events.
	// +kubebuilder:validation:XValidation:rule="self != 0",message="0 is not a valid error code: exitCode matches failed containers only; use a non-zero code"
	// +optional
	ExitCode *int32 `json:"exitCode,omitempty"`

	// timeout delays the action: it is taken only if the situation still holds after this long
	// (for PodPending: the pod is still pending; for PodFailed and PodEvicted: the pod has not
	// started running again). Unset means at once.
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// when is a CEL expression that must return bool; the policy fires only when its event
	// matches (if it names one) and when is true. A policy with when and no event is checked on
	// every change of the job. Variables: job, tasks, task, pod, event, elapsed; see the README.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	When string `json:"when,omitempty"`
}

// NumaPolicy is the NUMA topology policy of a task's pods.
// +kubebuilder:validation:Enum=none;best-effort;restricted;single-numa-node
type NumaPolicy string

const (
	// NumaPolicyNone applies no NUMA constraint.
	NumaPolicyNone NumaPolicy = "none"
	// NumaPolicyBestEffort prefers NUMA-aligned placement.
	NumaPolicyBestEffort NumaPolicy = "best-effort"
	// NumaPolicyRestricted requires NUMA-aligned placement for the resources it can align.
	NumaPolicyRestricted NumaPolicy = "restricted"
	// NumaPolicySingleNumaNode requires all resources on one NUMA node.
	NumaPolicySingleNumaNode NumaPolicy = "single-numa-node"
)

// TaskSpec is one pod template of a job, with its replicas and policies.
// +kubebuilder:validation:XValidation:rule="!has(self.minAvailable) || self.minAvailable <= (has(self.replicas) ? self.replicas : 0)",messageExpression="'minAvailable is greater than replicas in ' + (has(self.name) ? 'task ' + self.name : 'an unnamed task') + ': lower minAvailable or raise replicas'",fieldPath=".minAvailable"
// +kubebuilder:validation:XValidation:rule="!has(self.partitionPolicy) || (has(self.replicas) ? self.replicas : 0) == self.partitionPolicy.totalPartitions * self.partitionPolicy.partitionSize",messageExpression="'replicas are not equal to partitionPolicy.totalPartitions * partitionPolicy.partitionSize in ' + (has(self.name) ? 'task ' + self.name : 'an unnamed task') + ': make them match'",fieldPath=".replicas"
// +kubebuilder:validation:XValidation:rule="!has(self.partitionPolicy) || !has(self.minAvailable) || !has(self.partitionPolicy.minPartitions) || self.partitionPolicy.minPartitions == 0 || self.minAvailable == self.partitionPolicy.minPartitions * self.partitionPolicy.partitionSize",messageExpression="'minAvailable is not equal to partitionPolicy.minPartitions * partitionPolicy.partitionSize in ' + (has(self.name) ? 'task ' + self.name : 'an unnamed task') + ': drop minAvailable or make them match'",fieldPath=".minAvailable"
// +kubebuilder:validation:XValidation:rule="has(self.template) && has(self.template.spec) && size(self.template.spec.containers) > 0",message="template.spec.containers must name at least one container: every task needs a pod template",fieldPath=".template",reason=FieldValueRequired
type TaskSpec struct {
	// name is the task's name, a DNS label; pods are named <job>-<name>-<index>. Unset means
	// default<i>, i the task's position in spec.tasks, computed when the job is reconciled and
	// never written here.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Label().validate(self).hasValue()",message="must be a DNS label (it becomes part of pod names): at most 63 lower-case letters, digits or '-', starting and ending with a letter or digit"
	// +optional
	Name string `json:"name,omitempty"`

	// replicas is the number of pods of this task.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// minAvailable is the number of this task's pods that must be placed together (the task's
	// part of the gang). Unset means replicas.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinAvailable *int32 `json:"minAvailable,omitempty"`

	// template is the pod template of this task.
	// +optional
	Template corev1.PodTemplateSpec `json:"template,omitempty"`

	// policies are the task's lifecycle policies, consulted before the job's.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="!self.exists(p, !has(p.when) && ((has(p.event) && p.event == '*') || (has(p.events) && '*' in p.events))) || self.all(p, has(p.when) || ((!has(p.event) || p.event == '*') && (!has(p.events) || p.events.all(e, e == '*'))))",message="if there's * here, no other policy should be here: a policy on event '*' matches every event, so no other policy may name an event (exitCode policies and policies with a when condition may stay); remove the other events or the '*' policy"
	// +kubebuilder:validation:XValidation:rule="['*', 'PodFailed', 'PodEvicted', 'PodPending', 'Unknown', 'TaskCompleted', 'TaskFailed', 'JobUpdated'].all(e, self.filter(p, !has(p.when) && ((has(p.event) && p.event == e) || (has(p.events) && e in p.events))).size() <= 1)",messageExpression="'duplicate event ' + ['*', 'PodFailed', 'PodEvicted', 'PodPending', 'Unknown', 'TaskCompleted', 'TaskFailed', 'JobUpdated'].filter(e, self.filter(p, !has(p.when) && ((has(p.event) && p.event == e) || (has(p.events) && e in p.events))).size() > 1)[0] + ' across different policies: an event may appear in one policy only (policies with a when condition aside); merge those policies'"
	// +kubebuilder:validation:XValidation:rule="self.filter(p, !has(p.when) && has(p.exitCode)).map(p, p.exitCode).distinct().size() == self.filter(p, !has(p.when) && has(p.exitCode)).size()",message="duplicate exitCode across different policies: an exit code may appear in one policy only (policies with a when condition aside); merge those policies"
	// +listType=atomic
	// +optional
	Policies []LifecyclePolicy `json:"policies,omitempty"`

	// topologyPolicy is the NUMA topology policy of the task's pods.
	// +optional
	TopologyPolicy NumaPolicy `json:"topologyPolicy,omitempty"`

	// maxRetry is the task's container-restart budget: once the restarts of the containers of its
	// pending and running pods add up to maxRetry, the task fails (event TaskFailed). -1 means no
	// limit; 0 is read as 3, as in Volcano.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=-1
	// +optional
	MaxRetry int32 `json:"maxRetry,omitempty"`

	// dependsOn names the tasks whose pods must be ready (minAvailable of them running and ready,
	// or succeeded) before this task's pods are created.
	// +optional
	DependsOn *DependsOn `json:"dependsOn,omitempty"`

	// partitionPolicy splits the task's pods into partitions scheduled as sub-gangs.
	// +optional
	PartitionPolicy *PartitionPolicySpec `json:"partitionPolicy,omitempty"`
}

// PartitionPolicySpec splits a task into partitions of equal size.
// +kubebuilder:validation:XValidation:rule="!has(self.minPartitions) || self.minPartitions <= self.totalPartitions",message="minPartitions must not be greater than totalPartitions",fieldPath=".minPartitions"
type PartitionPolicySpec struct {
	// totalPartitions is the number of partitions.
	// +kubebuilder:validation:Minimum=1
	// +required
	TotalPartitions int32 `json:"totalPartitions"`

	// partitionSize is the number of pods in each partition.
	// +kubebuilder:validation:Minimum=1
	// +required
	PartitionSize int32 `json:"partitionSize"`

	// networkTopology constrains each partition to a part of the network topology.
	// +optional
	NetworkTopology *NetworkTopologySpec `json:"networkTopology,omitempty"`

	// minPartitions is the number of partitions that must be placed together.
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinPartitions int32 `json:"minPartitions,omitempty"`
}

// Iteration is how a task's dependencies are combined: any or all.
// +kubebuilder:validation:Enum=any;all
type Iteration string

const (
	// IterationAny waits until any one of the named tasks is ready.
	IterationAny Iteration = "any"
	// IterationAll waits until all the named tasks are ready.
	IterationAll Iteration = "all"
)

// DependsOn names the tasks a task waits for.
type DependsOn struct {
	// name lists the tasks this task depends on.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	// +listType=atomic
	// +optional
	Name []string `json:"name,omitempty"`

	// iteration is any (one of the tasks is enough) or all (every task); unset means all.
	// +optional
	Iteration Iteration `json:"iteration,omitempty"`
}

// JobPhase is the phase of a job.
// +kubebuilder:validation:Enum=Pending;Aborting;Aborted;Running;Restarting;Completing;Completed;Terminating;Terminated;Failed
type JobPhase string

const (
	// Pending is a job waiting for its gang to be scheduled.
	Pending JobPhase = "Pending"
	// Aborting is a job that was aborted and whose pods are being released.
	Aborting JobPhase = "Aborting"
	// Aborted is a job that was aborted (by a policy, a Command or spec.suspend); it can be resumed.
	Aborted JobPhase = "Aborted"
	// Running is a job with at least minAvailable pods running or finished.
	Running JobPhase = "Running"
	// Restarting is a job whose pods are being deleted so it can run again.
	Restarting JobPhase = "Restarting"
	// Completing is a job that is done and whose remaining pods are being released.
	Completing JobPhase = "Completing"
	// Completed is a job that succeeded.
	Completed JobPhase = "Completed"
	// Terminating is a job that was terminated and whose pods are being released.
	Terminating JobPhase = "Terminating"
	// Terminated is a job that was ended by a policy or a Command.
	Terminated JobPhase = "Terminated"
	// Failed is a job that failed: it ran out of retries or too few of its pods succeeded.
	Failed JobPhase = "Failed"
)

// JobState is the job's phase with the reason of its last change.
type JobState struct {
	// phase is the phase of the job.
	// +optional
	Phase JobPhase `json:"phase,omitempty"`

	// reason is a one-word, CamelCase reason for the last phase change.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Reason string `json:"reason,omitempty"`

	// message says, for a person, why the phase last changed.
	// +kubebuilder:validation:MaxLength=32768
	// +optional
	Message string `json:"message,omitempty"`

	// lastTransitionTime is when the phase last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// TaskState counts a task's pods by phase.
type TaskState struct {
	// phase maps a pod phase to the number of the task's pods in it.
	// +optional
	Phase map[corev1.PodPhase]int32 `json:"phase,omitempty"`
}

// JobHealth is status.health: the job's conditions in one word.
type JobHealth string

// The values of status.health.
const (
	// HealthProgressing: the job is pending, running or changing phase.
	HealthProgressing JobHealth = "Progressing"
	// HealthSucceeded: the job completed (Ready=True).
	HealthSucceeded JobHealth = "Succeeded"
	// HealthFailed: the job failed, was terminated or aborted, or its spec is bad input
	// (Stalled=True).
	HealthFailed JobHealth = "Failed"
	// HealthSuspended: the job is held by spec.suspend.
	HealthSuspended JobHealth = "Suspended"
)

// JobStatus is the observed state of a Job.
type JobStatus struct {
	// state is the job's phase with the reason of its last change.
	// +optional
	State JobState `json:"state,omitempty"`

	// minAvailable is the gang size in force: spec.minAvailable, or the sum over tasks.
	// +optional
	MinAvailable int32 `json:"minAvailable,omitempty"`

	// taskStatusCount counts each task's pods by phase.
	// +optional
	TaskStatusCount map[string]TaskState `json:"taskStatusCount,omitempty"`

	// pending is the number of pending pods.
	// +optional
	Pending int32 `json:"pending,omitempty"`

	// running is the number of running pods.
	// +optional
	Running int32 `json:"running,omitempty"`

	// succeeded is the number of succeeded pods.
	// +optional
	Succeeded int32 `json:"succeeded,omitempty"`

	// failed is the number of failed pods.
	// +optional
	Failed int32 `json:"failed,omitempty"`

	// terminating is the number of pods being deleted.
	// +optional
	Terminating int32 `json:"terminating,omitempty"`

	// unknown is the number of pods in phase Unknown.
	// +optional
	Unknown int32 `json:"unknown,omitempty"`

	// version is the run of the job: it goes up each time the whole job is restarted, and pods
	// carry it in the volcano.sh/job-version annotation.
	// +optional
	Version int32 `json:"version,omitempty"`

	// retryCount is the number of times the job was restarted by a policy; compared with
	// spec.maxRetry.
	// +optional
	RetryCount int32 `json:"retryCount,omitempty"`

	// runningDuration is how long the job ran, from creation to its last phase change.
	// +optional
	RunningDuration *metav1.Duration `json:"runningDuration,omitempty"`

	// controlledResources names the objects the job made: plugin-<name> for plugins and
	// volume-pvc-<name> for claims.
	// +optional
	ControlledResources map[string]string `json:"controlledResources,omitempty"`

	// observedGeneration is the spec generation the controller last took up in full.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// handledCommands are the UIDs of the last Commands (bus.volcano.sh) the controller carried
	// out for the job, oldest first. A Command is deleted only once its UID is recorded here,
	// so a reconcile that still sees it does not act on it twice. Caldera only; Volcano has no
	// such field.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=64
	// +optional
	HandledCommands []string `json:"handledCommands,omitempty"`

	// health sums the conditions up in one word a label selector can match, for tools that
	// cannot select a condition by type (an Argo Workflows resource step's successCondition
	// "status.health == Succeeded" and failureCondition "status.health == Failed"): Succeeded
	// when Ready (Completed); Failed when Stalled, for a failed, terminated or aborted run and
	// for bad input alike (the job stays phase Pending then); Suspended when held by
	// spec.suspend; Progressing otherwise. Caldera only; Volcano has no such field.
	// +kubebuilder:validation:Enum=Progressing;Succeeded;Failed;Suspended
	// +optional
	Health JobHealth `json:"health,omitempty"`

	// conditions are the job's standard conditions: Ready, Reconciling and Stalled (kstatus),
	// read by Flux, Argo CD and kubectl wait.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true

// JobList is a list of Jobs.
type JobList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of Jobs.
	Items []Job `json:"items"`
}

func init() {
	register(&Job{}, &JobList{})
}

// GetConditions returns the job's conditions.
func (in *Job) GetConditions() []metav1.Condition {
	return in.Status.Conditions
}

// SetConditions sets the job's conditions.
func (in *Job) SetConditions(conditions []metav1.Condition) {
	in.Status.Conditions = conditions
}
