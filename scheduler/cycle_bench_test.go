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
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	testingclock "k8s.io/utils/clock/testing"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/cache"
	"github.com/caldera-sh/caldera/scheduler/framework"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/registry"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// newOffline returns a scheduler with no API server behind it: binds and status writes are
// queued and never carried out. It runs the real cycle (RunOnce) on a cache fed by hand.
func newOffline(tb testing.TB, c *cache.Cache) *Scheduler {
	tb.Helper()
	opts := Options{Clock: testingclock.NewFakeClock(st.Epoch)}
	if err := opts.setDefaults(); err != nil {
		tb.Fatal(err)
	}
	s := &Scheduler{
		opts: opts, log: logr.Discard(), clock: opts.Clock, cache: c, snapshot: snapshot.New(),
		registry: registry.Default(), recorder: &events.FakeRecorder{}, podQueue: newFIFO[podWork](),
		loneMessages: map[api.JobID]string{}, wanted: map[api.JobID]handedStatus{},
		failures: map[api.JobID]failure{},
	}
	s.statuses = newStatusWriter(s)
	cfg, err := defaultConfig(s.registry)
	if err != nil {
		tb.Fatal(err)
	}
	s.config.Store(cfg)
	return s
}

// boundCluster is a cache of 5000 nodes and 10000 running PodGroups of 10 bound pods each.
func boundCluster() *cache.Cache {
	const nodes, groups, perGroup = 5000, 10000, 10
	c := cache.New([]string{st.SchedulerName}, schedulingv1beta1.DefaultQueue)
	c.AddQueue(st.MakeQueue("default", 1).Obj())
	for i := 0; i < nodes; i++ {
		c.AddNode(st.MakeNode(fmt.Sprintf("node-%d", i), "64", "256Gi").Obj())
	}
	for g := 0; g < groups; g++ {
		name := fmt.Sprintf("pg-%d", g)
		pg := st.MakePodGroup("bench", name, perGroup).Phase(schedulingv1beta1.PodGroupRunning).Obj()
		c.AddPodGroup(pg)
		for p := 0; p < perGroup; p++ {
			pod := st.MakePod("bench", fmt.Sprintf("%s-%d", name, p)).Group(name).Req("100m", "500Mi").
				Node(fmt.Sprintf("node-%d", (g*perGroup+p)%nodes)).Obj()
			c.AddPod(pod)
		}
	}
	return c
}

// BenchmarkCycleIdleAmong100000Bound measures a whole cycle with nothing pending among 100000
// bound pods on 5000 nodes: what the scheduler costs a full cluster at rest. Goal: under 5 ms.
func BenchmarkCycleIdleAmong100000Bound(b *testing.B) {
	s := newOffline(b, boundCluster())
	ctx := context.Background()
	s.RunOnce(ctx) // the first cycle copies everything in
	var worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if stats := s.RunOnce(ctx); stats.Binds != 0 {
			b.Fatalf("cycle %d bound %d pods, want none", i, stats.Binds)
		}
		worst = max(worst, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms/cycle")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/cycle")
}

// BenchmarkCycleOnePendingAmong100000Bound measures a whole cycle (snapshot update, session,
// enqueue, allocate, backfill, statuses) when one new pod waits among 100000 bound ones on 5000
// nodes. Goal: well under 5 ms, as the cost follows what changed, not the cluster's size.
func BenchmarkCycleOnePendingAmong100000Bound(b *testing.B) {
	c := boundCluster()
	s := newOffline(b, c)
	ctx := context.Background()
	s.RunOnce(ctx) // the first cycle copies everything in
	var worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		name := fmt.Sprintf("new-%d", i)
		pod := st.MakePod("bench", name).Req("100m", "500Mi").Obj()
		pod.UID = types.UID(name)
		c.AddPod(pod)
		start := time.Now()
		stats := s.RunOnce(ctx)
		took := time.Since(start)
		if stats.Binds != 1 {
			b.Fatalf("cycle %d bound %d pods, want 1", i, stats.Binds)
		}
		// The bind lands: the pod shows its node.
		bound := pod.DeepCopy()
		bound.Spec.NodeName = s.podQueueLast().node
		c.AddPod(bound)
		worst = max(worst, took)
	}
	b.StopTimer()
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms/cycle")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/cycle")
}

