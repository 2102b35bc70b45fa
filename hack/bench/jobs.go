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
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/perf"
)

// jobsNodes is the number of KWOK nodes of the jobs workloads: room for every pod at once.
const jobsNodes = 10

// writeKinds are the columns of the writes a job costs, from the audit log: resource, subresource
// and verb ("" matches any) to column.
var writeKinds = []struct {
	column, resource, subresource, verb string
}{
	{"PodGroup create", "podgroups", "", "create"},
	{"PodGroup delete", "podgroups", "", "delete"},
	{"PodGroup spec", "podgroups", "", ""},
	{"PodGroup status", "podgroups", "status", ""},
	{"pod create", "pods", "", "create"},
	{"bind", "pods", "binding", ""},
	{"pod status", "pods", "status", ""},
	{"job status", "jobs", "status", ""},
	{"queue status", "queues", "status", ""},
	{"events", "events", "", ""},
}

// jobsWorkload submits jobs one-pod (replicas-pod) jobs whose pods run for 1 s to the manager,
// after the same jobs' ceiling run (jobsCeiling) on the same API server.
func jobsWorkload(jobs int, replicas int32) func(ctx context.Context, b *bench, dir string) (row, error) {
	return func(ctx context.Context, b *bench, dir string) (row, error) {
		audit := filepath.Join(dir, "audit.log")
		f := &framework.Framework{KWOK: true, WithoutControllerManager: true, Dir: dir, AuditLog: audit}
		if err := f.Start(); err != nil {
			return row{}, err
		}
		defer func() { _ = f.Stop() }()
		names, err := f.CreateNodes(ctx, jobsNodes, nil)
		if err == nil {
			err = f.WaitForNodesReady(ctx, names...)
		}
		if err == nil {
			err = servedBefore(ctx, f)
		}
		if err != nil {
			return row{}, err
		}
		ceiling, err := jobsCeiling(ctx, f, names, jobs, replicas)
		if err != nil {
			return row{}, err
		}
		manager, err := b.startManagerOn(ctx, f, dir)
		if err != nil {
			return row{}, err
		}
		defer func() { _ = manager.Stop() }()

		w, err := watchJobs(ctx, f, benchNamespace, nil)
		if err != nil {
			return row{}, err
		}
		defer w.stop()
		created := make([]time.Time, jobs)
		b.startProfile(ctx, dir, f.Config)
		firstCreate := time.Now()
		err = perf.Parallel(jobs, 16, func(i int) error {
			job := benchJob(i, benchNamespace, replicas)
			created[i] = time.Now()
			return f.Client.Create(ctx, job)
		})
		if err != nil {
			return row{}, err
		}
		lastCreate := time.Now()
		if err := w.waitCompleted(ctx, jobs, 10*time.Minute); err != nil {
			return row{}, err
		}
		// The last status writes land before the log is read.
		time.Sleep(2 * time.Second)
		if exited := manager.Exited(); exited != nil {
			return row{}, fmt.Errorf("the manager exited: %w\n%s", exited, manager.Tail(20))
		}
		rss, err := peakRSS(manager.Pid())
		if err != nil {
			return row{}, err
		}
		reconciled, err := reconciles(ctx, dir)
		if err != nil {
			return row{}, err
		}
		_ = manager.Stop()

		records, err := framework.ReadAuditLog(audit)
		if err != nil {
			return row{}, err
		}
		counts := map[string]int{}
		var podCreates []time.Time
		for _, r := range records {
			if !strings.HasPrefix(r.UserAgent, "manager/") || r.ObjectRef.Resource == "leases" {
				continue
			}
			column := "other"
			for _, k := range writeKinds {
				if r.ObjectRef.Resource == k.resource && r.ObjectRef.Subresource == k.subresource && (k.verb == "" || k.verb == r.Verb) {
					column = k.column
					break
				}
			}
			counts[column]++
			if column == "pod create" {
				if t, err := time.Parse(time.RFC3339Nano, r.RequestReceivedTimestamp); err == nil {
					podCreates = append(podCreates, t)
				}
			}
		}
		sort.Slice(podCreates, func(i, j int) bool { return podCreates[i].Before(podCreates[j]) })

		lastCompleted, latencies := w.figures(created)
		var r row
		r.add("jobs", "%d", jobs)
		took := lastCompleted.Sub(firstCreate)
		r.add("jobs/s", "%.1f", float64(jobs)/took.Seconds())
		r.add("ceiling jobs/s", "%.1f", float64(jobs)/ceiling.completed.Seconds())
		r.add("ratio", "%.2f", ceiling.completed.Seconds()/took.Seconds())
		r.add("last create → all Completed", "%.1f s", lastCompleted.Sub(lastCreate).Seconds())
		if n := len(podCreates); n > 1 {
			r.add("pods created/s", "%.0f", float64(n)/podCreates[n-1].Sub(firstCreate).Seconds())
		}
		r.add("ceiling pods created/s", "%.0f", float64(jobs*int(replicas))/ceiling.podsMade.Seconds())
		r.add("create → bound p50", "%.2f s", percentile(latencies, 50).Seconds())
		r.add("create → bound p99", "%.2f s", percentile(latencies, 99).Seconds())
		r.add("status writes/job", "%.2f", float64(counts["job status"]+counts["PodGroup status"])/float64(jobs))
		for _, k := range writeKinds {
			r.add(k.column+"/job", "%.2f", float64(counts[k.column])/float64(jobs))
		}
		r.add("other/job", "%.2f", float64(counts["other"])/float64(jobs))
		r.add("job reconciles/job", "%.1f", reconciled["job"]/float64(jobs))
		r.add("peak RSS", "%.0f MiB", rss)
		return r, nil
	}
}

