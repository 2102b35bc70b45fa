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

// Package framework is the scheduling cycle's machinery: the Session a cycle works in, the
// Statement that makes a job's placements all-or-nothing, the plugin and action interfaces,
// and the rules that combine the callbacks plugins register, tier by tier, as Volcano does.
package framework

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
)

// Plugin is a scheduling policy. OnSessionOpen registers its callbacks on the session;
// OnSessionClose runs after the actions.
type Plugin interface {
	// Name is the plugin's name in the configuration.
	Name() string
	// OnSessionOpen registers callbacks and prepares per-cycle state.
	OnSessionOpen(ssn *Session)
	// OnSessionClose runs at the end of the cycle.
	OnSessionClose(ssn *Session)
}

// PluginBuilder makes a plugin from its arguments; it returns an error naming the bad argument.
type PluginBuilder func(args conf.Arguments) (Plugin, error)

// Action is one step of a cycle (enqueue, allocate, ...).
type Action interface {
	// Name is the action's name in the configuration.
	Name() string
	// Execute runs the action on the session.
	Execute(ssn *Session)
}

// ActionArgumentsCheck checks an action's arguments; nil means the action takes none.
type ActionArgumentsCheck func(conf.Arguments) error

// Registry is what the scheduler can be configured with.
type Registry struct {
	// Plugins are the plugin builders by name.
	Plugins map[string]PluginBuilder
	// Actions are the actions by name.
	Actions map[string]Action
	// ActionArguments check each action's arguments.
	ActionArguments map[string]ActionArgumentsCheck
	// IgnoredArguments are, per action, arguments of Volcano's that are accepted so that its
	// configurations load unchanged but have no effect here; a configuration that sets one is
	// reported (Config.Ignored).
	IgnoredArguments map[string][]string
	// IgnoredPluginArguments are, per plugin, arguments of Volcano's that ask for something
	// Caldera does not do, each with what that is; a configuration that turns one on (true, or a
	// number other than 0) is reported (Config.Ignored).
	IgnoredPluginArguments map[string]map[string]string
	// Hierarchical are the plugins that implement enableHierarchy; it is reported as having no
	// effect on the others.
	Hierarchical []string
}

// Known returns what the registry knows, for conf.Validate.
func (r Registry) Known() conf.Known {
	k := conf.Known{Plugins: map[string]func(conf.Arguments) error{}, ActionArguments: map[string]func(conf.Arguments) error{}}
	for name := range r.Actions {
		k.Actions = append(k.Actions, name)
	}
	sort.Strings(k.Actions)
	for name, build := range r.Plugins {
		build := build
		k.Plugins[name] = func(a conf.Arguments) error {
			_, err := build(a)
			return err
		}
	}
	for name, check := range r.ActionArguments {
		if check != nil {
			k.ActionArguments[name] = check
		}
	}
	return k
}

// Config is a checked configuration ready to open sessions with.
type Config struct {
	// Source is the configuration it was made from.
	Source *conf.SchedulerConfiguration
	// Actions are the actions to run, in order.
	Actions []Action
	// Tiers are the plugin options, tier by tier.
	Tiers []conf.Tier
	// Unknown are the plugins the configuration names that the scheduler does not implement,
	// left out of Tiers; whoever loads the configuration reports them.
	Unknown []UnknownPlugin
	// Ignored are the action arguments the configuration sets that have no effect here (see
	// Registry.IgnoredArguments); whoever loads the configuration reports them.
	Ignored []IgnoredArgument

	builders map[string]PluginBuilder
}

// ActionConfigured reports whether an action is in the configuration.
func (c *Config) ActionConfigured(name string) bool {
	for _, a := range c.Actions {
		if a.Name() == name {
			return true
		}
	}
	return false
}