// BenchmarkSnapshotUpdateOnePodAmong100000Bound measures the cache and snapshot alone: one new
// pending pod among 100000 bound ones, then the snapshot update.
func BenchmarkSnapshotUpdateOnePodAmong100000Bound(b *testing.B) {
	const nodes, groups, perGroup = 5000, 10000, 10
	c := cache.New([]string{st.SchedulerName}, schedulingv1beta1.DefaultQueue)
	for i := 0; i < nodes; i++ {
		c.AddNode(st.MakeNode(fmt.Sprintf("node-%d", i), "64", "256Gi").Obj())
	}
	for g := 0; g < groups; g++ {
		name := fmt.Sprintf("pg-%d", g)
		c.AddPodGroup(st.MakePodGroup("bench", name, perGroup).Phase(schedulingv1beta1.PodGroupRunning).Obj())
		for p := 0; p < perGroup; p++ {
			c.AddPod(st.MakePod("bench", fmt.Sprintf("%s-%d", name, p)).Group(name).Req("100m", "500Mi").
				Node(fmt.Sprintf("node-%d", (g*perGroup+p)%nodes)).Obj())
		}
	}
	s := snapshot.New()
	c.UpdateSnapshot(s)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pod := st.MakePod("bench", fmt.Sprintf("new-%d", i)).Req("100m", "500Mi").Obj()
		pod.UID = types.UID(pod.Name)
		c.AddPod(pod)
		c.UpdateSnapshot(s)
	}
}

// podQueueLast returns the last work item queued for the pod workers.
func (s *Scheduler) podQueueLast() podWork {
	s.podQueue.mu.Lock()
	defer s.podQueue.mu.Unlock()
	if len(s.podQueue.items) == 0 {
		return podWork{}
	}
	return s.podQueue.items[len(s.podQueue.items)-1]
}

// BenchmarkCyclePlaceGangs measures the cycle that places many waiting gangs at once on empty
// nodes (4 CPU, 32Gi), for the shapes of BenchmarkScheduling: all are admitted and placed in
// one cycle. Each shape runs with the default configuration and with the one make bench compares
// it with (hack/bench/capacity-topology.conf: capacity in place of proportion, and
// network-topology-aware), so the scheduler's own cost of the two is seen apart from the API
// server's.
func BenchmarkCyclePlaceGangs(b *testing.B) {
	capacityTopology, err := os.ReadFile(filepath.Join("..", "hack", "bench", "capacity-topology.conf"))
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []struct {
		name                    string
		nodes, groups, perGroup int
		racks                   bool
	}{
		{"5000Nodes_10000OnePodGroups", 5000, 10000, 1, false},
		{"1000Nodes_20GangsOf500", 1000, 20, 500, false},
		{"5000Nodes_1000GangsOf3", 5000, 1000, 3, false},
		{"1000NodesIn32Racks_40GangsOf64WithinARack", 1000, 40, 64, true},
	} {
		for _, conf := range []struct {
			name string
			data []byte
		}{{"default", nil}, {"capacity-topology", capacityTopology}} {
			b.Run(w.name+"/"+conf.name, func(b *testing.B) {
				placeGangs(b, w.nodes, w.groups, w.perGroup, w.racks, conf.data)
			})
		}
	}
}

// placeGangs runs BenchmarkCyclePlaceGangs for one shape and configuration (nil: the default).
// With racks, the nodes are laid out as make bench's sched-1000n-40x64-racks lays them out (4
// blocks of 8 racks, node i in rack i % 32) and every gang must land within one rack.
func placeGangs(b *testing.B, nodes, groups, perGroup int, racks bool, conf []byte) {
	const blocks, racksPerBlock = 4, 8
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := cache.New([]string{st.SchedulerName}, schedulingv1beta1.DefaultQueue)
		c.AddQueue(st.MakeQueue("default", 1).Obj())
		members := make([][]string, blocks*racksPerBlock) // by rack
		for n := 0; n < nodes; n++ {
			name := fmt.Sprintf("node-%d", n)
			c.AddNode(st.MakeNode(name, "4", "32Gi").Obj())
			if racks {
				members[n%len(members)] = append(members[n%len(members)], name)
			}
		}
		if racks {
			for bl := range blocks {
				var inBlock []string
				for r := bl * racksPerBlock; r < (bl+1)*racksPerBlock; r++ {
					inBlock = append(inBlock, fmt.Sprintf("rack-%d", r))
					c.AddHyperNode(st.MakeHyperNode(fmt.Sprintf("rack-%d", r), 1, members[r]...))
				}
				c.AddHyperNode(st.MakeHyperNode(fmt.Sprintf("block-%d", bl), 2, inBlock...))
			}
		}
		for g := 0; g < groups; g++ {
			name := fmt.Sprintf("pg-%d", g)
			pg := st.MakePodGroup("bench", name, int32(perGroup))
			if racks {
				pg = pg.NetworkTopology("hard", 1, "")
			}
			c.AddPodGroup(pg.Obj())
			for p := 0; p < perGroup; p++ {
				c.AddPod(st.MakePod("bench", fmt.Sprintf("%s-%d", name, p)).Group(name).Req("100m", "500Mi").Obj())
			}
		}
		s := newOffline(b, c)
		if conf != nil {
			cfg, err := framework.Load(conf, s.registry)
			if err != nil {
				b.Fatal(err)
			}
			s.config.Store(cfg)
		}
		b.StartTimer()
		stats := s.RunOnce(context.Background())
		if stats.Binds != groups*perGroup {
			b.Fatalf("bound %d pods, want %d", stats.Binds, groups*perGroup)
		}
	}
}
