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
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/metrics"
)

// fifo is an unbounded first-in first-out queue safe for many producers and consumers.
type fifo[T any] struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []T
	closed bool
}

func newFIFO[T any]() *fifo[T] {
	q := &fifo[T]{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *fifo[T]) push(items ...T) {
	q.mu.Lock()
	q.items = append(q.items, items...)
	q.mu.Unlock()
	q.cond.Broadcast()
}

// pop waits for an item; ok is false once the queue is closed and drained.
func (q *fifo[T]) pop() (item T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return item, false
	}
	item = q.items[0]
	var zero T
	q.items[0] = zero
	q.items = q.items[1:]
	return item, true
}

func (q *fifo[T]) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// podWork is a bind or an eviction for the workers.
type podWork struct {
	uid       types.UID
	namespace string
	name      string
	node      string
	pod       *corev1.Pod
	evict     bool
	reason    string
}

func bindWork(t *api.TaskInfo) podWork {
	return podWork{uid: t.UID, namespace: t.Namespace, name: t.Name, node: t.NodeName, pod: t.Pod}
}

// runPodWorkers starts n workers on the scheduler's bind and eviction queue; they stop when the
// queue is closed.
func (s *Scheduler) runPodWorkers(ctx context.Context, n int, wg *sync.WaitGroup) {
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				w, ok := s.podQueue.pop()
				if !ok {
					return
				}
				if w.evict {
					s.evict(ctx, w)
				} else {
					s.bind(ctx, w)
				}
			}
		}()
	}
}

// bind binds a pod through the pods/binding subresource. A failed bind is forgotten, so the
// pod is pending again and the next cycle places it anew; but a bind refused for a reason this
// version of the pod will not outgrow (see refusedForGood) holds the pod until it changes, with
// one event saying why, so that it is not retried cycle after cycle.
func (s *Scheduler) bind(ctx context.Context, w podWork) {
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: w.name, UID: w.uid},
		Target:     corev1.ObjectReference{Kind: "Node", Name: w.node},
	}
	err := s.kube.CoreV1().Pods(w.namespace).Bind(ctx, binding, metav1.CreateOptions{})
	if err == nil {
		s.bindsDone.Add(1)
		return
	}
	if ctx.Err() != nil {
		s.cache.ForgetBind(w.uid)
		return
	}
	if refusedForGood(err) {
		rv := ""
		if w.pod != nil {
			rv = w.pod.ResourceVersion
		}
		s.cache.RefuseBind(w.uid, rv)
		if apierrors.IsNotFound(err) {
			return
		}
		metrics.UpdateScheduleAttempts(metrics.ResultError, 1)
		s.log.Info("the API server refused a bind; the pod is held until it changes", "pod", w.namespace+"/"+w.name, "node", w.node, "error", err.Error())
		if w.pod != nil {
			s.recorder.Eventf(w.pod, nil, corev1.EventTypeWarning, "FailedBinding", "Binding", "binding to node %s was refused; the pod waits until it changes: %v", w.node, err)
		}
		return
	}
	s.cache.ForgetBind(w.uid)
	metrics.UpdateScheduleAttempts(metrics.ResultError, 1)
	s.log.Error(err, "binding a pod failed; it will be placed again", "pod", w.namespace+"/"+w.name, "node", w.node)
	if w.pod != nil {
		s.recorder.Eventf(w.pod, nil, corev1.EventTypeWarning, "FailedBinding", "Binding", "binding to node %s failed: %v", w.node, err)
	}
}

// refusedForGood reports whether the API server refused a bind for a reason that will not
// change until the pod does: the pod is gone (NotFound, or a UID precondition Conflict), bound
// already (Conflict), or not bindable as it is (Invalid, e.g. it has scheduling gates).
// Transient refusals (timeouts, throttling, server errors) are not.
func refusedForGood(err error) bool {
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) || apierrors.IsInvalid(err) || apierrors.IsGone(err) {
		return true
	}
	// Whatever status the API server words it with, a gated pod stays unbindable until it changes.
	return strings.Contains(err.Error(), "schedulingGates") || strings.Contains(err.Error(), "already assigned")
}

// evict deletes a victim pod (guarded by its UID) and records why on the pod.
func (s *Scheduler) evict(ctx context.Context, w podWork) {
	uid := w.uid
	err := s.kube.CoreV1().Pods(w.namespace).Delete(ctx, w.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		s.cache.ForgetEvicting(w.uid)
		if ctx.Err() == nil {
			s.log.Error(err, "evicting a pod failed", "pod", w.namespace+"/"+w.name)
		}
		return
	}
	if w.pod != nil {
		s.recorder.Eventf(w.pod, nil, corev1.EventTypeNormal, "Evicted", "Preempting", "%s", w.reason)
	}
}

// Bind hands placed tasks to the bind workers (part of framework.Dispatcher).
func (s *Scheduler) Bind(tasks []*api.TaskInfo) {
	copies := make([]*api.TaskInfo, len(tasks))
	for i, t := range tasks {
		copies[i] = t.Clone()
	}
	accepted := s.cache.Assume(copies)
	work := make([]podWork, 0, len(accepted))
	for _, t := range accepted {
		work = append(work, bindWork(t))
	}
	s.cycleBinds += len(work)
	s.podQueue.push(work...)
}

// Evict hands a victim to the workers (part of framework.Dispatcher).
func (s *Scheduler) Evict(t *api.TaskInfo, reason string) {
	s.cache.MarkEvicting(t.UID)
	s.cycleEvictions++
	s.podQueue.push(podWork{uid: t.UID, namespace: t.Namespace, name: t.Name, pod: t.Pod, evict: true, reason: reason})
}

// Nominate promises a node to a pending task (part of framework.Dispatcher).
func (s *Scheduler) Nominate(t *api.TaskInfo, node string) {
	s.cache.Nominate(t.UID, node)
}
