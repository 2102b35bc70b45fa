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
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

var (
	fw  *framework.Framework
	k8s client.Client
)

func TestScheduler(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scheduler integration suite")
}

// Failed specs are printed with their messages at the end, where a CI log is read.
var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	fw = &framework.Framework{
		// The nodes here are plain API objects with no KWOK behind them: no node lifecycle or
		// service account controller may run, so that nodes are not tainted not-ready or
		// unreachable, and pods do not wait for a default service account.
		WithoutControllerManager: true,
		APIServerFlags:           map[string]string{"disable-admission-plugins": "TaintNodesByCondition,ServiceAccount"},
	}
	Expect(fw.Start()).To(Succeed())
	k8s = fw.Client
	stopKubelet := startFakeKubelet()
	DeferCleanup(func() {
		stopKubelet()
		Expect(fw.Stop()).To(Succeed())
	})
})

// startFakeKubelet finishes the deletion of pods that a kubelet would have stopped: it removes
// at once every pod marked for deletion (evicted victims) so their resources are freed.
func startFakeKubelet() func() {
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Bool
	go func() {
		defer done.Store(true)
		for ctx.Err() == nil {
			var pods corev1.PodList
			if err := k8s.List(ctx, &pods); err == nil {
				for i := range pods.Items {
					p := &pods.Items[i]
					if p.DeletionTimestamp != nil {
						_ = k8s.Delete(ctx, p, client.GracePeriodSeconds(0))
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return cancel
}

// startScheduler starts a manager with a scheduler built with opts, stopped when the spec ends.
func startScheduler(opts scheduler.Options) *scheduler.Scheduler {
	GinkgoHelper()
	if opts.SchedulePeriod == 0 {
		opts.SchedulePeriod = 200 * time.Millisecond
	}
	var s *scheduler.Scheduler
	stop, err := fw.StartManager(context.Background(), func(mgr ctrl.Manager) error {
		var err error
		if s, err = scheduler.New(mgr, opts); err != nil {
			return err
		}
		return mgr.Add(s)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })
	return s
}

// createNode creates a Ready node offering the given resources, changed by mutate, and deletes it
// when the spec ends.
func createNode(name string, allocatable corev1.ResourceList, labels map[string]string, mutate ...func(*corev1.Node)) *corev1.Node {
	GinkgoHelper()
	ctx := context.Background()
	if _, ok := allocatable[corev1.ResourcePods]; !ok {
		allocatable[corev1.ResourcePods] = resource.MustParse("110")
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Status: corev1.NodeStatus{
		Capacity:    allocatable.DeepCopy(),
		Allocatable: allocatable,
		Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
		}},
	}}
	// The node is created as mutate leaves it, status included (the API server keeps a new
	// node's status, as a kubelet registers it), so that the scheduler never sees it otherwise: a
	// node seen untainted for a moment could take a pod a spec means to be refused.
	for _, m := range mutate {
		m(node)
	}
	Expect(k8s.Create(ctx, node)).To(Succeed())
	DeferCleanup(func() {
		Expect(client.IgnoreNotFound(k8s.Delete(context.Background(), node))).To(Succeed())
	})
	return node
}

// resources builds a ResourceList from name=quantity pairs.
func resources(pairs ...string) corev1.ResourceList {
	rl := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		rl[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return rl
}

// createAndCleanup creates a cluster-scoped object and deletes it when the spec ends.
func createAndCleanup(obj client.Object) {
	GinkgoHelper()
	Expect(k8s.Create(context.Background(), obj)).To(Succeed())
	DeferCleanup(func() {
		err := k8s.Delete(context.Background(), obj)
		if err != nil && !apierrors.IsNotFound(err) {
			Fail(fmt.Sprintf("deleting %s: %v", obj.GetName(), err))
		}
	})
}

// writeConfig writes a scheduler configuration to a file of the spec and returns its path.
func writeConfig(text string) string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "scheduler.conf")
	Expect(os.WriteFile(path, []byte(text), 0o600)).To(Succeed())
	return path
}
