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

// Package sla holds a job to a service level: its waiting time, from the PodGroup annotation
// volcano.sh/sla-waiting-time (or the legacy sla-waiting-time) or the plugin argument
// sla-waiting-time for every job. Jobs with a waiting time go first, the nearest deadline
// first; once a job has waited that long it is admitted whatever the other plugins say, and it
// keeps the resources it is given in a cycle even before its gang is complete, so smaller jobs
// cannot take them and the large job is reserved its place.
package sla

import (
	"time"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "sla"

// WaitingTimeArgument is the argument holding every job's waiting time.
const WaitingTimeArgument = "sla-waiting-time"

type plugin struct {
	waitingTime *time.Duration
}

// New builds the plugin from its arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	if err := args.CheckKeys([]string{WaitingTimeArgument}); err != nil {
		return nil, err
	}
	d, err := args.Duration(WaitingTimeArgument, 0)
	if err != nil {
		return nil, err
	}
	p := &plugin{}
	if d > 0 {
		p.waitingTime = &d
	}
	return p, nil
}

func (p *plugin) Name() string { return Name }

// waiting returns a job's waiting time: its own, else the plugin's, else nil.
func (p *plugin) waiting(j *api.JobInfo) *time.Duration {
	if j.WaitingTime != nil {
		return j.WaitingTime
	}
	return p.waitingTime
}

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	ssn.AddJobOrderFn(Name, func(l, r *api.JobInfo) int { return Order(p.waiting(l), p.waiting(r), l, r) })
	vote := func(j *api.JobInfo) int { return Vote(p.waiting(j), j, ssn.Now) }
	ssn.AddJobEnqueueableFn(Name, vote)
	ssn.AddJobPipelinedFn(Name, vote)
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Order puts jobs with a waiting time first, the earliest deadline first.
func Order(lw, rw *time.Duration, l, r *api.JobInfo) int {
	switch {
	case lw == nil && rw == nil:
		return 0
	case lw == nil:
		return 1
	case rw == nil:
		return -1
	}
	ld, rd := l.CreationTime.Add(*lw), r.CreationTime.Add(*rw)
	switch {
	case ld.Before(rd):
		return -1
	case rd.Before(ld):
		return 1
	}
	return 0
}

// Vote forces a job through once it has waited its waiting time, and abstains otherwise.
func Vote(w *time.Duration, j *api.JobInfo, now time.Time) int {
	if w == nil || now.Sub(j.CreationTime) < *w {
		return framework.Abstain
	}
	return framework.ForcePermit
}
