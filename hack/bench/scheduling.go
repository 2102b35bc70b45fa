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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
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

// schedulingWorkload is groups PodGroups of size pods each on nodes plain nodes.
func schedulingWorkload(nodes, groups, size int) func(ctx context.Context, b *bench, dir string) (row, error) {
	return func(ctx context.Context, b *bench, dir string) (row, error) {
		f, kube, err := plainControlPlane(dir)
		if err != nil {
			return row{}, err
		}
		defer func() { _ = f.Stop() }()
		for _, ns := range []string{"bench", "ceiling"} {
			if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				return row{}, err
			}
		}
		total := groups * size
		nodeNames, err := perf.CreateNodes(ctx, kube, nodes)
		if err != nil {
			return row{}, err
		}

		// The API server's ceiling, before the manager starts.
		if err := perf.CreatePods(ctx, kube, "ceiling", "ceiling", total, 1); err != nil {
			return row{}, err
		}
		ceilingWatch, err := perf.WatchBinds(kube, "ceiling")
		if err != nil {
			return row{}, err
		}
		err = perf.Parallel(total, benchWorkers, func(i int) error {
			return kube.CoreV1().Pods("ceiling").Bind(ctx, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ceiling", Name: fmt.Sprintf("p-%d", i)},
				Target:     corev1.ObjectReference{Kind: "Node", Name: nodeNames[i%len(nodeNames)]},
			}, metav1.CreateOptions{})
		})
		if err != nil {
			return row{}, err
		}
		ceiling, err := ceilingWatch.Wait(ctx, 0, total, 10*time.Minute)
		ceilingWatch.Stop()
		if err != nil {
			return row{}, fmt.Errorf("the ceiling: %w", err)
		}

		// The workload, then the manager.
		err = perf.Parallel(groups, 32, func(i int) error {
			return f.Client.Create(ctx, &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("g-%d", i)},
				Spec:       schedulingv1beta1.PodGroupSpec{MinMember: int32(size), Queue: schedulingv1beta1.DefaultQueue},
			})
		})
		if err != nil {
			return row{}, err
		}
		if err := perf.CreatePods(ctx, kube, "bench", "volcano", groups, size); err != nil {
			return row{}, err
		}
		watch, err := perf.WatchBinds(kube, "bench")
		if err != nil {
			return row{}, err
		}
		defer watch.Stop()
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
		ours, waitErr := watch.Wait(ctx, 0, total, 20*time.Minute)
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
		r.add("ceiling pods/s", "%.0f", ceiling.PodsPerSecond)
		r.add("Caldera pods/s", "%.0f", ours.PodsPerSecond)
		r.add("ratio", "%.2f", ours.PodsPerSecond/ceiling.PodsPerSecond)
		r.add("longest pause", "%d ms", ours.MaxGap.Milliseconds())
		r.add("first bind after start", "%.2f s", ours.First.Sub(started).Seconds())
		r.add("peak RSS", "%.0f MiB", rss)
		return r, nil
	}
}
