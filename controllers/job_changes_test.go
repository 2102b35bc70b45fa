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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

func TestChangesCaughtUp(t *testing.T) {
	job := types.NamespacedName{Namespace: "ns", Name: "j"}
	pod := func(uid, rv string) *corev1.Pod {
		p := &corev1.Pod{}
		p.UID, p.ResourceVersion = types.UID(uid), rv
		return p
	}
	group := func(rv string) *schedulingv1beta1.PodGroup {
		pg := &schedulingv1beta1.PodGroup{}
		pg.Name, pg.ResourceVersion = "j-pg", rv
		return pg
	}
	cases := map[string]struct {
		// seen is what the handlers saw, in order.
		seen   func(c *changes)
		cached []*corev1.Pod
		pg     *schedulingv1beta1.PodGroup
		want   bool
	}{
		"nothing seen, nothing cached": {seen: func(*changes) {}, want: true},
		"pods and PodGroup seen as cached": {
			seen: func(c *changes) {
				c.addPod(job, "job-1", nil, pod("a", "1"))
				c.addPod(job, "job-1", pod("a", "1"), pod("a", "5"))
				c.addPod(job, "job-1", nil, pod("b", "2"))
				c.seeGroup(job, "j-pg", "3")
			},
			cached: []*corev1.Pod{pod("a", "5"), pod("b", "2")},
			pg:     group("3"),
			want:   true,
		},
		"a pod failed in the cache, its change not yet handed to the handlers": {
			seen: func(c *changes) {
				c.addPod(job, "job-1", nil, pod("a", "1"))
				c.seeGroup(job, "j-pg", "3")
			},
			cached: []*corev1.Pod{pod("a", "6")},
			pg:     group("3"),
		},
		"the handlers saw a later version than the one read": {
			seen: func(c *changes) {
				c.addPod(job, "job-1", nil, pod("a", "1"))
				c.addPod(job, "job-1", pod("a", "1"), pod("a", "12"))
				c.seeGroup(job, "j-pg", "13")
			},
			cached: []*corev1.Pod{pod("a", "9")},
			pg:     group("3"),
			want:   true,
		},
		"a pod in the cache the handlers never saw": {
			seen:   func(c *changes) { c.seeGroup(job, "j-pg", "3") },
			cached: []*corev1.Pod{pod("a", "1")},
			pg:     group("3"),
		},
		"a pod gone from the cache, its deletion not yet seen": {
			seen: func(c *changes) {
				c.addPod(job, "job-1", nil, pod("a", "1"))
				c.addPod(job, "job-1", nil, pod("b", "1"))
			},
			cached: []*corev1.Pod{pod("a", "1")},
		},
		"a pod gone from the cache, its deletion seen": {
			seen: func(c *changes) {
				c.addPod(job, "job-1", nil, pod("a", "1"))
				c.addPod(job, "job-1", nil, pod("b", "1"))
				c.addPod(job, "job-1", pod("b", "1"), nil)
			},
			cached: []*corev1.Pod{pod("a", "1")},
			want:   true,
		},
		"pods of an earlier job of the same name do not count": {
			seen: func(c *changes) {
				c.addPod(job, "job-0", nil, pod("old", "1"))
				c.addPod(job, "job-1", nil, pod("a", "1"))
			},
			cached: []*corev1.Pod{pod("a", "1")},
			want:   true,
		},
		"a pod no longer the job's": {
			seen: func(c *changes) {
				c.addPod(job, "job-1", nil, pod("a", "1"))
				c.addPod(job, "job-1", nil, pod("b", "1"))
				c.dropPod(job, "b")
			},
			cached: []*corev1.Pod{pod("a", "1")},
			want:   true,
		},
		"the PodGroup changed in the cache, the change not yet seen": {
			seen:   func(c *changes) { c.seeGroup(job, "j-pg", "3") },
			pg:     group("4"),
			cached: nil,
		},
		"the PodGroup made, not yet seen": {
			seen: func(*changes) {},
			pg:   group("4"),
		},
		"the PodGroup gone from the cache, its deletion not yet seen": {
			seen: func(c *changes) { c.seeGroup(job, "j-pg", "3") },
		},
		"the PodGroup gone, its deletion seen": {
			seen: func(c *changes) {
				c.seeGroup(job, "j-pg", "3")
				c.seeGroup(job, "j-pg", "")
			},
			want: true,
		},
		"taking the changes keeps what was seen": {
			seen: func(c *changes) {
				c.addPod(job, "job-1", nil, pod("a", "1"))
				c.take(job)
			},
			cached: []*corev1.Pod{pod("a", "1")},
			want:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newChanges()
			tc.seen(c)
			if got := c.caughtUp(job, "job-1", tc.cached, "j-pg", tc.pg); got != tc.want {
				t.Errorf("caughtUp = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("forgetting a job drops what was seen of it", func(t *testing.T) {
		c := newChanges()
		c.addPod(job, "job-1", nil, pod("a", "1"))
		c.seeGroup(job, "j-pg", "3")
		c.forget(job)
		if len(c.seenPods) != 0 || len(c.seenGroups) != 0 {
			t.Errorf("after forget: seenPods %v, seenGroups %v", c.seenPods, c.seenGroups)
		}
	})
}
