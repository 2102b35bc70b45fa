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

package controllers_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// countingTransport counts the requests the manager sends, watches and reads from the cache
// aside (the cache lists and watches once; what is counted is the controller's own traffic).
type countingTransport struct {
	next   http.RoundTripper
	writes atomic.Int64
	reads  atomic.Int64
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Query().Get("watch") != "true" {
		if req.Method == http.MethodGet {
			t.reads.Add(1)
		} else {
			t.writes.Add(1)
		}
	}
	return t.next.RoundTrip(req)
}

// admitPodGroups does the scheduler's part the job controller waits for: it sets each PodGroup
// made in ns to Inqueue as soon as it appears, with admitWorkers requests in flight, until the
// returned function is called.
func admitPodGroups(ctx context.Context, fw *framework.Framework, ns string) (func(), error) {
	c, err := client.NewWithWatch(fw.Config, client.Options{Scheme: fw.Scheme})
	if err != nil {
		return nil, err
	}
	w, err := c.Watch(ctx, &schedulingv1beta1.PodGroupList{}, client.InNamespace(ns))
	if err != nil {
		return nil, err
	}
	const admitWorkers = 16
	groups := make(chan *schedulingv1beta1.PodGroup, admitWorkers)
	var workers sync.WaitGroup
	for range admitWorkers {
		workers.Go(func() {
			for pg := range groups {
				patch := client.MergeFrom(pg.DeepCopy())
				pg.Status.Phase = schedulingv1beta1.PodGroupInqueue
				// A PodGroup deleted meanwhile needs no admission.
				_ = c.Status().Patch(ctx, pg, patch)
			}
		})
	}
	go func() {
		defer close(groups)
		for ev := range w.ResultChan() {
			if pg, ok := ev.Object.(*schedulingv1beta1.PodGroup); ok && ev.Type == watch.Added && pg.Status.Phase == "" {
				groups <- pg
			}
		}
	}()
	return func() { w.Stop(); workers.Wait() }, nil
}

// BenchmarkJobPods measures, on a real API server, how long the job controller takes to create
// a job's pods and how many API requests it sends per pod: one job of 1000 replicas, and 1000
// jobs of one replica. No scheduler runs: the benchmark admits each PodGroup (sets it Inqueue),
// as the scheduler does before the job controller creates pods, and its own requests are not
// counted. Run it with: make bench-go, or
//
//	go test -run '^$' -bench BenchmarkJobPods -benchtime 1x ./controllers/
func BenchmarkJobPods(b *testing.B) {
	fw := &framework.Framework{}
	if err := fw.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = fw.Stop() }()

	counter := &countingTransport{}
	cfg := rest.CopyConfig(fw.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: fw.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		b.Fatal(err)
	}
	if err := controllers.Setup(mgr, controllers.Options{SchedulerNames: []string{"volcano"}}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		b.Fatal("cache did not sync")
	}
	if err := fw.Client.Create(ctx, wrappers.MakeQueue("default").Obj()); err != nil {
		b.Fatal(err)
	}

	run := func(b *testing.B, jobs int, replicas int32) {
		for i := 0; i < b.N; i++ {
			ns, err := fw.CreateNamespace(ctx, "bench")
			if err != nil {
				b.Fatal(err)
			}
			stopAdmitting, err := admitPodGroups(ctx, fw, ns.Name)
			if err != nil {
				b.Fatal(err)
			}
			writes, reads := counter.writes.Load(), counter.reads.Load()
			start := time.Now()
			for j := range jobs {
				job := wrappers.MakeJob(fmt.Sprintf("job-%d", j), ns.Name).Scheduler(testScheduler).Task("worker", replicas).Obj()
				if err := fw.Client.Create(ctx, job); err != nil {
					b.Fatal(err)
				}
			}
			want := jobs * int(replicas)
			for {
				pods := &corev1.PodList{}
				if err := fw.Client.List(ctx, pods, client.InNamespace(ns.Name)); err != nil {
					b.Fatal(err)
				}
				if len(pods.Items) >= want {
					break
				}
				if time.Since(start) > 10*time.Minute {
					b.Fatalf("only %d of %d pods after 10m", len(pods.Items), want)
				}
				time.Sleep(20 * time.Millisecond)
			}
			elapsed := time.Since(start)
			stopAdmitting()
			// Let the status writes of the last reconciles land before counting.
			time.Sleep(2 * time.Second)
			b.ReportMetric(float64(want)/elapsed.Seconds(), "pods/s")
			b.ReportMetric(float64(counter.writes.Load()-writes)/float64(want), "writes/pod")
			b.ReportMetric(float64(counter.reads.Load()-reads)/float64(want), "reads/pod")
			b.ReportMetric(elapsed.Seconds(), "s/run")
			_ = fw.DeleteNamespace(ctx, ns.Name)
		}
	}
	b.Run("1-job-1000-replicas", func(b *testing.B) { run(b, 1, 1000) })
	b.Run("1000-jobs-1-replica", func(b *testing.B) { run(b, 1000, 1) })
}
