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
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// The shape of the preemption benchmark: a cluster filled by low-priority gangs, then
// high-priority gangs that can only run on room made by evicting some of them.
const (
	preemptNodes       = 1000
	preemptLowGangs    = 1000
	preemptLowSize     = 8
	preemptHighGangs   = 50
	preemptHighSize    = 16
	preemptHighTimeout = 10 * time.Minute
)

// BenchmarkPreemption measures how priority makes room for gangs (the issue "Priority and fair
// share that make room for gangs"). On a fresh control plane, 1000 nodes of 4 CPU are filled by
// 1000 gangs of 8 pods of priority class low (10), each pod asking 500m and 500Mi (minMember 8,
// minResources cpu 4), placed by the scheduler with its default configuration (enqueue,
// allocate, preempt, reclaim, backfill). A fake kubelet then marks bound pods Running and
// Ready, and deletes for good every pod marked for deletion (an evicted victim), so that its
// node is freed. Then 50 gangs of 16 such pods of priority class high (1000) are created, in the
// same queue "default", and the benchmark reports:
//   - s-to-all-high-bound: seconds from their creation until all 800 high pods are bound;
//   - evicted-per-placed: low pods evicted (marked for deletion or deleted) per high pod
//     placed (goal at most 1.0: 800 evictions make exactly the room needed);
//   - victim-gangs-below-min: once the evicted pods are gone, low gangs left with between 1 and
//     7 pods bound, i.e. running below their minimum (goal 0: a victim gang goes whole).
//
// It starts a control plane and runs only with -bench:
//
//	go test ./scheduler -run '^$' -bench BenchmarkPreemption -benchtime 1x -timeout 30m
//
// Set PREEMPT_BENCH_LOG to a file name to keep the scheduler's log there.
func BenchmarkPreemption(b *testing.B) {
	// Only the first logger set takes effect: the scheduler's log is kept or discarded.
	if path := os.Getenv("PREEMPT_BENCH_LOG"); path != "" {
		out, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer out.Close()
		logf.SetLogger(zap.New(zap.WriteTo(out), zap.UseDevMode(false)))
	} else {
		logf.SetLogger(logr.Discard())
	}
	for i := 0; i < b.N; i++ {
		runPreemption(b)
	}
}

