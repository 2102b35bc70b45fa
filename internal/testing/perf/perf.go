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

// Package perf holds what the scheduling benchmarks share (the in-process Go benchmarks and
// hack/bench, which runs the shipped binary): plain nodes and pods made in parallel, and a watch
// that times binds.
package perf

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// Parallel runs fn(0..n-1) on workers goroutines and returns the first error.
func Parallel(n, workers int, fn func(i int) error) error {
	work := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return first
}

// CreateNodes creates n plain nodes named node-<i> (4 CPU, 32Gi, 110 pods, Ready; no kubelet), as
// scheduler_perf does, and returns their names.
func CreateNodes(ctx context.Context, kube kubernetes.Interface, n int) ([]string, error) {
	names := make([]string, n)
	alloc := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	err := Parallel(n, 32, func(i int) error {
		names[i] = fmt.Sprintf("node-%d", i)
		node, err := kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: names[i]}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		node.Status = corev1.NodeStatus{Capacity: alloc, Allocatable: alloc, Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
		}}}
		_, err = kube.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
		return err
	})
	return names, err
}

// CreatePods creates groups×size pods named p-<i> (of PodGroup g-<group> when the scheduler is
// Caldera's).
func CreatePods(ctx context.Context, kube kubernetes.Interface, ns, schedulerName string, groups, size int) error {
	return Parallel(groups*size, 32, func(i int) error {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("p-%d", i)},
			Spec: corev1.PodSpec{SchedulerName: schedulerName, Containers: []corev1.Container{{Name: "main", Image: "busybox",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("500Mi"),
				}}}}},
		}
		if schedulerName == "volcano" {
			pod.Annotations = map[string]string{schedulingv1beta1.KubeGroupNameAnnotationKey: fmt.Sprintf("g-%d", i/size)}
		}
		_, err := kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		return err
	})
}

// DeletePods deletes every pod of namespace ns at once (no grace period: no kubelet stops them)
// and waits until the API server lists none.
func DeletePods(ctx context.Context, kube kubernetes.Interface, ns string) error {
	pods := kube.CoreV1().Pods(ns)
	if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{}); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := pods.List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return false, err
		}
		return len(list.Items) == 0, nil
	})
}

// BindWatch records when each pod of a namespace is first seen bound.
type BindWatch struct {
	mu    sync.Mutex
	times []time.Time
	seen  map[string]bool
	done  chan struct{}
}

// Throughput is what a BindWatch saw: binds per second between the first and the last, the
// longest gap between two binds, how many binds came before it, and the first bind.
type Throughput struct {
	PodsPerSecond float64
	MaxGap        time.Duration
	GapAt         int
	First         time.Time
}

func WatchBinds(kube kubernetes.Interface, ns string) (*BindWatch, error) {
	w := &BindWatch{seen: map[string]bool{}, done: make(chan struct{})}
	lw := toolscache.NewListWatchFromClient(kube.CoreV1().RESTClient(), "pods", ns, fields.Everything())
	inf := toolscache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{})
	record := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.Spec.NodeName == "" {
			return
		}
		now := time.Now()
		w.mu.Lock()
		if !w.seen[pod.Name] {
			w.seen[pod.Name] = true
			w.times = append(w.times, now)
		}
		w.mu.Unlock()
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: record, UpdateFunc: func(_, obj any) { record(obj) }}); err != nil {
		return nil, err
	}
	go inf.Run(w.done)
	if !toolscache.WaitForCacheSync(w.done, inf.HasSynced) {
		return nil, fmt.Errorf("the pod watch of namespace %s did not sync", ns)
	}
	return w, nil
}

func (w *BindWatch) Stop() { close(w.done) }

func (w *BindWatch) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.times)
}

// Wait waits until n pods are bound beyond the first skip (bound when the watch began) and
// returns the throughput of those n binds.
func (w *BindWatch) Wait(ctx context.Context, skip, n int, timeout time.Duration) (Throughput, error) {
	deadline := time.Now().Add(timeout)
	for w.Count()-skip < n {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return Throughput{}, fmt.Errorf("only %d of %d pods bound within %s", w.Count()-skip, n, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	times := append([]time.Time(nil), w.times[skip:]...)
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	var gap time.Duration
	at := 0
	for i := 1; i < len(times); i++ {
		if d := times[i].Sub(times[i-1]); d > gap {
			gap, at = d, i
		}
	}
	span := times[len(times)-1].Sub(times[0]).Seconds()
	return Throughput{PodsPerSecond: float64(len(times)-1) / span, MaxGap: gap, GapAt: at, First: times[0]}, nil
}
