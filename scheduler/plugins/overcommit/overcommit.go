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

// Package overcommit admits a PodGroup only while the cluster, overcommitted by a factor
// (argument overcommit-factor, default 1.2), can hold its minResources on top of what is used
// and what admitted jobs still need.
package overcommit

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "overcommit"

// FactorArgument is the argument holding the overcommit factor.
const FactorArgument = "overcommit-factor"

// DefaultFactor is the overcommit factor when none is given.
const DefaultFactor = 1.2

type plugin struct{ factor float64 }

// New builds the plugin from its arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	if err := args.CheckKeys([]string{FactorArgument}); err != nil {
		return nil, err
	}
	f, err := args.Float(FactorArgument, DefaultFactor)
	if err != nil {
		return nil, err
	}
	if f < 1 {
		return nil, fmt.Errorf("%s: must be 1.0 or more, got %v", FactorArgument, f)
	}
	return &plugin{factor: f}, nil
}

func (p *plugin) Name() string { return Name }

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	var inqueue api.Resource
	for _, u := range ssn.Snapshot.Usage {
		inqueue.Add(&u.Inqueue)
	}
	total, used := ssn.Snapshot.TotalAllocatable.Clone(), ssn.Snapshot.TotalUsed.Clone()
	ssn.AddJobEnqueueableFn(Name, func(j *api.JobInfo) int {
		if j.MinResources == nil {
			return framework.Permit
		}
		if d, ok := Fits(j.MinResources, &inqueue, &total, &used, p.factor); !ok {
			what := "this PodGroup's minResources"
			if j.PodOnly {
				what = "this pod's requests"
			}
			ssn.Explain(j.UID, fmt.Sprintf("resource in cluster is overused: the cluster offers %s of %s (%.1f times overcommitted), "+
				"pods use %s and admitted jobs still need %s; %s need %s more; "+
				"wait for running jobs to finish or add nodes",
				api.FormatAmount(d, total.Get(d)), d, p.factor, api.FormatAmount(d, used.Get(d)),
				api.FormatAmount(d, inqueue.Get(d)), what, api.FormatAmount(d, j.MinResources.Get(d))))
			return framework.Reject
		}
		return framework.Permit
	})
	ssn.AddJobEnqueuedFn(Name, func(j *api.JobInfo) {
		if j.MinResources != nil {
			inqueue.Add(j.MinResources)
		}
	})
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Fits reports whether min fits in total*factor - used - inqueue on every resource min asks
// for, and if not, the first resource that does not.
func Fits(min, inqueue, total, used *api.Resource, factor float64) (corev1.ResourceName, bool) {
	for _, d := range min.Names() {
		idle := math.Floor(float64(total.Get(d))*factor) - float64(used.Get(d)) - float64(inqueue.Get(d))
		if float64(min.Get(d)) > idle {
			return d, false
		}
	}
	return "", true
}
