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
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/caldera-sh/caldera/scheduler"
	"github.com/caldera-sh/caldera/scheduler/conf"
	schedframework "github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/registry"
)

// The metrics endpoint checks its clients' tokens and their right to get /metrics.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// checkSchedulerConfig reads and checks the scheduler configuration file, as the scheduler will
// load it. The error names the file, and each problem its line and the plugin or action.
func checkSchedulerConfig(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the scheduler configuration (--scheduler-conf): %w", err)
	}
	if _, err := schedframework.Load(data, registry.Default()); err != nil {
		return fmt.Errorf("the scheduler configuration %s does not load; fix it, or leave --scheduler-conf out for Volcano's default configuration:\n%w",
			path, conf.WithLines(data, err))
	}
	return nil
}

// metricsOptions serves /metrics on addr: over HTTPS with a self-signed certificate to clients
// allowed to get /metrics when secure, otherwise over plain HTTP to anyone.
func metricsOptions(addr string, secure bool) metricsserver.Options {
	o := metricsserver.Options{BindAddress: addr, SecureServing: secure}
	if secure {
		o.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return o
}

// ownPod is the manager's own Pod, from POD_NAME and POD_NAMESPACE (the downward API), which
// events about the scheduler configuration are recorded on; nil outside a pod.
func ownPod() *corev1.ObjectReference {
	name, namespace := os.Getenv("POD_NAME"), os.Getenv("POD_NAMESPACE")
	if name == "" || namespace == "" {
		return nil
	}
	return &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: namespace, Name: name}
}

// readiness holds the checks of /readyz beyond the webhook server's.
type readiness struct {
	// cacheSynced waits for the manager's caches until ctx ends and reports whether they synced.
	cacheSynced func(ctx context.Context) bool
	// elected is closed once this manager leads (at once without leader election).
	elected <-chan struct{}
	// cycled reports whether the scheduler ran its first cycle; nil without a scheduler.
	cycled func() bool

	synced atomic.Bool
}

// cacheSyncWait is how long one readiness probe waits for the caches.
const cacheSyncWait = 100 * time.Millisecond

// caches is ready once the manager's caches have synced.
func (r *readiness) caches(req *http.Request) error {
	if r.synced.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(req.Context(), cacheSyncWait)
	defer cancel()
	if !r.cacheSynced(ctx) {
		return errors.New("the caches have not synced yet")
	}
	r.synced.Store(true)
	return nil
}

// scheduler is ready once the leader's scheduler has run its first cycle; a replica that does
// not lead does not schedule and is ready as far as the scheduler goes.
func (r *readiness) scheduler(*http.Request) error {
	if r.cycled == nil {
		return nil
	}
	select {
	case <-r.elected:
	default:
		return nil
	}
	if !r.cycled() {
		return errors.New("the scheduler has not run its first cycle yet")
	}
	return nil
}

// addReadyzChecks makes /readyz wait for the caches, the scheduler's first cycle (sched may be
// nil) and the webhook server (webhookServer may be nil).
func addReadyzChecks(mgr ctrl.Manager, sched *scheduler.Scheduler, webhookStarted healthz.Checker) error {
	r := &readiness{cacheSynced: mgr.GetCache().WaitForCacheSync, elected: mgr.Elected()}
	if sched != nil {
		r.cycled = sched.HasCycled
	}
	checks := map[string]healthz.Checker{"caches": r.caches, "scheduler": r.scheduler}
	if webhookStarted != nil {
		checks["webhook"] = webhookStarted
	}
	for name, check := range checks {
		if err := mgr.AddReadyzCheck(name, check); err != nil {
			return fmt.Errorf("adding the readiness check %s: %w", name, err)
		}
	}
	return nil
}
