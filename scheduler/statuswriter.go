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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/status"
)

// statusKey names a PodGroup (namespace and name), a Queue (name only) or a pod (pod set,
// namespace and name).
type statusKey struct {
	queue     bool
	pod       bool
	namespace string
	name      string
}

type podGroupWrite struct {
	// uid is the UID of the PodGroup the status was decided for: a PodGroup made anew under the
	// same name is not written with it.
	uid types.UID
	// status is the decided status: phase and counters. Its conditions are the conditions the
	// cycles decided (conds) merged, at write time, into the stored ones.
	status schedulingv1beta1.PodGroupStatus
	conds  []schedulingv1beta1.PodGroupCondition
	// event is the Unschedulable message to record on the PodGroup once written, or "".
	event string
	// urgent writes (admissions: the job controller waits for Inqueue to create pods) go at
	// once; the others wait while binds are under way, up to Options.StatusMaxDelay.
	urgent bool
	// endsWithJob marks a Completed status for a PodGroup a Volcano job controls. The job
	// controller deletes such a PodGroup once its pods have all succeeded and the job ends, so
	// the write waits up to Options.StatusMaxDelay even with no bind under way: most of the time
	// the PodGroup is gone by then and nothing is written.
	endsWithJob bool
	// wanted is when a write of this PodGroup was first wanted.
	wanted time.Time
}

// statusWriter writes PodGroup and Queue statuses; it is the one writer of a Queue's status
// (queue Commands are recorded on the Queue by the queue-command controller as the requested
// state, which the cycles turn into status.state). Writes are coalesced per object: only the
// latest wanted status is written, and only when it differs from the stored one.
type statusWriter struct {
	s      *Scheduler
	queue  workqueue.TypedRateLimitingInterface[statusKey]
	mu     sync.Mutex
	groups map[statusKey]podGroupWrite
	queues map[statusKey]queueWrite
	// parked holds deferred writes, when each was first wanted and whether it waits even with no
	// bind under way; parkedMin is the earliest wanted, and parkedForBinds counts those that wait
	// only while binds are under way.
	parked         map[statusKey]parking
	parkedMin      time.Time
	parkedForBinds int
	// written remembers, per object, the resourceVersion a status was last written over and
	// that status, so the same write is not repeated before the informer shows it.
	written map[statusKey]writtenStatus
	// pods holds the PodScheduled conditions waiting to be written; podMemory remembers, per job
	// and pod, the condition last handed over (or found stored), so each change is written once.
	pods      map[statusKey]podWrite
	podMemory map[api.JobID]map[types.UID]podScheduled
}

type queueWrite struct {
	base   *schedulingv1beta1.Queue
	status schedulingv1beta1.QueueStatus
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
		queues:  map[statusKey]queueWrite{},
		written: map[statusKey]writtenStatus{},
		parked:  map[statusKey]parking{},

		pods:      map[statusKey]podWrite{},
		podMemory: map[api.JobID]map[types.UID]podScheduled{},
	}
}

// wantPodGroup hands over a PodGroup's decided status and the conditions decided for it; a
// write still waiting is replaced, its conditions kept where the new one decides none of
// their type.
func (w *statusWriter) wantPodGroup(pg *schedulingv1beta1.PodGroup, st schedulingv1beta1.PodGroupStatus, conds []schedulingv1beta1.PodGroupCondition, event string, urgent bool) {
	k := statusKey{namespace: pg.Namespace, name: pg.Name}
	wanted := w.s.clock.Now()
	w.mu.Lock()
	if old, ok := w.groups[k]; ok && old.uid == pg.UID {
		if event == "" {
			event = old.event
		}
		urgent = urgent || old.urgent
		wanted = old.wanted
		conds = status.MergeConditions(old.conds, conds)
	}
	endsWithJob := st.Phase == schedulingv1beta1.PodGroupCompleted && batchv1alpha1.JobControllerOf(pg) != nil
	w.groups[k] = podGroupWrite{uid: pg.UID, status: st, conds: conds, event: event, urgent: urgent, endsWithJob: endsWithJob, wanted: wanted}
	w.mu.Unlock()
	w.queue.Add(k)
}

// parking is how a write waits.
type parking struct {
	// wanted is when the write was first wanted.
	wanted time.Time
	// always is set for a write that waits even when no bind is under way.
	always bool
}

// deferred reports whether a write should wait, and how: it is not urgent, has not waited
// StatusMaxDelay yet, and binds are under way or it waits anyway (see podGroupWrite.endsWithJob).
func (w *statusWriter) deferred(k statusKey) (parking, bool) {
	if k.queue {
		return parking{}, false
	}
	var p parking
	w.mu.Lock()
	if k.pod {
		// Pod conditions are never urgent: they wait while binds are under way.
		want, ok := w.pods[k]
		if !ok {
			w.mu.Unlock()
			return parking{}, false
		}
		p.wanted = want.wanted
	} else {
		want, ok := w.groups[k]
		if !ok || want.urgent {
			w.mu.Unlock()
			return parking{}, false
		}
		p = parking{wanted: want.wanted, always: want.endsWithJob}
	}
	w.mu.Unlock()
	return p, waits(p, w.s.clock.Now(), w.s.opts.StatusMaxDelay, w.s.bindsUnderWay())
}

// waits reports whether a write parked as p still waits at now.
func waits(p parking, now time.Time, maxDelay time.Duration, bindsUnderWay bool) bool {
	return now.Sub(p.wanted) < maxDelay && (bindsUnderWay || p.always)
}

