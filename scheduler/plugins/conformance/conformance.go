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

// Package conformance keeps preemption and reclaim away from the pods Kubernetes itself relies
// on: pods of the system-cluster-critical and system-node-critical classes and pods in
// kube-system are never victims.
package conformance

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "conformance"

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
	fn := func(_ *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
		return Evictable(candidates), false
	}
	ssn.AddPreemptableFn(Name, fn)
	ssn.AddReclaimableFn(Name, fn)
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Evictable drops critical pods from the candidates.
func Evictable(candidates []*api.TaskInfo) []*api.TaskInfo {
	var out []*api.TaskInfo
	for _, c := range candidates {
		if Critical(c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// Critical reports whether a task's pod is one Kubernetes relies on.
func Critical(t *api.TaskInfo) bool {
	if t.Namespace == metav1.NamespaceSystem {
		return true
	}
	if t.Pod == nil {
		return false
	}
	switch t.Pod.Spec.PriorityClassName {
	case "system-cluster-critical", "system-node-critical":
		return true
	}
	return false
}
