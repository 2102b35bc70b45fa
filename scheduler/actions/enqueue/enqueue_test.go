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

package enqueue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/registry"
)

const conf = `actions: "enqueue"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: overcommit
  - name: proportion
`

const confSLA = `actions: "enqueue"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: sla
    arguments:
      sla-waiting-time: 30m
- plugins:
  - name: overcommit
  - name: proportion
`

// confRoom is Volcano's common configuration with preempt and reclaim.
const confRoom = `actions: "enqueue, preempt, reclaim"
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

// confCI is Volcano's CI configuration (volcano-scheduler-ci.conf, without the
// network-topology-aware plugin): sla in the first tier, preempt and reclaim configured.
const confCI = `actions: "enqueue, allocate, backfill, reclaim, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
  - name: sla
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
`

// full fills node n1 with a running PodGroup of queue q: 4 pods of one cpu.
func full(name, q, class string, min int32) []any {
	out := []any{st.MakePodGroup("ns", name, min).Queue(q).PriorityClass(class).Phase(schedulingv1beta1.PodGroupRunning).Obj()}
	for i := 0; i < 4; i++ {
		out = append(out, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Req("1", "").Node("n1").Obj())
	}
	return out
}

func TestEnqueueRoomForPreemptAndReclaim(t *testing.T) {
	node := st.MakeNode("n1", "4", "8Gi").Obj()
	classes := []any{st.MakePriorityClass("low", 10), st.MakePriorityClass("high", 1000)}
	cases := map[string]struct {
		config string
		objs   []any
		want   schedulingv1beta1.PodGroupPhase
	}{
		"a job that outranks running work of its queue is admitted for preempt": {
			config: confRoom,
			objs: append(append([]any{node, st.MakeQueue("default", 1).Obj()}, classes...), append(full("low", "default", "low", 4),
				st.MakePodGroup("ns", "high", 4).PriorityClass("high").MinResources("4", "").Created(st.Epoch.Add(time.Minute)).Obj())...),
			want: schedulingv1beta1.PodGroupInqueue,
		},
		"without preempt it waits": {
			config: conf,
			objs: append(append([]any{node, st.MakeQueue("default", 1).Obj()}, classes...), append(full("low", "default", "low", 4),
				st.MakePodGroup("ns", "high", 4).PriorityClass("high").MinResources("4", "").Created(st.Epoch.Add(time.Minute)).Obj())...),
			want: schedulingv1beta1.PodGroupPending,
		},
		"work of equal priority makes no room": {
			config: confRoom,
			objs: append(append([]any{node, st.MakeQueue("default", 1).Obj()}, classes...), append(full("low", "default", "high", 4),
				st.MakePodGroup("ns", "high", 4).PriorityClass("high").MinResources("4", "").Created(st.Epoch.Add(time.Minute)).Obj())...),
			want: schedulingv1beta1.PodGroupPending,
		},
		"a queue at its capability gets no work through preemption's room but what its lower-priority work gives up": {
			config: confRoom,
			objs: append([]any{st.MakeNode("n1", "8", "8Gi").Obj(), st.MakeQueue("default", 1).Capability(corev1.ResourceCPU, "4").Obj()},
				append(append(classes, full("low", "default", "high", 4)...),
					st.MakePodGroup("ns", "high", 1).PriorityClass("high").MinResources("1", "").Created(st.Epoch.Add(time.Minute)).Obj())...),
			want: schedulingv1beta1.PodGroupPending,
		},
		"a queue at its capability may admit a job in place of its lower-priority work": {
			config: confRoom,
			objs: append([]any{st.MakeNode("n1", "8", "8Gi").Obj(), st.MakeQueue("default", 1).Capability(corev1.ResourceCPU, "4").Obj()},
				append(append(classes, full("low", "default", "low", 4)...),
					st.MakePodGroup("ns", "high", 1).PriorityClass("high").MinResources("1", "").Created(st.Epoch.Add(time.Minute)).Obj())...),
			want: schedulingv1beta1.PodGroupInqueue,
		},
		"a queue below its deserved share is admitted for reclaim": {
			config: confRoom,
			objs: append([]any{node, st.MakeQueue("qa", 1).Obj(), st.MakeQueue("qb", 1).Obj()}, append(full("a", "qa", "", 1),
				st.MakePodGroup("ns", "b", 2).Queue("qb").MinResources("2", "").Created(st.Epoch.Add(time.Minute)).Obj())...),
			want: schedulingv1beta1.PodGroupInqueue,
		},
		"a job past its queue's deserved share waits": {
			config: confRoom,
			objs: append([]any{node, st.MakeQueue("qa", 1).Obj(), st.MakeQueue("qb", 1).Obj()}, append(full("a", "qa", "", 1),
				st.MakePodGroup("ns", "b", 3).Queue("qb").MinResources("3", "").Created(st.Epoch.Add(time.Minute)).Obj())...),
			want: schedulingv1beta1.PodGroupPending,
		},
		"a queue marked reclaimable false makes no room": {
			config: confRoom,
			objs: append([]any{node, st.MakeQueue("qa", 1).Reclaimable(false).Obj(), st.MakeQueue("qb", 1).Obj()}, append(full("a", "qa", "", 1),
				st.MakePodGroup("ns", "b", 2).Queue("qb").MinResources("2", "").Created(st.Epoch.Add(time.Minute)).Obj())...),
			want: schedulingv1beta1.PodGroupPending,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, _ := st.Session(t, s, registry.Default(), tc.config, st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			var got schedulingv1beta1.PodGroupPhase
			for id, j := range ssn.Jobs {
				if id == "ns/high" || id == "ns/b" {
					got = j.Phase
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("phase (-want +got):\n%s", diff)
			}
		})
	}
}

type result struct {
	Phases   map[api.JobID]schedulingv1beta1.PodGroupPhase
	Messages map[api.JobID]string
}

func TestEnqueue(t *testing.T) {
	node := st.MakeNode("n1", "4", "8Gi").Obj()
	cases := map[string]struct {
		config string
		objs   []any
		want   result
	}{
		"a PodGroup without minResources is admitted": {
			config: conf,
			objs:   []any{node, st.MakeQueue("default", 1).Obj(), st.MakePodGroup("ns", "pg", 3).Obj()},
			want:   result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/pg": "Inqueue"}, Messages: map[api.JobID]string{}},
		},
		"a closed queue admits nothing": {
			config: conf,
			objs: []any{node, st.MakeQueue("q", 1).State(schedulingv1beta1.QueueStateClosed).Obj(),
				st.MakePodGroup("ns", "pg", 1).Queue("q").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/pg": "Pending"}, Messages: map[api.JobID]string{
				"ns/pg": "1 of 1 pods wait: queue q is Closed and admits no new PodGroups; open the queue or submit to an open one",
			}},
		},
		"a closing queue admits nothing either": {
			config: conf,
			objs: []any{node, st.MakeQueue("q", 1).State(schedulingv1beta1.QueueStateClosing).Obj(),
				st.MakePodGroup("ns", "pg", 1).Queue("q").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/pg": "Pending"}, Messages: map[api.JobID]string{
				"ns/pg": "1 of 1 pods wait: queue q is Closing and admits no new PodGroups; open the queue or submit to an open one",
			}},
		},
		"a missing queue is named": {
			config: conf,
			objs:   []any{node, st.MakePodGroup("ns", "pg", 1).Queue("nope").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/pg": "Pending"}, Messages: map[api.JobID]string{
				"ns/pg": "1 of 1 pods wait: queue nope does not exist; create the queue or set spec.queue to an existing one",
			}},
		},
		"minResources beyond the queue's capability": {
			config: conf,
			objs: []any{node, st.MakeQueue("q", 1).Capability(corev1.ResourceCPU, "2").Obj(),
				st.MakePodGroup("ns", "pg", 1).Queue("q").MinResources("3", "").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/pg": "Pending"}, Messages: map[api.JobID]string{
				"ns/pg": "1 of 1 pods wait: this PodGroup's minResources ask for 3 cpu, more than queue q's capability of 2 cpu: the gang can never be admitted; " +
					"lower minResources (or the tasks' requests), or raise the queue's spec.capability",
			}},
		},
		"minResources beyond the overcommitted cluster": {
			config: conf,
			objs: []any{node, st.MakeQueue("default", 1).Obj(),
				st.MakePodGroup("ns", "pg", 1).MinResources("5", "").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/pg": "Pending"}, Messages: map[api.JobID]string{
				"ns/pg": "1 of 1 pods wait: this PodGroup's minResources ask for 5 cpu, more than the 4 cpu all Ready nodes offer together: " +
					"the gang can never be placed; lower minResources (or the tasks' requests), or add nodes",
			}},
		},
		"the guarantee of a queue with no job is kept from the other queues": {
			config: conf,
			objs: []any{node, st.MakeQueue("q1", 1).Guarantee(corev1.ResourceCPU, "4").Obj(), st.MakeQueue("q2", 1).Obj(),
				st.MakePodGroup("ns", "pg", 1).Queue("q2").MinResources("1", "").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/pg": "Pending"}, Messages: map[api.JobID]string{
				"ns/pg": "1 of 1 pods wait: queue resource quota insufficient: queue q2 can hold 0 of cpu, the cluster's 4 less the guarantee of queue q1 (4), " +
					"and already holds 0 for running and admitted jobs; this PodGroup's minResources need 1 more; " +
					"wait for the queue's jobs to finish, or lower those queues' spec.guarantee, or add nodes, or lower minResources",
			}},
		},
		"the guarantee of a queue with no job leaves the rest to the others": {
			config: conf,
			objs: []any{node, st.MakeQueue("q1", 1).Guarantee(corev1.ResourceCPU, "3").Obj(), st.MakeQueue("q2", 1).Obj(),
				st.MakePodGroup("ns", "pg", 1).Queue("q2").MinResources("1", "").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/pg": "Inqueue"}, Messages: map[api.JobID]string{}},
		},
		"admitted jobs count against later ones": {
			config: conf,
			objs: []any{node, st.MakeQueue("default", 1).Obj(),
				st.MakePodGroup("ns", "a", 1).MinResources("3", "").Created(st.Epoch).Obj(),
				st.MakePodGroup("ns", "b", 1).MinResources("2", "").Created(st.Epoch.Add(time.Second)).Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/a": "Inqueue", "ns/b": "Pending"}, Messages: map[api.JobID]string{
				"ns/b": "1 of 1 pods wait: resource in cluster is overused: the cluster offers 4 of cpu (1.2 times overcommitted), pods use 0 and admitted jobs still need 3; " +
					"this PodGroup's minResources need 2 more; wait for running jobs to finish or add nodes; " +
					"queue resource quota insufficient: queue default can hold 4 of cpu and already holds 3 for running and admitted jobs; " +
					"this PodGroup's minResources need 2 more; wait for the queue's jobs to finish, or raise the queue's capability, or lower minResources",
			}},
		},
		"pods held by scheduling gates do not count against admission": {
			config: conf,
			objs: func() []any {
				objs := []any{node, st.MakeQueue("default", 1).Obj(),
					st.MakePodGroup("ns", "gated", 4).MinResources("4", "").Phase(schedulingv1beta1.PodGroupInqueue).Created(st.Epoch).Obj(),
					st.MakePodGroup("ns", "a", 2).MinResources("2", "").Created(st.Epoch.Add(time.Second)).Obj(),
					st.MakePodGroup("ns", "b", 2).MinResources("2", "").Created(st.Epoch.Add(2 * time.Second)).Obj()}
				for i := 0; i < 4; i++ {
					objs = append(objs, st.MakePod("ns", fmt.Sprintf("gated-%d", i)).Group("gated").Req("1", "").Gate("g1").Obj())
				}
				return objs
			}(),
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/gated": "Inqueue", "ns/a": "Inqueue", "ns/b": "Inqueue"},
				Messages: map[api.JobID]string{}},
		},
		"fifo: a job that cannot be admitted holds back those behind it": {
			config: conf,
			objs: []any{node, func() any {
				q := st.MakeQueue("q", 1).Obj()
				q.Spec.DequeueStrategy = schedulingv1beta1.DequeueFIFO
				return q
			}(),
				st.MakePodGroup("ns", "big", 1).Queue("q").MinResources("9", "").Created(st.Epoch).Obj(),
				st.MakePodGroup("ns", "small", 1).Queue("q").MinResources("1", "").Created(st.Epoch.Add(time.Second)).Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/big": "Pending", "ns/small": "Pending"}, Messages: map[api.JobID]string{
				"ns/big": "1 of 1 pods wait: this PodGroup's minResources ask for 9 cpu, more than the 4 cpu all Ready nodes offer together: " +
					"the gang can never be placed; lower minResources (or the tasks' requests), or add nodes",
				"ns/small": "1 of 1 pods wait: queue q admits jobs in order (dequeueStrategy fifo) and an earlier job waits to be admitted",
			}},
		},
		"sla: of two jobs waiting for the whole cluster, the nearer deadline is admitted and the other waits for the room it took": {
			config: confCI,
			objs: []any{node, st.MakeQueue("default", 1).Obj(),
				// Neither has waited its waiting time at the cycle (Epoch+1h); fast's deadline is nearer.
				st.MakePodGroup("ns", "slow", 4).MinResources("4", "").Created(st.Epoch.Add(40*time.Minute)).Annotation(schedulingv1beta1.JobWaitingTime, "1h").Obj(),
				st.MakePodGroup("ns", "fast", 4).MinResources("4", "").Created(st.Epoch.Add(41*time.Minute)).Annotation(schedulingv1beta1.JobWaitingTime, "30m").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/slow": "Pending", "ns/fast": "Inqueue"}, Messages: map[api.JobID]string{
				"ns/slow": "4 of 4 pods wait: resource in cluster is overused: the cluster offers 4 of cpu (1.2 times overcommitted), pods use 0 and admitted jobs still need 4; " +
					"this PodGroup's minResources need 4 more; wait for running jobs to finish or add nodes; " +
					"queue resource quota insufficient: queue default can hold 4 of cpu and already holds 4 for running and admitted jobs; " +
					"this PodGroup's minResources need 4 more; wait for the queue's jobs to finish, or raise the queue's capability, or lower minResources",
			}},
		},
		"sla: a job past its waiting time is admitted whatever the quota": {
			config: confSLA,
			objs: []any{node, st.MakeQueue("default", 1).Obj(),
				st.MakePodGroup("ns", "late", 1).MinResources("9", "").Created(st.Epoch).Obj(),
				st.MakePodGroup("ns", "fresh", 1).MinResources("9", "").Created(st.Epoch.Add(50 * time.Minute)).Obj(),
				st.MakePodGroup("ns", "own", 1).MinResources("9", "").Created(st.Epoch.Add(50*time.Minute)).Annotation(schedulingv1beta1.JobWaitingTime, "5m").Obj()},
			want: result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{"ns/late": "Inqueue", "ns/fresh": "Pending", "ns/own": "Inqueue"},
				Messages: map[api.JobID]string{"ns/fresh": "1 of 1 pods wait: this PodGroup's minResources ask for 9 cpu, more than the 4 cpu all Ready nodes offer together: " +
					"the gang can never be placed; lower minResources (or the tasks' requests), or add nodes"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, _ := st.Session(t, s, registry.Default(), tc.config, st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			got := result{Phases: map[api.JobID]schedulingv1beta1.PodGroupPhase{}, Messages: map[api.JobID]string{}}
			for id, j := range ssn.Jobs {
				got.Phases[id] = j.Phase
				for _, c := range ssn.JobConditions(id) {
					if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
						got.Messages[id] = c.Message
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("enqueue mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