func (w *statusWriter) wantQueue(base *schedulingv1beta1.Queue, st schedulingv1beta1.QueueStatus) {
	k := statusKey{queue: true, name: base.Name}
	w.mu.Lock()
	w.queues[k] = queueWrite{base: base, status: st}
	w.mu.Unlock()
	w.queue.Add(k)
}

// run starts n status workers. Binds come first: a write that is not urgent waits while binds
// are under way (statuses are coalesced, so waiting costs nothing but time), at most
// StatusMaxDelay; a Completed status of a Volcano job's PodGroup waits that long anyway (see
// podGroupWrite.endsWithJob).
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
				if p, ok := w.deferred(k); ok {
					w.park(k, p)
					w.queue.Done(k)
					continue
				}
				err := w.write(ctx, k)
				if err != nil && ctx.Err() == nil {
					if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
						// Another writer got there first, or the object is going: the retry
						// works from the cache's newer copy. Not an error anybody must act on.
						w.s.log.V(1).Info("writing status: retrying", "queue", k.queue, "namespace", k.namespace, "name", k.name, "reason", err.Error())
					} else {
						w.s.log.Error(err, "writing status", "queue", k.queue, "namespace", k.namespace, "name", k.name)
					}
					w.queue.AddRateLimited(k)
				} else {
					w.queue.Forget(k)
				}
				w.queue.Done(k)
			}
		}()
	}
}

// parkCheck is how often parked writes are looked at.
const parkCheck = 100 * time.Millisecond

// park sets a deferred write aside until it no longer waits (see waits).
func (w *statusWriter) park(k statusKey, p parking) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.parked) == 0 || p.wanted.Before(w.parkedMin) {
		w.parkedMin = p.wanted
	}
	if old, ok := w.parked[k]; ok && !old.always {
		w.parkedForBinds--
	}
	if !p.always {
		w.parkedForBinds++
	}
	w.parked[k] = p
}

// runUnparker hands parked writes back to the workers once they no longer wait: no bind is under
// way (unless they wait anyway), or they have waited StatusMaxDelay.
func (w *statusWriter) runUnparker(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		ticker := w.s.clock.NewTicker(parkCheck)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C():
			}
			w.unpark()
		}
	}()
}

func (w *statusWriter) unpark() {
	w.mu.Lock()
	if len(w.parked) == 0 {
		w.mu.Unlock()
		return
	}
	now := w.s.clock.Now()
	busy := w.s.bindsUnderWay()
	var release []statusKey
	// Only a bind-bound write can go before the earliest one has waited StatusMaxDelay.
	if !busy && w.parkedForBinds > 0 || now.Sub(w.parkedMin) >= w.s.opts.StatusMaxDelay {
		w.parkedMin = time.Time{}
		for k, p := range w.parked {
			if !waits(p, now, w.s.opts.StatusMaxDelay, busy) {
				release = append(release, k)
				delete(w.parked, k)
				if !p.always {
					w.parkedForBinds--
				}
			} else if w.parkedMin.IsZero() || p.wanted.Before(w.parkedMin) {
				w.parkedMin = p.wanted
			}
		}
	}
	w.mu.Unlock()
	for _, k := range release {
		w.queue.Add(k)
	}
}

func (w *statusWriter) write(ctx context.Context, k statusKey) error {
	if k.queue {
		return w.writeQueue(ctx, k)
	}
	if k.pod {
		return w.writePod(ctx, k)
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
	if cur == nil || cur.UID != want.uid {
		// The PodGroup it was decided for is gone (and perhaps made anew under its name: the
		// next cycle decides the new one's status).
		w.forget(k)
		return nil
	}
	// The status is decided anew over the stored one: the scheduler owns the phase, the
	// counters and the conditions it decides; other conditions are kept.
	next := cur.DeepCopy()
	next.Status.Phase, next.Status.Running, next.Status.Succeeded, next.Status.Failed =
		want.status.Phase, want.status.Running, want.status.Succeeded, want.status.Failed
	next.Status.Conditions = status.MergeConditions(cur.Status.Conditions, want.conds)
	if status.PodGroupEqual(cur.Status, next.Status) || w.alreadyWritten(k, cur.ResourceVersion, func(st any) bool {
		prev, ok := st.(schedulingv1beta1.PodGroupStatus)
		return ok && status.PodGroupEqual(prev, next.Status)
	}) {
		return nil
	}
	// The patch carries the resourceVersion it was made over; on a conflict it is made again
	// over the newer version.
	if err := w.s.client.Status().Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		w.mu.Lock()
		if newer, ok := w.groups[k]; ok {
			if newer.uid != want.uid {
				// Decided since for a PodGroup made anew under the name: this one is moot.
				w.mu.Unlock()
				return nil
			}
			newer.conds = status.MergeConditions(want.conds, newer.conds)
			if newer.event == "" {
				newer.event = want.event
			}
			w.groups[k] = newer
		} else {
			w.groups[k] = want
		}
		w.mu.Unlock()
		return err
	}
	w.remember(k, cur.ResourceVersion, next.Status)
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
	if cur.UID != want.base.UID || cur.ResourceVersion != want.base.ResourceVersion {
		// Decided over an older version; the next cycle decides again from the stored one.
		return nil
	}
	if status.QueueEqual(cur.Status, want.status) || w.alreadyWritten(k, cur.ResourceVersion, func(st any) bool {
		prev, ok := st.(schedulingv1beta1.QueueStatus)
		return ok && status.QueueEqual(prev, want.status)
	}) {
		return nil
	}
	next := cur.DeepCopy()
	next.Status = want.status
	if err := w.s.client.Status().Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		w.mu.Lock()
		if _, newer := w.queues[k]; !newer {
			w.queues[k] = want
		}
		w.mu.Unlock()
		return err
	}
	w.remember(k, cur.ResourceVersion, want.status)
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
