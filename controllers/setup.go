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

// Package controllers holds Caldera's reconcilers. They gather state, call the pure decisions in
// internal/, and make the API match; they decide nothing themselves.
package controllers

import (
	"fmt"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/internal/topology"
)

// Options configure the controllers.
type Options struct {
	// SchedulerNames are the scheduler names this manager serves; the first is the default
	// schedulerName of a job's pods. Pods of other schedulers are created without waiting for
	// the PodGroup to be admitted.
	SchedulerNames []string
	// Clock is the time source of every decision. Nil means the real clock.
	Clock clock.Clock
	// CronJobClock is the time source of the CronJob controller: its schedule decisions and its
	// wake-ups at schedule times. Nil means Clock. Specs set a fake clock they step, so a
	// one-minute schedule runs in seconds while the job controller keeps real time for its pods.
	CronJobClock clock.Clock
	// JobWorkers is the number of jobs reconciled at once; zero means DefaultJobWorkers.
	JobWorkers int
	// Policies compiles and evaluates lifecycle-policy CEL expressions; nil means the default
	// CEL engine.
	Policies Policies
	// Client is the client the controllers read and write with; nil means the manager's. Specs
	// wrap the manager's client to inject failures against the real API server.
	Client client.Client
	// HyperNodeDiscovery are the network topologies to make HyperNodes of from node labels; none
	// turns discovery off.
	HyperNodeDiscovery []topology.DiscoveryType
}

// LeaderElectionID names the Lease the manager's replicas elect their leader through (in the
// leader-election namespace); the RBAC of config/ and the chart grant it by this name.
const LeaderElectionID = "caldera-manager.volcano.sh"

// DefaultJobWorkers is how many jobs are reconciled at once by default. A reconcile spends most
// of its time waiting for the API server (a PodGroup or pod created, a status written), so
// workers, not CPU, bound how many jobs a second the controller turns around: with 3, a burst of
// 1000 one-pod jobs waited half a minute in the queue.
const DefaultJobWorkers = 16

func (o *Options) defaults() {
	if len(o.SchedulerNames) == 0 {
		o.SchedulerNames = []string{"volcano"}
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.CronJobClock == nil {
		o.CronJobClock = o.Clock
	}
	if o.JobWorkers <= 0 {
		o.JobWorkers = DefaultJobWorkers
	}
}

// clientFor is the client of opts, or the manager's.
func (o *Options) clientFor(mgr ctrl.Manager) client.Client {
	if o.Client != nil {
		return o.Client
	}
	return mgr.GetClient()
}

// Setup registers every controller with the manager.
func Setup(mgr ctrl.Manager, opts Options) error {
	opts.defaults()
	if opts.Policies == nil {
		policies, err := NewCELPolicies(opts.Clock)
		if err != nil {
			return fmt.Errorf("creating the CEL engine of lifecycle policies: %w", err)
		}
		opts.Policies = policies
	}
	events, err := newEventRecorders(mgr)
	if err != nil {
		return err
	}
	if err := (&JobReconciler{
		Client:         opts.clientFor(mgr),
		APIReader:      mgr.GetAPIReader(),
		Recorder:       events.For(jobControllerName),
		Clock:          opts.Clock,
		SchedulerNames: opts.SchedulerNames,
		Policies:       opts.Policies,
		Workers:        opts.JobWorkers,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the job controller: %w", err)
	}
	if err := (&QueueCommandReconciler{Client: opts.clientFor(mgr)}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the queue command controller: %w", err)
	}
	if err := (&PodGroupReconciler{
		Client:         opts.clientFor(mgr),
		APIReader:      mgr.GetAPIReader(),
		Recorder:       events.For(podGroupControllerName),
		SchedulerNames: opts.SchedulerNames,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the PodGroup controller: %w", err)
	}
	if err := (&JobFlowReconciler{Client: opts.clientFor(mgr), Recorder: events.For(jobFlowControllerName), Clock: opts.Clock}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the JobFlow controller: %w", err)
	}
	if err := (&JobTemplateReconciler{Client: opts.clientFor(mgr), Clock: opts.Clock}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the JobTemplate controller: %w", err)
	}
	if err := (&JobTTLReconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  events.For("caldera-job-ttl-controller"),
		Clock:     opts.Clock,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the job TTL controller: %w", err)
	}
	if err := (&CronJobReconciler{Client: opts.clientFor(mgr), Recorder: events.For(cronJobControllerName), Clock: opts.CronJobClock}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the CronJob controller: %w", err)
	}
	if err := (&HyperNodeReconciler{Client: opts.clientFor(mgr)}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the HyperNode controller: %w", err)
	}
	if len(opts.HyperNodeDiscovery) > 0 {
		if err := (&HyperNodeDiscoveryReconciler{Client: opts.clientFor(mgr), Types: opts.HyperNodeDiscovery}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the HyperNode discovery controller: %w", err)
		}
	}
	return nil
}
