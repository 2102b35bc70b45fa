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

package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/event"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

func TestQueueOpensOrCloses(t *testing.T) {
	open := func() *schedulingv1beta1.Queue {
		q := &schedulingv1beta1.Queue{}
		q.Name, q.Generation = "q", 1
		q.Status.State = schedulingv1beta1.QueueStateOpen
		q.Status.Pending, q.Status.Running = 3, 2
		return q
	}
	cases := map[string]struct {
		change func(q *schedulingv1beta1.Queue)
		want   bool
	}{
		"counters only (the scheduler's writes at each admission)": {
			change: func(q *schedulingv1beta1.Queue) { q.Status.Pending, q.Status.Running, q.Status.Inqueue = 2, 3, 1 },
		},
		"closed": {
			change: func(q *schedulingv1beta1.Queue) { q.Status.State = schedulingv1beta1.QueueStateClosed },
			want:   true,
		},
		"spec edited": {
			change: func(q *schedulingv1beta1.Queue) { q.Generation = 2 },
			want:   true,
		},
		"labels only": {
			change: func(q *schedulingv1beta1.Queue) { q.Labels = map[string]string{"team": "a"} },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			old, cur := open(), open()
			tc.change(cur)
			got := queueOpensOrCloses.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: cur})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("passes the update (-want +got):\n%s", diff)
			}
		})
	}
	q := open()
	if !queueOpensOrCloses.Create(event.CreateEvent{Object: q}) || !queueOpensOrCloses.Delete(event.DeleteEvent{Object: q}) {
		t.Error("a queue made or deleted must reach the jobs waiting on it")
	}
}

func TestHasPluginRecords(t *testing.T) {
	cases := map[string]struct {
		controlled map[string]string
		want       bool
	}{
		"none":              {},
		"claims only":       {controlled: map[string]string{"volume-pvc-data": "data"}},
		"a plugin's record": {controlled: map[string]string{"volume-pvc-data": "data", "plugin-ssh": "ssh"}, want: true},
		"the bare prefix":   {controlled: map[string]string{"plugin-": ""}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := &batchv1alpha1.Job{}
			job.Status.ControlledResources = tc.controlled
			if diff := cmp.Diff(tc.want, hasPluginRecords(job)); diff != "" {
				t.Errorf("hasPluginRecords (-want +got):\n%s", diff)
			}
		})
	}
}
