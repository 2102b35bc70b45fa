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

package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

func tasks(deps map[string][]string, names ...string) *batchv1alpha1.JobSpec {
	spec := &batchv1alpha1.JobSpec{}
	for _, n := range names {
		t := batchv1alpha1.TaskSpec{Name: n}
		if d, ok := deps[n]; ok {
			t.DependsOn = &batchv1alpha1.DependsOn{Name: d}
		}
		spec.Tasks = append(spec.Tasks, t)
	}
	return spec
}

func TestDependsOnCycle(t *testing.T) {
	cases := map[string]struct {
		spec *batchv1alpha1.JobSpec
		want string
	}{
		"no dependencies":                      {spec: tasks(nil, "a", "b")},
		"chain":                                {spec: tasks(map[string][]string{"b": {"a"}, "c": {"b"}}, "a", "b", "c")},
		"diamond":                              {spec: tasks(map[string][]string{"b": {"a"}, "c": {"a"}, "d": {"b", "c"}}, "a", "b", "c", "d")},
		"unknown name is left to the CRD rule": {spec: tasks(map[string][]string{"a": {"x"}}, "a")},
		"two-task cycle": {
			spec: tasks(map[string][]string{"a": {"b"}, "b": {"a"}}, "a", "b"),
			want: `spec.tasks[0].dependsOn.name: Invalid value: ["b"]: tasks depend on each other in a cycle (a -> b -> a): dependsOn must form a directed acyclic graph; remove one of these dependencies`,
		},
		"self cycle": {
			spec: tasks(map[string][]string{"a": {"a"}}, "a"),
			want: `spec.tasks[0].dependsOn.name: Invalid value: ["a"]: tasks depend on each other in a cycle (a -> a): dependsOn must form a directed acyclic graph; remove one of these dependencies`,
		},
		"cycle behind a chain": {
			spec: tasks(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"b"}}, "a", "b", "c"),
			want: `spec.tasks[1].dependsOn.name: Invalid value: ["c"]: tasks depend on each other in a cycle (b -> c -> b): dependsOn must form a directed acyclic graph; remove one of these dependencies`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := DependsOnCycle(tc.spec); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DependsOnCycle (-want +got):\n%s", diff)
			}
		})
	}
}

func queue(name, parent string, state schedulingv1beta1.QueueState) schedulingv1beta1.Queue {
	return schedulingv1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       schedulingv1beta1.QueueSpec{Parent: parent},
		Status:     schedulingv1beta1.QueueStatus{State: state},
	}
}

func TestQueueAdmission(t *testing.T) {
	all := []schedulingv1beta1.Queue{
		queue("default", "", schedulingv1beta1.QueueStateOpen),
		queue("fresh", "", ""),
		queue("closed", "", schedulingv1beta1.QueueStateClosed),
		queue("closing", "", schedulingv1beta1.QueueStateClosing),
		queue("parent", "", schedulingv1beta1.QueueStateOpen),
		queue("child-b", "parent", schedulingv1beta1.QueueStateOpen),
		queue("child-a", "parent", schedulingv1beta1.QueueStateOpen),
	}
	find := func(name string) *schedulingv1beta1.Queue {
		for i := range all {
			if all[i].Name == name {
				return &all[i]
			}
		}
		return nil
	}
	cases := map[string]struct {
		queue string
		want  string
	}{
		"open":                    {queue: "default"},
		"empty means default":     {queue: ""},
		"no state yet means open": {queue: "fresh"},
		"leaf child":              {queue: "child-a"},
		"missing": {
			queue: "nope",
			want:  `spec.queue: Not found: "nope (create the queue or name an existing one)"`,
		},
		"closed": {
			queue: "closed",
			want:  "spec.queue: Invalid value: \"closed\": can only submit job to queue with state `Open`, queue `closed` status is `Closed`: open the queue (vcctl queue operate -n closed -a open) or name another",
		},
		"closing": {
			queue: "closing",
			want:  "spec.queue: Invalid value: \"closing\": can only submit job to queue with state `Open`, queue `closing` status is `Closing`: open the queue (vcctl queue operate -n closing -a open) or name another",
		},
		"root": {
			queue: "root",
			want:  `spec.queue: Invalid value: "root": can not submit job to root queue: name a leaf queue`,
		},
		"not a leaf": {
			queue: "parent",
			want:  "spec.queue: Invalid value: \"parent\": can only submit job to leaf queue, queue `parent` has 2 child queues (child-a, child-b): name one of them",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &batchv1alpha1.JobSpec{Queue: tc.queue}
			lookup := tc.queue
			if lookup == "" {
				lookup = "default"
			}
			got := ""
			if err := QueueAdmission(spec, find(lookup), all); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("QueueAdmission (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDependsOnDeadlock(t *testing.T) {
	staged := func(minAvailable int32) *batchv1alpha1.JobSpec {
		spec := tasks(map[string][]string{"worker": {"master"}}, "master", "worker")
		spec.Tasks[0].Replicas, spec.Tasks[1].Replicas = 1, 3
		spec.MinAvailable = minAvailable
		return spec
	}
	cases := map[string]struct {
		spec *batchv1alpha1.JobSpec
		want string
	}{
		"no minAvailable gangs the first stage": {spec: staged(0)},
		"minAvailable within the first stage":   {spec: staged(1)},
		"no dependsOn": {spec: func() *batchv1alpha1.JobSpec {
			s := tasks(nil, "a")
			s.Tasks[0].Replicas, s.MinAvailable = 1, 5
			return s
		}()},
		"minAvailable beyond the first stage": {
			spec: staged(2),
			want: "spec.minAvailable: Invalid value: 2: the gang can never form: only the 1 pods of the tasks without dependsOn (master) can exist before it starts, " +
				"and the other tasks are created once those run; set spec.minAvailable to at most 1, or leave it out to gang the first tasks on their own",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := DependsOnDeadlock(tc.spec); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DependsOnDeadlock (-want +got):\n%s", diff)
			}
		})
	}
}
