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

package scheduler

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// The default queue is where jobs and PodGroups that name no queue go. Every manager process
// tries to make it as it starts (CreateDefaultQueue), the leader makes sure of it before its
// first cycle, and makes it again whenever it is deleted (config/policy refuses that on clusters
// with ValidatingAdmissionPolicy, but not every cluster has it): without it every such job would
// wait until someone made the queue.

// defaultQueueWait bounds how long the scheduler waits for the default queue before its first cycle.
const defaultQueueWait = 5 * time.Second

// NewDefaultQueue returns the default queue the scheduler makes, named name: weight 1,
// reclaimable, open to all.
func NewDefaultQueue(name string) *schedulingv1beta1.Queue {
	return &schedulingv1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       schedulingv1beta1.QueueSpec{Weight: 1, Reclaimable: ptr.To(true)},
	}
}

// watchDefaultQueue signals defaultQueueGone whenever the Queue informer sees the default queue
// deleted. Only the leader acts on it (recreateDefaultQueue runs in Start).
func (s *Scheduler) watchDefaultQueue(ctx context.Context) error {
	inf, err := s.mgrCache.GetInformer(ctx, &schedulingv1beta1.Queue{}, crcache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("getting the Queue informer: %w", err)
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if q, ok := obj.(*schedulingv1beta1.Queue); !ok || q.Name != s.opts.DefaultQueue {
			return
		}
		select {
		case s.defaultQueueGone <- struct{}{}:
		default: // a recreation is already due
		}
	}})
	if err != nil {
		return fmt.Errorf("watching the default queue: %w", err)
	}
	return nil
}

// CreateDefaultQueue tries once to make the default queue, as the process starts: whether or not
// this replica will lead, and while the caches fill, so that a first leader finds the queue in its
// cache instead of making it and waiting for it before its first cycle (0.1 s on a busy API
// server). An existing queue is left as it is. If the attempt fails, the leader makes the queue
// as before (ensureDefaultQueue).
func (s *Scheduler) CreateDefaultQueue(ctx context.Context) {
	if err := s.tryCreateDefaultQueue(ctx); err != nil {
		s.log.V(1).Info("could not create the default queue at start-up; the leader will", "queue", s.opts.DefaultQueue, "error", err.Error())
	}
}

// tryCreateDefaultQueue creates the default queue (NewDefaultQueue) once. An existing queue is
// not an error.
func (s *Scheduler) tryCreateDefaultQueue(ctx context.Context) error {
	err := s.client.Create(ctx, NewDefaultQueue(s.opts.DefaultQueue))
	if err == nil {
		s.log.Info("created the default queue", "queue", s.opts.DefaultQueue)
	}
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// recreateDefaultQueue makes the default queue again each time it is deleted, until ctx ends.
func (s *Scheduler) recreateDefaultQueue(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.defaultQueueGone:
		}
		s.log.Info("the default queue was deleted; creating it again", "queue", s.opts.DefaultQueue)
		s.createDefaultQueue(ctx)
	}
}

// ensureDefaultQueue creates the default queue when it does not exist (an existing one is never
// changed: Git may own it) and waits a little for the cache to show it, so the first cycle does
// not find the jobs of the default queue without their queue. If the queue cannot be created at
// once, creating it goes on in the background.
func (s *Scheduler) ensureDefaultQueue(ctx context.Context) {
	if s.cache.Queue(s.opts.DefaultQueue) != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.createDefaultQueue(ctx)
	}()
	deadline := s.clock.NewTimer(defaultQueueWait)
	defer deadline.Stop()
	select {
	case <-done:
	case <-deadline.C():
		return
	case <-ctx.Done():
		return
	}
	for s.cache.Queue(s.opts.DefaultQueue) == nil {
		t := s.clock.NewTimer(10 * time.Millisecond)
		select {
		case <-t.C():
		case <-deadline.C():
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// createDefaultQueue creates the default queue (NewDefaultQueue), retrying with backoff until it
// exists. It does not ask the cache first: just after a deletion the cache may still hold the
// queue; AlreadyExists ends it as well as success does.
func (s *Scheduler) createDefaultQueue(ctx context.Context) {
	delay := 100 * time.Millisecond
	for {
		err := s.tryCreateDefaultQueue(ctx)
		if err == nil {
			return
		}
		s.log.Error(err, "creating the default queue; retrying", "queue", s.opts.DefaultQueue, "in", delay)
		t := s.clock.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if s.cache.Queue(s.opts.DefaultQueue) != nil {
			return
		}
		delay = min(delay*2, 30*time.Second)
	}
}