func runPreemption(b *testing.B) {
	f, kube, stopControlPlane := benchControlPlane(b, "low", "high")
	defer stopControlPlane()
	ctx := context.Background()
	for name, value := range map[string]int32{"low": 10, "high": 1000} {
		if _, err := kube.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	setup := time.Now()
	createNodes(b, kube, preemptNodes)
	createPreemptGangs(b, f, kube, "low", preemptLowGangs, preemptLowSize)
	b.Logf("%d nodes, %d low gangs of %d created in %s", preemptNodes, preemptLowGangs, preemptLowSize, time.Since(setup).Round(time.Millisecond))

	lowTotal, highTotal := preemptLowGangs*preemptLowSize, preemptHighGangs*preemptHighSize
	lowBinds := watchBinds(b, kube, "low")
	defer lowBinds.stop()
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
	defer func() {
		if err := stop(); err != nil {
			b.Error(err)
		}
	}()
	low := lowBinds.wait(b, lowTotal, 10*time.Minute)
	b.Logf("all %d low pods bound %s after the scheduler started (%.0f pods/s)", lowTotal, time.Since(started).Round(time.Millisecond), low.podsPerSecond)

	// The kubelet: bound pods run, pods marked for deletion go.
	k := startPreemptKubelet(b, kube)
	defer k.stop()
	k.waitRunning(b, "low", lowTotal, 5*time.Minute)
	b.Logf("all %d low pods Running", lowTotal)
	if n := k.evictedCount(); n != 0 {
		b.Logf("warning: %d low pods were evicted before the high gangs came", n)
	}

	// The high gangs, timed from their creation.
	highBinds := watchBinds(b, kube, "high")
	defer highBinds.stop()
	mu.Lock()
	cyclesBefore := len(cycles)
	mu.Unlock()
	highStart := time.Now()
	createPreemptGangs(b, f, kube, "high", preemptHighGangs, preemptHighSize)
	created := time.Since(highStart)
	deadline := highStart.Add(preemptHighTimeout)
	for highBinds.count() < highTotal {
		if time.Now().After(deadline) {
			preemptDiagnose(b, f, kube, k)
			b.Fatalf("only %d of %d high-priority pods bound within %s of their creation (%d low pods evicted): the scheduler did not make room for the high gangs; see the diagnosis above",
				highBinds.count(), highTotal, preemptHighTimeout, k.evictedCount())
		}
		time.Sleep(50 * time.Millisecond)
	}
	elapsed := time.Since(highStart)
	high := highBinds.wait(b, highTotal, 0)
	evicted := k.evictedCount()

	// Wait until the evicted pods are gone, then count the victim gangs left below their minimum.
	k.waitNoTerminating(b, "low", 2*time.Minute)
	bound := map[string]int{}
	pods, err := kube.CoreV1().Pods("low").List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			bound[p.Annotations[schedulingv1beta1.KubeGroupNameAnnotationKey]]++
		}
	}
	belowMin, wholeVictims := 0, 0
	var belowNames []string
	for g := 0; g < preemptLowGangs; g++ {
		name := fmt.Sprintf("g-%d", g)
		switch n := bound[name]; {
		case n == 0:
			wholeVictims++
		case n < preemptLowSize:
			belowMin++
			if len(belowNames) < 10 {
				belowNames = append(belowNames, fmt.Sprintf("%s(%d)", name, n))
			}
		}
	}

	mu.Lock()
	highCycles := append([]scheduler.CycleStats(nil), cycles[cyclesBefore:]...)
	mu.Unlock()
	var worst, sum time.Duration
	evictions := 0
	for _, c := range highCycles {
		sum += c.Duration
		worst = max(worst, c.Duration)
		evictions += c.Evictions
	}
	mean := time.Duration(0)
	if len(highCycles) > 0 {
		mean = sum / time.Duration(len(highCycles))
	}
	perPlaced := float64(evicted) / float64(highTotal)
	b.Logf("high gangs: created in %s, all %d pods bound %s after their creation (first bind after %s, %.0f pods/s, longest pause %s); "+
		"%d low pods evicted (%.2f per high pod placed; the scheduler counted %d evictions), %d low gangs evicted whole, %d left below their minimum %v; "+
		"%d cycles since the high gangs came: mean %s, max %s",
		created.Round(time.Millisecond), highTotal, elapsed.Round(time.Millisecond), high.first.Sub(highStart).Round(time.Millisecond), high.podsPerSecond, high.maxGap.Round(time.Millisecond),
		evicted, perPlaced, evictions, wholeVictims, belowMin, belowNames,
		len(highCycles), mean.Round(time.Microsecond), worst.Round(time.Microsecond))
	if testing.Verbose() {
		for i, c := range highCycles {
			b.Logf("cycle %d at +%s: %s (snapshot %s), %d jobs changed, %d pending, %d binds, %d evictions, %d status writes",
				i, c.Start.Sub(highStart).Round(time.Millisecond), c.Duration.Round(time.Microsecond), c.SnapshotDuration.Round(time.Microsecond),
				c.JobsChanged, c.JobsPending, c.Binds, c.Evictions, c.StatusWrites)
		}
	}
	b.ReportMetric(elapsed.Seconds(), "s-to-all-high-bound")
	b.ReportMetric(perPlaced, "evicted-per-placed")
	b.ReportMetric(float64(belowMin), "victim-gangs-below-min")
}

