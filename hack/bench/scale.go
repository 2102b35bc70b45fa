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
	"math"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/perf"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
	"github.com/caldera-sh/caldera/scheduler/metrics"
)

// cycleMetric is the scheduler's histogram of whole cycles, in milliseconds.
const cycleMetric = metrics.Subsystem + "_e2e_scheduling_latency_milliseconds"

// restWindow is how long the manager is watched at rest, after the fill has settled for as long.
const restWindow = 30 * time.Second

// scaleWorkload fills a control plane of nodes plain nodes (4 CPU, 32Gi, 110 pods, as the
// scheduling workloads') with jobs jobs of replicas pods each, submitted to the whole manager
// from 16 client workers. Once every pod is bound and every PodGroup is Running, it lets the
// cluster settle and measures the manager at rest: its memory (now, at its peak, and per pod over
// its memory before the jobs came) and the scheduler's cycles with nothing pending (their mean
// length and the bucket of the longest). The pods stay Pending on their nodes: a kubelet's
// status writes (KWOK's) would cost this machine's API server about as much again per pod and
// make a fill of 100000 pods take most of an hour, for little more of the manager's memory.
func scaleWorkload(nodes, jobs int, replicas int32) func(ctx context.Context, b *bench, dir string) (row, error) {
	return func(ctx context.Context, b *bench, dir string) (row, error) {
		pods := jobs * int(replicas)
		f, kube, err := plainControlPlane(dir)
		if err != nil {
			return row{}, err
		}
		defer func() { _ = f.Stop() }()
		if _, err := perf.CreateNodes(ctx, kube, nodes); err != nil {
			return row{}, err
		}
		manager, err := b.startManagerOn(ctx, f, dir)
		if err != nil {
			return row{}, err
		}
		defer func() { _ = manager.Stop() }()
		// The manager's memory with the nodes and nothing else, once its caches are filled.
		time.Sleep(5 * time.Second)
		baseRSS, err := memory(manager.Pid(), "VmRSS")
		if err != nil {
			return row{}, err
		}

		w, err := watchPlaced(ctx, f, benchNamespace)
		if err != nil {
			return row{}, err
		}
		defer w.stop()
		b.startProfile(ctx, dir, f.Config)
		firstCreate := time.Now()
		err = perf.Parallel(jobs, 16, func(i int) error {
			job := wrappers.MakeJob(fmt.Sprintf("job-%d", i), benchNamespace).Task("main", replicas).Obj()
			job.Spec.MinAvailable = replicas
			return f.Client.Create(ctx, job)
		})
		if err != nil {
			return row{}, err
		}
		say("%d jobs created in %s", jobs, time.Since(firstCreate).Round(time.Second))
		lastReport := time.Now()
		err = wait.PollUntilContextTimeout(ctx, time.Second, time.Hour, true, func(context.Context) (bool, error) {
			if exited := manager.Exited(); exited != nil {
				return false, fmt.Errorf("the manager exited: %w\n%s", exited, manager.Tail(20))
			}
			bound, placed := w.counts()
			if time.Since(lastReport) >= 30*time.Second {
				say("%d of %d pods bound, %d of %d PodGroups Running", bound, pods, placed, jobs)
				lastReport = time.Now()
			}
			return bound >= pods && placed >= jobs, nil
		})
		if err != nil {
			bound, placed := w.counts()
			return row{}, fmt.Errorf("%d of %d pods bound and %d of %d PodGroups Running: %w", bound, pods, placed, jobs, err)
		}
		filled := time.Since(firstCreate)

		// At rest: the fill's last writes settle, then the cycles of a window are read.
		time.Sleep(restWindow)
		before, err := scrape(ctx, dir, "metrics-rest-start.txt")
		if err != nil {
			return row{}, err
		}
		time.Sleep(restWindow)
		after, err := scrape(ctx, dir, "metrics-rest-end.txt")
		if err != nil {
			return row{}, err
		}
		cycles, mean, worst, err := cyclesBetween(before, after)
		if err != nil {
			return row{}, err
		}
		if err := b.heapProfile(ctx, dir); err != nil {
			return row{}, err
		}
		rss, err := memory(manager.Pid(), "VmRSS")
		if err != nil {
			return row{}, err
		}
		peak, err := peakRSS(manager.Pid())
		if err != nil {
			return row{}, err
		}
		var heap float64
		if g := after["go_memstats_heap_inuse_bytes"]; g != nil && len(g.GetMetric()) > 0 {
			heap = g.GetMetric()[0].GetGauge().GetValue() / (1 << 20)
		}

		var r row
		r.add("nodes", "%d", nodes)
		r.add("jobs", "%d", jobs)
		r.add("pods", "%d", pods)
		r.add("first create → all bound", "%.0f s", filled.Seconds())
		r.add("pods bound/s", "%.0f", float64(pods)/filled.Seconds())
		r.add("RSS before the jobs", "%.0f MiB", baseRSS)
		r.add("RSS at rest", "%.0f MiB", rss)
		r.add("peak RSS", "%.0f MiB", peak)
		r.add("heap in use", "%.0f MiB", heap)
		r.add("KiB/pod", "%.1f", (rss-baseRSS)*1024/float64(pods))
		r.add("cycles at rest", "%d in %s", cycles, restWindow)
		r.add("cycle mean", "%.2f ms", mean)
		r.add("longest cycle", "≤ %s ms", worst)
		return r, nil
	}
}

