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
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
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

// fieldOwner is the field manager the scheduler writes pods' status under.
const fieldOwner = EventSource

// podWorkKind says what a podWork asks of the workers.
type podWorkKind int

const (
	// workBind binds the pod to node.
	workBind podWorkKind = iota
	// workEvict evicts the pod, for reason.
	workEvict
	// workNominate writes node as the pod's status.nominatedNodeName.
	workNominate
)

// podWork is a bind, an eviction or a nomination for the workers.
type podWork struct {
	kind      podWorkKind
	uid       types.UID
	namespace string
	name      string
	node      string
	pod       *corev1.Pod
	reason    string
}

func bindWork(t *api.TaskInfo) podWork {
	return podWork{kind: workBind, uid: t.UID, namespace: t.Namespace, name: t.Name, node: t.NodeName, pod: t.Pod}
}

// runPodWorkers starts n workers on the scheduler's queue of binds, evictions and nominations;
// they stop when the queue is closed.
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
				switch w.kind {
				case workEvict:
					s.evict(ctx, w)
				case workNominate:
					s.nominate(ctx, w)
				default:
					if s.devices != nil && s.devices.NeedsBinding(w.uid) && !s.writeClaims(ctx, w) {
						continue
					}
					if s.volumes != nil && s.volumes.NeedsBinding(w.uid) {
						s.bindWithVolumes(ctx, w)
						continue
					}
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

// writeClaims writes the allocations of a pod's ResourceClaims and the pod as their consumer,
// which the pod's bind needs first. When they cannot be written the pod is placed again, and its
// event says why.
func (s *Scheduler) writeClaims(ctx context.Context, w podWork) bool {
	err := s.devices.Bind(ctx, w.pod)
	if err == nil {
		return true
	}
	if s.volumes != nil {
		s.volumes.Unreserve(w.uid)
	}
	s.cache.ForgetBind(w.uid)
	if ctx.Err() != nil {
		return false
	}
	metrics.UpdateScheduleAttempts(metrics.ResultError, 1)
	s.log.Error(err, "writing a pod's ResourceClaims failed; it will be placed again", "pod", w.namespace+"/"+w.name, "node", w.node)
	s.recorder.Eventf(w.pod, nil, corev1.EventTypeWarning, "FailedScheduling", "Binding",
		"allocating the resourceClaims on node %s failed; the pod will be placed again: %v", w.node, err)
	return false
}

// bindWithVolumes binds a pod's claims, then the pod. Binding claims waits for
// kube-controller-manager (and a provisioner) to bind them, which may take long: it runs apart
// from the workers. When the claims cannot be bound the pod is placed again, and its event says
// why.
func (s *Scheduler) bindWithVolumes(ctx context.Context, w podWork) {
	s.volumeBinds.Add(1)
	s.volumeWaits.Add(1)
	if w.pod != nil {
		s.recorder.Eventf(w.pod, nil, corev1.EventTypeNormal, "WaitingForVolumes", "Binding",
			"placed on node %s; bound there once its PersistentVolumeClaims are bound (a volume matched, or provisioned by the StorageClass's provisioner)", w.node)
	}
	go func() {
		defer s.volumeBinds.Done()
		err := s.volumes.Bind(ctx, w.pod)
		s.volumeWaits.Add(-1)
		if err != nil {
			s.cache.ForgetBind(w.uid)
			if ctx.Err() != nil {
				return
			}
			metrics.UpdateScheduleAttempts(metrics.ResultError, 1)
			s.log.Error(err, "binding a pod's volumes failed; it will be placed again", "pod", w.namespace+"/"+w.name, "node", w.node)
			if w.pod != nil {
				s.recorder.Eventf(w.pod, nil, corev1.EventTypeWarning, "FailedScheduling", "Binding",
					"binding volumes for node %s failed; the pod will be placed again: %v", w.node, err)
			}
			return
		}
		s.bind(ctx, w)
	}()
}

// bindsUnderWay reports whether binds are being made, which status writes give way to; a pod
// waiting for its volumes to be bound is not one: that wait may be long.
func (s *Scheduler) bindsUnderWay() bool {
	return s.cache.BindsInFlight() > int(s.volumeWaits.Load())
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

// evict evicts a victim pod through the Eviction API, so that the PodDisruptionBudgets covering
// it are honoured. As kube-scheduler does with its victims, it first gives the pod the
// DisruptionTarget condition (reason PreemptionByScheduler, the session's reason as message);
// then it creates an Eviction guarded by the pod's UID. A pod already gone is done. An eviction
// its PodDisruptionBudgets refuse (see refusedByBudget) is forgotten, the condition is set back
// to False (the Job controller and Jobs' pod failure policies read a True one as a disruption),
// and a Warning event gives the API server's words; the next cycle plans again. Any other
// failure is forgotten and logged.
//
// The API server words the condition of a pod it evicts its own way (reason
// EvictionByEvictionAPI); the Preempted event keeps the session's reason.
func (s *Scheduler) evict(ctx context.Context, w podWork) {
	pod := w.namespace + "/" + w.name
	if err := s.markDisruptionTarget(ctx, w, corev1.ConditionTrue, corev1.PodReasonPreemptionByScheduler, w.reason); err != nil {
		if apierrors.IsNotFound(err) {
			return
		}
		s.cache.ForgetEvicting(w.uid)
		if ctx.Err() == nil {
			s.log.Error(err, "marking a victim pod as a disruption target failed; it is not evicted", "pod", pod)
		}
		return
	}
	uid := w.uid
	err := s.kube.PolicyV1().Evictions(w.namespace).Evict(ctx, &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Namespace: w.namespace, Name: w.name},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}},
	})
	switch {
	case err == nil:
		if w.pod != nil {
			s.recorder.Eventf(w.pod, nil, corev1.EventTypeNormal, "Preempted", "Preempting", "%s", w.reason)
		}
	case apierrors.IsNotFound(err):
	case refusedByBudget(err):
		s.cache.ForgetEvicting(w.uid)
		words := apiServerWords(err)
		s.log.Info("the API server refused an eviction; the next cycle plans again", "pod", pod, "refusal", words)
		if err := s.markDisruptionTarget(ctx, w, corev1.ConditionFalse, "EvictionRefused", words); err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
			s.log.Error(err, "setting a pod's DisruptionTarget condition back to False failed", "pod", pod)
		}
		if w.pod != nil {
			s.recorder.Eventf(w.pod, nil, corev1.EventTypeWarning, "EvictionRefused", "Preempting", "%s (it was to be evicted: %s)", words, w.reason)
		}
	default:
		s.cache.ForgetEvicting(w.uid)
		if ctx.Err() == nil {
			s.log.Error(err, "evicting a pod failed", "pod", pod)
		}
	}
}

