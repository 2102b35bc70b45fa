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

// Command manager runs Caldera: the job, PodGroup, queue and command controllers and the
// gang/queue scheduler, in one leader-elected process.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/memlimit"
	"github.com/caldera-sh/caldera/internal/scheme"
	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/internal/version"
	"github.com/caldera-sh/caldera/internal/webhook"
	"github.com/caldera-sh/caldera/scheduler"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "caldera manager:", err)
		os.Exit(1)
	}
}

type options struct {
	metricsAddr      string
	metricsSecure    bool
	probeAddr        string
	pprofAddr        string
	leaderElect      bool
	leaderElectionNS string
	schedulerNames   string
	jobWorkers       int

	enableScheduler bool
	schedulerConf   string
	schedulePeriod  time.Duration
	defaultQueue    string

	enableWebhook      bool
	webhookPort        int
	webhookCertDir     string
	manageWebhookCerts bool
	webhookService     string
	webhookSecret      string
	webhookConfig      string

	hyperNodeDiscovery discoveryFlag

	zap zap.Options

	printVersion bool
}

// discoveryFlag collects --hypernode-discovery values, one network topology each.
type discoveryFlag []topology.DiscoveryType

func (f *discoveryFlag) String() string {
	parts := make([]string, 0, len(*f))
	for _, t := range *f {
		parts = append(parts, t.Name+"="+strings.Join(t.Labels, ","))
	}
	return strings.Join(parts, " ")
}

func (f *discoveryFlag) Set(v string) error {
	t, err := topology.ParseDiscoveryType(v)
	if err != nil {
		return err
	}
	for _, o := range *f {
		if o.Name == t.Name {
			return fmt.Errorf("network topology %q is given twice", t.Name)
		}
	}
	*f = append(*f, t)
	return nil
}

