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

package gang

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/plugins/proportion"
)

// Limits are the bounds a gang's minResources can never exceed, whatever else runs.
type Limits struct {
	// Queue is the name of the job's queue.
	Queue string
	// Capability is the queue's spec.capability; nil when no plugin enforces it.
	Capability corev1.ResourceList
	// Cluster is the total allocatable of the cluster's Ready nodes; nil when the cluster grows
	// on demand (an autoscaler adds nodes) or no node is Ready (nothing to measure against).
	Cluster *api.Resource
}

// Unsatisfiable says why a job's minResources can never be met under the limits, naming the
// resource, the amount asked, the limit and what to change, e.g. "this PodGroup's minResources
// ask for 64 cpu, more than queue q's capability of 32 cpu: the gang can never be admitted;
// lower minResources (or the tasks' requests), or raise the queue's spec.capability". It checks
// the queue's capability first, then the cluster, each resource in Names order; it returns ""
// when minResources fit both (or the job has none).
func Unsatisfiable(j *api.JobInfo, l Limits) string {
	if j.MinResources == nil {
		return ""
	}
	what, lower := "this PodGroup's minResources", "lower minResources (or the tasks' requests)"
	if j.PodOnly {
		what, lower = "this pod's requests", "lower the pod's requests"
	}
	names := j.MinResources.Names()
	if len(l.Capability) > 0 {
		capability := api.NewResource(l.Capability)
		for _, d := range names {
			if _, named := l.Capability[d]; !named {
				continue
			}
			if asked, limit := j.MinResources.Get(d), capability.Get(d); asked > limit {
				return fmt.Sprintf("%s ask for %s %s, more than queue %s's capability of %s %s: the gang can never be admitted; "+
					"%s, or raise the queue's spec.capability", what, api.FormatAmount(d, asked), d, l.Queue,
					api.FormatAmount(d, limit), d, lower)
			}
		}
	}
	if l.Cluster != nil {
		for _, d := range names {
			if asked, limit := j.MinResources.Get(d), l.Cluster.Get(d); asked > limit {
				return fmt.Sprintf("%s ask for %s %s, more than the %s %s all Ready nodes offer together: the gang can never be placed; "+
					"%s, or add nodes", what, api.FormatAmount(d, asked), d, api.FormatAmount(d, limit), d, lower)
			}
		}
	}
	return ""
}

// limitsOf are the limits of a job in a session: its queue's capability when the proportion
// plugin (which enforces it) is configured, and the Ready nodes' total unless proportion runs
// with elastic-cluster (the cluster grows for pods no node fits) or no node is Ready.
func limitsOf(ssn *framework.Session, q *api.QueueInfo) Limits {
	enforced, elastic := proportionConfigured(ssn.Config)
	l := Limits{Queue: q.Name}
	if enforced && q.Queue != nil {
		l.Capability = q.Queue.Spec.Capability
	}
	if total := ssn.TotalResource; !elastic && !total.IsEmpty() {
		l.Cluster = &total
	}
	return l
}

// proportionConfigured reports whether the configuration enables the proportion plugin, and
// whether with its elastic-cluster argument.
func proportionConfigured(cfg *framework.Config) (configured, elastic bool) {
	if cfg == nil {
		return false, false
	}
	for _, tier := range cfg.Tiers {
		for _, p := range tier.Plugins {
			if p.Name != proportion.Name {
				continue
			}
			e, err := p.Arguments.Bool(proportion.ElasticClusterArgument, false)
			return true, err == nil && e
		}
	}
	return false, false
}