// jobWatch records when each job's first pod is seen bound and when each job is seen Completed.
type jobWatch struct {
	mu        sync.Mutex
	bound     map[string]time.Time
	completed map[string]time.Time
	cancel    context.CancelFunc
}

// watchJobs starts a jobWatch of namespace ns; alsoOnPod, when not nil, is called with every pod
// added or updated.
func watchJobs(ctx context.Context, f *framework.Framework, ns string, alsoOnPod func(*corev1.Pod)) (*jobWatch, error) {
	w := &jobWatch{bound: map[string]time.Time{}, completed: map[string]time.Time{}}
	onPod := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if ok && alsoOnPod != nil {
			alsoOnPod(pod)
		}
		if !ok || pod.Spec.NodeName == "" {
			return
		}
		job := pod.Labels[batchv1alpha1.JobNameKey]
		now := time.Now()
		w.mu.Lock()
		if _, seen := w.bound[job]; !seen {
			w.bound[job] = now
		}
		w.mu.Unlock()
	}
	onJob := func(obj any) {
		job, ok := obj.(*batchv1alpha1.Job)
		if !ok || job.Status.State.Phase != batchv1alpha1.Completed {
			return
		}
		now := time.Now()
		w.mu.Lock()
		if _, seen := w.completed[job.Name]; !seen {
			w.completed[job.Name] = now
		}
		w.mu.Unlock()
	}
	var err error
	w.cancel, err = watchNamespace(ctx, f, ns, nil, []watched{{&corev1.Pod{}, onPod}, {&batchv1alpha1.Job{}, onJob}})
	return w, err
}

// watched is a kind the benchmark watches and what it does with each added or updated object.
type watched struct {
	obj client.Object
	on  func(obj any)
}

// watchNamespace starts a cache of namespace ns (its objects passed through transform, if any),
// calls each kind's on for every add and update, and returns once the cache has synced.
func watchNamespace(ctx context.Context, f *framework.Framework, ns string, transform toolscache.TransformFunc, kinds []watched) (context.CancelFunc, error) {
	c, err := cache.New(f.Config, cache.Options{Scheme: f.Scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}, DefaultTransform: transform})
	if err != nil {
		return nil, err
	}
	for _, k := range kinds {
		informer, err := c.GetInformer(ctx, k.obj)
		if err != nil {
			return nil, err
		}
		on := k.on
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: on, UpdateFunc: func(_, o any) { on(o) }}); err != nil {
			return nil, err
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { _ = c.Start(cctx) }()
	if !c.WaitForCacheSync(cctx) {
		cancel()
		return nil, fmt.Errorf("the benchmark's watch of namespace %s did not sync", ns)
	}
	return cancel, nil
}

func (w *jobWatch) stop() { w.cancel() }

func (w *jobWatch) waitCompleted(ctx context.Context, n int, timeout time.Duration) error {
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.completed) >= n, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return fmt.Errorf("only %d of %d jobs Completed within %s", len(w.completed), n, timeout)
	}
	return nil
}

// figures returns when the last job was seen Completed and, per job, the time from its create
// call to its first pod bound.
func (w *jobWatch) figures(created []time.Time) (time.Time, []time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var last time.Time
	for _, t := range w.completed {
		if t.After(last) {
			last = t
		}
	}
	var latencies []time.Duration
	for i, c := range created {
		if t, ok := w.bound[fmt.Sprintf("job-%d", i)]; ok {
			latencies = append(latencies, t.Sub(c))
		}
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	return last, latencies
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}