func parseFlags() *options {
	o := &options{}
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", ":8443", "Address the metrics endpoint binds to; 0 turns it off.")
	flag.BoolVar(&o.metricsSecure, "metrics-secure", true, "Serve /metrics over HTTPS to clients whose token may get the non-resource URL /metrics (checked with TokenReview and SubjectAccessReview); false serves plain HTTP to anyone, for local runs.")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "Address the health probes bind to; 0 turns them off.")
	flag.StringVar(&o.pprofAddr, "pprof-bind-address", "", "Address Go's profiling endpoints (/debug/pprof) bind to, for example 127.0.0.1:6060; empty or 0 turns them off.")
	flag.BoolVar(&o.leaderElect, "leader-elect", true, "Elect a leader so that only one manager acts at a time; --leader-elect=false for a lone local run.")
	flag.StringVar(&o.leaderElectionNS, "leader-election-namespace", "", "Namespace of the leader-election lease; empty means the manager's own namespace.")
	flag.StringVar(&o.schedulerNames, "scheduler-name", "volcano", "Comma-separated scheduler names this manager serves; the first is the default schedulerName of job pods.")
	flag.IntVar(&o.jobWorkers, "job-workers", controllers.DefaultJobWorkers, "Number of jobs reconciled at once.")
	flag.BoolVar(&o.enableScheduler, "enable-scheduler", true, "Run the gang/queue scheduler in this manager (leader-elected).")
	flag.StringVar(&o.schedulerConf, "scheduler-conf", "", "File holding the scheduler configuration in Volcano's format, reloaded when it changes; empty means Volcano's default configuration.")
	flag.DurationVar(&o.schedulePeriod, "schedule-period", scheduler.DefaultSchedulePeriod, "Longest time between two scheduling cycles; a change in the cluster starts one sooner.")
	flag.StringVar(&o.defaultQueue, "default-queue", "default", "Queue of jobs that name none; created when absent and never updated afterwards.")
	flag.BoolVar(&o.enableWebhook, "enable-webhook", false, "Serve the validating admission webhook for jobs.")
	flag.IntVar(&o.webhookPort, "webhook-port", 9443, "Port the webhook server listens on.")
	flag.StringVar(&o.webhookCertDir, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "Folder of the webhook's serving certificate (tls.crt, tls.key).")
	flag.BoolVar(&o.manageWebhookCerts, "manage-webhook-certs", true, "Make and rotate a self-signed webhook certificate and inject its CA; turn off when cert-manager provides it.")
	flag.StringVar(&o.webhookService, "webhook-service-name", "caldera-webhook-service", "Name of the webhook's Service.")
	flag.StringVar(&o.webhookSecret, "webhook-secret-name", "caldera-webhook-server-cert", "Name of the Secret that keeps the webhook's certificate.")
	flag.StringVar(&o.webhookConfig, "webhook-config-name", "caldera-validating-webhook-configuration", "Name of the ValidatingWebhookConfiguration to inject the CA into.")
	flag.Var(&o.hyperNodeDiscovery, "hypernode-discovery", "A network topology to make HyperNodes of from node labels, as <name>=<label>,<label>,...: the tiers' labels from the top down, the node's own label (kubernetes.io/hostname) last; for example rack=topology.example.com/block,topology.example.com/rack,kubernetes.io/hostname. Repeat for more topologies; none turns discovery off.")
	flag.BoolVar(&o.printVersion, "version", false, "Print the version and exit.")
	o.zap.BindFlags(flag.CommandLine)
	flag.Parse()
	return o
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func run() error {
	o := parseFlags()
	if o.printVersion {
		fmt.Println(version.String())
		return nil
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&o.zap)))
	log := ctrl.Log.WithName("setup")
	v := version.Get()
	log.Info("Caldera manager", "version", v.Version, "commit", v.GitCommit, "buildDate", v.BuildDate, "go", v.GoVersion, "platform", v.Platform)

	setMemoryLimit(log)

	names := splitList(o.schedulerNames)
	if len(names) == 0 {
		return fmt.Errorf("--scheduler-name must name at least one scheduler, for example --scheduler-name=volcano")
	}

	if o.enableScheduler && o.schedulerConf != "" {
		// A configuration that does not load stops the manager here, rather than leaving it to
		// schedule with another configuration than the one asked for.
		if err := checkSchedulerConfig(o.schedulerConf); err != nil {
			return err
		}
	}

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	webhookServer := ctrlwebhook.NewServer(ctrlwebhook.Options{Port: o.webhookPort, CertDir: o.webhookCertDir})
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme.New(),
		Cache:                   controllers.CacheOptions(),
		WebhookServer:           webhookServer,
		Metrics:                 metricsOptions(o.metricsAddr, o.metricsSecure),
		PprofBindAddress:        o.pprofAddr,
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        controllers.LeaderElectionID,
		LeaderElectionNamespace: o.leaderElectionNS,
		// The process ends as soon as the manager stops (run returns), so the lease can be given
		// up then: a replacement replica (a rolling update, a drained node) takes over at once
		// instead of waiting out the lease.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}

	clk := clock.RealClock{}
	if err := controllers.Setup(mgr, controllers.Options{
		SchedulerNames:     names,
		Clock:              clk,
		JobWorkers:         o.jobWorkers,
		HyperNodeDiscovery: o.hyperNodeDiscovery,
	}); err != nil {
		return err
	}

	var sched *scheduler.Scheduler
	if o.enableScheduler {
		s, err := scheduler.New(mgr, scheduler.Options{
			SchedulerNames:    names,
			WaitForPodGroups:  true,
			DefaultQueue:      o.defaultQueue,
			ConfigFile:        o.schedulerConf,
			ConfigEventObject: ownPod(),
			SchedulePeriod:    o.schedulePeriod,
			Clock:             clk,
		})
		if err != nil {
			return fmt.Errorf("creating the scheduler: %w", err)
		}
		if err := mgr.Add(s); err != nil {
			return fmt.Errorf("adding the scheduler: %w", err)
		}
		sched = s
	}

	ctx := ctrl.SetupSignalHandler()
	if o.enableWebhook {
		namespace := os.Getenv("POD_NAMESPACE")
		if namespace == "" {
			namespace = "caldera-system"
		}
		if err := webhook.Setup(ctx, mgr, webhook.Options{
			ManageCerts:          o.manageWebhookCerts,
			CertDir:              o.webhookCertDir,
			Namespace:            namespace,
			ServiceName:          o.webhookService,
			SecretName:           o.webhookSecret,
			ConfigName:           o.webhookConfig,
			DefaultSchedulerName: names[0],
		}); err != nil {
			return err
		}
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding the health check: %w", err)
	}
	// The webhook server is added to the manager only once its certificate is in place
	// (internal/webhook): its own checker says whether it runs, without adding it early.
	var webhookStarted healthz.Checker
	if o.enableWebhook {
		webhookStarted = webhookServer.StartedChecker()
	}
	if err := addReadyzChecks(mgr, sched, webhookStarted); err != nil {
		return err
	}

	log.Info("Starting the manager", "schedulerNames", names)
	if sched != nil {
		go sched.CreateDefaultQueue(ctx)
	}
	return mgr.Start(ctx)
}

// setMemoryLimit gives the Go runtime a soft memory limit below the container's (see
// internal/memlimit), unless GOMEMLIMIT sets one.
func setMemoryLimit(log logr.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit, source, ok, err := memlimit.FromCgroup(os.DirFS("/"))
	switch {
	case err != nil:
		log.Error(err, "the Go runtime keeps no soft memory limit; set GOMEMLIMIT to give it one")
	case ok:
		debug.SetMemoryLimit(limit)
		log.Info("soft memory limit set below the container's", "bytes", limit, "fraction", memlimit.Fraction, "from", source)
	}
}
