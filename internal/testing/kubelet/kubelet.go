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

package kubelet

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// Kubelet drives the pods Runs understands on the nodes of a local control plane.
type Kubelet struct {
	client kubernetes.Interface
	clock  clock.WithTicker
	queue  workqueue.TypedDelayingInterface[types.NamespacedName]
	pods   cache.Indexer
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// Start starts the simulated kubelet against the API server of cfg; Stop ends it.
func Start(cfg *rest.Config, clk clock.WithTicker) (*Kubelet, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("the simulated kubelet's client: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := &Kubelet{
		client: client,
		clock:  clk,
		queue:  workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[types.NamespacedName]{Clock: clk, Name: "simulated-kubelet"}),
		cancel: cancel,
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "spec.nodeName!="
	}))
	informer := factory.Core().V1().Pods().Informer()
	enqueue := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok {
			k.queue.Add(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		cancel()
		return nil, err
	}
	k.pods = informer.GetIndexer()
	factory.Start(ctx.Done())
	k.done.Add(2)
	go func() {
		defer k.done.Done()
		<-ctx.Done()
		k.queue.ShutDown()
	}()
	go func() {
		defer k.done.Done()
		cache.WaitForCacheSync(ctx.Done(), informer.HasSynced)
		for k.next(ctx) {
		}
	}()
	return k, nil
}

// Stop stops the simulated kubelet and waits for it.
func (k *Kubelet) Stop() {
	k.cancel()
	k.done.Wait()
}

// next handles one pod from the queue; it returns false once the queue is shut down.
func (k *Kubelet) next(ctx context.Context) bool {
	key, quit := k.queue.Get()
	if quit {
		return false
	}
	defer k.queue.Done(key)
	obj, exists, err := k.pods.GetByKey(key.String())
	if err != nil || !exists {
		return true
	}
	pod := obj.(*corev1.Pod)
	runs, ok := Runs(pod)
	if !ok {
		return true
	}
	status, changed, next := Step(pod, runs, k.clock.Now())
	if changed {
		updated := pod.DeepCopy()
		updated.Status = *status
		_, err := k.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return true
		case err != nil:
			// A conflict or a passing error: the informer brings the newer pod, or try again soon.
			k.queue.AddAfter(key, time.Second)
			return true
		}
	}
	if !next.IsZero() {
		k.queue.AddAfter(key, next.Sub(k.clock.Now()))
	}
	return true
}
