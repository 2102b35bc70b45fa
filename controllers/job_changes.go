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
	"strconv"
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
//
// An informer puts an object in its cache before it hands the change to the handlers, so a
// reconcile started by something else can read a pod that has failed while the PodFailed edge is
// not recorded yet: deciding then would move the job on (every pod finished: Failed) without the
// policy for the event. The buffer therefore also remembers the version of each pod and PodGroup
// the handlers have seen, and caughtUp tells whether they have seen what the cache holds.
type changes struct {
	mu     sync.Mutex
	pods   map[types.NamespacedName][]podChange
	groups map[types.NamespacedName][]groupChange
	// seenPods are, per job, the pods the handlers have seen and not seen deleted, by UID.
	seenPods map[types.NamespacedName]map[types.UID]seenPod
	// seenGroups are, per job, the resourceVersion of each PodGroup the handlers have seen and not
	// seen deleted, by name.
	seenGroups map[types.NamespacedName]map[string]string
}

// seenPod is the last version of a pod the handlers saw, and the UID of the job owning it.
type seenPod struct {
	resourceVersion string
	owner           types.UID
}

func newChanges() *changes {
	return &changes{
		pods:       map[types.NamespacedName][]podChange{},
		groups:     map[types.NamespacedName][]groupChange{},
		seenPods:   map[types.NamespacedName]map[types.UID]seenPod{},
		seenGroups: map[types.NamespacedName]map[string]string{},
	}
}

// addPod records a change of one of the job's pods, owned by the job with UID owner.
func (c *changes) addPod(job types.NamespacedName, owner types.UID, old, cur *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pods[job] = append(c.pods[job], podChange{old: old, cur: cur})
	switch {
	case cur != nil:
		seen := c.seenPods[job]
		if seen == nil {
			seen = map[types.UID]seenPod{}
			c.seenPods[job] = seen
		}
		seen[cur.UID] = seenPod{resourceVersion: cur.ResourceVersion, owner: owner}
	case old != nil:
		c.unseePod(job, old.UID)
	}
}

// unseePod forgets a pod of the job that is gone, or no longer the job's, with no change to record.
func (c *changes) unseePod(job types.NamespacedName, uid types.UID) {
	if seen := c.seenPods[job]; seen != nil {
		delete(seen, uid)
		if len(seen) == 0 {
			delete(c.seenPods, job)
		}
	}
}

// dropPod forgets a pod that no longer belongs to the job.
func (c *changes) dropPod(job types.NamespacedName, uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unseePod(job, uid)
}

// addGroup records a change of the phase of one of the job's PodGroups.
func (c *changes) addGroup(job types.NamespacedName, old, cur schedulingv1beta1.PodGroupPhase) {
	if old == cur {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.groups[job] = append(c.groups[job], groupChange{old: old, cur: cur})
}

// seeGroup records the version of one of the job's PodGroups the handlers have seen; an empty
// resourceVersion records its deletion.
func (c *changes) seeGroup(job types.NamespacedName, name, resourceVersion string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := c.seenGroups[job]
	if resourceVersion == "" {
		delete(seen, name)
		if len(seen) == 0 {
			delete(c.seenGroups, job)
		}
		return
	}
	if seen == nil {
		seen = map[string]string{}
		c.seenGroups[job] = seen
	}
	seen[name] = resourceVersion
}

// caughtUp reports whether the handlers have seen the job's pods and its PodGroup named group as
// the cache held them when read (pg nil: none): every pod in that version or a later one, no pod
// of the job (by owner UID) that the cache no longer has, the PodGroup in its version or a later
// one or, when the cache has none, none. A change seen after the read has enqueued the job again.
func (c *changes) caughtUp(job types.NamespacedName, owner types.UID, pods []*corev1.Pod, group string, pg *schedulingv1beta1.PodGroup) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := c.seenPods[job]
	for _, p := range pods {
		if s, ok := seen[p.UID]; !ok || !notOlder(s.resourceVersion, p.ResourceVersion) {
			return false
		}
	}
	owned := 0
	for _, s := range seen {
		if s.owner == owner {
			owned++
		}
	}
	if owned != len(pods) {
		return false
	}
	seenGroup, ok := c.seenGroups[job][group]
	if pg == nil {
		return !ok
	}
	return ok && notOlder(seenGroup, pg.ResourceVersion)
}

// notOlder reports whether the object version seen is the version read or a later one. The API
// server's resourceVersions are etcd revisions, which grow; kube-scheduler's assume cache compares
// them as numbers too. Versions that are not numbers compare equal or not at all.
func notOlder(seen, read string) bool {
	if seen == read {
		return true
	}
	s, err1 := strconv.ParseUint(seen, 10, 64)
	r, err2 := strconv.ParseUint(read, 10, 64)
	return err1 == nil && err2 == nil && s > r
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

// forget drops what is buffered and seen of a job that is gone.
func (c *changes) forget(job types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pods, job)
	delete(c.groups, job)
	delete(c.seenPods, job)
	delete(c.seenGroups, job)
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
