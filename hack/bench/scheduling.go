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
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/scheme"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/perf"
	"github.com/caldera-sh/caldera/scheduler"
)

// plainControlPlane starts a control plane with no controller manager and no KWOK, for nodes
// that are plain API objects, and a client for the benchmark's own writes: as scheduler_perf's,
// no client-side throttling worth the name and the content type of the scheduler's bind client.
func plainControlPlane(dir string) (*framework.Framework, kubernetes.Interface, error) {
	f := &framework.Framework{WithoutControllerManager: true, Dir: dir,
		APIServerFlags: map[string]string{"disable-admission-plugins": "TaintNodesByCondition,ServiceAccount"}}
	if err := f.Start(); err != nil {
		return nil, nil, err
	}
	f.Config.QPS, f.Config.Burst = 5000, 5000
	kube, err := kubernetes.NewForConfig(scheduler.BindClientConfig(f.Config))
	if err != nil {
		_ = f.Stop()
		return nil, nil, err
	}
	return f, kube, nil
}

// racks lays the nodes out in network domains: blocks of racksPerBlock racks, each rack a tier-1
// HyperNode of the nodes i with i % racks == its number, each block a tier-2 HyperNode of its
// racks; every PodGroup asks for a hard tier-1 network topology (its gang within one rack).
type racks struct{ blocks, racksPerBlock int }

// schedulingWorkload is groups PodGroups of size pods each on nodes plain nodes, laid out in
// racks when layout is not nil. With -compare it measures the default configuration against
// another one on the same server instead (compareConfigurations).
func schedulingWorkload(nodes, groups, size int, layout *racks) func(ctx context.Context, b *bench, dir string) (row, error) {
	return func(ctx context.Context, b *bench, dir string) (row, error) {
		s, err := newSchedulingRun(ctx, dir, nodes, groups, size, layout)
		if err != nil {
			return row{}, err
		}
		defer func() { _ = s.f.Stop() }()
		if b.compare != "" {
			return s.compareConfigurations(ctx, b)
		}
		return s.measure(ctx, b)
	}
}

// measure runs the manager on the workload -rounds times (three by default), each time on the
// workload made afresh and against the mean of the API server's ceilings measured just before and
// just after it, and gives the median and range of each figure over the rounds. A ratio from one
// run moves by a tenth or more from run to run on a small machine, because the ceiling does.
func (s *schedulingRun) measure(ctx context.Context, b *bench) (row, error) {
	before, err := s.ceiling(ctx)
	if err != nil {
		return row{}, err
	}
	var ceilings, rates, ratios, pauses, firsts, lists, syncs, afterLease, rss, cpus, cycles, cycleTimes []float64
	for round := range b.rounds {
		m, err := s.round(ctx, b, b.schedulerConf, round == 0, &before)
		if err != nil {
			return row{}, err
		}
		ceilings = append(ceilings, m.ceiling())
		rates = append(rates, m.PodsPerSecond)
		ratios = append(ratios, m.ratio())
		pauses = append(pauses, float64(m.MaxGap.Milliseconds()))
		firsts = append(firsts, m.First.Sub(m.started).Seconds())
		lists = append(lists, m.listed.Seconds())
		syncs = append(syncs, m.synced.Seconds())
		afterLease = append(afterLease, m.First.Sub(m.led).Seconds())
		rss = append(rss, m.rss)
		cpus = append(cpus, m.cpu.Seconds())
		cycles = append(cycles, float64(m.cycles))
		cycleTimes = append(cycleTimes, m.cycleTime.Seconds())
		say("%s: round %d: ceiling %.0f pods/s (mean of %.0f before, %.0f after), manager %.0f pods/s, ratio %.2f, first bind %.2f s after start; API requests while the manager ran: %s",
			filepath.Base(s.dir), round+1, m.ceiling(), m.before, m.after, m.PodsPerSecond, m.ratio(),
			m.First.Sub(m.started).Seconds(), m.requests.top(12))
	}
	var r row
	r.add("pods", "%d", s.total())
	r.add("rounds", "%d", b.rounds)
	r.add("ceiling pods/s", "%s", spread(ceilings, "%.0f"))
	r.add("Caldera pods/s", "%s", spread(rates, "%.0f"))
	r.add("ratio", "%s", spread(ratios, "%.2f"))
	r.add("longest pause", "%s ms", spread(pauses, "%.0f"))
	r.add("first bind after start", "%s s", spread(firsts, "%.2f"))
	r.add("list ceiling", "%s s", spread(lists, "%.2f"))
	r.add("sync ceiling", "%s s", spread(syncs, "%.2f"))
	r.add("first bind after lease", "%s s", spread(afterLease, "%.2f"))
	r.add("peak RSS", "%s MiB", spread(rss, "%.0f"))
	r.add("manager CPU", "%s s", spread(cpus, "%.1f"))
	r.add("cycles", "%s in %s s", spread(cycles, "%.0f"), spread(cycleTimes, "%.2f"))
	return r, nil
}

