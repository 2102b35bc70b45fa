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

package policy

import (
	"reflect"
	"strconv"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	jobspec "github.com/caldera-sh/caldera/internal/job/spec"
)

// The names of the variables a policy expression sees.
const (
	// VarJob is the job: its metadata, phase, counters and pod counts.
	VarJob = "job"
	// VarTasks maps each task name of the job to the task.
	VarTasks = "tasks"
	// VarTask is the task the event is about.
	VarTask = "task"
	// VarPod is the pod the event is about.
	VarPod = "pod"
	// VarEvent is the name of the event.
	VarEvent = "event"
	// VarElapsed is how long the job has been running.
	VarElapsed = "elapsed"
)

// varBit is a set of variables, one bit each.
type varBit uint8

const (
	bitJob varBit = 1 << iota
	bitTasks
	bitTask
	bitPod
	bitEvent
	bitElapsed
)

// varBits are the bits of the variables, by name.
var varBits = map[string]varBit{
	VarJob: bitJob, VarTasks: bitTasks, VarTask: bitTask, VarPod: bitPod, VarEvent: bitEvent, VarElapsed: bitElapsed,
}

// Size bounds used by the compile-time cost estimate. They describe realistic objects; an object
// larger than this is still evaluated, under the run-time cost limit.
const (
	maxNameLen        = 253
	maxLabelNameLen   = 63
	maxLabelKeyLen    = 317
	maxMapEntries     = 64
	maxAnnotationLen  = 256 * 1024
	maxPhaseLen       = 16
	maxReasonLen      = 128
	maxMessageLen     = 4096
	maxContainers     = 64
	maxConditions     = 32
	maxTasks          = 64
	maxEventLen       = 32
	maxConditionType  = 317
	maxConditionValue = 16
)

// taskPayload is what a caldera.Task object reads its fields from.
type taskPayload struct {
	name         string
	replicas     int64
	minAvailable int64
	counts       PodCounts
}

