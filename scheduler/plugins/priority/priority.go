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

// Package priority orders jobs by their PodGroup's PriorityClass and tasks by their pod's
// priority (so a job's driver goes before its executors), and lets a task preempt only tasks of
// lower-priority jobs, or lower-priority tasks of its own job.
package priority

import (
	"fmt"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "priority"

type plugin struct{}

// New builds the plugin; it takes no arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	return &plugin{}, args.CheckKeys(nil)
}

func (p *plugin) Name() string { return Name }

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	ssn.AddTaskOrderFn(Name, TaskOrder)
	ssn.AddJobOrderFn(Name, JobOrder)
	ssn.AddPreemptableFn(Name, func(preemptor *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
		return Preemptable(ssn.Jobs, preemptor, candidates), false
	})
	ssn.AddJobStarvingFn(Name, JobStarving)
	ssn.AddJobValidFn(Name, Valid)
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Valid holds a job whose PodGroup names a PriorityClass that does not exist: its priority is
// not known, as the API server refuses a pod naming such a class.
func Valid(j *api.JobInfo) *framework.ValidateResult {
	if j.MissingPriorityClass == "" {
		return nil
	}
	return &framework.ValidateResult{
		Reason: schedulingv1beta1.PriorityClassNotFoundReason,
		Message: fmt.Sprintf("PriorityClass %q not found: create it, or name an existing class in spec.priorityClassName (the job's, which its PodGroup copies)",
			j.MissingPriorityClass),
	}
}

// TaskOrder puts the higher-priority task first.
func TaskOrder(l, r *api.TaskInfo) int { return compare(l.Priority, r.Priority) }

// JobOrder puts the higher-priority job first.
func JobOrder(l, r *api.JobInfo) int { return compare(l.Priority, r.Priority) }

func compare(l, r int32) int {
	switch {
	case l > r:
		return -1
	case l < r:
		return 1
	}
	return 0
}

// Preemptable keeps the candidates of lower-priority jobs, and lower-priority tasks of the
// preemptor's own job.
func Preemptable(jobs map[api.JobID]*api.JobInfo, preemptor *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo {
	pj := jobs[preemptor.Job]
	if pj == nil {
		return nil
	}
	var out []*api.TaskInfo
	for _, c := range candidates {
		cj := jobs[c.Job]
		if cj == nil {
			continue
		}
		if c.Job == preemptor.Job {
			if c.Priority < preemptor.Priority {
				out = append(out, c)
			}
			continue
		}
		if cj.Priority < pj.Priority {
			out = append(out, c)
		}
	}
	return out
}

// JobStarving reports whether a job has tasks still waiting for a node.
func JobStarving(job *api.JobInfo) bool {
	return job.HasPendingTasks() || job.WaitingTaskNum() > 0
}
