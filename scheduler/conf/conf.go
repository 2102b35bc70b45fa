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

// Package conf is the scheduler's configuration in Volcano's format: a comma-separated list of
// actions, tiers of plugins with enable* switches and arguments, and per-action configurations.
// Parse reads and checks the text; Validate checks names against what the scheduler knows.
package conf

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// DefaultConfiguration is the configuration used when none is given: Volcano's built-in default
// plus the preempt and reclaim actions, so that a PriorityClass means what it means elsewhere in
// Kubernetes (kube-scheduler preempts by default) and weighted queues get their share back.
// Both are gang-aware: a victim gang goes whole or keeps its minimum.
const DefaultConfiguration = `actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
`

// SchedulerConfiguration is a parsed scheduler configuration.
type SchedulerConfiguration struct {
	// Actions is the comma-separated list of actions run in order each cycle.
	Actions string `json:"actions"`
	// Tiers are the plugin tiers; an earlier tier takes precedence where callbacks are combined
	// tier by tier.
	Tiers []Tier `json:"tiers,omitempty"`
	// Configurations hold per-action arguments.
	Configurations []Configuration `json:"configurations,omitempty"`
	// Metrics is accepted for compatibility with Volcano's format and not used.
	Metrics map[string]any `json:"metrics,omitempty"`
}

// Tier is one tier of plugins.
type Tier struct {
	// Plugins are the tier's plugins, in order.
	Plugins []PluginOption `json:"plugins"`
}

// Configuration holds the arguments of one action.
type Configuration struct {
	// Name is the action's name.
	Name string `json:"name"`
	// Arguments are the action's arguments.
	Arguments Arguments `json:"arguments,omitempty"`
}

// PluginOption is one plugin in a tier with its switches and arguments. A nil switch means the
// default: on for every switch except EnabledHierarchy and EnabledClusterOrder.
type PluginOption struct {
	// Name is the plugin's name.
	Name string `json:"name"`
	// EnabledJobOrder switches the plugin's job order.
	EnabledJobOrder *bool `json:"enableJobOrder,omitempty"`
	// EnabledNamespaceOrder switches the plugin's namespace order (accepted, not used).
	EnabledNamespaceOrder *bool `json:"enableNamespaceOrder,omitempty"`
	// EnabledHierarchy switches hierarchical sharing (off by default).
	EnabledHierarchy *bool `json:"enableHierarchy,omitempty"`
	// EnabledJobReady switches the plugin's job-ready check.
	EnabledJobReady *bool `json:"enableJobReady,omitempty"`
	// EnabledJobPipelined switches the plugin's job-pipelined vote.
	EnabledJobPipelined *bool `json:"enableJobPipelined,omitempty"`
	// EnabledTaskOrder switches the plugin's task order.
	EnabledTaskOrder *bool `json:"enableTaskOrder,omitempty"`
	// EnabledPreemptable switches the plugin's preemption victim filter.
	EnabledPreemptable *bool `json:"enablePreemptable,omitempty"`
	// EnabledReclaimable switches the plugin's reclaim victim filter.
	EnabledReclaimable *bool `json:"enableReclaimable,omitempty"`
	// EnabledPreemptive switches the plugin's check that a queue may reclaim.
	EnabledPreemptive *bool `json:"enablePreemptive,omitempty"`
	// EnabledQueueOrder switches the plugin's queue order.
	EnabledQueueOrder *bool `json:"enableQueueOrder,omitempty"`
	// EnabledClusterOrder switches the plugin's cluster order (off by default; accepted, not used).
	EnabledClusterOrder *bool `json:"enabledClusterOrder,omitempty"`
	// EnabledPredicate switches the plugin's node filter.
	EnabledPredicate *bool `json:"enablePredicate,omitempty"`
	// EnabledBestNode switches the plugin's best-node choice (accepted, not used).
	EnabledBestNode *bool `json:"enableBestNode,omitempty"`
	// EnabledNodeOrder switches the plugin's node scoring.
	EnabledNodeOrder *bool `json:"enableNodeOrder,omitempty"`
	// EnabledTargetJob switches the plugin's target-job choice (accepted, not used).
	EnabledTargetJob *bool `json:"enableTargetJob,omitempty"`
	// EnabledReservedNodes switches the plugin's reserved nodes (accepted, not used).
	EnabledReservedNodes *bool `json:"enableReservedNodes,omitempty"`
	// EnabledJobEnqueued switches the plugin's enqueue vote and enqueue bookkeeping.
	EnabledJobEnqueued *bool `json:"enableJobEnqueued,omitempty"`
	// EnabledVictim switches the plugin's victim selection (accepted, not used).
	EnabledVictim *bool `json:"enabledVictim,omitempty"`
	// EnabledJobStarving switches the plugin's starving check.
	EnabledJobStarving *bool `json:"enableJobStarving,omitempty"`
	// EnabledOverused switches the plugin's queue-overused check.
	EnabledOverused *bool `json:"enabledOverused,omitempty"`
	// EnabledAllocatable switches the plugin's queue-allocatable check.
	EnabledAllocatable *bool `json:"enabledAllocatable,omitempty"`
	// EnabledHyperNodeOrder switches hypernode order (accepted, not used).
	EnabledHyperNodeOrder *bool `json:"enabledHyperNodeOrder,omitempty"`
	// EnabledSubJobReady switches sub-job readiness (accepted, not used).
	EnabledSubJobReady *bool `json:"enabledSubJobReady,omitempty"`
	// EnabledSubJobPipelined switches sub-job pipelining (accepted, not used).
	EnabledSubJobPipelined *bool `json:"enabledSubJobPipelined,omitempty"`
	// EnabledSubJobOrder switches sub-job order (accepted, not used).
	EnabledSubJobOrder *bool `json:"enabledSubJobOrder,omitempty"`
	// EnabledHyperNodeGradient switches hypernode gradients (accepted, not used).
	EnabledHyperNodeGradient *bool `json:"enabledHyperNodeGradient,omitempty"`
	// Arguments are the plugin's arguments.
	Arguments Arguments `json:"arguments,omitempty"`
}