var (
	containerType = newObjectType(ContainerTypeName, reflect.TypeOf(&corev1.ContainerStatus{}),
		stringField("name", maxLabelNameLen, func(p any) string { return p.(*corev1.ContainerStatus).Name }),
		stringField("state", maxPhaseLen, func(p any) string { return containerState(p.(*corev1.ContainerStatus)) }),
		stringField("reason", maxReasonLen, func(p any) string { return containerReason(p.(*corev1.ContainerStatus)) }),
		intField("exitCode", func(p any) int64 {
			if t := p.(*corev1.ContainerStatus).State.Terminated; t != nil {
				return int64(t.ExitCode)
			}
			return 0
		}),
		intField("restartCount", func(p any) int64 { return int64(p.(*corev1.ContainerStatus).RestartCount) }),
		stringField("lastReason", maxReasonLen, func(p any) string {
			if t := p.(*corev1.ContainerStatus).LastTerminationState.Terminated; t != nil {
				return t.Reason
			}
			return ""
		}),
		intField("lastExitCode", func(p any) int64 {
			if t := p.(*corev1.ContainerStatus).LastTerminationState.Terminated; t != nil {
				return int64(t.ExitCode)
			}
			return 0
		}),
	)

	podConditionType = newObjectType(PodConditionTypeName, reflect.TypeOf(&corev1.PodCondition{}),
		stringField("type", maxConditionType, func(p any) string { return string(p.(*corev1.PodCondition).Type) }),
		stringField("status", maxConditionValue, func(p any) string { return string(p.(*corev1.PodCondition).Status) }),
		stringField("reason", maxReasonLen, func(p any) string { return p.(*corev1.PodCondition).Reason }),
		stringField("message", maxMessageLen, func(p any) string { return p.(*corev1.PodCondition).Message }),
	)

	podType = newObjectType(PodTypeName, reflect.TypeOf(&corev1.Pod{}),
		stringField("name", maxNameLen, func(p any) string { return p.(*corev1.Pod).Name }),
		intField("index", func(p any) int64 { return podIndex(p.(*corev1.Pod)) }),
		stringField("phase", maxPhaseLen, func(p any) string { return string(p.(*corev1.Pod).Status.Phase) }),
		stringField("reason", maxReasonLen, func(p any) string { return p.(*corev1.Pod).Status.Reason }),
		stringField("message", maxMessageLen, func(p any) string { return p.(*corev1.Pod).Status.Message }),
		stringField("node", maxNameLen, func(p any) string { return p.(*corev1.Pod).Spec.NodeName }),
		intField("exitCode", func(p any) int64 { return int64(PodExitCode(p.(*corev1.Pod))) }),
		objectListField("containers", maxContainers, containerType, func(p any) []ref.Val {
			return containerList(p.(*corev1.Pod).Status.ContainerStatuses)
		}),
		objectListField("initContainers", maxContainers, containerType, func(p any) []ref.Val {
			return containerList(p.(*corev1.Pod).Status.InitContainerStatuses)
		}),
		objectListField("conditions", maxConditions, podConditionType, func(p any) []ref.Val {
			conds := p.(*corev1.Pod).Status.Conditions
			out := make([]ref.Val, len(conds))
			for i := range conds {
				out[i] = podConditionType.newObject(&conds[i])
			}
			return out
		}),
	)

	taskType = newObjectType(TaskTypeName, reflect.TypeOf(&taskPayload{}),
		stringField("name", maxLabelNameLen, func(p any) string { return p.(*taskPayload).name }),
		intField("replicas", func(p any) int64 { return p.(*taskPayload).replicas }),
		intField("minAvailable", func(p any) int64 { return p.(*taskPayload).minAvailable }),
		intField("pending", func(p any) int64 { return int64(p.(*taskPayload).counts.Pending) }),
		intField("running", func(p any) int64 { return int64(p.(*taskPayload).counts.Running) }),
		intField("succeeded", func(p any) int64 { return int64(p.(*taskPayload).counts.Succeeded) }),
		intField("failed", func(p any) int64 { return int64(p.(*taskPayload).counts.Failed) }),
		intField("terminating", func(p any) int64 { return int64(p.(*taskPayload).counts.Terminating) }),
		intField("unknown", func(p any) int64 { return int64(p.(*taskPayload).counts.Unknown) }),
		intField("restarts", func(p any) int64 { return int64(p.(*taskPayload).counts.Restarts) }),
	)

	jobType = newObjectType(JobTypeName, reflect.TypeOf(&JobInput{}),
		stringField("name", maxNameLen, func(p any) string { return p.(*JobInput).job.Name }),
		stringField("namespace", maxLabelNameLen, func(p any) string { return p.(*JobInput).job.Namespace }),
		stringMapField("labels", maxMapEntries, maxLabelKeyLen, maxLabelNameLen, func(p any) map[string]string {
			return p.(*JobInput).job.Labels
		}),
		stringMapField("annotations", maxMapEntries, maxLabelKeyLen, maxAnnotationLen, func(p any) map[string]string {
			return p.(*JobInput).job.Annotations
		}),
		stringField("phase", maxPhaseLen, func(p any) string { return string(p.(*JobInput).job.Status.State.Phase) }),
		intField("retryCount", func(p any) int64 { return int64(p.(*JobInput).job.Status.RetryCount) }),
		intField("version", func(p any) int64 { return int64(p.(*JobInput).job.Status.Version) }),
		intField("minAvailable", func(p any) int64 { return int64(JobMinAvailable(p.(*JobInput).job)) }),
		intField("pending", func(p any) int64 { return int64(p.(*JobInput).Counts().Job.Pending) }),
		intField("running", func(p any) int64 { return int64(p.(*JobInput).Counts().Job.Running) }),
		intField("succeeded", func(p any) int64 { return int64(p.(*JobInput).Counts().Job.Succeeded) }),
		intField("failed", func(p any) int64 { return int64(p.(*JobInput).Counts().Job.Failed) }),
		intField("terminating", func(p any) int64 { return int64(p.(*JobInput).Counts().Job.Terminating) }),
		intField("unknown", func(p any) int64 { return int64(p.(*JobInput).Counts().Job.Unknown) }),
	)

	// varShapes are the size bounds of the variables, by name, for the cost estimate.
	varShapes = map[string]*shape{
		VarJob:   jobType.shape,
		VarTasks: {max: maxTasks, key: &shape{max: maxLabelNameLen}, elem: taskType.shape},
		VarTask:  taskType.shape,
		VarPod:   podType.shape,
		VarEvent: {max: maxEventLen},
	}

	// objectTypes are the object types by CEL type name.
	objectTypes = map[string]*objectType{
		JobTypeName: jobType, TaskTypeName: taskType, PodTypeName: podType,
		ContainerTypeName: containerType, PodConditionTypeName: podConditionType,
	}

	// emptyPod is the payload of pod when the event is about no pod.
	emptyPod = &corev1.Pod{}
)