// Compile checks a parsed configuration against the registry and returns it ready to use.
func Compile(cfg *conf.SchedulerConfiguration, reg Registry) (*Config, error) {
	if cfg == nil {
		return nil, errors.New("no configuration given")
	}
	ignored := ignoredPluginArguments(cfg, reg)
	cfg, unknown := withoutUnknownPlugins(cfg, reg)
	if err := conf.Validate(cfg, reg.Known()); err != nil {
		return nil, err
	}
	out := &Config{Source: cfg, Tiers: cfg.Tiers, builders: reg.Plugins, Unknown: unknown, Ignored: ignored}
	for i, c := range cfg.Configurations {
		for _, key := range reg.IgnoredArguments[c.Name] {
			if _, set := c.Arguments[key]; set {
				out.Ignored = append(out.Ignored, IgnoredArgument{Path: fmt.Sprintf("configurations[%d].arguments.%s", i, key), Action: c.Name, Name: key})
			}
		}
	}
	for _, name := range cfg.ActionNames() {
		a, ok := reg.Actions[name]
		if !ok {
			return nil, fmt.Errorf("actions: unknown action %q", name)
		}
		out.Actions = append(out.Actions, a)
	}
	return out, nil
}

// UnknownPlugin is a plugin a configuration names that the registry does not know.
type UnknownPlugin struct {
	// Path is where the configuration names it, e.g. tiers[1].plugins[3].name.
	Path string
	// Name is the plugin's name.
	Name string
}

// String says what was left out and what runs instead.
func (u UnknownPlugin) String() string {
	return fmt.Sprintf("%s: plugin %q is not implemented by Caldera and is left out; the configuration's other plugins run without it", u.Path, u.Name)
}

// IgnoredArgument is an action or plugin argument a configuration sets that has no effect here.
type IgnoredArgument struct {
	// Path is where the configuration sets it, e.g. configurations[0].arguments.enableTopologyAwarePreemption.
	Path string
	// Action or Plugin, and Name, are the action or the plugin and the argument.
	Action, Plugin, Name string
	// What is what a plugin argument asks for that Caldera does not do.
	What string
}

// String says what is ignored.
func (a IgnoredArgument) String() string {
	if a.Plugin != "" {
		return fmt.Sprintf("%s: argument %q of plugin %q turns on %s, which Caldera does not implement; it has no effect (remove it to silence this warning)", a.Path, a.Name, a.Plugin, a.What)
	}
	return fmt.Sprintf("%s: argument %q of action %q is accepted for compatibility with Volcano and has no effect in Caldera; remove it to silence this warning", a.Path, a.Name, a.Action)
}

// ignoredPluginArguments returns the plugin arguments of cfg that turn on something Caldera
// does not do (Registry.IgnoredPluginArguments).
func ignoredPluginArguments(cfg *conf.SchedulerConfiguration, reg Registry) []IgnoredArgument {
	var out []IgnoredArgument
	for i, tier := range cfg.Tiers {
		for j, p := range tier.Plugins {
			what := reg.IgnoredPluginArguments[p.Name]
			keys := make([]string, 0, len(what))
			for key := range what {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			if conf.EnabledOff(p.EnabledHierarchy) && !slices.Contains(reg.Hierarchical, p.Name) {
				out = append(out, IgnoredArgument{Path: fmt.Sprintf("tiers[%d].plugins[%d].enableHierarchy", i, j), Plugin: p.Name, Name: "enableHierarchy",
					What: "hierarchical sharing for this plugin (Caldera's queue hierarchies are the capacity plugin's, by spec.parent, and drf's, by volcano.sh/hierarchy)"})
			}
			for _, key := range keys {
				if !turnedOn(p.Arguments[key]) {
					continue
				}
				out = append(out, IgnoredArgument{Path: fmt.Sprintf("tiers[%d].plugins[%d].arguments.%s", i, j, key),
					Plugin: p.Name, Name: key, What: what[key]})
			}
		}
	}
	return out
}

// turnedOn reports whether an argument's value asks for something: true, or a number other than 0.
func turnedOn(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x != 0
	case int:
		return x != 0
	case int64:
		return x != 0
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			return b
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return err == nil && f != 0
	}
	return false
}