// schedulingRun is one scheduling workload's control plane: plain nodes (in racks when asked)
// and the namespaces of the ceiling's pods and of the workload's.
type schedulingRun struct {
	f            *framework.Framework
	kube         kubernetes.Interface
	dir          string
	nodes        []string
	groups, size int
	topology     *schedulingv1beta1.NetworkTopologySpec
}

// newSchedulingRun starts the control plane and makes the nodes (and the HyperNodes of layout).
func newSchedulingRun(ctx context.Context, dir string, nodes, groups, size int, layout *racks) (*schedulingRun, error) {
	f, kube, err := plainControlPlane(dir)
	if err != nil {
		return nil, err
	}
	s := &schedulingRun{f: f, kube: kube, dir: dir, groups: groups, size: size}
	err = func() error {
		for _, ns := range []string{benchNamespace, "ceiling"} {
			if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		if s.nodes, err = perf.CreateNodes(ctx, kube, nodes); err != nil {
			return err
		}
		if layout != nil {
			if err := createRacks(ctx, f, s.nodes, *layout); err != nil {
				return err
			}
			s.topology = &schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierAllowed: ptr.To[int32](1)}
		}
		if err := servedBefore(ctx, f); err != nil {
			return err
		}
		return framework.WriteKubeconfig(f.Config, s.kubeconfig())
	}()
	if err != nil {
		_ = f.Stop()
		return nil, err
	}
	return s, nil
}

func (s *schedulingRun) total() int { return s.groups * s.size }

func (s *schedulingRun) kubeconfig() string { return filepath.Join(s.dir, "kubeconfig") }

// ceiling measures the API server's own bind rate: as many pods as the workload's, bound to
// precomputed nodes by benchWorkers workers. Its pods are deleted afterwards, so that the manager
// starts on the workload alone; with no kubelet behind the nodes, they go at once.
func (s *schedulingRun) ceiling(ctx context.Context) (perf.Throughput, error) {
	total := s.total()
	if err := perf.CreatePods(ctx, s.kube, "ceiling", "ceiling", total, 1); err != nil {
		return perf.Throughput{}, err
	}
	watch, err := perf.WatchBinds(s.kube, "ceiling")
	if err != nil {
		return perf.Throughput{}, err
	}
	defer watch.Stop()
	err = perf.Parallel(total, benchWorkers, func(i int) error {
		return s.kube.CoreV1().Pods("ceiling").Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ceiling", Name: fmt.Sprintf("p-%d", i)},
			Target:     corev1.ObjectReference{Kind: "Node", Name: s.nodes[i%len(s.nodes)]},
		}, metav1.CreateOptions{})
	})
	if err != nil {
		return perf.Throughput{}, err
	}
	ceiling, err := watch.Wait(ctx, 0, total, 10*time.Minute)
	if err != nil {
		return perf.Throughput{}, fmt.Errorf("the ceiling: %w", err)
	}
	if err := perf.DeletePods(ctx, s.kube, "ceiling"); err != nil {
		return perf.Throughput{}, fmt.Errorf("deleting the ceiling's pods: %w", err)
	}
	return ceiling, nil
}

// measuredRound is one run of the manager and what surrounds it: the ceilings measured before and
// after it (pods/s), and the list and sync ceilings measured just before it started.
type measuredRound struct {
	scheduled
	before, after  float64
	listed, synced time.Duration
}

// ceiling is what the run is measured against: the mean of the ceilings before and after it.
func (m measuredRound) ceiling() float64 { return (m.before + m.after) / 2 }

