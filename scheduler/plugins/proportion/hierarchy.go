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

package proportion

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
)

// capped maps each queue to the queues above it (spec.parent, nearest first) that set a
// spec.capability: what a queue and the queues below it hold together stays within each of
// those. Queues with no such ancestor are absent, so a flat cluster pays nothing.
type capped map[string][]*api.QueueInfo

// cappedAncestors builds the capped ancestors of every queue. A parent that does not exist, the
// root queue, or a loop ends a queue's chain.
func cappedAncestors(queues map[string]*api.QueueInfo) capped {
	out := capped{}
	for name, q := range queues {
		seen := map[string]bool{name: true}
		for p := parentOf(q); p != "" && p != schedulingv1beta1.RootQueue && !seen[p]; {
			seen[p] = true
			pq, ok := queues[p]
			if !ok {
				break
			}
			if pq.Queue != nil && len(pq.Queue.Spec.Capability) > 0 {
				out[name] = append(out[name], pq)
			}
			p = parentOf(pq)
		}
	}
	return out
}

func parentOf(q *api.QueueInfo) string {
	if q == nil || q.Queue == nil {
		return ""
	}
	return q.Queue.Spec.Parent
}

// held sums use over the queue anc and the queues below it that have work.
func (c capped) held(anc *api.QueueInfo, attrs map[string]*QueueAttr, d corev1.ResourceName, use func(*QueueAttr, corev1.ResourceName) float64) float64 {
	var sum float64
	for name, a := range attrs {
		if name == anc.Name {
			sum += use(a, d)
			continue
		}
		for _, up := range c[name] {
			if up.Name == anc.Name {
				sum += use(a, d)
				break
			}
		}
	}
	return sum
}

// over returns the first capped ancestor of queue whose capability req would exceed, given what
// its queues hold by use, with the resource and the amount held; nil when none.
func (c capped) over(queue string, req *api.Resource, attrs map[string]*QueueAttr, dims []corev1.ResourceName,
	use func(*QueueAttr, corev1.ResourceName) float64) (*api.QueueInfo, corev1.ResourceName, float64) {
	for _, anc := range c[queue] {
		for _, d := range dims {
			r := float64(req.Get(d))
			limit := SpecCapability(anc, d)
			if r <= 0 || math.IsInf(limit, 1) {
				continue
			}
			if h := c.held(anc, attrs, d, use); h+r > limit+1e-6 {
				return anc, d, h
			}
		}
	}
	return nil, "", 0
}

// parentFullMessage says why a pod of queue q is not placed: a queue above it is at its
// capability.
func parentFullMessage(q string, anc *api.QueueInfo, d corev1.ResourceName, held float64) string {
	return fmt.Sprintf("queue %s is below queue %s, which has reached its capability of %s: its queues hold %s of %s; "+
		"raise queue %s's spec.capability or wait for their pods to finish", q, anc.Name, d, Format(d, held), Format(d, SpecCapability(anc, d)), anc.Name)
}

// parentQuotaMessage says why a job of queue q is not admitted: a queue above it cannot hold
// what the job needs besides what its queues hold.
func parentQuotaMessage(q string, anc *api.QueueInfo, d corev1.ResourceName, held float64, what string, need int64) string {
	return fmt.Sprintf("queue resource quota insufficient: queue %s is below queue %s, which can hold %s of %s and whose queues already hold %s "+
		"for running and admitted jobs; %s need %s more; wait for their jobs to finish, or raise queue %s's capability, or lower minResources",
		q, anc.Name, Format(d, SpecCapability(anc, d)), d, Format(d, held), what, api.FormatAmount(d, need), anc.Name)
}
