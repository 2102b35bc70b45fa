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
	"path/filepath"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// schedulingWorkload is groups PodGroups of size pods each on nodes plain nodes.
func schedulingWorkload(nodes, groups, size int) func(ctx context.Context, b *bench, dir string) (row, error) {
	return func(ctx context.Context, b *bench, dir string) (row, error) {
		f := &framework.Framework{WithoutControllerManager: true, Dir: dir,
			APIServerFlags: map[string]string{"disable-admission-plugins": "TaintNodesByCondition,ServiceAccount"}}
		if err := f.Start(); err != nil {
			return row{}, err
		}
		defer func() { _ = f.Stop() }()
		// As scheduler_perf: no client-side throttling worth the name, and the content type of
		// the scheduler's bind client.
		f.Config.QPS, f.Config.Burst = 5000, 5000
		kube, err := kubernetes.NewForConfig(scheduler.BindClientConfig(f.Config))
		if err != nil {
			return row{}, err
		}
		for _, ns := range []string{"bench", "ceiling"} {
			if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				return row{}, err
			}
		}
		total := groups * size
		nodeNames, err := createNodes(ctx, kube, nodes)
		if err != nil {
			return row{}, err
		}

		// The API server's ceiling, before the manager starts.
		if err := createPods(ctx, kube, "ceiling", "ceiling", total, 1); err != nil {
			return row{}, err
		}
		ceilingWatch, err := watchBinds(kube, "ceiling")
		if err != nil {
			return row{}, err
		}
		err = parallel(total, benchWorkers, func(i int) error {
			return kube.CoreV1().Pods("ceiling").Bind(ctx, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ceiling", Name: fmt.Sprintf("p-%d", i)},
				Target:     corev1.ObjectReference{Kind: "Node", Name: nodeNames[i%len(nodeNames)]},
			}, metav1.CreateOptions{})
		})
		if err != nil {
			return row{}, err
		}
		ceiling, err := ceilingWatch.wait(ctx, total, 10*time.Minute)
		ceilingWatch.stop()
		if err != nil {
			return row{}, fmt.Errorf("the ceiling: %w", err)
		}

		// The workload, then the manager.
		err = parallel(groups, 32, func(i int) error {
			return f.Client.Create(ctx, &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("g-%d", i)},
				Spec:       schedulingv1beta1.PodGroupSpec{MinMember: int32(size), Queue: schedulingv1beta1.DefaultQueue},
			})
		})
		if err != nil {
			return row{}, err
		}
		if err := createPods(ctx, kube, "bench", "volcano", groups, size); err != nil {
			return row{}, err
		}
		watch, err := watchBinds(kube, "bench")
		if err != nil {
			return row{}, err
		}
		defer watch.stop()
		kubeconfig := filepath.Join(dir, "kubeconfig")
		if err := framework.WriteKubeconfig(f.Config, kubeconfig); err != nil {
			return row{}, err
		}
		started := time.Now()
		manager, err := b.startManager(dir, kubeconfig)
		if err != nil {
			return row{}, err
		}
		b.startProfile(ctx, dir)
		ours, waitErr := watch.wait(ctx, total, 20*time.Minute)
		rss, rssErr := peakRSS(manager.Pid())
		if exited := manager.Exited(); exited != nil {
			waitErr = fmt.Errorf("the manager exited: %w\n%s", exited, manager.Tail(20))
		}
		_ = manager.Stop()
		if waitErr != nil {
			return row{}, waitErr
		}
		if rssErr != nil {
			return row{}, rssErr
		}
		var r row
		r.add("pods", "%d", total)
		r.add("ceiling pods/s", "%.0f", ceiling.podsPerSecond)
		r.add("Caldera pods/s", "%.0f", ours.podsPerSecond)
		r.add("ratio", "%.2f", ours.podsPerSecond/ceiling.podsPerSecond)
		r.add("longest pause", "%d ms", ours.maxGap.Milliseconds())
		r.add("first bind after start", "%.2f s", ours.first.Sub(started).Seconds())
		r.add("peak RSS", "%.0f MiB", rss)
		return r, nil
	}
}

// parallel runs fn(0..n-1) on workers goroutines and returns the first error.
func parallel(n, workers int, fn func(i int) error) error {
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

func createNodes(ctx context.Context, kube kubernetes.Interface, n int) ([]string, error) {
	names := make([]string, n)
	alloc := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	err := parallel(n, 32, func(i int) error {
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

// createPods creates groups×size pods named p-<i> (of PodGroup g-<group> when the scheduler is
// Caldera's).
func createPods(ctx context.Context, kube kubernetes.Interface, ns, schedulerName string, groups, size int) error {
	return parallel(groups*size, 32, func(i int) error {
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

// bindWatch records when each pod of a namespace is first seen bound.
type bindWatch struct {
	mu    sync.Mutex
	times []time.Time
	seen  map[string]bool
	done  chan struct{}
}

type throughput struct {
	podsPerSecond float64
	maxGap        time.Duration
	first         time.Time
}

func watchBinds(kube kubernetes.Interface, ns string) (*bindWatch, error) {
	w := &bindWatch{seen: map[string]bool{}, done: make(chan struct{})}
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

func (w *bindWatch) stop() { close(w.done) }

func (w *bindWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.times)
}

// wait waits until n pods are bound and returns the throughput between the first and the last
// bind and the longest gap between two binds.
func (w *bindWatch) wait(ctx context.Context, n int, timeout time.Duration) (throughput, error) {
	deadline := time.Now().Add(timeout)
	for w.count() < n {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return throughput{}, fmt.Errorf("only %d of %d pods bound within %s", w.count(), n, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	times := append([]time.Time(nil), w.times...)
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	var gap time.Duration
	for i := 1; i < len(times); i++ {
		gap = max(gap, times[i].Sub(times[i-1]))
	}
	span := times[len(times)-1].Sub(times[0]).Seconds()
	return throughput{podsPerSecond: float64(len(times)-1) / span, maxGap: gap, first: times[0]}, nil
}