// ratio is the manager's pods/s over the ceiling.
func (m measuredRound) ratio() float64 { return m.PodsPerSecond / m.ceiling() }

// round makes the workload afresh, measures the list and sync ceilings, runs the manager with the
// scheduler configuration file conf (empty: the default) on the workload, clears it and measures
// the API server's ceiling after it. before holds the ceiling measured before the round and, on
// return, the one after it, which is the next round's before.
func (s *schedulingRun) round(ctx context.Context, b *bench, conf string, profile bool, before *perf.Throughput) (measuredRound, error) {
	m := measuredRound{before: before.PodsPerSecond}
	if err := s.fill(ctx); err != nil {
		return m, err
	}
	var err error
	if m.listed, err = s.listCeiling(ctx); err != nil {
		return m, err
	}
	if m.synced, err = s.syncCeiling(ctx); err != nil {
		return m, err
	}
	if m.scheduled, err = s.schedule(ctx, b, conf, profile); err != nil {
		return m, err
	}
	if err := s.clear(ctx); err != nil {
		return m, err
	}
	after, err := s.ceiling(ctx)
	if err != nil {
		return m, err
	}
	*before = after
	m.after = after.PodsPerSecond
	return m, nil
}

// listCeiling is the time the benchmark takes to list what the scheduler must know before its
// first bind: the PodGroups, pods and nodes, one list each, at once, from the API server's watch
// cache (resourceVersion 0), pods and nodes as protobuf and PodGroups (a custom resource) as JSON.
// Informers listed so before client-go streamed their initial objects (see syncCeiling).
func (s *schedulingRun) listCeiling(ctx context.Context) (time.Duration, error) {
	fromCache := metav1.ListOptions{ResourceVersion: "0"}
	lists := []func() error{
		func() error { _, err := s.kube.CoreV1().Pods("").List(ctx, fromCache); return err },
		func() error { _, err := s.kube.CoreV1().Nodes().List(ctx, fromCache); return err },
		func() error {
			return s.f.Client.List(ctx, &schedulingv1beta1.PodGroupList{}, &client.ListOptions{Raw: &fromCache})
		},
	}
	start := time.Now()
	if err := perf.Parallel(len(lists), len(lists), func(i int) error { return lists[i]() }); err != nil {
		return 0, fmt.Errorf("the list ceiling: %w", err)
	}
	return time.Since(start), nil
}

