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

package scheduler_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/perf"
	"github.com/caldera-sh/caldera/scheduler"
)

// The scheduling benchmarks follow kube-scheduler's scheduler_perf: nodes are plain API objects
// (4 CPU, 32Gi, 110 pods, Ready), every pod requests 100m and 500Mi, a pod counts as scheduled
// when it is bound, and all objects exist before the scheduler starts. In the same run the API
// server's own ceiling is measured: the same number of pods bound to precomputed nodes by the
// same client with the same number of workers. They start a control plane each and run only
// with -bench, e.g.
//
//	go test ./scheduler -run '^$' -bench BenchmarkScheduling -benchtime 1x -timeout 60m

type workload struct {
	name   string
	nodes  int
	groups int
	size   int
}

// BenchmarkScheduling reports, per workload, the scheduler's pods/s, the API server's ceiling
// in pods/s, their ratio (goal at least 0.8), the longest pause between two binds (goal at most
// 200 ms) and the cycle latency.
func BenchmarkScheduling(b *testing.B) {
	logf.SetLogger(logr.Discard())
	for _, w := range []workload{
		{name: "5000Nodes_10000OnePodGroups", nodes: 5000, groups: 10000, size: 1},
		{name: "1000Nodes_20GangsOf500", nodes: 1000, groups: 20, size: 500},
		{name: "5000Nodes_1000GangsOf3", nodes: 5000, groups: 1000, size: 3},
	} {
		b.Run(w.name, func(b *testing.B) { runWorkload(b, w) })
	}
}

const benchWorkers = 16

// benchControlPlane starts a control plane of plain API objects (no controller manager, nodes
// without a kubelet) with the namespaces given, and returns it with a client configured as the
// scheduler's bind client; stop ends it.
func benchControlPlane(b *testing.B, namespaces ...string) (f *framework.Framework, kube kubernetes.Interface, stop func()) {
	b.Helper()
	f = &framework.Framework{WithoutControllerManager: true, APIServerFlags: map[string]string{"disable-admission-plugins": "TaintNodesByCondition,ServiceAccount"}}
	if err := f.Start(); err != nil {
		b.Fatal(err)
	}
	stop = func() {
		if err := f.Stop(); err != nil {
			b.Error(err)
		}
	}
	// As scheduler_perf, no client-side throttling worth the name; the same config serves the
	// ceiling's client and the scheduler's.
	f.Config.QPS, f.Config.Burst = 5000, 5000
	// The scheduler's own bind client configuration, for the ceiling and the watches too.
	kube, err := kubernetes.NewForConfig(scheduler.BindClientConfig(f.Config))
	if err != nil {
		stop()
		b.Fatal(err)
	}
	for _, ns := range namespaces {
		if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			stop()
			b.Fatal(err)
		}
	}
	return f, kube, stop
}