// switchKeys are the enable* keys a plugin entry may carry.
var switchKeys = []string{
	"enableJobOrder", "enableNamespaceOrder", "enableHierarchy", "enableJobReady", "enableJobPipelined",
	"enableTaskOrder", "enablePreemptable", "enableReclaimable", "enablePreemptive", "enableQueueOrder",
	"enabledClusterOrder", "enablePredicate", "enableBestNode", "enableNodeOrder", "enableTargetJob",
	"enableReservedNodes", "enableJobEnqueued", "enabledVictim", "enableJobStarving", "enabledOverused",
	"enabledAllocatable", "enabledHyperNodeOrder", "enabledSubJobReady", "enabledSubJobPipelined",
	"enabledSubJobOrder", "enabledHyperNodeGradient",
}

// Enabled reports whether a switch is on: nil means on.
func Enabled(b *bool) bool { return b == nil || *b }

// EnabledOff reports whether a switch that is off by default is on.
func EnabledOff(b *bool) bool { return b != nil && *b }

// ActionNames returns the configured action names, in order, trimmed.
func (c *SchedulerConfiguration) ActionNames() []string {
	var names []string
	for _, part := range strings.Split(c.Actions, ",") {
		if name := strings.TrimSpace(part); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// ActionArguments returns the arguments configured for an action, or nil.
func (c *SchedulerConfiguration) ActionArguments(action string) Arguments {
	for _, conf := range c.Configurations {
		if conf.Name == action {
			return conf.Arguments
		}
	}
	return nil
}

// Parse reads a configuration in Volcano's YAML format. It checks the structure (known keys,
// types, non-empty names) and returns an error naming the field and the fix; names of actions
// and plugins are checked by Validate.
func Parse(data []byte) (*SchedulerConfiguration, error) {
	if strings.TrimSpace(string(data)) == "" {
		return nil, errors.New("the configuration is empty: give at least `actions` and `tiers`")
	}
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("the configuration is not valid YAML: %w", err)
	}
	top, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the configuration must be a YAML mapping with keys actions, tiers and configurations, got %s", kindOf(raw))
	}
	var errs []error
	errs = append(errs, checkKeys("", top, []string{"actions", "tiers", "configurations", "metrics"})...)
	if a, ok := top["actions"]; !ok {
		errs = append(errs, errors.New(`actions: required: list the actions to run, e.g. actions: "enqueue, allocate, backfill"`))
	} else if _, ok := a.(string); !ok {
		errs = append(errs, fmt.Errorf(`actions: must be a comma-separated string such as "enqueue, allocate, backfill", got %s`, kindOf(a)))
	}
	if t, ok := top["tiers"]; ok && t != nil {
		tiers, ok := t.([]any)
		if !ok {
			errs = append(errs, fmt.Errorf("tiers: must be a list of tiers, each with a list of plugins, got %s", kindOf(t)))
		} else {
			for i, tier := range tiers {
				errs = append(errs, checkTier(fmt.Sprintf("tiers[%d]", i), tier)...)
			}
		}
	}
	if c, ok := top["configurations"]; ok && c != nil {
		confs, ok := c.([]any)
		if !ok {
			errs = append(errs, fmt.Errorf("configurations: must be a list of {name, arguments}, got %s", kindOf(c)))
		} else {
			for i, conf := range confs {
				errs = append(errs, checkConfiguration(fmt.Sprintf("configurations[%d]", i), conf)...)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// The structure is checked; decode it into the typed form.
	js, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("re-encoding the configuration: %w", err)
	}
	cfg := &SchedulerConfiguration{}
	if err := json.Unmarshal(js, cfg); err != nil {
		return nil, fmt.Errorf("decoding the configuration: %w", err)
	}
	if len(cfg.ActionNames()) == 0 {
		return nil, errors.New(`actions: no action is named: list the actions to run, e.g. actions: "enqueue, allocate, backfill"`)
	}
	return cfg, nil
}

func checkTier(path string, tier any) []error {
	m, ok := tier.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("%s: must be a mapping with a plugins list, got %s", path, kindOf(tier))}
	}
	errs := checkKeys(path, m, []string{"plugins"})
	p, ok := m["plugins"]
	if !ok || p == nil {
		return append(errs, fmt.Errorf("%s.plugins: required: list the tier's plugins, e.g. - name: gang", path))
	}
	plugins, ok := p.([]any)
	if !ok {
		return append(errs, fmt.Errorf("%s.plugins: must be a list of plugins, got %s", path, kindOf(p)))
	}
	for j, plugin := range plugins {
		errs = append(errs, checkPlugin(fmt.Sprintf("%s.plugins[%d]", path, j), plugin)...)
	}
	return errs
}

