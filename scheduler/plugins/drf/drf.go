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

// Package drf orders jobs by dominant resource share (the largest fraction of any cluster
// resource a job holds): the job with the smaller share goes first. A task may preempt a task of
// another job only when, after the move, the preemptor's job still holds a smaller (or equal)
// share than the victim's.
//
// With enableHierarchy: true it is Volcano's hierarchical DRF (see Hierarchy): queues are ordered
// by their place in the tree their volcano.sh/hierarchy annotations make, and a queue reclaims
// from another that would still come after it.
package drf

import (
	"math"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "drf"

const shareDelta = 1e-6

type plugin struct{}

// New builds the plugin; it takes no arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	if err := args.CheckKeys(nil); err != nil {
		return nil, err
	}
	return &plugin{}, nil
}

func (p *plugin) Name() string { return Name }

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	total := ssn.TotalResource.Clone()
	ssn.AddJobOrderFn(Name, func(l, r *api.JobInfo) int {
		ls, rs := Share(&l.Allocated, &total), Share(&r.Allocated, &total)
		switch {
		case math.Abs(ls-rs) <= shareDelta:
			return 0
		case ls < rs:
			return -1
		default:
			return 1
		}
	})
	ssn.AddPreemptableFn(Name, func(preemptor *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
		return Preemptable(ssn.Jobs, &total, preemptor, candidates), false
	})
	if !ssn.HierarchyEnabled(Name) {
		return
	}
	h := NewHierarchy(&total, ssn.Queues, ssn.Jobs)
	queueOf := func(t *api.TaskInfo) string {
		if j := ssn.Jobs[t.Job]; j != nil {
			return j.Queue
		}
		return ""
	}
	ssn.AddQueueOrderFn(Name, func(l, r *api.QueueInfo) int {
		switch c := h.Compare(l.Name, r.Name); {
		case c < 0:
			return -1
		case c > 0:
			return 1
		}
		return 0
	})
	ssn.AddReclaimableFn(Name, func(reclaimer *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
		return h.Reclaimable(reclaimer, queueOf(reclaimer), candidates, queueOf), false
	})
	ssn.AddEventHandler(&framework.EventHandler{
		AllocateFunc:   func(e *framework.Event) { h.Add(e.Task.Job, e.Task.Resreq, 1) },
		DeallocateFunc: func(e *framework.Event) { h.Add(e.Task.Job, e.Task.Resreq, -1) },
	})
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Share is the dominant share of allocated in total: the largest allocated/total over the
// resources the cluster has.
func Share(allocated, total *api.Resource) float64 {
	var share float64
	ratio := func(a, t int64) {
		if t > 0 {
			share = math.Max(share, float64(a)/float64(t))
		}
	}
	ratio(allocated.MilliCPU, total.MilliCPU)
	ratio(allocated.Memory, total.Memory)
	for name, t := range total.Scalar {
		ratio(allocated.Scalar[name], t)
	}
	return share
}

// Preemptable keeps candidates of other jobs whose share, after losing them, stays at least
// the preemptor job's share after gaining the preemptor.
func Preemptable(jobs map[api.JobID]*api.JobInfo, total *api.Resource, preemptor *api.TaskInfo, candidates []*api.TaskInfo) []*api.TaskInfo {
	pj := jobs[preemptor.Job]
	if pj == nil {
		return nil
	}
	after := pj.Allocated.Clone()
	after.Add(preemptor.Resreq)
	ls := Share(&after, total)
	remaining := map[api.JobID]*api.Resource{}
	var out []*api.TaskInfo
	for _, c := range candidates {
		if c.Job == preemptor.Job {
			out = append(out, c)
			continue
		}
		r, ok := remaining[c.Job]
		if !ok {
			cj := jobs[c.Job]
			if cj == nil {
				continue
			}
			cp := cj.Allocated.Clone()
			r = &cp
			remaining[c.Job] = r
		}
		r.Sub(c.Resreq)
		if rs := Share(r, total); ls < rs || math.Abs(ls-rs) <= shareDelta {
			out = append(out, c)
		} else {
			r.Add(c.Resreq)
		}
	}
	return out
}