func runWorkload(b *testing.B, w workload) {
	f, kube, stopControlPlane := benchControlPlane(b, "bench", "ceiling")
	defer stopControlPlane()
	ctx := context.Background()
	total := w.groups * w.size
	setup := time.Now()
	nodeNames := createNodes(b, kube, w.nodes)
	b.Logf("%s: %d nodes created in %s", w.name, w.nodes, time.Since(setup).Round(time.Millisecond))

	// The API server's ceiling: as many pods bound to precomputed nodes by 16 workers, half
	// before the scheduler runs and half after, so that a change in the machine's load during the
	// run weighs on both measures alike.
	createPods(b, kube, "ceiling", "ceiling", total, 1)
	ceilingHalf := func(from, to int) throughput {
		w := watchBinds(b, kube, "ceiling")
		defer w.stop()
		already := w.count()
		parallel(b, to-from, benchWorkers, func(i int) error {
			return kube.CoreV1().Pods("ceiling").Bind(ctx, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ceiling", Name: fmt.Sprintf("p-%d", from+i)},
				Target:     corev1.ObjectReference{Kind: "Node", Name: nodeNames[(from+i)%len(nodeNames)]},
			}, metav1.CreateOptions{})
		})
		return w.waitNew(b, already, to-from, 10*time.Minute)
	}
	before := ceilingHalf(0, total/2)

	// The workload: PodGroups and their pods, then the scheduler.
	createPodGroups(b, f, w)
	createPods(b, kube, "bench", "volcano", w.groups, w.size)
	watch := watchBinds(b, kube, "bench")
	var mu sync.Mutex
	var cycles []scheduler.CycleStats
	started := time.Now()
	stop, err := f.StartManager(ctx, func(mgr ctrl.Manager) error {
		s, err := scheduler.New(mgr, scheduler.Options{BindWorkers: benchWorkers, OnCycle: func(c scheduler.CycleStats) {
			mu.Lock()
			cycles = append(cycles, c)
			mu.Unlock()
		}})
		if err != nil {
			return err
		}
		return mgr.Add(s)
	})
	if err != nil {
		b.Fatal(err)
	}
	ours := watch.wait(b, total, 20*time.Minute)
	if err := stop(); err != nil {
		b.Error(err)
	}
	watch.stop()
	after := ceilingHalf(total/2, total)
	ceiling := throughput{podsPerSecond: (before.podsPerSecond + after.podsPerSecond) / 2, maxGap: max(before.maxGap, after.maxGap)}

	ratio := ours.podsPerSecond / ceiling.podsPerSecond
	mu.Lock()
	defer mu.Unlock()
	var durations []time.Duration
	for _, c := range cycles {
		durations = append(durations, c.Duration)
	}
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	var sum time.Duration
	for _, d := range durations {
		sum += d
	}
	mean, p99, worst := time.Duration(0), time.Duration(0), time.Duration(0)
	if n := len(durations); n > 0 {
		mean, p99, worst = sum/time.Duration(n), durations[(n*99)/100], durations[n-1]
	}
	b.Logf("%s: scheduler %.0f pods/s, ceiling %.0f pods/s, ratio %.2f; longest pause between binds %s after %d binds (ceiling %s); "+
		"first bind %s after start; %d cycles: mean %s, p99 %s, max %s",
		w.name, ours.podsPerSecond, ceiling.podsPerSecond, ratio, ours.maxGap.Round(time.Millisecond), ours.gapAt, ceiling.maxGap.Round(time.Millisecond),
		ours.first.Sub(started).Round(time.Millisecond), len(durations), mean.Round(time.Microsecond), p99.Round(time.Microsecond), worst.Round(time.Microsecond))
	if testing.Verbose() {
		for i, c := range cycles {
			b.Logf("cycle %d at +%s: %s (snapshot %s), %d jobs changed, %d pending, %d binds, %d status writes",
				i, c.Start.Sub(started).Round(time.Millisecond), c.Duration.Round(time.Microsecond), c.SnapshotDuration.Round(time.Microsecond),
				c.JobsChanged, c.JobsPending, c.Binds, c.StatusWrites)
		}
	}
	b.ReportMetric(ours.podsPerSecond, "pods/s")
	b.ReportMetric(ceiling.podsPerSecond, "ceiling-pods/s")
	b.ReportMetric(ratio, "ratio")
	b.ReportMetric(float64(ours.maxGap.Milliseconds()), "max-pause-ms")
	b.ReportMetric(float64(mean.Microseconds())/1000, "cycle-mean-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "cycle-max-ms")
}

// parallel, createNodes and createPods are perf's, failing the benchmark on error.
func parallel(b *testing.B, n, workers int, fn func(i int) error) {
	b.Helper()
	if err := perf.Parallel(n, workers, fn); err != nil {
		b.Fatal(err)
	}
}

func createNodes(b *testing.B, kube kubernetes.Interface, n int) []string {
	b.Helper()
	names, err := perf.CreateNodes(context.Background(), kube, n)
	if err != nil {
		b.Fatal(err)
	}
	return names
}

func createPods(b *testing.B, kube kubernetes.Interface, ns, schedulerName string, groups, size int) {
	b.Helper()
	if err := perf.CreatePods(context.Background(), kube, ns, schedulerName, groups, size); err != nil {
		b.Fatal(err)
	}
}

func createPodGroups(b *testing.B, f *framework.Framework, w workload) {
	b.Helper()
	ctx := context.Background()
	parallel(b, w.groups, 32, func(i int) error {
		return f.Client.Create(ctx, &schedulingv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("g-%d", i)},
			Spec:       schedulingv1beta1.PodGroupSpec{MinMember: int32(w.size), Queue: schedulingv1beta1.DefaultQueue},
		})
	})
}

// bindWatch is perf's BindWatch, failing the benchmark on error.
type bindWatch struct{ *perf.BindWatch }

type throughput struct {
	podsPerSecond float64
	maxGap        time.Duration
	// gapAt is how many pods were bound when the longest gap began.
	gapAt int
	first time.Time
}

func watchBinds(b *testing.B, kube kubernetes.Interface, ns string) *bindWatch {
	b.Helper()
	w, err := perf.WatchBinds(kube, ns)
	if err != nil {
		b.Fatal(err)
	}
	return &bindWatch{w}
}

func (w *bindWatch) stop() { w.Stop() }

func (w *bindWatch) count() int { return w.Count() }

// wait waits until n pods are bound and returns the throughput between the first and last bind
// and the longest gap between two binds.
func (w *bindWatch) wait(b *testing.B, n int, timeout time.Duration) throughput {
	b.Helper()
	return w.waitNew(b, 0, n, timeout)
}

// waitNew is wait for n binds seen after the first skip ones (already bound when the watch began).
func (w *bindWatch) waitNew(b *testing.B, skip, n int, timeout time.Duration) throughput {
	b.Helper()
	t, err := w.Wait(context.Background(), skip, n, timeout)
	if err != nil {
		b.Fatal(err)
	}
	return throughput{podsPerSecond: t.PodsPerSecond, maxGap: t.MaxGap, gapAt: t.GapAt, first: t.First}
}
