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
	"k8s.io/utils/ptr"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/controllers"
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
// racks when layout is not nil.
func schedulingWorkload(nodes, groups, size int, layout *racks) func(ctx context.Context, b *bench, dir string) (row, error) {
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
		// The ceiling's pods go, so that the manager starts on the workload alone: nodes,
		// PodGroups and their pods. With no kubelet behind the nodes, they go at once.
		if err := perf.DeletePods(ctx, kube, "ceiling"); err != nil {
			return row{}, fmt.Errorf("deleting the ceiling's pods: %w", err)
		}

		// The workload, then the manager.
		var topology *schedulingv1beta1.NetworkTopologySpec
		if layout != nil {
			if err := createRacks(ctx, f, nodeNames, *layout); err != nil {
				return row{}, err
			}
			topology = &schedulingv1beta1.NetworkTopologySpec{Mode: "hard", HighestTierAllowed: ptr.To[int32](1)}
		}
		err = perf.Parallel(groups, 32, func(i int) error {
			return f.Client.Create(ctx, &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("g-%d", i)},
				Spec:       schedulingv1beta1.PodGroupSpec{MinMember: int32(size), Queue: schedulingv1beta1.DefaultQueue, NetworkTopology: topology},
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
		var led time.Time
		if waitErr == nil {
			led, waitErr = leaseAcquired(ctx, kube)
		}
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
		r.add("first bind after lease", "%.2f s", ours.First.Sub(led).Seconds())
		r.add("peak RSS", "%.0f MiB", rss)
		return r, nil
	}
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