// markDisruptionTarget writes a pod's DisruptionTarget condition through the status subresource
// (a strategic merge patch: conditions merge by type) unless the pod, as the session saw it,
// already says so. The patch names the pod's UID, so a pod of the same name made since is not
// written.
func (s *Scheduler) markDisruptionTarget(ctx context.Context, w podWork, status corev1.ConditionStatus, reason, message string) error {
	cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(s.clock.Now())}
	if w.pod != nil {
		for _, c := range w.pod.Status.Conditions {
			if c.Type == cond.Type && c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message {
				return nil
			}
		}
	}
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": w.uid},
		"status":   map[string]any{"conditions": []corev1.PodCondition{cond}},
	})
	if err != nil {
		return err
	}
	_, err = s.kube.CoreV1().Pods(w.namespace).Patch(ctx, w.name, types.StrategicMergePatchType, body, metav1.PatchOptions{FieldManager: fieldOwner}, "status")
	return err
}

// refusedByBudget reports whether the API server refused an eviction for the pod's
// PodDisruptionBudgets: none has a disruption to spare (429), a budget is in a state that allows
// none (403 about the budget), or more than one budget covers the pod (a 500 the Eviction API
// gives since it does not support that). In every case the pod was left alone.
func refusedByBudget(err error) bool {
	if apierrors.IsTooManyRequests(err) {
		return true
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	status := st.Status()
	if apierrors.IsForbidden(err) {
		return status.Details != nil && status.Details.Group == "policy" && status.Details.Kind == "poddisruptionbudget"
	}
	return status.Code == http.StatusInternalServerError && strings.Contains(status.Message, "more than one PodDisruptionBudget")
}

// apiServerWords returns what the API server said in refusing a request: its message and the
// causes it gave (for an eviction, which budget refused and why).
func apiServerWords(err error) string {
	words := err.Error()
	var st apierrors.APIStatus
	if errors.As(err, &st) && st.Status().Details != nil {
		for _, c := range st.Status().Details.Causes {
			if c.Message != "" {
				words += " " + c.Message
			}
		}
	}
	return words
}

// nominate writes the node promised to a pending pod as its status.nominatedNodeName, which
// autoscalers and kube-scheduler read, and which a restarted scheduler takes back as its promise.
// The patch is guarded by the resourceVersion the promise was made over; when the pod has changed
// since, it is read again and written only if it is still the same, unbound pod.
func (s *Scheduler) nominate(ctx context.Context, w podWork) {
	rv := ""
	if w.pod != nil {
		rv = w.pod.ResourceVersion
	}
	pods := s.kube.CoreV1().Pods(w.namespace)
	for attempt := 0; attempt < 3; attempt++ {
		meta := map[string]any{"uid": w.uid}
		if rv != "" {
			meta["resourceVersion"] = rv
		}
		body, err := json.Marshal(map[string]any{"metadata": meta, "status": map[string]any{"nominatedNodeName": w.node}})
		if err != nil {
			return
		}
		_, err = pods.Patch(ctx, w.name, types.StrategicMergePatchType, body, metav1.PatchOptions{FieldManager: fieldOwner}, "status")
		switch {
		case err == nil, apierrors.IsNotFound(err), ctx.Err() != nil:
			return
		case !apierrors.IsConflict(err):
			s.log.Error(err, "writing a pod's nominated node failed", "pod", w.namespace+"/"+w.name, "node", w.node)
			return
		}
		cur, err := pods.Get(ctx, w.name, metav1.GetOptions{})
		if err != nil {
			if !apierrors.IsNotFound(err) && ctx.Err() == nil {
				s.log.Error(err, "reading a pod to write its nominated node failed", "pod", w.namespace+"/"+w.name, "node", w.node)
			}
			return
		}
		if cur.UID != w.uid || cur.Spec.NodeName != "" || cur.DeletionTimestamp != nil || cur.Status.NominatedNodeName == w.node {
			return
		}
		rv = cur.ResourceVersion
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
	if (s.volumes != nil || s.devices != nil) && len(accepted) < len(tasks) {
		// The volumes and devices assumed for tasks the cache did not take are given back.
		taken := make(map[api.TaskID]bool, len(accepted))
		for _, t := range accepted {
			taken[t.UID] = true
		}
		for _, t := range tasks {
			if taken[t.UID] {
				continue
			}
			if s.volumes != nil {
				s.volumes.Unreserve(t.UID)
			}
			if s.devices != nil {
				s.devices.Unreserve(t.UID)
			}
		}
	}
	s.cycleBinds += len(work)
	s.podQueue.push(work...)
}

// Evict hands a victim to the workers (part of framework.Dispatcher).
func (s *Scheduler) Evict(t *api.TaskInfo, reason string) {
	s.cache.MarkEvicting(t.UID)
	s.cycleEvictions++
	s.podQueue.push(podWork{kind: workEvict, uid: t.UID, namespace: t.Namespace, name: t.Name, pod: t.Pod, reason: reason})
}

// Nominate promises a node to a pending task (part of framework.Dispatcher): the cache keeps the
// promise, and the workers write it on the pod (status.nominatedNodeName) unless the pod says so
// already.
func (s *Scheduler) Nominate(t *api.TaskInfo, node string) {
	s.cache.Nominate(t.UID, node)
	if t.Pod != nil && t.Pod.Status.NominatedNodeName == node {
		return
	}
	s.podQueue.push(podWork{kind: workNominate, uid: t.UID, namespace: t.Namespace, name: t.Name, node: node, pod: t.Pod})
}
