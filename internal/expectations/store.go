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

// Package expectations remembers the child creations and deletions a controller has sent to the
// API server and not yet seen come back through its informer cache.
//
// A reconciler that acts on a stale cache would create a pod twice or delete one twice. With
// deterministic child names a second create only fails with AlreadyExists, but it still costs an
// API call and hides the real state; so before acting on an owner's children the reconciler asks
// Satisfied, and the informer's event handlers report what they observe. An expectation that is
// never observed (a missed event) expires after a TTL, so an owner is never stuck.
package expectations

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// DefaultTTL is how long an unobserved expectation holds before it is dropped.
const DefaultTTL = 5 * time.Minute

// Store holds, per owner, the names of children expected to appear and the UIDs of children
// expected to disappear. It is safe for concurrent use.
type Store struct {
	clock clock.PassiveClock
	ttl   time.Duration

	mu     sync.Mutex
	owners map[types.NamespacedName]*pending
}

type pending struct {
	creates map[string]struct{}
	deletes map[types.UID]struct{}
	// since is when an expectation of this owner was last recorded; the TTL runs from it.
	since time.Time
}

// NewStore returns an empty store whose expectations expire after ttl (DefaultTTL when 0).
func NewStore(clk clock.PassiveClock, ttl time.Duration) *Store {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Store{clock: clk, ttl: ttl, owners: map[types.NamespacedName]*pending{}}
}

func (s *Store) entry(owner types.NamespacedName) *pending {
	p := s.owners[owner]
	if p == nil {
		p = &pending{creates: map[string]struct{}{}, deletes: map[types.UID]struct{}{}}
		s.owners[owner] = p
	}
	p.since = s.clock.Now()
	return p
}

// ExpectCreations records that children with these names are being created for owner.
func (s *Store) ExpectCreations(owner types.NamespacedName, names ...string) {
	if len(names) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.entry(owner)
	for _, n := range names {
		p.creates[n] = struct{}{}
	}
}

// ExpectDeletions records that children with these UIDs are being deleted for owner.
func (s *Store) ExpectDeletions(owner types.NamespacedName, uids ...types.UID) {
	if len(uids) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.entry(owner)
	for _, u := range uids {
		p.deletes[u] = struct{}{}
	}
}

// CreationObserved records that a child named name of owner is in the cache, or that its
// create failed and will not appear.
func (s *Store) CreationObserved(owner types.NamespacedName, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.owners[owner]; p != nil {
		delete(p.creates, name)
		s.dropIfEmpty(owner, p)
	}
}

// DeletionObserved records that the child with uid of owner left the cache, or that its
// delete failed and it will stay.
func (s *Store) DeletionObserved(owner types.NamespacedName, uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.owners[owner]; p != nil {
		delete(p.deletes, uid)
		s.dropIfEmpty(owner, p)
	}
}

func (s *Store) dropIfEmpty(owner types.NamespacedName, p *pending) {
	if len(p.creates) == 0 && len(p.deletes) == 0 {
		delete(s.owners, owner)
	}
}

// live returns owner's pending expectations, dropping them when they have expired.
func (s *Store) live(owner types.NamespacedName) *pending {
	p := s.owners[owner]
	if p != nil && s.clock.Since(p.since) >= s.ttl {
		delete(s.owners, owner)
		return nil
	}
	return p
}

// Satisfied reports whether every expectation of owner has been observed (or has expired), so
// the cache can be trusted for owner's children.
func (s *Store) Satisfied(owner types.NamespacedName) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live(owner) == nil
}

// Pending returns how many creations and deletions of owner are still expected.
func (s *Store) Pending(owner types.NamespacedName) (creates, deletes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.live(owner); p != nil {
		return len(p.creates), len(p.deletes)
	}
	return 0, 0
}

// ExpectingDeletion reports whether the child with uid of owner is one the controller is
// deleting itself, so that its disappearance is not mistaken for someone else's doing.
func (s *Store) ExpectingDeletion(owner types.NamespacedName, uid types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.live(owner); p != nil {
		_, ok := p.deletes[uid]
		return ok
	}
	return false
}

// Forget drops every expectation of owner, for example when owner is deleted.
func (s *Store) Forget(owner types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.owners, owner)
}