func checkPlugin(path string, plugin any) []error {
	m, ok := plugin.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("%s: must be a mapping with a name, got %s", path, kindOf(plugin))}
	}
	errs := checkKeys(path, m, append([]string{"name", "arguments"}, switchKeys...))
	if name, ok := m["name"].(string); !ok || strings.TrimSpace(name) == "" {
		errs = append(errs, fmt.Errorf("%s.name: required: give the plugin's name, e.g. name: gang", path))
	}
	for _, key := range switchKeys {
		if v, ok := m[key]; ok && v != nil {
			if _, isBool := v.(bool); !isBool {
				errs = append(errs, fmt.Errorf("%s.%s: must be true or false, got %v", path, key, v))
			}
		}
	}
	if a, ok := m["arguments"]; ok && a != nil {
		errs = append(errs, checkArguments(path+".arguments", a)...)
	}
	return errs
}

func checkConfiguration(path string, conf any) []error {
	m, ok := conf.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("%s: must be a mapping with name and arguments, got %s", path, kindOf(conf))}
	}
	errs := checkKeys(path, m, []string{"name", "arguments"})
	if name, ok := m["name"].(string); !ok || strings.TrimSpace(name) == "" {
		errs = append(errs, fmt.Errorf("%s.name: required: give the action's name, e.g. name: allocate", path))
	}
	if a, ok := m["arguments"]; ok && a != nil {
		errs = append(errs, checkArguments(path+".arguments", a)...)
	}
	return errs
}

