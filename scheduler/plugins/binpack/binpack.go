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

// Package binpack scores a node by how full it would be with the task: the weighted mean of the
// used fractions of the resources the task asks for, so that pods fill nodes before spreading
// and whole nodes stay free for large pods. Arguments (Volcano's): binpack.weight (1),
// binpack.cpu (1), binpack.memory (1), binpack.resources (a comma-separated list of other
// resources such as nvidia.com/gpu) and binpack.resources.<name> (each one's weight, 1).
package binpack

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "binpack"

// Arguments.
const (
	WeightArgument    = "binpack.weight"
	CPUArgument       = "binpack.cpu"
	MemoryArgument    = "binpack.memory"
	ResourcesArgument = "binpack.resources"
	resourcePrefix    = "binpack.resources."
)

// Weights are the plugin's weights.
type Weights struct {
	// Weight multiplies the whole score.
	Weight int
	// Resources weighs each resource.
	Resources map[corev1.ResourceName]int
}

type plugin struct{ w Weights }

// New builds the plugin from its arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	w, err := ParseWeights(args)
	if err != nil {
		return nil, err
	}
	return &plugin{w: w}, nil
}

// ParseWeights reads the plugin's arguments.
func ParseWeights(args conf.Arguments) (Weights, error) {
	if err := args.CheckKeys([]string{WeightArgument, CPUArgument, MemoryArgument, ResourcesArgument}, resourcePrefix); err != nil {
		return Weights{}, err
	}
	var w Weights
	var err error
	if w.Weight, err = args.Int(WeightArgument, 1); err != nil {
		return w, err
	}
	w.Resources, err = ResourceWeights(args, CPUArgument, MemoryArgument, ResourcesArgument, resourcePrefix)
	return w, err
}

// ResourceWeights reads binpack-style resource weights: cpuKey and memoryKey (1 by default),
// listKey (a comma-separated list of other resources) and prefix+<name> for each listed
// resource (1 by default). A weight of a resource not listed, or below 0, is an error.
func ResourceWeights(args conf.Arguments, cpuKey, memoryKey, listKey, prefix string) (map[corev1.ResourceName]int, error) {
	out := map[corev1.ResourceName]int{}
	cpu, err := args.Int(cpuKey, 1)
	if err != nil {
		return nil, err
	}
	mem, err := args.Int(memoryKey, 1)
	if err != nil {
		return nil, err
	}
	out[corev1.ResourceCPU], out[corev1.ResourceMemory] = cpu, mem
	list, err := args.String(listKey, "")
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		listed[name] = true
		v, err := args.Int(prefix+name, 1)
		if err != nil {
			return nil, err
		}
		out[corev1.ResourceName(name)] = v
	}
	for key := range args {
		if name, ok := strings.CutPrefix(key, prefix); ok && !listed[name] {
			return nil, fmt.Errorf("%s: resource %q is not in %s; add it there or remove this weight", key, name, listKey)
		}
	}
	for name, v := range out {
		if v < 0 {
			return nil, fmt.Errorf("weight of %s: must be 0 or more, got %d", name, v)
		}
	}
	return out, nil
}

func (p *plugin) Name() string { return Name }

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	ssn.AddNodeOrderFn(Name, func(t *api.TaskInfo, n *api.NodeInfo) float64 { return Score(p.w, t.Resreq, n) })
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Score is 100 × weight × the weighted mean, over the weighted resources the task asks for, of
// the node's used fraction once the task is on it; 0 when a resource would overflow.
func Score(w Weights, req *api.Resource, n *api.NodeInfo) float64 {
	if w.Weight == 0 {
		return 0
	}
	var sum float64
	var weights int
	for name, rw := range w.Resources {
		r := req.Get(name)
		if r <= 0 || rw == 0 {
			continue
		}
		alloc := n.Allocatable.Get(name)
		used := n.Used.Get(name) + r
		if alloc <= 0 || used > alloc {
			return 0
		}
		sum += float64(rw) * float64(used) / float64(alloc)
		weights += rw
	}
	if weights == 0 {
		return 0
	}
	return sum / float64(weights) * 100 * float64(w.Weight)
}
