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

// Package allocate places gangs. Queues take turns in queue order (skipping overused ones), one
// job at a time in job order; a job's pending tasks are tried in task order, each on the best
// node with room that the queue allows. The job's placements are committed (handed to the
// binder) only when the job is ready, that is when its gang minimum is met; a job that is not
// ready but pipelined keeps its placements for the rest of the cycle without binding them;
// otherwise every placement of the job is undone.
package allocate

import (
	"fmt"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the action's name.
const Name = "allocate"

type action struct{}

// New returns the action.
func New() framework.Action { return &action{} }

func (a *action) Name() string { return Name }

func (a *action) Execute(ssn *framework.Session) {
	enqueueConfigured := ssn.Config.ActionConfigured("enqueue")
	var jobs []*api.JobInfo
	for _, j := range ssn.PendingJobs() {
		if !j.Schedulable() {
			continue
		}
		if j.Phase == schedulingv1beta1.PodGroupPending {
			if enqueueConfigured {
				continue
			}
			// Without an enqueue action, jobs are admitted here.
			ssn.SetJobPhase(j, schedulingv1beta1.PodGroupInqueue)
			ssn.MarkAttempted(j)
		}
		if !hasPendingWork(j) && !j.HeldByGates() {
			continue
		}
		ssn.MarkAttempted(j)
		if v := ssn.JobValid(j); v != nil {
			ssn.Explain(j.UID, v.Message)
			continue
		}
		jobs = append(jobs, j)
	}
	turns := ssn.NewQueueTurns(jobs, func(name string, q *api.QueueInfo, js []*api.JobInfo) bool {
		if q != nil {
			return true
		}
		for _, j := range js {
			ssn.Explain(j.UID, framework.MissingQueueMessage(name))
		}
		return false
	})
	for q, js, ok := turns.Next(); ok; q, js, ok = turns.Next() {
		if ssn.Overused(q) {
			note := ssn.QueueNote(q.Name)
			if note == "" {
				note = fmt.Sprintf("queue %s is using its whole deserved share; its jobs wait until it holds less", q.Name)
			}
			for _, j := range js {
				ssn.ExplainShare(j.UID, note)
			}
			continue
		}
		Job(ssn, q, js[0])
		turns.Again(q, js[1:])
	}
}

// hasPendingWork reports whether a job has a pending task that requests something (those that
// request nothing are left to backfill).
func hasPendingWork(j *api.JobInfo) bool {
	return j.Count(api.Pending) > j.PendingBestEffortNum()
}

// Job tries to place a job's pending tasks and commits, keeps or undoes the placements
// as the job's readiness decides. It reports whether the placements were committed.
func Job(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo) bool {
	stmt := ssn.NewStatement()
	search := framework.NewNodeSearch()
	tasks := ssn.PendingTasks(j, false)
	explained := false
	for i, t := range tasks {
		// Stop when the gang can no longer be met with the tasks left.
		left := int32(len(tasks) - i)
		if j.ReadyTaskNum()+j.WaitingTaskNum()+j.PendingBestEffortNum()+left < j.MinAvailable {
			break
		}
		if !ssn.Allocatable(q, t) {
			if !explained {
				// Say whether the cluster, not only the queue's share, lacks room for it.
				explained = true
				if p, fe := ssn.SelectNode(t, search); p == nil {
					ssn.RecordFitErrors(t, fe)
				}
			}
			continue
		}
		p, fe := ssn.SelectNode(t, search)
		if p == nil {
			ssn.RecordFitErrors(t, fe)
			continue
		}
		var err error
		if p.Pipelined {
			err = stmt.Pipeline(t, p.Node.Name)
		} else {
			err = stmt.Allocate(t, p.Node.Name)
		}
		if err != nil {
			ssn.Log.Error(err, "placing a task", "task", t.Namespace+"/"+t.Name, "node", p.Node.Name)
		}
	}
	switch {
	case ssn.JobReady(j):
		stmt.Commit()
		return true
	case ssn.JobPipelined(j):
		stmt.Keep()
	default:
		stmt.Discard()
	}
	return false
}