func checkArguments(path string, a any) []error {
	m, ok := a.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("%s: must be a mapping of argument names to values (not a list), got %s", path, kindOf(a))}
	}
	var errs []error
	for _, key := range sortedKeys(m) {
		switch m[key].(type) {
		case string, bool, float64, int64, int, nil:
		default:
			errs = append(errs, fmt.Errorf("%s.%s: must be a string, number or boolean, got %s", path, key, kindOf(m[key])))
		}
	}
	return errs
}

func checkKeys(path string, m map[string]any, allowed []string) []error {
	var errs []error
	for _, key := range sortedKeys(m) {
		if !slices.Contains(allowed, key) {
			where := key
			if path != "" {
				where = path + "." + key
			}
			errs = append(errs, fmt.Errorf("%s: unknown field; the fields allowed here are %s", where, strings.Join(allowed, ", ")))
		}
	}
	return errs
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, int64, int:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// Known is what the scheduler knows: action names, and plugin names each with a check of the
// plugin's arguments.
type Known struct {
	// Actions are the known action names.
	Actions []string
	// Plugins maps each known plugin name to a check of its arguments (nil: no arguments checked).
	Plugins map[string]func(Arguments) error
	// ActionArguments maps an action name to a check of its arguments (nil: not checked).
	ActionArguments map[string]func(Arguments) error
}

// Validate checks the names and arguments in a parsed configuration against what the scheduler
// knows. Every problem is reported, each naming the field and the fix.
func Validate(cfg *SchedulerConfiguration, known Known) error {
	var errs []error
	seenActions := map[string]bool{}
	for _, name := range cfg.ActionNames() {
		if !slices.Contains(known.Actions, name) {
			errs = append(errs, fmt.Errorf("actions: unknown action %q; the actions are %s", name, strings.Join(known.Actions, ", ")))
			continue
		}
		if seenActions[name] {
			errs = append(errs, fmt.Errorf("actions: action %q is listed twice; list each action once", name))
		}
		seenActions[name] = true
	}
	pluginNames := make([]string, 0, len(known.Plugins))
	for name := range known.Plugins {
		pluginNames = append(pluginNames, name)
	}
	sort.Strings(pluginNames)
	seenPlugins := map[string]string{}
	for i, tier := range cfg.Tiers {
		for j, plugin := range tier.Plugins {
			path := fmt.Sprintf("tiers[%d].plugins[%d]", i, j)
			check, ok := known.Plugins[plugin.Name]
			if !ok {
				errs = append(errs, fmt.Errorf("%s.name: unknown plugin %q; the plugins are %s", path, plugin.Name, strings.Join(pluginNames, ", ")))
				continue
			}
			if first, dup := seenPlugins[plugin.Name]; dup {
				errs = append(errs, fmt.Errorf("%s.name: plugin %q is already configured at %s; configure each plugin once", path, plugin.Name, first))
				continue
			}
			seenPlugins[plugin.Name] = path
			if check != nil {
				if err := check(plugin.Arguments); err != nil {
					errs = append(errs, fmt.Errorf("%s.arguments: %w", path, err))
				}
			}
		}
	}
	for i, c := range cfg.Configurations {
		path := fmt.Sprintf("configurations[%d]", i)
		if !slices.Contains(known.Actions, c.Name) {
			errs = append(errs, fmt.Errorf("%s.name: unknown action %q; the actions are %s", path, c.Name, strings.Join(known.Actions, ", ")))
			continue
		}
		if check := known.ActionArguments[c.Name]; check != nil {
			if err := check(c.Arguments); err != nil {
				errs = append(errs, fmt.Errorf("%s.arguments: %w", path, err))
			}
		}
	}
	return errors.Join(errs...)
}