// withoutUnknownPlugins returns cfg without the plugins reg does not know, as Volcano's
// configurations often name plugins Caldera does not implement (capacity, deviceshare,
// network-topology-aware, ...): the others run, and the left-out ones are reported.
func withoutUnknownPlugins(cfg *conf.SchedulerConfiguration, reg Registry) (*conf.SchedulerConfiguration, []UnknownPlugin) {
	var unknown []UnknownPlugin
	out := *cfg
	out.Tiers = make([]conf.Tier, 0, len(cfg.Tiers))
	for i, tier := range cfg.Tiers {
		kept := conf.Tier{Plugins: make([]conf.PluginOption, 0, len(tier.Plugins))}
		for j, p := range tier.Plugins {
			if _, ok := reg.Plugins[p.Name]; !ok && p.Name != "" {
				unknown = append(unknown, UnknownPlugin{Path: fmt.Sprintf("tiers[%d].plugins[%d].name", i, j), Name: p.Name})
				continue
			}
			kept.Plugins = append(kept.Plugins, p)
		}
		out.Tiers = append(out.Tiers, kept)
	}
	return &out, unknown
}

// Load parses, checks and compiles a configuration text.
func Load(data []byte, reg Registry) (*Config, error) {
	cfg, err := conf.Parse(data)
	if err != nil {
		return nil, err
	}
	return Compile(cfg, reg)
}

// Event is passed to event handlers when a task is (de)allocated inside a session.
type Event struct {
	// Task is the task concerned.
	Task *api.TaskInfo
	// Node is the node it is placed on, or was placed on (an undone allocation's task no
	// longer names it).
	Node string
}

// EventHandler is told about tentative allocations and their undoing, so plugins can keep
// per-session sums (queue usage, job shares) right.
type EventHandler struct {
	// AllocateFunc is called when a task is allocated or pipelined, or an eviction is undone.
	AllocateFunc func(*Event)
	// DeallocateFunc is called when an allocation is undone or a task is evicted.
	DeallocateFunc func(*Event)
}

// Vote results of JobPipelined and JobEnqueueable callbacks.
const (
	// ForcePermit lets the job through whatever any other plugin votes (the sla plugin's vote
	// for a job past its waiting time).
	ForcePermit = 2
	// Permit lets the job through, unless another plugin of the tier rejects it.
	Permit = 1
	// Abstain leaves the decision to others.
	Abstain = 0
	// Reject stops the job.
	Reject = -1
)

// ValidateResult is the result of a JobValid callback that fails.
type ValidateResult struct {
	// Reason is a one-word reason.
	Reason string
	// Message says why, for a person.
	Message string
}

// Callback function types.
type (
	// JobOrderFn compares two jobs: negative puts l first, positive r, zero has no opinion.
	JobOrderFn func(l, r *api.JobInfo) int
	// QueueOrderFn compares two queues the same way.
	QueueOrderFn func(l, r *api.QueueInfo) int
	// TaskOrderFn compares two tasks the same way.
	TaskOrderFn func(l, r *api.TaskInfo) int
	// JobValidFn returns nil when the job may be scheduled.
	JobValidFn func(job *api.JobInfo) *ValidateResult
	// JobCheckFn is a yes/no question about a job.
	JobCheckFn func(job *api.JobInfo) bool
	// JobVoteFn votes Permit, Abstain or Reject on a job.
	JobVoteFn func(job *api.JobInfo) int
	// JobFn does something with a job.
	JobFn func(job *api.JobInfo)
	// QueueCheckFn is a yes/no question about a queue.
	QueueCheckFn func(queue *api.QueueInfo) bool
	// QueueTaskCheckFn is a yes/no question about a task of a queue.
	QueueTaskCheckFn func(queue *api.QueueInfo, task *api.TaskInfo) bool
	// VictimsFn picks, from candidates, the tasks the preemptor may evict; abstain means no opinion.
	VictimsFn func(preemptor *api.TaskInfo, candidates []*api.TaskInfo) (victims []*api.TaskInfo, abstain bool)
	// PrePredicateFn returns an error when the task can go on no node at all.
	PrePredicateFn func(task *api.TaskInfo) error
	// PredicateFn returns "" when the task may go on the node, or the reason it may not (for
	// example "node(s) had untolerated taint {key: value}").
	PredicateFn func(task *api.TaskInfo, node *api.NodeInfo) string
	// NodeOrderFn scores a node for a task; higher is better.
	NodeOrderFn func(task *api.TaskInfo, node *api.NodeInfo) float64
)