// createPreemptGangs creates, in namespace ns, groups PodGroups g-<i> of priority class ns
// (minMember size, minResources the sum of their pods') and size pods p-<i> each, asking 500m
// and 500Mi, of the same priority class.
func createPreemptGangs(b *testing.B, f *framework.Framework, kube kubernetes.Interface, ns string, groups, size int) {
	b.Helper()
	ctx := context.Background()
	request := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("500Mi")}
	parallel(b, groups, 32, func(i int) error {
		minResources := corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(500*size), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(500*size)<<20, resource.BinarySI),
		}
		return f.Client.Create(ctx, &schedulingv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("g-%d", i)},
			Spec: schedulingv1beta1.PodGroupSpec{MinMember: int32(size), Queue: schedulingv1beta1.DefaultQueue,
				PriorityClassName: ns, MinResources: &minResources},
		})
	})
	parallel(b, groups*size, 32, func(i int) error {
		_, err := kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("p-%d", i),
				Annotations: map[string]string{schedulingv1beta1.KubeGroupNameAnnotationKey: fmt.Sprintf("g-%d", i/size)}},
			Spec: corev1.PodSpec{SchedulerName: scheduler.DefaultSchedulerName, PriorityClassName: ns, Containers: []corev1.Container{{
				Name: "main", Image: "busybox", Resources: corev1.ResourceRequirements{Requests: request},
			}}},
		}, metav1.CreateOptions{})
		return err
	})
}

// preemptKubelet plays the kubelets of all nodes: a bound pod is marked Running and Ready, and a
// pod marked for deletion is deleted for good at once, as once its containers stopped. It counts
// the low pods evicted: marked for deletion or deleted.
type preemptKubelet struct {
	kube     kubernetes.Interface
	informer toolscache.SharedIndexInformer
	queue    workqueue.TypedInterface[string]
	done     chan struct{}
	wg       sync.WaitGroup

	mu      sync.Mutex
	evicted map[string]bool
}

func startPreemptKubelet(b *testing.B, kube kubernetes.Interface) *preemptKubelet {
	b.Helper()
	k := &preemptKubelet{kube: kube, queue: workqueue.NewTyped[string](), done: make(chan struct{}), evicted: map[string]bool{}}
	lw := toolscache.NewListWatchFromClient(kube.CoreV1().RESTClient(), "pods", metav1.NamespaceAll, fields.Everything())
	k.informer = toolscache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{})
	seen := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		if pod.DeletionTimestamp != nil {
			k.recordEvicted(pod)
		}
		if pod.DeletionTimestamp != nil || pod.Spec.NodeName != "" && pod.Status.Phase != corev1.PodRunning {
			k.queue.Add(pod.Namespace + "/" + pod.Name)
		}
	}
	if _, err := k.informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    seen,
		UpdateFunc: func(_, obj any) { seen(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				k.recordEvicted(pod)
			}
		},
	}); err != nil {
		b.Fatal(err)
	}
	go k.informer.Run(k.done)
	if !toolscache.WaitForCacheSync(k.done, k.informer.HasSynced) {
		b.Fatal("the kubelet's pod watch did not sync")
	}
	for w := 0; w < benchWorkers; w++ {
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			for k.work() {
			}
		}()
	}
	return k
}

func (k *preemptKubelet) recordEvicted(pod *corev1.Pod) {
	if pod.Namespace != "low" {
		return
	}
	k.mu.Lock()
	k.evicted[pod.Name] = true
	k.mu.Unlock()
}

func (k *preemptKubelet) evictedCount() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.evicted)
}

