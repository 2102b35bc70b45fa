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
	"slices"
	"sort"

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
	if len(jobs) == 0 {
		// Nothing to place: neither the turns nor the promises, which look at every job, are
		// needed, and a cycle with nothing pending stays short however many jobs run.
		return
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
	// untried holds, per job that had a turn and still has tasks to try, those tasks.
	untried := map[api.JobID][]*api.TaskInfo{}
	promised := newPromises(ssn)
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
		j, others := js[0], js[1:]
		tasks, ok := untried[j.UID]
		if !ok {
			tasks = ssn.PendingTasks(j, false)
		}
		left := Job(ssn, q, j, tasks, promised)
		promised.update(ssn, j)
		if len(left) > 0 {
			// The job met its minimum with tasks to spare: it waits for its next turn behind
			// the jobs its queue's order now puts first (its share grew), as in Volcano, so
			// that the jobs admitted beside it get their minimum before it grows further.
			untried[j.UID] = left
			others = insertInJobOrder(ssn, others, j)
		} else {
			delete(untried, j.UID)
		}
		turns.Again(q, others)
	}
}

// insertInJobOrder puts j into jobs, which are in job order, at its place in that order.
func insertInJobOrder(ssn *framework.Session, jobs []*api.JobInfo, j *api.JobInfo) []*api.JobInfo {
	at := sort.Search(len(jobs), func(i int) bool { return ssn.JobOrderFn(j, jobs[i]) })
	return slices.Insert(slices.Clone(jobs), at, j)
}

// hasPendingWork reports whether a job has a pending task that requests something (those that
// request nothing are left to backfill).
func hasPendingWork(j *api.JobInfo) bool {
	return j.Count(api.Pending) > j.PendingBestEffortNum()
}

// Job tries to place tasks, a job's pending tasks in task order, and commits, keeps or undoes
// the placements as the job's readiness decides. Once a placement makes the job ready (its gang
// is met) it stops, commits and returns the tasks it has not tried: the job's further tasks wait
// for its next turn, one task a turn, so that jobs share what is left in job order instead of
// the first one taking it all.
//
// A task beyond the job's minimum is placed only where it leaves room for the minimums of the
// other admitted jobs (see promises); when it would not, the job stops growing this cycle and
// says so.
//
// A job with a network topology is placed within one network domain (see placeInDomain).
func Job(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, tasks []*api.TaskInfo, promised *promises) (untried []*api.TaskInfo) {
	if nt := networkTopology(j); nt != nil {
		return placeInDomain(ssn, q, j, tasks, promised, nt)
	}
	return anywhere(ssn, q, j, tasks, promised)
}

// anywhere places a job's tasks on any node.
func anywhere(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, tasks []*api.TaskInfo, promised *promises) []*api.TaskInfo {
	stmt, untried, _ := try(ssn, q, j, tasks, promised, framework.NewNodeSearch(), ssn.RecordFitErrors)
	return settle(ssn, j, stmt, untried)
}

// settle commits the placements of a ready job (and returns the tasks it did not try), keeps
// those of a pipelined one and undoes the others.
func settle(ssn *framework.Session, j *api.JobInfo, stmt *framework.Statement, untried []*api.TaskInfo) []*api.TaskInfo {
	switch {
	case ssn.JobReady(j):
		stmt.Commit()
		return untried
	case ssn.JobPipelined(j):
		stmt.Keep()
	default:
		stmt.Discard()
	}
	return nil
}

// try places tasks in order on the nodes search looks at, recording why a task fits nowhere
// with record, until the job is ready with tasks left (returned untried) or the tasks run out.
// A job with subgroups (partitions) is placed subgroup by subgroup (see trySubGroups). It
// returns the statement holding the placements, for the caller to settle, and how many tasks it
// placed.
func try(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, tasks []*api.TaskInfo, promised *promises,
	search *framework.NodeSearch, record recorder) (stmt *framework.Statement, untried []*api.TaskInfo, placed int) {
	stmt = ssn.NewStatement()
	if len(j.SubGroups) > 0 {
		untried, placed = trySubGroups(ssn, q, j, stmt, tasks, promised, search, record)
		return stmt, untried, placed
	}
	untried, placed, _ = tryTasks(ssn, q, j, stmt, tasks, 0, promised, search, record, true)
	return stmt, untried, placed
}

// tryTasks places tasks in order into stmt; more is how many of the job's tasks come after
// them. With stopWhenReady it stops once the job is ready with tasks left, and returns those.
// It reports how many it placed, and whether it stopped because the job can no longer meet its
// gang or its further tasks wait for promised resources (then no later task should be tried).
func tryTasks(ssn *framework.Session, q *api.QueueInfo, j *api.JobInfo, stmt *framework.Statement, tasks []*api.TaskInfo, more int,
	promised *promises, search *framework.NodeSearch, record recorder, stopWhenReady bool) (untried []*api.TaskInfo, placed int, stopped bool) {
	explained := false
	for i, t := range tasks {
		if ssn.JobReady(j) {
			if ok, held := promised.allows(ssn, j, t.Resreq); !ok {
				// Every pod left says why, on its PodScheduled condition.
				fe := &api.FitErrors{Err: fmt.Sprintf("the pod is beyond its job's minimum and the free resources are promised "+
					"to admitted jobs that have not started yet (%s); it waits until they have", held)}
				for _, rest := range tasks[i:] {
					record(rest, fe)
				}
				return nil, placed, true
			}
		}
		// Stop when the gang can no longer be met with the tasks left.
		left := int32(len(tasks) - i + more)
		if j.ReadyTaskNum()+j.WaitingTaskNum()+j.PendingBestEffortNum()+left < j.MinAvailable {
			return nil, placed, true
		}
		if !ssn.Allocatable(q, t) {
			if !explained {
				// Say whether the cluster, not only the queue's share, lacks room for it.
				explained = true
				if p, fe := ssn.SelectNode(t, search); p == nil {
					record(t, fe)
				}
			}
			continue
		}
		p, fe := ssn.SelectNode(t, search)
		if p == nil {
			record(t, fe)
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
			continue
		}
		placed++
		if stopWhenReady && i+1 < len(tasks) && !p.Pipelined && ssn.JobReady(j) {
			return tasks[i+1:], placed, false
		}
	}
	return nil, placed, false
}
