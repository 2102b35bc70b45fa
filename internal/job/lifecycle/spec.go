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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
	jobspec "github.com/caldera-sh/caldera/internal/job/spec"
	"github.com/caldera-sh/caldera/internal/job/validation"
)

// DefaultMaxRetry is what a job or task maxRetry of 0 means, as in Volcano.
const DefaultMaxRetry int32 = 3

// UnlimitedRetry is the task maxRetry that never fails the task on container restarts.
const UnlimitedRetry int32 = -1

// EffectiveSpec returns a copy of spec with the defaults computed at reconcile time filled in;
// spec itself is not changed, and the result is never meant to be written back:
//
//   - an unnamed task is named default<i>, i its position (naming.TaskName);
//   - a task's minAvailable, when unset, is partitionPolicy.minPartitions*partitionSize when
//     minPartitions > 0, else replicas;
//   - a task's maxRetry 0 is DefaultMaxRetry (3); -1 stays unlimited;
//   - the job's minAvailable 0 is the sum of the tasks' minAvailable;
//   - the job's maxRetry 0 is DefaultMaxRetry (3);
//   - an empty schedulerName is defaultSchedulerName;
//   - plugins gain the plugins others imply: svc for tensorflow, pytorch, mpi and ray; ssh for mpi
//     (with no arguments; a plugin the job names keeps its arguments).
//
// It returns an error naming the field and the fix when the spec cannot be run as written:
// no tasks, duplicate task names, a minAvailable above the replicas, a maxRetry below -1 (task)
// or 0 (job), partitions that do not add up to the replicas, or dependsOn naming an unknown
// task, the task itself, or forming a cycle.
func EffectiveSpec(spec *batchv1alpha1.JobSpec, defaultSchedulerName string) (*batchv1alpha1.JobSpec, error) {
	if spec == nil {
		return nil, field.Required(field.NewPath("spec"), "the job has no spec")
	}
	out := spec.DeepCopy()
	for i := range out.Tasks {
		t := &out.Tasks[i]
		t.Name = naming.TaskName(out.Tasks, i)
		minAvailable := taskMinAvailable(t)
		t.MinAvailable = &minAvailable
		t.MaxRetry = taskMaxRetry(t)
	}
	out.MinAvailable = jobMinAvailable(out)
	out.MaxRetry = jobMaxRetry(out)
	if out.SchedulerName == "" {
		out.SchedulerName = defaultSchedulerName
	}
	out.Plugins = withImpliedPlugins(out.Plugins)
	if errs := validateSpec(spec, out); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return out, nil
}

// taskMinAvailable is a task's minAvailable with its default (jobspec.TaskMinAvailable).
func taskMinAvailable(t *batchv1alpha1.TaskSpec) int32 {
	return jobspec.TaskMinAvailable(t)
}

// taskMaxRetry is a task's maxRetry with its default.
func taskMaxRetry(t *batchv1alpha1.TaskSpec) int32 {
	if t.MaxRetry == 0 {
		return DefaultMaxRetry
	}
	return t.MaxRetry
}

// jobMinAvailable is the job's minAvailable with its default (jobspec.JobMinAvailable).
func jobMinAvailable(spec *batchv1alpha1.JobSpec) int32 {
	return jobspec.JobMinAvailable(spec)
}

// jobMaxRetry is the job's maxRetry with its default.
func jobMaxRetry(spec *batchv1alpha1.JobSpec) int32 {
	if spec.MaxRetry == 0 {
		return DefaultMaxRetry
	}
	return spec.MaxRetry
}

// totalReplicas is the sum of the tasks' replicas.
func totalReplicas(spec *batchv1alpha1.JobSpec) int32 {
	var sum int32
	for _, t := range spec.Tasks {
		sum += t.Replicas
	}
	return sum
}

// totalTaskMinAvailable is the sum of the tasks' minAvailable.
func totalTaskMinAvailable(spec *batchv1alpha1.JobSpec) int32 {
	return jobspec.TotalTaskMinAvailable(spec)
}

// findTask is the task whose effective name (naming.TaskName) is name, or nil; spec may be
// raw or effective.
func findTask(spec *batchv1alpha1.JobSpec, name string) *batchv1alpha1.TaskSpec {
	if i := naming.TaskIndex(spec.Tasks, name); i >= 0 {
		return &spec.Tasks[i]
	}
	return nil
}

// withImpliedPlugins returns a copy of plugins with the implied plugins added
// (jobspec.WithImpliedPlugins).
func withImpliedPlugins(plugins map[string][]string) map[string][]string {
	return jobspec.WithImpliedPlugins(plugins)
}