// syncCeiling is the time informers take to hold the PodGroups, pods and nodes, started at once
// as the manager starts its own: with client-go's defaults, which stream the initial objects as
// watch events (WatchListClient) where listCeiling asks for one list each, and with nothing of
// the manager's own on top (no transform, no handler). It is what the manager's start pays for
// the same objects before any work of its own.
func (s *schedulingRun) syncCeiling(ctx context.Context) (time.Duration, error) {
	c, err := crcache.New(s.f.Config, crcache.Options{Scheme: scheme.New()})
	if err != nil {
		return 0, fmt.Errorf("the sync ceiling: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	var informers []crcache.Informer
	for _, o := range []client.Object{&corev1.Pod{}, &corev1.Node{}, &schedulingv1beta1.PodGroup{}} {
		i, err := c.GetInformer(ctx, o)
		if err != nil {
			return 0, fmt.Errorf("the sync ceiling: %w", err)
		}
		informers = append(informers, i)
	}
	go func() { _ = c.Start(ctx) }()
	// Polled often: the informers' own wait (WaitForCacheSync) looks only every 100 ms.
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, 5*time.Minute, true, func(context.Context) (bool, error) {
		for _, i := range informers {
			if !i.HasSynced() {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return 0, fmt.Errorf("the sync ceiling: %w", err)
	}
	return time.Since(start), nil
}

// fill makes the workload: its PodGroups, then their pods, all pending.
func (s *schedulingRun) fill(ctx context.Context) error {
	err := perf.Parallel(s.groups, 32, func(i int) error {
		return s.f.Client.Create(ctx, &schedulingv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: benchNamespace, Name: fmt.Sprintf("g-%d", i)},
			Spec:       schedulingv1beta1.PodGroupSpec{MinMember: int32(s.size), Queue: schedulingv1beta1.DefaultQueue, NetworkTopology: s.topology},
		})
	})
	if err != nil {
		return err
	}
	return perf.CreatePods(ctx, s.kube, benchNamespace, "volcano", s.groups, s.size)
}

// clear deletes the workload's pods and PodGroups. The stopped manager gave up its lease, so the
// next one leads at once, as the first did.
func (s *schedulingRun) clear(ctx context.Context) error {
	if err := perf.DeletePods(ctx, s.kube, benchNamespace); err != nil {
		return fmt.Errorf("deleting the workload's pods: %w", err)
	}
	if err := s.f.Client.DeleteAllOf(ctx, &schedulingv1beta1.PodGroup{}, client.InNamespace(benchNamespace)); err != nil {
		return fmt.Errorf("deleting the workload's PodGroups: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		var list schedulingv1beta1.PodGroupList
		if err := s.f.Client.List(ctx, &list, client.InNamespace(benchNamespace), client.Limit(1)); err != nil {
			return false, err
		}
		return len(list.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the workload's PodGroups to go: %w", err)
	}
	return nil
}

// scheduled is what one manager run did: its binds, when it started and took the lease, its
// peak RSS and CPU time, and the requests the API server served meanwhile.
type scheduled struct {
	perf.Throughput
	started, led time.Time
	rss          float64
	cpu          time.Duration
	requests     requestCounts
	// cycles and cycleTime are the scheduling cycles the manager ran and their total duration.
	cycles    uint64
	cycleTime time.Duration
}

// schedule starts the manager with the scheduler configuration file conf (empty: the default),
// waits until it has bound every pod of the workload, and stops it. profile takes the CPU profile
// -profile asks for.
func (s *schedulingRun) schedule(ctx context.Context, b *bench, conf string, profile bool) (scheduled, error) {
	watch, err := perf.WatchBinds(s.kube, benchNamespace)
	if err != nil {
		return scheduled{}, err
	}
	defer watch.Stop()
	before, err := apiRequests(ctx, s.kube)
	if err != nil {
		return scheduled{}, err
	}
	m := scheduled{started: time.Now()}
	manager, err := b.startManager(s.dir, s.kubeconfig(), conf)
	if err != nil {
		return scheduled{}, err
	}
	if profile {
		b.startProfile(ctx, s.dir, s.f.Config)
	}
	var rssErr error
	m.Throughput, err = watch.Wait(ctx, 0, s.total(), 20*time.Minute)
	m.rss, rssErr = peakRSS(manager.Pid())
	if err == nil {
		m.cycles, m.cycleTime, err = cycleTotals(ctx, s.dir)
	}
	if cpu, cpuErr := cpuTime(manager.Pid()); cpuErr == nil {
		m.cpu = cpu
	} else if rssErr == nil {
		rssErr = cpuErr
	}
	if err == nil {
		m.led, err = leaseAcquired(ctx, s.kube)
	}
	if err == nil {
		var after requestCounts
		if after, err = apiRequests(ctx, s.kube); err == nil {
			m.requests = after.minus(before)
		}
	}
	if exited := manager.Exited(); exited != nil {
		err = fmt.Errorf("the manager exited: %w\n%s", exited, manager.Tail(20))
	}
	_ = manager.Stop()
	if err != nil {
		return scheduled{}, err
	}
	return m, rssErr
}

// compareConfigurations measures the default scheduler configuration and -compare's on this one
// server, -rounds times, alternating which goes first. Each manager run has the workload made
// afresh and the ceiling measured just before it and just after it; its ratio is to the mean of the
// two. A server's ceiling varies by a fifth from one minute to the next on a small machine, drifts
// as the server runs, and varies by more from one server to another; comparing the two
// configurations round by round, on the same server and each against the ceilings around it, is
// what shows a difference of a few percent.
func (s *schedulingRun) compareConfigurations(ctx context.Context, b *bench) (row, error) {
	confs := []string{"", b.compare}
	runs := make([][]measuredRound, len(confs)) // by configuration, one per round
	before, err := s.ceiling(ctx)
	if err != nil {
		return row{}, err
	}
	for round := range b.rounds {
		for k := range confs {
			c := (k + round) % len(confs) // alternate the order round by round
			m, err := s.round(ctx, b, confs[c], false, &before)
			if err != nil {
				return row{}, err
			}
			runs[c] = append(runs[c], m)
			say("%s: round %d, %s: ceiling %.0f pods/s (mean of %.0f before, %.0f after), manager %.0f pods/s, ratio %.2f, manager CPU %.1f s, %d cycles in %.2f s, first bind %.2f s after start; API requests meanwhile: %s",
				filepath.Base(s.dir), round+1, confName(confs[c]), m.ceiling(), m.before, m.after, m.PodsPerSecond, m.ratio(),
				m.cpu.Seconds(), m.cycles, m.cycleTime.Seconds(), m.First.Sub(m.started).Seconds(), m.requests.top(8))
		}
	}
	var ceilings []float64
	ratios := make([][]float64, len(confs))
	cpus := make([][]float64, len(confs))
	for c := range confs {
		for _, r := range runs[c] {
			ceilings = append(ceilings, r.ceiling())
			ratios[c] = append(ratios[c], r.ratio())
			cpus[c] = append(cpus[c], r.cpu.Seconds())
		}
	}
	paired := make([]float64, b.rounds)
	for round := range paired {
		paired[round] = ratios[1][round] / ratios[0][round]
	}
	var r row
	r.add("pods", "%d", s.total())
	r.add("rounds", "%d", b.rounds)
	r.add("ceiling pods/s", "%s", spread(ceilings, "%.0f"))
	r.add("default: ratio", "%s", spread(ratios[0], "%.2f"))
	r.add(confName(b.compare)+": ratio", "%s", spread(ratios[1], "%.2f"))
	r.add(confName(b.compare)+" / default", "%s", spread(paired, "%.3f"))
	r.add("default: manager CPU s", "%s", spread(cpus[0], "%.1f"))
	r.add(confName(b.compare)+": manager CPU s", "%s", spread(cpus[1], "%.1f"))
	return r, nil
}

// confName names a scheduler configuration file by its base name without extension; empty is
// the default configuration.
func confName(conf string) string {
	if conf == "" {
		return "default"
	}
	return strings.TrimSuffix(filepath.Base(conf), filepath.Ext(conf))
}

// spread formats the median of values and, for more than one, their range: "0.91 (0.85–0.97)".
func spread(values []float64, format string) string {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := len(sorted)
	median := sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	if n == 1 {
		return fmt.Sprintf(format, median)
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", median, sorted[0], sorted[n-1])
}

// leaseAcquired returns when the manager took the leader-election lease: a manager that waits as
// a standby has its caches synced already, so what follows the lease is what a failover costs.
func leaseAcquired(ctx context.Context, kube kubernetes.Interface) (time.Time, error) {
	lease, err := kube.CoordinationV1().Leases(leaseNamespace).Get(ctx, controllers.LeaderElectionID, metav1.GetOptions{})
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the manager's lease: %w", err)
	}
	if lease.Spec.AcquireTime == nil {
		return time.Time{}, fmt.Errorf("the manager's lease %s/%s has no acquire time", leaseNamespace, controllers.LeaderElectionID)
	}
	return lease.Spec.AcquireTime.Time, nil
}

// createRacks makes the HyperNodes of a rack layout over nodes.
func createRacks(ctx context.Context, f *framework.Framework, nodes []string, layout racks) error {
	count := layout.blocks * layout.racksPerBlock
	members := make([][]topologyv1alpha1.MemberSpec, count)
	for i, n := range nodes {
		members[i%count] = append(members[i%count], topologyv1alpha1.MemberSpec{Type: topologyv1alpha1.MemberTypeNode,
			Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: n}}})
	}
	for r := range count {
		if err := f.Client.Create(ctx, &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("rack-%d", r)},
			Spec: topologyv1alpha1.HyperNodeSpec{Tier: 1, TierName: "rack", Members: members[r]}}); err != nil {
			return err
		}
	}
	for bl := range layout.blocks {
		hn := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("block-%d", bl)},
			Spec: topologyv1alpha1.HyperNodeSpec{Tier: 2, TierName: "block"}}
		for r := bl * layout.racksPerBlock; r < (bl+1)*layout.racksPerBlock; r++ {
			hn.Spec.Members = append(hn.Spec.Members, topologyv1alpha1.MemberSpec{Type: topologyv1alpha1.MemberTypeHyperNode,
				Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: fmt.Sprintf("rack-%d", r)}}})
		}
		if err := f.Client.Create(ctx, hn); err != nil {
			return err
		}
	}
	return nil
}
