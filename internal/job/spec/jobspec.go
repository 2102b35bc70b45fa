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

// Package spec is the one home of the defaults a job's spec gets at reconcile time and that
// more than one part of Caldera reads: the gang size (a task's and the job's minAvailable) and
// the plugins a plugin implies. The lifecycle (EffectiveSpec), the PodGroup builder (minMember,
// minTaskMember, minResources), the job plugins and the CEL variables all call these functions,
// so they cannot disagree. The rules are Volcano's (its mutating webhook's defaults), computed
// instead of written back. The functions are pure and never change their arguments. A task's
// effective name (default<i> when it has none) is naming.TaskName, beside the other names.
package spec

import (
	"slices"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Names of the plugins that imply others.
const (
	svcPlugin        = naming.SvcPluginName
	sshPlugin        = naming.SSHPluginName
	tensorflowPlugin = "tensorflow"
	pytorchPlugin    = "pytorch"
	mpiPlugin        = "mpi"
	rayPlugin        = "ray"
)

// implied lists, per plugin, the plugins it brings with it when the job does not name them, as
// Volcano's webhook adds them: svc for tensorflow, pytorch, mpi and ray; ssh for mpi.
var implied = map[string][]string{
	rayPlugin:        {svcPlugin},
	tensorflowPlugin: {svcPlugin},
	pytorchPlugin:    {svcPlugin},
	mpiPlugin:        {svcPlugin, sshPlugin},
}

// TaskMinAvailable is a task's minAvailable with Volcano's default: spec.minAvailable when set;
// else, for a partitioned task with partitionPolicy.minPartitions > 0,
// minPartitions × partitionSize; else replicas. It is the PodGroup's minTaskMember of the task.
func TaskMinAvailable(task *batchv1alpha1.TaskSpec) int32 {
	switch {
	case task.MinAvailable != nil:
		return *task.MinAvailable
	case task.PartitionPolicy != nil && task.PartitionPolicy.MinPartitions > 0:
		return task.PartitionPolicy.MinPartitions * task.PartitionPolicy.PartitionSize
	default:
		return task.Replicas
	}
}

// JobMinAvailable is a job's gang size with Volcano's default: spec.minAvailable when above 0,
// else the sum of the tasks' TaskMinAvailable. It is the PodGroup's minMember. When some tasks
// depend on others (dependsOn) and spec.minAvailable is not set, the default is the sum over
// the tasks that start first (those without dependsOn) only: the others are created once those
// run, so a gang counting them could never form.
func JobMinAvailable(spec *batchv1alpha1.JobSpec) int32 {
	if spec.MinAvailable > 0 {
		return spec.MinAvailable
	}
	var first int32
	staged := false
	for i := range spec.Tasks {
		t := &spec.Tasks[i]
		if t.DependsOn != nil && len(t.DependsOn.Name) > 0 {
			staged = true
			continue
		}
		first += TaskMinAvailable(t)
	}
	if staged {
		return first
	}
	return TotalTaskMinAvailable(spec)
}

// TotalTaskMinAvailable is the sum of the tasks' TaskMinAvailable.
func TotalTaskMinAvailable(spec *batchv1alpha1.JobSpec) int32 {
	var sum int32
	for i := range spec.Tasks {
		sum += TaskMinAvailable(&spec.Tasks[i])
	}
	return sum
}

// WithImpliedPlugins returns a copy of a job's spec.plugins with the plugins they imply added
// with no arguments (an empty list, as Volcano's webhook writes `svc: []`), unless the job names
// them itself, in which case they keep their arguments. nil stays nil.
func WithImpliedPlugins(plugins map[string][]string) map[string][]string {
	if plugins == nil {
		return nil
	}
	out := make(map[string][]string, len(plugins)+2)
	for name, args := range plugins {
		out[name] = slices.Clone(args)
	}
	for name := range plugins {
		for _, need := range implied[name] {
			if _, ok := out[need]; !ok {
				out[need] = []string{}
			}
		}
	}
	return out
}