// envOptions declares the object types and the variables.
func envOptions() []cel.EnvOption {
	return []cel.EnvOption{
		withObjectTypes(objectTypes),
		cel.Variable(VarJob, jobType.celType),
		cel.Variable(VarTasks, types.NewMapType(types.StringType, taskType.celType)),
		cel.Variable(VarTask, taskType.celType),
		cel.Variable(VarPod, podType.celType),
		cel.Variable(VarEvent, types.StringType),
		cel.Variable(VarElapsed, types.DurationType),
	}
}

func containerList(statuses []corev1.ContainerStatus) []ref.Val {
	out := make([]ref.Val, len(statuses))
	for i := range statuses {
		out[i] = containerType.newObject(&statuses[i])
	}
	return out
}

func containerState(c *corev1.ContainerStatus) string {
	switch {
	case c.State.Terminated != nil:
		return "terminated"
	case c.State.Running != nil:
		return "running"
	case c.State.Waiting != nil:
		return "waiting"
	}
	return ""
}

func containerReason(c *corev1.ContainerStatus) string {
	switch {
	case c.State.Terminated != nil:
		return c.State.Terminated.Reason
	case c.State.Waiting != nil:
		return c.State.Waiting.Reason
	}
	return ""
}

// podIndex is the pod's index in its task, from the volcano.sh/task-index label or annotation,
// or -1 when the pod has none.
func podIndex(pod *corev1.Pod) int64 {
	v, ok := pod.Labels[batchv1alpha1.TaskIndex]
	if !ok {
		v, ok = pod.Annotations[batchv1alpha1.TaskIndex]
	}
	if !ok {
		return -1
	}
	i, err := strconv.ParseInt(v, 10, 32)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

// PodTaskName is the name of the task a pod belongs to, from its volcano.sh/task-spec label or
// annotation; empty when it has neither.
func PodTaskName(pod *corev1.Pod) string {
	if v, ok := pod.Labels[batchv1alpha1.TaskSpecKey]; ok {
		return v
	}
	return pod.Annotations[batchv1alpha1.TaskSpecKey]
}

// PodExitCode is the exit code the variable pod.exitCode holds: that of the first container, in
// status order, that has terminated; when no container has, that of the first init container
// that terminated with a non-zero code; else 0.
func PodExitCode(pod *corev1.Pod) int32 {
	for i := range pod.Status.ContainerStatuses {
		if t := pod.Status.ContainerStatuses[i].State.Terminated; t != nil {
			return t.ExitCode
		}
	}
	for i := range pod.Status.InitContainerStatuses {
		if t := pod.Status.InitContainerStatuses[i].State.Terminated; t != nil && t.ExitCode != 0 {
			return t.ExitCode
		}
	}
	return 0
}

// JobMinAvailable is the gang size the variable job.minAvailable holds: the PodGroup's minMember
// (jobspec.JobMinAvailable).
func JobMinAvailable(job *batchv1alpha1.Job) int32 {
	return jobspec.JobMinAvailable(&job.Spec)
}

// taskMinAvailable is the value of tasks.<name>.minAvailable: the PodGroup's minTaskMember of
// the task (jobspec.TaskMinAvailable).
func taskMinAvailable(t *batchv1alpha1.TaskSpec) int32 {
	return jobspec.TaskMinAvailable(t)
}
