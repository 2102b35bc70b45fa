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

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// watchResult is how the applied Jobs ended: err is nil when every one completed.
type watchResult struct {
	err error
}

// watcher prints a line whenever a Job, PodGroup or pod in the watched namespaces changes, and
// follows the applied Jobs for -exit-when-done.
type watcher struct {
	d *dev

	mu       sync.Mutex
	last     map[string]string
	tracked  map[types.NamespacedName]batchv1alpha1.JobPhase
	finished bool
	done     chan watchResult
}

// watch starts a cache on the applied namespaces (every namespace when nothing namespaced was
// applied) and reports Jobs, PodGroups and pods from it until ctx ends or teardown stops it.
func (d *dev) watch(ctx context.Context, a *applied) (*watcher, error) {
	w := &watcher{
		d:       d,
		last:    map[string]string{},
		tracked: map[types.NamespacedName]batchv1alpha1.JobPhase{},
		done:    make(chan watchResult, 1),
	}
	for _, job := range a.jobs {
		w.tracked[job] = ""
	}
	opts := cache.Options{Scheme: d.fw.Scheme}
	if len(a.namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range a.namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
		d.say("watching Jobs, PodGroups and pods in %s", strings.Join(a.namespaces, ", "))
	} else {
		d.say("watching Jobs, PodGroups and pods in every namespace")
	}
	c, err := cache.New(d.fw.Config, opts)
	if err != nil {
		return nil, err
	}
	watched := []client.Object{&batchv1alpha1.Job{}, &schedulingv1beta1.PodGroup{}, &corev1.Pod{}}
	if d.opts.autoscaler {
		d.say("watching the nodes Karpenter adds and removes")
		watched = append(watched, &corev1.Node{})
	}
	for _, obj := range watched {
		informer, err := c.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
		if err != nil {
			return nil, fmt.Errorf("watching %T: %w", obj, err)
		}
		_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { w.observe(obj, false) },
			UpdateFunc: func(_, obj any) { w.observe(obj, false) },
			DeleteFunc: func(obj any) {
				if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
					obj = tombstone.Obj
				}
				w.observe(obj, true)
			},
		})
		if err != nil {
			return nil, fmt.Errorf("watching %T: %w", obj, err)
		}
	}
	watchCtx, stop := context.WithCancel(ctx)
	d.stopWatch = stop
	go func() {
		if err := c.Start(watchCtx); err != nil {
			d.say("watch ended: %v", err)
		}
	}()
	if !c.WaitForCacheSync(watchCtx) {
		return nil, fmt.Errorf("the watch did not sync")
	}
	return w, nil
}

// observe prints obj's summary when it differs from the last one printed for it and updates the
// applied Jobs' progress.
func (w *watcher) observe(obj any, deleted bool) {
	var kind, summary string
	var job *batchv1alpha1.Job
	switch o := obj.(type) {
	case *batchv1alpha1.Job:
		kind, summary, job = "vcjob", jobSummary(o), o
	case *schedulingv1beta1.PodGroup:
		kind, summary = "podgroup", podGroupSummary(o)
	case *corev1.Pod:
		kind, summary = "pod", podSummary(o)
	case *corev1.Node:
		pool, ok := o.Labels[framework.NodePoolLabel]
		if !ok {
			return
		}
		kind, summary = "node", nodeSummary(o, pool)
	default:
		return
	}
	cobj := obj.(client.Object)
	if deleted {
		summary = "deleted"
	}
	key := kind + " " + objectName(cobj)

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last[key] != summary {
		w.last[key] = summary
		w.d.say("%s %s", key, summary)
	}
	if deleted {
		delete(w.last, key)
	}
	if job != nil {
		w.follow(types.NamespacedName{Namespace: job.Namespace, Name: job.Name}, job.Status.State.Phase, deleted)
	}
}

// follow records the phase of an applied Job and reports the end once every applied Job completed
// or one of them ended otherwise. w.mu is held.
func (w *watcher) follow(key types.NamespacedName, phase batchv1alpha1.JobPhase, deleted bool) {
	if _, ok := w.tracked[key]; !ok || w.finished {
		return
	}
	w.tracked[key] = phase
	switch {
	case deleted:
		w.finish(fmt.Errorf("job %s was deleted before it completed", key))
	case phase == batchv1alpha1.Failed || phase == batchv1alpha1.Terminated || phase == batchv1alpha1.Aborted:
		w.finish(fmt.Errorf("job %s ended %s", key, phase))
	default:
		for _, p := range w.tracked {
			if p != batchv1alpha1.Completed {
				return
			}
		}
		w.finish(nil)
	}
}

// finish reports the end once. w.mu is held.
func (w *watcher) finish(err error) {
	w.finished = true
	w.done <- watchResult{err: err}
}

// pending lists the applied Jobs that have not completed, with their phases.
func (w *watcher) pending() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for key, phase := range w.tracked {
		if phase != batchv1alpha1.Completed {
			out = append(out, fmt.Sprintf("%s is %s", key, phaseOrNone(string(phase))))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func jobSummary(job *batchv1alpha1.Job) string {
	s := job.Status
	line := fmt.Sprintf("%s pending=%d running=%d succeeded=%d failed=%d",
		phaseOrNone(string(s.State.Phase)), s.Pending, s.Running, s.Succeeded, s.Failed)
	if s.RetryCount > 0 {
		line += fmt.Sprintf(" retries=%d", s.RetryCount)
	}
	if s.State.Reason != "" {
		line += " reason=" + s.State.Reason
	}
	return line
}

func podGroupSummary(pg *schedulingv1beta1.PodGroup) string {
	s := pg.Status
	line := fmt.Sprintf("%s running=%d succeeded=%d failed=%d", phaseOrNone(string(s.Phase)), s.Running, s.Succeeded, s.Failed)
	for _, c := range s.Conditions {
		if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
			line += fmt.Sprintf(" unschedulable: %s", shorten(c.Message, 160))
		}
	}
	return line
}

func podSummary(pod *corev1.Pod) string {
	node := pod.Spec.NodeName
	if node == "" {
		node = "-"
	}
	line := fmt.Sprintf("%s node=%s", phaseOrNone(string(pod.Status.Phase)), node)
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			line += fmt.Sprintf(" exit=%d (%s)", t.ExitCode, t.Reason)
			break
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			line += " PodScheduled=False reason=" + c.Reason
		}
	}
	if pod.Status.Reason != "" {
		line += fmt.Sprintf(" reason=%s: %s", pod.Status.Reason, shorten(pod.Status.Message, 160))
	}
	if pod.DeletionTimestamp != nil {
		line += " terminating"
	}
	return line
}

// nodeSummary describes a node Karpenter added from pool: whether it is Ready, its CPUs, and
// whether Karpenter is taking it away.
func nodeSummary(node *corev1.Node, pool string) string {
	ready := "NotReady"
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			ready = "Ready"
		}
	}
	line := fmt.Sprintf("%s nodepool=%s cpu=%s", ready, pool, node.Status.Allocatable.Cpu())
	for _, t := range node.Spec.Taints {
		if t.Key == "karpenter.sh/disrupted" {
			line += " disrupted"
		}
	}
	if node.DeletionTimestamp != nil {
		line += " terminating"
	}
	return line
}

func phaseOrNone(phase string) string {
	if phase == "" {
		return "(no phase)"
	}
	return phase
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
