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

// Package backfill places the pending tasks that request no resources (BestEffort pods) of
// admitted jobs, on any node that passes the filters and has room for one more pod. A job's
// placements are committed when the job is ready, so a gang made only of such pods is still
// all-or-nothing.
package backfill

import (
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the action's name.
const Name = "backfill"

type action struct{}

// New returns the action.
func New() framework.Action { return &action{} }

func (a *action) Name() string { return Name }

func (a *action) Execute(ssn *framework.Session) {
	for _, j := range ssn.PendingJobs() {
		if !j.Schedulable() || j.Phase == schedulingv1beta1.PodGroupPending || j.PendingBestEffortNum() == 0 {
			continue
		}
		if ssn.JobValid(j) != nil {
			continue
		}
		ssn.MarkAttempted(j)
		stmt := ssn.NewStatement()
		search := framework.NewNodeSearch()
		for _, t := range ssn.PendingTasks(j, true) {
			p, fe := ssn.SelectNode(t, search)
			if p == nil || p.Pipelined {
				if fe != nil {
					ssn.RecordFitErrors(t, fe)
				}
				continue
			}
			if err := stmt.Allocate(t, p.Node.Name); err != nil {
				ssn.Log.Error(err, "placing a task", "task", t.Namespace+"/"+t.Name, "node", p.Node.Name)
			}
		}
		// Pending tasks that request nothing count as ready for allocate; here they must be placed.
		if ssn.JobReady(j) && j.ReadyTaskNum() >= j.MinAvailable {
			stmt.Commit()
		} else {
			stmt.Discard()
		}
	}
}
