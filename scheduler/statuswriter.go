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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/status"
)

// statusKey names a PodGroup (namespace and name) or a Queue (name only).
type statusKey struct {
	queue     bool
	namespace string
	name      string
}

type podGroupWrite struct {
	status schedulingv1beta1.PodGroupStatus
	// event is the Unschedulable message to record on the PodGroup once written, or "".
	event string
	// urgent writes (admissions: the job controller waits for Inqueue to create pods) go at
	// once; the others wait while binds are under way, up to Options.StatusMaxDelay.
	urgent bool
	// wanted is when a write of this PodGroup was first wanted.
	wanted time.Time
}

// statusWriter writes PodGroup and Queue statuses. Writes are coalesced per object: only the
// latest wanted status is written, and only when it differs from the stored one.
type statusWriter struct {
	s      *Scheduler
	queue  workqueue.TypedRateLimitingInterface[statusKey]
	mu     sync.Mutex
	groups map[statusKey]podGroupWrite
	queues map[statusKey]schedulingv1beta1.QueueStatus
	// written remembers, per object, the resourceVersion a status was last written over and
	// that status, so the same write is not repeated before the informer shows it.
	written map[statusKey]writtenStatus
}

type writtenStatus struct {
	resourceVersion string
	status          any
}

func newStatusWriter(s *Scheduler) *statusWriter {
	return &statusWriter{
		s: s,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[statusKey](),
			workqueue.TypedRateLimitingQueueConfig[statusKey]{Name: "caldera-scheduler-status"}),
		groups:  map[statusKey]podGroupWrite{},
		queues:  map[statusKey]schedulingv1beta1.QueueStatus{},
		written: map[statusKey]writtenStatus{},
	}
}

func (w *statusWriter) wantPodGroup(namespace, name string, st schedulingv1beta1.PodGroupStatus, event string, urgent bool) {
	k := statusKey{namespace: namespace, name: name}
	wanted := w.s.clock.Now()
	w.mu.Lock()
	if old, ok := w.groups[k]; ok {
		if event == "" {
			event = old.event
		}
		urgent = urgent || old.urgent
		wanted = old.wanted
	}
	w.groups[k] = podGroupWrite{status: st, event: event, urgent: urgent, wanted: wanted}
	w.mu.Unlock()
	w.queue.Add(k)
}

// deferred reports whether a PodGroup write should wait: it is not urgent, binds are under way
// and it has not waited StatusMaxDelay yet.
func (w *statusWriter) deferred(k statusKey) bool {
	if k.queue {
		return false
	}
	w.mu.Lock()
	want, ok := w.groups[k]
	w.mu.Unlock()
	if !ok || want.urgent || w.s.clock.Since(want.wanted) >= w.s.opts.StatusMaxDelay {
		return false
	}
	return w.s.cache.BindsInFlight() > 0
}

func (w *statusWriter) wantQueue(name string, st schedulingv1beta1.QueueStatus) {
	k := statusKey{queue: true, name: name}
	w.mu.Lock()
	w.queues[k] = st
	w.mu.Unlock()
	w.queue.Add(k)
}

// run starts n status workers. Binds come first: a write that is not urgent waits while binds
// are under way (statuses are coalesced, so waiting costs nothing but time), at most
// StatusMaxDelay.
func (w *statusWriter) run(ctx context.Context, n int, wg *sync.WaitGroup) {
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, shutdown := w.queue.Get()
				if shutdown {
					return
				}
				if w.deferred(k) {
					w.queue.AddAfter(k, statusRetryDelay)
					w.queue.Done(k)
					continue
				}
				err := w.write(ctx, k)
				if err != nil && ctx.Err() == nil {
					w.s.log.Error(err, "writing status", "queue", k.queue, "namespace", k.namespace, "name", k.name)
					w.queue.AddRateLimited(k)
				} else {
					w.queue.Forget(k)
				}
				w.queue.Done(k)
			}
		}()
	}
}

// statusRetryDelay is how long a deferred write waits before it is looked at again.
const statusRetryDelay = 50 * time.Millisecond

func (w *statusWriter) write(ctx context.Context, k statusKey) error {
	if k.queue {
		return w.writeQueue(ctx, k)
	}
	return w.writePodGroup(ctx, k)
}

func (w *statusWriter) writePodGroup(ctx context.Context, k statusKey) error {
	w.mu.Lock()
	want, ok := w.groups[k]
	delete(w.groups, k)
	w.mu.Unlock()
	if !ok {
		return nil
	}
	cur := w.s.cache.PodGroup(api.GroupJobID(k.namespace, k.name))
	if cur == nil {
		w.forget(k)
		return nil
	}
	if status.PodGroupEqual(cur.Status, want.status) || w.alreadyWritten(k, cur.ResourceVersion, func(st any) bool {
		prev, ok := st.(schedulingv1beta1.PodGroupStatus)
		return ok && status.PodGroupEqual(prev, want.status)
	}) {
		return nil
	}
	next := cur.DeepCopy()
	next.Status = want.status
	if err := w.s.client.Status().Patch(ctx, next, client.MergeFrom(cur)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		w.mu.Lock()
		if _, newer := w.groups[k]; !newer {
			w.groups[k] = want
		}
		w.mu.Unlock()
		return err
	}
	w.remember(k, cur.ResourceVersion, want.status)
	w.s.statusWrites.Add(1)
	if want.event != "" {
		w.s.recorder.Eventf(next, nil, corev1.EventTypeWarning, "Unschedulable", "Scheduling", "%s", want.event)
	}
	return nil
}

func (w *statusWriter) writeQueue(ctx context.Context, k statusKey) error {
	w.mu.Lock()
	want, ok := w.queues[k]
	delete(w.queues, k)
	w.mu.Unlock()
	if !ok {
		return nil
	}
	cur := w.s.cache.Queue(k.name)
	if cur == nil {
		w.forget(k)
		return nil
	}
	if status.QueueEqual(cur.Status, want) || w.alreadyWritten(k, cur.ResourceVersion, func(st any) bool {
		prev, ok := st.(schedulingv1beta1.QueueStatus)
		return ok && status.QueueEqual(prev, want)
	}) {
		return nil
	}
	next := cur.DeepCopy()
	next.Status = want
	if err := w.s.client.Status().Patch(ctx, next, client.MergeFrom(cur)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		w.mu.Lock()
		if _, newer := w.queues[k]; !newer {
			w.queues[k] = want
		}
		w.mu.Unlock()
		return err
	}
	w.remember(k, cur.ResourceVersion, want)
	w.s.statusWrites.Add(1)
	return nil
}

func (w *statusWriter) alreadyWritten(k statusKey, rv string, same func(any) bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, ok := w.written[k]
	return ok && prev.resourceVersion == rv && same(prev.status)
}

func (w *statusWriter) remember(k statusKey, rv string, st any) {
	w.mu.Lock()
	w.written[k] = writtenStatus{resourceVersion: rv, status: st}
	w.mu.Unlock()
}

func (w *statusWriter) forget(k statusKey) {
	w.mu.Lock()
	delete(w.written, k)
	w.mu.Unlock()
}
