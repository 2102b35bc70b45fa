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
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/metricstest"
)

// unrelatedObjects is how many Secrets and how many ConfigMaps that no job made the memory
// benchmark puts in the cluster, each with 2 KiB of data.
const unrelatedObjects = 5000

// BenchmarkManagerMemoryWithUnrelatedSecrets runs the shipped manager, with its default
// configuration, in a cluster holding 5000 Secrets and 5000 ConfigMaps that belong to no job,
// and reports its resident memory and Go heap once it is ready and has settled:
//
//	go test ./cmd/manager -run '^$' -bench ManagerMemory -benchtime 1x
func BenchmarkManagerMemoryWithUnrelatedSecrets(b *testing.B) {
	f := controlPlane(b)
	ctx := context.Background()
	createUnrelated(ctx, b, f.Client, "unrelated-objects", unrelatedObjects)

	for b.Loop() {
		dir := b.TempDir()
		probe := freeAddress(b)
		metricsAddr := freeAddress(b)
		p := startManager(b, dir, "--kubeconfig="+adminKubeconfig(b, f, dir), "--leader-election-namespace=default",
			"--metrics-bind-address="+metricsAddr, "--metrics-secure=false", "--health-probe-bind-address="+probe)
		waitReady(b, p, probe)
		// Let the first cycles and the informers' initial lists settle and be collected.
		time.Sleep(5 * time.Second)
		m, err := metricstest.Scrape(ctx, "http://"+metricsAddr+"/metrics")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(m["process_resident_memory_bytes"]/(1<<20), "rss-MiB")
		b.ReportMetric(m["go_memstats_heap_inuse_bytes"]/(1<<20), "heap-inuse-MiB")
		if err := p.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// createUnrelated creates n Secrets and n ConfigMaps of 2 KiB each in a new namespace.
func createUnrelated(ctx context.Context, b *testing.B, c client.Client, namespace string, n int) {
	b.Helper()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	payload := strings.Repeat("x", 2048)
	work := make(chan int)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				name := "unrelated-" + strconv.Itoa(i)
				objs := []client.Object{
					&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, StringData: map[string]string{"data": payload}},
					&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string]string{"data": payload}},
				}
				for _, o := range objs {
					if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
						errs <- err
						return
					}
				}
			}
		}()
	}
	for i := range n {
		select {
		case work <- i:
		case err := <-errs:
			close(work)
			wg.Wait()
			b.Fatal(err)
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// waitReady waits until the manager's /readyz answers 200.
func waitReady(b *testing.B, p *framework.Process, probe string) {
	b.Helper()
	deadline := time.Now().Add(framework.LongTimeout)
	for {
		if err := p.Exited(); err != nil {
			b.Fatal(err)
		}
		resp, err := http.Get("http://" + probe + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("/readyz did not answer 200 within %s", framework.LongTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