// cyclesBetween reads the scheduler's cycles between two scrapes: how many ran, their mean
// length in milliseconds, and the upper bound of the histogram bucket of the longest.
func cyclesBetween(before, after map[string]*dto.MetricFamily) (count uint64, mean float64, worst string, err error) {
	b, err := cycleHistogram(before)
	if err != nil {
		return 0, 0, "", err
	}
	a, err := cycleHistogram(after)
	if err != nil {
		return 0, 0, "", err
	}
	count = a.GetSampleCount() - b.GetSampleCount()
	if count == 0 {
		return 0, 0, "", fmt.Errorf("no scheduling cycle ran in %s at rest", restWindow)
	}
	mean = (a.GetSampleSum() - b.GetSampleSum()) / float64(count)
	worst = "+Inf"
	for i, bucket := range a.GetBucket() {
		if bucket.GetCumulativeCount()-b.GetBucket()[i].GetCumulativeCount() == count {
			worst = fmt.Sprintf("%g", bucket.GetUpperBound())
			break
		}
	}
	if math.IsNaN(mean) {
		return 0, 0, "", fmt.Errorf("the cycle histogram's sum is not a number")
	}
	return count, mean, worst, nil
}

// cycleHistogram is the histogram of the scheduler's cycle durations in the manager's metrics.
func cycleHistogram(families map[string]*dto.MetricFamily) (*dto.Histogram, error) {
	f := families[cycleMetric]
	if f == nil || len(f.GetMetric()) == 0 {
		return nil, fmt.Errorf("the manager's metrics have no %s", cycleMetric)
	}
	return f.GetMetric()[0].GetHistogram(), nil
}

// placedWatch counts the bound pods and the PodGroups in phase Running (their gang placed) of a
// namespace. It keeps of each object only what it counts, so that watching 100000 pods costs
// little.
type placedWatch struct {
	mu     sync.Mutex
	bound  map[string]bool
	placed map[string]bool
	cancel context.CancelFunc
}

func watchPlaced(ctx context.Context, f *framework.Framework, ns string) (*placedWatch, error) {
	slim := func(obj any) (any, error) {
		switch o := obj.(type) {
		case *corev1.Pod:
			return &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, ResourceVersion: o.ResourceVersion},
				Spec:       corev1.PodSpec{NodeName: o.Spec.NodeName},
			}, nil
		case *schedulingv1beta1.PodGroup:
			pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, ResourceVersion: o.ResourceVersion}}
			pg.Status.Phase = o.Status.Phase
			return pg, nil
		}
		return obj, nil
	}
	w := &placedWatch{bound: map[string]bool{}, placed: map[string]bool{}}
	onPod := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok {
			w.mu.Lock()
			w.bound[pod.Name] = pod.Spec.NodeName != ""
			w.mu.Unlock()
		}
	}
	onPodGroup := func(obj any) {
		if pg, ok := obj.(*schedulingv1beta1.PodGroup); ok {
			w.mu.Lock()
			w.placed[pg.Name] = pg.Status.Phase == schedulingv1beta1.PodGroupRunning
			w.mu.Unlock()
		}
	}
	var err error
	w.cancel, err = watchNamespace(ctx, f, ns, slim, []watched{{&corev1.Pod{}, onPod}, {&schedulingv1beta1.PodGroup{}, onPodGroup}})
	return w, err
}

func (w *placedWatch) stop() { w.cancel() }

// counts returns how many pods are bound and how many PodGroups are Running.
func (w *placedWatch) counts() (bound, placed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range w.bound {
		if b {
			bound++
		}
	}
	for _, p := range w.placed {
		if p {
			placed++
		}
	}
	return bound, placed
}
