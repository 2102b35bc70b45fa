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

package framework

import (
	"context"
	"errors"
	"fmt"
	"net"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// StartManager builds a controller-runtime manager on the framework's API server and scheme, with
// ManagerCache as its cache options (metrics, health probes and leader election off; controller names may repeat, so every spec can
// start its own), lets setup register controllers and runnables on it, starts it in a goroutine
// and returns once its cache has synced. The returned stop function stops the manager, waits for
// it to end and returns the error it ended with; call it (for example with DeferCleanup) before
// Stop.
func (f *Framework) StartManager(ctx context.Context, setup func(ctrl.Manager) error) (stop func() error, err error) {
	return f.startManager(ctx, "0", setup)
}

// StartManagerWithMetrics is StartManager with the manager's metrics served over HTTP on a free
// loopback port, as cmd/manager serves them: it also returns the URL of the /metrics endpoint.
// The metrics are controller-runtime's registry, shared by every manager of the process.
func (f *Framework) StartManagerWithMetrics(ctx context.Context, setup func(ctrl.Manager) error) (stop func() error, metricsURL string, err error) {
	addr, err := FreeLoopbackAddress()
	if err != nil {
		return nil, "", err
	}
	stop, err = f.startManager(ctx, addr, setup)
	if err != nil {
		return nil, "", err
	}
	return stop, "http://" + addr + "/metrics", nil
}

// FreeLoopbackAddress returns a loopback address, 127.0.0.1:<port>, with a port nothing listens
// on right now.
func FreeLoopbackAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	return addr, nil
}

// startManager starts a manager serving its metrics at metricsAddress ("0": not at all).
func (f *Framework) startManager(ctx context.Context, metricsAddress string, setup func(ctrl.Manager) error) (stop func() error, err error) {
	if f.Config == nil {
		return nil, errors.New("the framework is not started: call Start before StartManager")
	}
	mgr, err := ctrl.NewManager(f.Config, ctrl.Options{
		Scheme:                 f.Scheme,
		Cache:                  f.ManagerCache,
		Metrics:                metricsserver.Options{BindAddress: metricsAddress},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	if setup != nil {
		if err := setup(mgr); err != nil {
			return nil, fmt.Errorf("setting up the manager: %w", err)
		}
	}

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() {
		done <- mgr.Start(runCtx)
	}()
	stop = func() error {
		cancel()
		return <-done
	}

	syncCtx, syncCancel := context.WithTimeout(ctx, Timeout)
	defer syncCancel()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		select {
		case err := <-done:
			cancel()
			return nil, fmt.Errorf("the manager ended before its cache synced: %w", err)
		default:
		}
		return nil, errors.Join(fmt.Errorf("the manager's cache did not sync within %s", Timeout), stop())
	}
	return stop, nil
}