// work handles one pod, as it is now in the watch; a write that conflicts is retried when the
// watch brings the newer pod.
func (k *preemptKubelet) work() bool {
	key, quit := k.queue.Get()
	if quit {
		return false
	}
	defer k.queue.Done(key)
	obj, exists, err := k.informer.GetStore().GetByKey(key)
	if err != nil || !exists {
		return true
	}
	pod := obj.(*corev1.Pod)
	ctx := context.Background()
	switch {
	case pod.DeletionTimestamp != nil:
		zero := int64(0)
		err = k.kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &pod.UID}})
	case pod.Spec.NodeName != "" && pod.Status.Phase != corev1.PodRunning:
		running := pod.DeepCopy()
		now := metav1.Now()
		running.Status.Phase = corev1.PodRunning
		running.Status.StartTime = &now
		for _, t := range []corev1.PodConditionType{corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
			setPodCondition(&running.Status, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
		}
		_, err = k.kube.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, running, metav1.UpdateOptions{})
	}
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		// Try again shortly; the pod may not change again to bring it back.
		go func() {
			select {
			case <-time.After(100 * time.Millisecond):
				k.queue.Add(key)
			case <-k.done:
			}
		}()
	}
	return true
}

func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			status.Conditions[i] = c
			return
		}
	}
	status.Conditions = append(status.Conditions, c)
}

func (k *preemptKubelet) stop() {
	close(k.done)
	k.queue.ShutDown()
	k.wg.Wait()
}

// pods returns the pods of a namespace as the kubelet's watch has them.
func (k *preemptKubelet) pods(ns string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, obj := range k.informer.GetStore().List() {
		if p := obj.(*corev1.Pod); p.Namespace == ns {
			out = append(out, p)
		}
	}
	return out
}

func (k *preemptKubelet) waitRunning(b *testing.B, ns string, n int, timeout time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		running := 0
		for _, p := range k.pods(ns) {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running++
			}
		}
		if running >= n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d pods of %s Running within %s", running, n, ns, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (k *preemptKubelet) waitNoTerminating(b *testing.B, ns string, timeout time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		terminating := 0
		for _, p := range k.pods(ns) {
			if p.DeletionTimestamp != nil {
				terminating++
			}
		}
		if terminating == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d pods of %s still terminating after %s", terminating, ns, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// preemptDiagnose logs what keeps the high gangs waiting: their phases and conditions, a few
// pods and the events of the high namespace.
func preemptDiagnose(b *testing.B, f *framework.Framework, kube kubernetes.Interface, k *preemptKubelet) {
	b.Helper()
	ctx := context.Background()
	var groups schedulingv1beta1.PodGroupList
	if err := f.Client.List(ctx, &groups, client.InNamespace("high")); err != nil {
		b.Logf("listing the high PodGroups: %v", err)
	}
	sort.Slice(groups.Items, func(i, j int) bool { return groups.Items[i].Name < groups.Items[j].Name })
	phases := map[schedulingv1beta1.PodGroupPhase]int{}
	for _, pg := range groups.Items {
		phases[pg.Status.Phase]++
	}
	b.Logf("high PodGroups by phase: %v", phases)
	for i, pg := range groups.Items {
		if i >= 5 {
			break
		}
		b.Logf("PodGroup high/%s: phase %s, running %d", pg.Name, pg.Status.Phase, pg.Status.Running)
		for _, c := range pg.Status.Conditions {
			b.Logf("  condition %s=%s reason %s: %s", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	bound, nominated := 0, 0
	for _, p := range k.pods("high") {
		if p.Spec.NodeName != "" {
			bound++
		}
		if p.Status.NominatedNodeName != "" {
			nominated++
		}
	}
	b.Logf("high pods: %d bound, %d nominated", bound, nominated)
	lowTerminating := 0
	for _, p := range k.pods("low") {
		if p.DeletionTimestamp != nil {
			lowTerminating++
		}
	}
	b.Logf("low pods: %d left, %d terminating, %d evicted so far", len(k.pods("low")), lowTerminating, k.evictedCount())
	events, err := kube.CoreV1().Events("high").List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Logf("listing the events: %v", err)
		return
	}
	reasons := map[string]int{}
	var samples []string
	for _, e := range events.Items {
		reasons[e.Reason]++
		if len(samples) < 10 {
			samples = append(samples, fmt.Sprintf("%s %s/%s: %s", e.Reason, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message))
		}
	}
	b.Logf("events of high by reason: %v\n  %s", reasons, strings.Join(samples, "\n  "))
}