// validateSpec checks what EffectiveSpec needs; raw is the spec as written (for minAvailable 0
// versus a computed sum), eff the spec with defaults.
func validateSpec(raw, eff *batchv1alpha1.JobSpec) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec")
	if len(eff.Tasks) == 0 {
		return append(errs, field.Required(path.Child("tasks"), "add at least one task"))
	}
	seen := map[string]bool{}
	for i := range eff.Tasks {
		t := &eff.Tasks[i]
		tp := path.Child("tasks").Index(i)
		if seen[t.Name] {
			errs = append(errs, field.Duplicate(tp.Child("name"), t.Name))
		}
		seen[t.Name] = true
		errs = append(errs, validateTask(tp, t)...)
	}
	total := totalReplicas(eff)
	if raw.MinAvailable < 0 || raw.MinAvailable > total {
		errs = append(errs, field.Invalid(path.Child("minAvailable"), raw.MinAvailable,
			fmt.Sprintf("must be between 0 and the sum of tasks[*].replicas (%d); lower minAvailable or add replicas", total)))
	}
	if raw.MaxRetry < 0 {
		errs = append(errs, field.Invalid(path.Child("maxRetry"), raw.MaxRetry, "must be >= 0 (0 means 3)"))
	}
	return append(errs, validateDependsOn(path.Child("tasks"), eff)...)
}

// validateTask checks one task with its defaults.
func validateTask(tp *field.Path, t *batchv1alpha1.TaskSpec) field.ErrorList {
	var errs field.ErrorList
	if t.Replicas < 0 {
		errs = append(errs, field.Invalid(tp.Child("replicas"), t.Replicas, "must be >= 0"))
	}
	if minAvailable := *t.MinAvailable; minAvailable < 0 || minAvailable > t.Replicas {
		errs = append(errs, field.Invalid(tp.Child("minAvailable"), minAvailable,
			fmt.Sprintf("must be between 0 and replicas (%d); lower minAvailable or raise replicas", t.Replicas)))
	}
	if t.MaxRetry < UnlimitedRetry {
		errs = append(errs, field.Invalid(tp.Child("maxRetry"), t.MaxRetry, "must be >= -1: -1 means no limit, 0 means 3"))
	}
	if pp := t.PartitionPolicy; pp != nil && pp.TotalPartitions*pp.PartitionSize != t.Replicas {
		errs = append(errs, field.Invalid(tp.Child("replicas"), t.Replicas,
			fmt.Sprintf("must equal partitionPolicy.totalPartitions * partitionSize (%d)", pp.TotalPartitions*pp.PartitionSize)))
	}
	return errs
}

// validateDependsOn checks that dependsOn names other tasks of the job and forms no cycle.
func validateDependsOn(tasksPath *field.Path, spec *batchv1alpha1.JobSpec) field.ErrorList {
	var errs field.ErrorList
	for i, t := range spec.Tasks {
		if t.DependsOn == nil {
			continue
		}
		for j, dep := range t.DependsOn.Name {
			np := tasksPath.Index(i).Child("dependsOn", "name").Index(j)
			switch {
			case dep == naming.TaskName(spec.Tasks, i):
				errs = append(errs, field.Invalid(np, dep, "a task cannot depend on itself; remove it"))
			case findTask(spec, dep) == nil:
				errs = append(errs, field.NotFound(np, dep))
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if err := validation.DependsOnCycle(spec); err != nil {
		return append(errs, err)
	}
	if err := validation.DependsOnDeadlock(spec); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// templateParts are the parts of a spec whose change restarts the job.
type templateParts struct {
	Tasks   []taskTemplate             `json:"tasks"`
	Volumes []batchv1alpha1.VolumeSpec `json:"volumes,omitempty"`
	Plugins map[string][]string        `json:"plugins,omitempty"`
}

// taskTemplate is a task's name and pod template.
type taskTemplate struct {
	Name     string                 `json:"name"`
	Template corev1.PodTemplateSpec `json:"template"`
}

// TemplateHash is a short, stable hash of the parts of spec whose change restarts the job:
// each task's name and pod template, the volumes, and the plugins (with the implied ones, so
// naming an implied plugin does not count as a change). Replicas, minAvailable, policies and
// the other fields change in place and are not part of it. Unnamed tasks hash under their
// effective name (naming.TaskName), as EffectiveSpec names them.
func TemplateHash(spec *batchv1alpha1.JobSpec) string {
	parts := templateParts{Volumes: spec.Volumes, Plugins: withImpliedPlugins(spec.Plugins)}
	for name, args := range parts.Plugins {
		if args == nil {
			parts.Plugins[name] = []string{} // no arguments, however written
		}
	}
	for i := range spec.Tasks {
		parts.Tasks = append(parts.Tasks, taskTemplate{Name: naming.TaskName(spec.Tasks, i), Template: spec.Tasks[i].Template})
	}
	data, err := json.Marshal(parts)
	if err != nil {
		// These API types always encode; an empty hash reads as "unknown" and restarts nothing.
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}
