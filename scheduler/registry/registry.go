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

// Package registry lists every action and plugin the scheduler can be configured with.
package registry

import (
	"github.com/caldera-sh/caldera/scheduler/actions/allocate"
	"github.com/caldera-sh/caldera/scheduler/actions/backfill"
	"github.com/caldera-sh/caldera/scheduler/actions/enqueue"
	"github.com/caldera-sh/caldera/scheduler/actions/preempt"
	"github.com/caldera-sh/caldera/scheduler/actions/reclaim"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/plugins/binpack"
	"github.com/caldera-sh/caldera/scheduler/plugins/capacity"
	"github.com/caldera-sh/caldera/scheduler/plugins/conformance"
	"github.com/caldera-sh/caldera/scheduler/plugins/drf"
	"github.com/caldera-sh/caldera/scheduler/plugins/gang"
	"github.com/caldera-sh/caldera/scheduler/plugins/networktopology"
	"github.com/caldera-sh/caldera/scheduler/plugins/nodeorder"
	"github.com/caldera-sh/caldera/scheduler/plugins/overcommit"
	"github.com/caldera-sh/caldera/scheduler/plugins/predicates"
	"github.com/caldera-sh/caldera/scheduler/plugins/priority"
	"github.com/caldera-sh/caldera/scheduler/plugins/proportion"
	"github.com/caldera-sh/caldera/scheduler/plugins/sla"
)

// Default returns the registry of every built-in action and plugin.
func Default() framework.Registry {
	actions := []framework.Action{enqueue.New(), allocate.New(), backfill.New(), preempt.New(), reclaim.New()}
	r := framework.Registry{
		Plugins: map[string]framework.PluginBuilder{
			priority.Name:        priority.New,
			gang.Name:            gang.New,
			conformance.Name:     conformance.New,
			drf.Name:             drf.New,
			proportion.Name:      proportion.New,
			sla.Name:             sla.New,
			predicates.Name:      predicates.New,
			nodeorder.Name:       nodeorder.New,
			binpack.Name:         binpack.New,
			overcommit.Name:      overcommit.New,
			networktopology.Name: networktopology.New,
			capacity.Name:        capacity.New,
		},
		Actions:         map[string]framework.Action{},
		ActionArguments: map[string]framework.ActionArgumentsCheck{},
	}
	for _, a := range actions {
		r.Actions[a.Name()] = a
		// Volcano's allocate arguments are accepted for compatibility.
		r.ActionArguments[a.Name()] = func(args conf.Arguments) error { return args.CheckKeys(nil) }
	}
	r.ActionArguments[allocate.Name] = func(args conf.Arguments) error {
		return args.CheckKeys([]string{"predicateErrorCacheEnable", "enablePredicateErrorCache"})
	}
	// Volcano's tuning of its node-by-node preemption search; Caldera's preemption simulates the
	// whole gang instead, so they are accepted and reported as having no effect.
	preemptTuning := []string{"enableTopologyAwarePreemption", "topologyAwarePreemptWorkerNum",
		"minCandidateNodesPercentage", "minCandidateNodesAbsolute", "maxCandidateNodesAbsolute"}
	r.ActionArguments[preempt.Name] = func(args conf.Arguments) error { return args.CheckKeys(preemptTuning) }
	r.IgnoredArguments = map[string][]string{preempt.Name: preemptTuning}
	r.IgnoredPluginArguments = map[string]map[string]string{
		predicates.Name: {
			"predicate.GPUSharingEnable":   "GPU sharing by memory",
			"predicate.GPUNumberEnable":    "GPU sharing by count",
			"predicate.ProportionalEnable": "proportional cpu and memory for GPU pods",
		},
		networktopology.Name: networktopology.Ignored,
		capacity.Name:        capacity.Ignored,
		nodeorder.Name: {
			"imagelocality.weight":  "the image-locality score",
			"selectorspread.weight": "the selector-spread score",
			"volumebinding.weight":  "the storage-capacity score of volume binding",
		},
	}
	r.Hierarchical = []string{capacity.Name, drf.Name}
	// Volcano's gang-aware actions are the same as preempt and reclaim here, which take victims
	// as whole jobs or surplus pods and simulate the gang before evicting.
	for _, alias := range []string{"gangpreempt", "gangPreempt"} {
		r.Actions[alias] = r.Actions[preempt.Name]
		r.ActionArguments[alias] = func(args conf.Arguments) error { return args.CheckKeys(nil) }
	}
	for _, alias := range []string{"gangreclaim", "gangReclaim"} {
		r.Actions[alias] = r.Actions[reclaim.Name]
		r.ActionArguments[alias] = func(args conf.Arguments) error { return args.CheckKeys(nil) }
	}
	return r
}
