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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// withMinResources gives a job minResources.
func withMinResources(j *api.JobInfo, rl corev1.ResourceList) *api.JobInfo {
	r := api.NewResource(rl)
	j.MinResources = &r
	return j
}

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func TestUnsatisfiable(t *testing.T) {
	cluster := api.NewResource(list("cpu", "32", "memory", "128Gi", "nvidia.com/gpu", "8"))
	cases := map[string]struct {
		job    *api.JobInfo
		limits Limits
		want   string
	}{
		"no minResources": {job: job(4, nil), limits: Limits{Queue: "q", Capability: list("cpu", "1"), Cluster: &cluster}},
		"fits both": {
			job:    withMinResources(job(4, nil), list("cpu", "16", "memory", "64Gi")),
			limits: Limits{Queue: "q", Capability: list("cpu", "16"), Cluster: &cluster},
		},
		"over the queue's capability": {
			job:    withMinResources(job(4, nil), list("cpu", "64", "memory", "1Gi")),
			limits: Limits{Queue: "q", Capability: list("cpu", "16"), Cluster: &cluster},
			want: "this PodGroup's minResources ask for 64 cpu, more than queue q's capability of 16 cpu: the gang can never be admitted; " +
				"lower minResources (or the tasks' requests), or raise the queue's spec.capability",
		},
		"a capability of zero on a resource it names": {
			job:    withMinResources(job(1, nil), list("cpu", "1", "nvidia.com/gpu", "1")),
			limits: Limits{Queue: "cpu-only", Capability: list("nvidia.com/gpu", "0"), Cluster: &cluster},
			want: "this PodGroup's minResources ask for 1 nvidia.com/gpu, more than queue cpu-only's capability of 0 nvidia.com/gpu: " +
				"the gang can never be admitted; lower minResources (or the tasks' requests), or raise the queue's spec.capability",
		},
		"resources the capability does not name are not capped by it": {
			job:    withMinResources(job(1, nil), list("cpu", "1", "memory", "100Gi")),
			limits: Limits{Queue: "q", Capability: list("cpu", "4")},
		},
		"over what the Ready nodes offer": {
			job:    withMinResources(job(4, nil), list("cpu", "8", "memory", "256Gi")),
			limits: Limits{Queue: "q", Cluster: &cluster},
			want: "this PodGroup's minResources ask for 256Gi memory, more than the 128Gi memory all Ready nodes offer together: " +
				"the gang can never be placed; lower minResources (or the tasks' requests), or add nodes",
		},
		"a resource no node offers": {
			job:    withMinResources(job(1, nil), list("example.com/fpga", "1")),
			limits: Limits{Queue: "q", Cluster: &cluster},
			want: "this PodGroup's minResources ask for 1 example.com/fpga, more than the 0 example.com/fpga all Ready nodes offer together: " +
				"the gang can never be placed; lower minResources (or the tasks' requests), or add nodes",
		},
		"the capability is named before the cluster": {
			job:    withMinResources(job(4, nil), list("cpu", "64")),
			limits: Limits{Queue: "q", Capability: list("cpu", "48"), Cluster: &cluster},
			want: "this PodGroup's minResources ask for 64 cpu, more than queue q's capability of 48 cpu: the gang can never be admitted; " +
				"lower minResources (or the tasks' requests), or raise the queue's spec.capability",
		},
		"no cluster limit in an elastic cluster": {
			job:    withMinResources(job(4, nil), list("cpu", "640")),
			limits: Limits{Queue: "q"},
		},
		"quota-only names are left out": {
			job:    withMinResources(job(1, nil), list("cpu", "1", "requests.cpu", "1k", "count/pods", "1", "pods", "1")),
			limits: Limits{Queue: "q", Capability: list("cpu", "2"), Cluster: &cluster},
		},
		"a lone pod": {
			job:    func() *api.JobInfo { j := withMinResources(job(1, nil), list("cpu", "33")); j.PodOnly = true; return j }(),
			limits: Limits{Queue: "q", Cluster: &cluster},
			want: "this pod's requests ask for 33 cpu, more than the 32 cpu all Ready nodes offer together: the gang can never be placed; " +
				"lower the pod's requests, or add nodes",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Unsatisfiable(tc.job, tc.limits)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnschedulable(t *testing.T) {
	queue := func(state schedulingv1beta1.QueueState, capability corev1.ResourceList) *api.QueueInfo {
		q := &schedulingv1beta1.Queue{}
		q.Name = "q"
		q.Status.State = state
		q.Spec.Capability = capability
		return api.NewQueueInfo(q)
	}
	cluster := api.NewResource(list("cpu", "32"))
	limits := func(q *api.QueueInfo) Limits {
		return Limits{Queue: q.Name, Capability: q.Queue.Spec.Capability, Cluster: &cluster}
	}
	pending := func(j *api.JobInfo) *api.JobInfo { j.Phase = schedulingv1beta1.PodGroupPending; return j }
	big := func() *api.JobInfo { return pending(withMinResources(job(4, nil), list("cpu", "64"))) }
	quota := &framework.JobDiagnosis{Reasons: []string{"queue resource quota insufficient"}}
	type result struct{ Reason, Message string }
	cases := map[string]struct {
		job   *api.JobInfo
		queue *api.QueueInfo
		d     *framework.JobDiagnosis
		want  result
	}{
		"waits for resources": {job: pending(job(4, nil)), queue: queue("", nil), d: quota,
			want: result{schedulingv1beta1.NotEnoughResourcesReason, "4 of 4 pods wait: queue resource quota insufficient"}},
		"the queue does not exist": {job: pending(job(4, nil)), d: &framework.JobDiagnosis{Reasons: []string{framework.MissingQueueMessage("q")}},
			want: result{schedulingv1beta1.QueueNotFoundReason, "4 of 4 pods wait: " + framework.MissingQueueMessage("q")}},
		"the queue is closed": {job: pending(job(4, nil)), queue: queue(schedulingv1beta1.QueueStateClosed, nil),
			d:    &framework.JobDiagnosis{Reasons: []string{"queue q is Closed"}},
			want: result{schedulingv1beta1.QueueNotOpenReason, "4 of 4 pods wait: queue q is Closed"}},
		"a closed queue does not stop an admitted job": {job: job(2, []api.TaskStatus{R, P}), queue: queue(schedulingv1beta1.QueueStateClosed, nil),
			want: result{schedulingv1beta1.NotEnoughResourcesReason, "1 of 2 pods wait: pod group is not ready, 2 minAvailable"}},
		"the reason an action gave": {job: pending(job(4, nil)), queue: queue("", nil),
			d:    &framework.JobDiagnosis{Reasons: []string{"queue q is Closing"}, Reason: schedulingv1beta1.QueueNotOpenReason},
			want: result{schedulingv1beta1.QueueNotOpenReason, "4 of 4 pods wait: queue q is Closing"}},
		"too few pods of an admitted job": {job: job(3, []api.TaskStatus{P}), queue: queue("", nil),
			want: result{schedulingv1beta1.NotEnoughPodsReason,
				"3 of 3 pods wait: not enough valid pods for the gang: 1 of minMember 3 exist; create the missing pods or lower minMember"}},
		"more than the queue can ever hold": {job: big(), queue: queue("", list("cpu", "16")), d: quota,
			want: result{schedulingv1beta1.UnsatisfiableReason, "4 of 4 pods wait: this PodGroup's minResources ask for 64 cpu, " +
				"more than queue q's capability of 16 cpu: the gang can never be admitted; lower minResources (or the tasks' requests), " +
				"or raise the queue's spec.capability"}},
		"more than the cluster offers, in a closed queue": {job: big(), queue: queue(schedulingv1beta1.QueueStateClosed, nil),
			want: result{schedulingv1beta1.UnsatisfiableReason, "4 of 4 pods wait: this PodGroup's minResources ask for 64 cpu, " +
				"more than the 32 cpu all Ready nodes offer together: the gang can never be placed; lower minResources (or the tasks' requests), or add nodes"}},
		"a running gang is not judged by its minResources": {
			job: withMinResources(func() *api.JobInfo {
				j := job(2, []api.TaskStatus{R, P})
				j.Phase = schedulingv1beta1.PodGroupRunning
				return j
			}(), list("cpu", "64")),
			queue: queue("", nil),
			want:  result{schedulingv1beta1.NotEnoughResourcesReason, "1 of 2 pods wait: pod group is not ready, 2 minAvailable"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reason, message := Unschedulable(tc.job, tc.queue, tc.d, limits)
			if diff := cmp.Diff(tc.want, result{reason, message}); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProportionConfigured(t *testing.T) {
	tiers := func(plugins ...conf.PluginOption) *framework.Config {
		return &framework.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: Name}}}, {Plugins: plugins}}}
	}
	type result struct{ Configured, Elastic bool }
	cases := map[string]struct {
		cfg  *framework.Config
		want result
	}{
		"no configuration":    {},
		"without proportion":  {cfg: tiers(conf.PluginOption{Name: "drf"})},
		"proportion":          {cfg: tiers(conf.PluginOption{Name: "proportion"}), want: result{Configured: true}},
		"elastic":             {cfg: tiers(conf.PluginOption{Name: "proportion", Arguments: conf.Arguments{"elastic-cluster": true}}), want: result{true, true}},
		"elastic as a string": {cfg: tiers(conf.PluginOption{Name: "proportion", Arguments: conf.Arguments{"elastic-cluster": "true"}}), want: result{true, true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			configured, elastic := proportionConfigured(tc.cfg)
			if diff := cmp.Diff(tc.want, result{configured, elastic}); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
