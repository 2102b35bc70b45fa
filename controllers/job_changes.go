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
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// podChange is one change of a job's pod as the informer saw it: old is nil for a pod seen for
// the first time, cur is nil for a pod that is gone.
type podChange struct {
	old, cur *corev1.Pod
}

// groupChange is a change of a job's PodGroup phase.
type groupChange struct {
	old, cur schedulingv1beta1.PodGroupPhase
}

// changes buffers, per job, the pod and PodGroup changes the informers saw since the job's last
// reconcile. Volcano's events (PodFailed, PodEvicted, TaskCompleted, ...) are edges: a pod turns
// Failed, a pod is deleted by someone else. The handlers record the edges here and the
// reconciler turns them into requests with the job's current spec, in the order they happened.
// After a restart, the informer's initial list replays every pod as first seen, which raises the
// events a finished or failed pod stands for; stale ones resolve to a plain sync.
type changes struct {
	mu     sync.Mutex
	pods   map[types.NamespacedName][]podChange
	groups map[types.NamespacedName][]groupChange
}

func newChanges() *changes {
	return &changes{
		pods:   map[types.NamespacedName][]podChange{},
		groups: map[types.NamespacedName][]groupChange{},
	}
}

func (c *changes) addPod(job types.NamespacedName, old, cur *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pods[job] = append(c.pods[job], podChange{old: old, cur: cur})
}

func (c *changes) addGroup(job types.NamespacedName, old, cur schedulingv1beta1.PodGroupPhase) {
	if old == cur {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.groups[job] = append(c.groups[job], groupChange{old: old, cur: cur})
}

// take returns and forgets the job's buffered changes.
func (c *changes) take(job types.NamespacedName) ([]podChange, []groupChange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pods, groups := c.pods[job], c.groups[job]
	delete(c.pods, job)
	delete(c.groups, job)
	return pods, groups
}

// putBack returns changes to the front of the job's buffer, when a reconcile could not handle
// them (for example, the status write failed).
func (c *changes) putBack(job types.NamespacedName, pods []podChange, groups []groupChange) {
	if len(pods) == 0 && len(groups) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pods[job] = append(pods, c.pods[job]...)
	c.groups[job] = append(groups, c.groups[job]...)
}

func (c *changes) forget(job types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pods, job)
	delete(c.groups, job)
}

// startedJobs are the jobs reconciled since the controller started. A job's first reconcile
// also derives, from its pods and its last written status, the pods that vanished while no
// controller ran: no informer event tells of them.
type startedJobs struct {
	mu   sync.Mutex
	seen map[types.NamespacedName]bool
}

// first reports whether this is the job's first reconcile since the controller started, and
// records that it no longer is.
func (s *startedJobs) first(job types.NamespacedName) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[job] {
		return false
	}
	s.seen[job] = true
	return true
}

func (s *startedJobs) forget(job types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seen, job)
}
