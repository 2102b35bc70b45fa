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

// Package scheduler is Caldera's gang and queue scheduler: a leader-elected Runnable in the
// manager that places the pods whose schedulerName it serves (by default "volcano", so Volcano
// manifests are scheduled unchanged), whole gangs or nothing, sharing the cluster between
// queues, in Volcano's configuration format.
//
// Each cycle works in numbered phases:
//
//  1. take the cache's changes since the last cycle into the snapshot (cost: what changed);
//  2. open the session: the configured plugins register their callbacks;
//  3. run the configured actions in order (enqueue admits PodGroups; allocate, backfill,
//     preempt and reclaim place gangs and pick victims); every committed placement or eviction
//     goes at once to the pool of bind workers, which binds through pods/binding, evicts through
//     the Eviction API and writes the nodes promised to pending pods (status.nominatedNodeName);
//  4. close the session: plugins conclude (the gang plugin words why a gang is unschedulable);
//  5. work out the PodGroup statuses of the jobs that changed or were worked on, remember the
//     decided phases in the cache, and hand the statuses that differ to the status workers;
//     likewise the PodScheduled=False condition of the pending pods of the jobs worked on
//     (reason Unschedulable when no node fits, WaitingForQueue when only the queue holds them);
//  6. likewise for the queues' statuses.
//
// A cycle starts when the cluster changes (at most every MinCycleInterval) and at least every
// SchedulePeriod. It records Volcano's scheduler metrics (package metrics) as it goes: the
// duration of the cycle and of each action, a verdict per job worked on, the jobs' unschedulable
// tasks (phase 5), the queues' amounts (the proportion plugin, phase 4) and the preemptions.
package scheduler

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/cache"
	"github.com/caldera-sh/caldera/scheduler/dra"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/metrics"
	"github.com/caldera-sh/caldera/scheduler/plugins/gang"
	"github.com/caldera-sh/caldera/scheduler/registry"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
	"github.com/caldera-sh/caldera/scheduler/status"
	"github.com/caldera-sh/caldera/scheduler/volumes"
)

// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/binding,verbs=create
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create
// +kubebuilder:rbac:groups="",resources=pods/status,verbs=patch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims/status;resourceclaims/binding,verbs=update
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceslices;deviceclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=persistentvolumes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses;csinodes;csidrivers;csistoragecapacities;volumeattachments,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=podgroups;queues,verbs=get;list;watch
// +kubebuilder:rbac:groups=topology.volcano.sh,resources=hypernodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=queues,verbs=create
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=podgroups/status;queues/status,verbs=get;update;patch

// EventSource is the name the scheduler records events under.
const EventSource = "caldera-scheduler"

// Scheduler is the gang and queue scheduler, a manager.Runnable that runs only on the leader.
type Scheduler struct {
	opts     Options
	log      logr.Logger
	clock    clock.WithTicker
	cache    *cache.Cache
	snapshot *snapshot.Snapshot
	registry framework.Registry
	config   atomic.Pointer[framework.Config]
	configs  *configSource

	kube     kubernetes.Interface
	client   client.Client
	recorder events.EventRecorder
	mgrCache crcache.Cache

	podQueue *fifo[podWork]
	statuses *statusWriter
	// volumes places pods' PersistentVolumeClaims and binds them before their pods.
	volumes *volumes.Binder
	// volumeBinds are the binds waiting for their pods' claims to be bound; volumeWaits counts
	// them.
	volumeBinds sync.WaitGroup
	volumeWaits atomic.Int64
	// devices allocates pods' ResourceClaims and writes the allocations before their pods are
	// bound; nil when the cluster does not serve resource.k8s.io/v1.
	devices *dra.Allocator
	// handlers are the cache's informer event handlers; the first cycle waits until they have
	// taken in every object the informers listed.
	handlers []toolscache.ResourceEventHandlerRegistration
	// informers are the other informers the scheduler reads (volume binding's, DRA's); the first
	// cycle waits for them too, and for no other informer of the manager.
	informers *trackedInformers

	// defaultQueueGone is signalled when the default queue is deleted, so that it is made again.
	defaultQueueGone chan struct{}

	cycle          uint64
	cycleBinds     int
	cycleEvictions int
	loneMessages   map[api.JobID]string
	// wanted holds the PodGroup statuses handed to the status workers and not yet seen stored.
	wanted map[api.JobID]handedStatus
	// failures holds the jobs whose last try failed, retried after SchedulePeriod or sooner
	// when they change or room is freed.
	failures map[api.JobID]failure

	bindsDone    atomic.Int64
	statusWrites atomic.Int64
	// cycled is set once the first cycle has run; the manager's readiness waits for it.
	cycled atomic.Bool
}

var _ manager.Runnable = &Scheduler{}
var _ manager.LeaderElectionRunnable = &Scheduler{}
var _ framework.Dispatcher = &Scheduler{}

// New builds the scheduler on the manager: it registers its event handlers on the manager's
// informers (pods, nodes, PodGroups, Queues, PriorityClasses, PodDisruptionBudgets). Add it with
// mgr.Add.
func New(mgr manager.Manager, opts Options) (*Scheduler, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, fmt.Errorf("scheduler options: %w", err)
	}
	kube, err := kubernetes.NewForConfig(BindClientConfig(mgr.GetConfig()))
	if err != nil {
		return nil, fmt.Errorf("creating a Kubernetes client for binds: %w", err)
	}
	s := &Scheduler{
		opts:         opts,
		log:          mgr.GetLogger().WithName("scheduler"),
		clock:        opts.Clock,
		cache:        newCache(opts),
		snapshot:     snapshot.New(),
		registry:     registry.Default(),
		kube:         kube,
		client:       mgr.GetClient(),
		recorder:     mgr.GetEventRecorder(EventSource),
		mgrCache:     mgr.GetCache(),
		informers:    &trackedInformers{Informers: mgr.GetCache()},
		podQueue:     newFIFO[podWork](),
		loneMessages: map[api.JobID]string{},
		wanted:       map[api.JobID]handedStatus{},
		failures:     map[api.JobID]failure{},

		defaultQueueGone: make(chan struct{}, 1),
	}
	s.statuses = newStatusWriter(s)
	s.configs = &configSource{s: s}
	def, err := defaultConfig(s.registry)
	if err != nil {
		return nil, fmt.Errorf("the built-in default configuration does not load: %w", err)
	}
	s.config.Store(def)
	ctx := context.Background()
	for _, w := range []struct {
		obj     client.Object
		handler toolscache.ResourceEventHandler
	}{
		{&corev1.Node{}, s.cache.NodeHandler()},
		{&corev1.Pod{}, s.cache.PodHandler()},
		{&schedulingv1beta1.PodGroup{}, s.cache.PodGroupHandler()},
		{&schedulingv1beta1.Queue{}, s.cache.QueueHandler()},
		{&schedulingv1.PriorityClass{}, s.cache.PriorityClassHandler()},
		{&policyv1.PodDisruptionBudget{}, s.cache.PodDisruptionBudgetHandler()},
		{&topologyv1alpha1.HyperNode{}, s.cache.HyperNodeHandler()},
	} {
		inf, err := s.mgrCache.GetInformer(ctx, w.obj, crcache.BlockUntilSynced(false))
		if err != nil {
			return nil, fmt.Errorf("getting the %T informer: %w", w.obj, err)
		}
		reg, err := inf.AddEventHandler(w.handler)
		if err != nil {
			return nil, fmt.Errorf("watching %T: %w", w.obj, err)
		}
		s.handlers = append(s.handlers, reg)
	}
	if err := s.watchDefaultQueue(ctx); err != nil {
		return nil, err
	}
	if s.volumes, err = volumes.New(ctx, kube, s.informers, volumes.DefaultBindTimeout, s.log.WithName("volumes")); err != nil {
		return nil, err
	}
	if served, err := servesResourceV1(kube); err != nil {
		return nil, err
	} else if served {
		if s.devices, err = dra.New(ctx, kube, s.informers, s.log.WithName("dra")); err != nil {
			return nil, err
		}
	} else {
		s.log.Info("the cluster does not serve resource.k8s.io/v1: pods with resourceClaims are not placed")
	}
	return s, nil
}

// servesResourceV1 reports whether the API server serves ResourceClaims in resource.k8s.io/v1
// (Kubernetes 1.34 and later, unless turned off).
func servesResourceV1(kube kubernetes.Interface) (bool, error) {
	list, err := kube.Discovery().ServerResourcesForGroupVersion(resourcev1.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("asking the API server whether it serves %s: %w", resourcev1.SchemeGroupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Name == "resourceclaims" {
			return true, nil
		}
	}
	return false, nil
}

// BindClientConfig returns the client configuration the scheduler binds and evicts with: cfg
// speaking protobuf, as kube-scheduler does, which costs both sides less than JSON.
func BindClientConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = runtime.ContentTypeProtobuf
	c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return c
}

// synced reports whether every informer the scheduler reads has listed its objects and every
// event handler of its cache has taken them in.
func (s *Scheduler) synced() bool {
	for _, h := range s.handlers {
		if !h.HasSynced() {
			return false
		}
	}
	return s.informers.synced()
}

// trackedInformers hands out the manager's informers and remembers them, so that the first cycle
// waits for the informers the scheduler reads and not for every informer of the manager: the
// controllers start theirs only once this manager leads, and a cycle has no use for them.
type trackedInformers struct {
	crcache.Informers
	mu     sync.Mutex
	handed []crcache.Informer
}

func (t *trackedInformers) GetInformer(ctx context.Context, obj client.Object, opts ...crcache.InformerGetOption) (crcache.Informer, error) {
	inf, err := t.Informers.GetInformer(ctx, obj, opts...)
	if err == nil {
		t.mu.Lock()
		t.handed = append(t.handed, inf)
		t.mu.Unlock()
	}
	return inf, err
}

func (t *trackedInformers) synced() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, inf := range t.handed {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// HasCycled reports whether a scheduling cycle has run in this process, for readiness checks.
func (s *Scheduler) HasCycled() bool { return s.cycled.Load() }

// NeedLeaderElection reports that only the leader schedules.
func (s *Scheduler) NeedLeaderElection() bool { return true }

// Start runs the scheduler until ctx ends.
func (s *Scheduler) Start(ctx context.Context) error {
	// Wait until the informers the scheduler reads have listed everything and its cache has taken
	// it all in, so the first cycle does not work from half a cluster. A manager that has waited
	// for the lease has all of it already: the first cycle runs as soon as it leads.
	for !s.synced() {
		t := s.clock.NewTimer(10 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		}
	}
	switch {
	case s.opts.ConfigFile != "":
		s.configs.watchFile(ctx, s.opts.ConfigFile)
	case s.opts.ConfigMap != nil:
		if err := s.configs.watchConfigMap(ctx); err != nil {
			return err
		}
	}
	s.ensureDefaultQueue(ctx)

	var workers sync.WaitGroup
	workers.Go(func() { s.recreateDefaultQueue(ctx) })
	s.runPodWorkers(ctx, s.opts.BindWorkers, &workers)
	s.statuses.run(ctx, s.opts.StatusWorkers, &workers)
	s.statuses.runUnparker(ctx, &workers)
	defer func() {
		s.podQueue.close()
		s.statuses.queue.ShutDown()
		workers.Wait()
		s.volumeBinds.Wait()
	}()

	// What the metrics say of jobs and queues is kept up to date only while this scheduler runs.
	defer metrics.Reset()

	s.log.Info("scheduler started", "schedulerNames", s.opts.SchedulerNames, "bindWorkers", s.opts.BindWorkers)
	timer := s.clock.NewTimer(s.opts.SchedulePeriod)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.cache.Notify():
		case <-timer.C():
		}
		s.RunOnce(ctx)
		// Let a burst of changes gather so the next cycle takes them together.
		rest := s.clock.NewTimer(s.opts.MinCycleInterval)
		select {
		case <-ctx.Done():
			rest.Stop()
			return nil
		case <-rest.C():
		}
		if !timer.Stop() {
			select {
			case <-timer.C():
			default:
			}
		}
		timer.Reset(s.opts.SchedulePeriod)
	}
}

// RunOnce runs one scheduling cycle.
func (s *Scheduler) RunOnce(ctx context.Context) CycleStats {
	start := s.clock.Now()
	s.cycle++
	s.cycleBinds, s.cycleEvictions = 0, 0
	log := s.log.WithValues("cycle", s.cycle)

	// 1. Take the cache's changes into the snapshot.
	s.cache.UpdateSnapshot(s.snapshot)
	snapshotDone := s.clock.Now()

	// 2. Open the session: the plugins register their callbacks.
	uid := types.UID(fmt.Sprintf("%s-%d-%d", EventSource, start.UnixNano(), s.cycle))
	var opts []framework.SessionOption
	if s.volumes != nil {
		opts = append(opts, framework.WithVolumes(s.volumes))
	}
	if s.devices != nil {
		opts = append(opts, framework.WithDevices(s.devices))
	}
	ssn := framework.OpenSession(s.snapshot, s.config.Load(), s, uid, start, log, opts...)

	// 3. Run the actions on the jobs needing attention, less those that failed within the last
	// SchedulePeriod and have not changed since while no room was freed; committed binds and
	// evictions go to the workers as they happen.
	epoch := s.cache.CapacityEpoch()
	ssn.Defer(s.deferredJobs(start, epoch))
	for _, a := range ssn.Config.Actions {
		began := s.clock.Now()
		a.Execute(ssn)
		metrics.UpdateActionDuration(a.Name(), s.clock.Since(began))
	}

	// 4. Close the session.
	ssn.Close()

	// 5. PodGroup statuses of the jobs that changed or were worked on.
	writes := s.podGroupStatuses(ssn)
	s.rememberFailures(ssn, start, epoch)

	// 6. Queue statuses.
	writes += s.queueStatuses()

	stats := CycleStats{
		Start: start, Duration: s.clock.Since(start), SnapshotDuration: snapshotDone.Sub(start),
		JobsChanged: len(s.snapshot.Changed), JobsPending: len(s.snapshot.Pending),
		Binds: s.cycleBinds, Evictions: s.cycleEvictions, StatusWrites: writes,
	}
	metrics.UpdateE2eDuration(stats.Duration)
	s.cycled.Store(true)
	if s.opts.OnCycle != nil {
		s.opts.OnCycle(stats)
	}
	if stats.Binds > 0 || stats.Evictions > 0 {
		log.V(1).Info("cycle", "duration", stats.Duration, "binds", stats.Binds, "evictions", stats.Evictions, "pendingJobs", stats.JobsPending)
	}
	return stats
}

// podGroupStatuses decides the status of every job that changed or was worked on, records the
// decided phases in the cache, and hands the statuses that differ from the stored ones (and from
// what was already handed over) to the status workers. Lone pods get an event when they cannot
// be placed. The jobs' metrics follow: the cycle's verdict on each job it worked on, the
// unschedulable tasks of each job (gone with the job), and the time to a gang's first placement.
func (s *Scheduler) podGroupStatuses(ssn *framework.Session) int {
	ids := map[api.JobID]struct{}{}
	for id := range s.snapshot.Changed {
		ids[id] = struct{}{}
	}
	for _, id := range ssn.Attempted() {
		ids[id] = struct{}{}
	}
	writes := 0
	phases := make(map[api.JobID]cache.DecidedPhase, len(ids))
	var attempts jobAttempts
	defer attempts.record()
	for id := range ids {
		j, ok := ssn.Jobs[id]
		if !ok {
			delete(s.loneMessages, id)
			delete(s.wanted, id)
			s.statuses.forgetJobPods(id)
			metrics.DeleteJob(string(id))
			continue
		}
		s.podConditions(ssn, j)
		if j.PodOnly {
			attempts.count(lonePodResult(ssn, j))
			s.lonePodStatus(ssn, j, phases)
			continue
		}
		if j.PodGroup == nil {
			metrics.DeleteJob(string(id))
			s.orphanEvent(j)
			continue
		}
		stored := &j.PodGroup.Status
		conds := ssn.JobConditions(id)
		view := committedView(ssn, j)
		phase := status.Phase(view, status.Unschedulable(conds))
		phases[id] = cache.DecidedPhase{PodGroupUID: j.PodGroup.UID, Phase: phase}
		if ssn.WasAttempted(id) {
			attempts.count(attemptResult(conds))
		}
		if tasks, decided := unscheduledTasks(view, conds, phase); decided {
			metrics.UpdateUnscheduleTaskCount(string(id), tasks)
		}
		if firstPlaced(j, *stored, phase) {
			metrics.UpdateE2eJobDuration(ssn.Now.Sub(j.CreationTime))
		}
		if len(conds) == 0 && phase == stored.Phase && view.Count(api.Running) == stored.Running &&
			view.Count(api.Succeeded) == stored.Succeeded && view.Count(api.Failed) == stored.Failed {
			// Nothing to write (the quick check that spares most jobs building a status).
			delete(s.wanted, id)
			continue
		}
		// What was handed over for a PodGroup of the same name made before this one (a restarted
		// job's) says nothing of this one.
		prev, handed := s.wanted[id]
		handed = handed && prev.podGroupUID == j.PodGroup.UID
		if handed && len(conds) == 0 && prev.status.Phase == phase && prev.status.Running == view.Count(api.Running) &&
			prev.status.Succeeded == view.Count(api.Succeeded) && prev.status.Failed == view.Count(api.Failed) {
			// Already handed to the status workers.
			continue
		}
		want := status.PodGroup(view, *stored, conds)
		if status.PodGroupEqual(*stored, want) {
			delete(s.wanted, id)
			continue
		}
		if handed && status.PodGroupEqual(prev.status, want) {
			continue
		}
		s.wanted[id] = handedStatus{podGroupUID: j.PodGroup.UID, status: want}
		event := ""
		for _, c := range conds {
			if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue && !sameCondition(stored.Conditions, c) {
				event = c.Message
			}
		}
		urgent := want.Phase == schedulingv1beta1.PodGroupInqueue && stored.Phase != schedulingv1beta1.PodGroupInqueue
		s.statuses.wantPodGroup(j.PodGroup, want, conds, event, urgent)
		writes++
	}
	s.cache.SetJobPhases(phases)
	return writes
}

// handedStatus is a PodGroup status handed to the status workers, and the UID of the PodGroup it
// was decided for.
type handedStatus struct {
	podGroupUID types.UID
	status      schedulingv1beta1.PodGroupStatus
}

// failure records when a job was last tried without success and the capacity epoch then.
// held marks a gang held by scheduling gates (or refused binds): only a change to the job can
// help it, so neither time nor freed room brings it back.
type failure struct {
	at    time.Time
	epoch uint64
	held  bool
}

// deferredJobs returns the jobs needing attention that failed less than SchedulePeriod ago,
// have not changed since and for which no room was freed since, and the gangs held by
// scheduling gates that have not changed since.
func (s *Scheduler) deferredJobs(now time.Time, epoch uint64) map[api.JobID]struct{} {
	out := map[api.JobID]struct{}{}
	for id, f := range s.failures {
		_, pending := s.snapshot.Pending[id]
		_, updated := s.snapshot.Updated[id]
		if !pending || updated || !f.held && (f.epoch != epoch || now.Sub(f.at) >= s.opts.SchedulePeriod) {
			delete(s.failures, id)
			continue
		}
		out[id] = struct{}{}
	}
	return out
}

// rememberFailures records the jobs the cycle worked on that still need attention. A job that
// holds placements it was not ready to use (a pipelined job reserving resources) is not deferred:
// it must keep its reservation every cycle. A gang held by scheduling gates is deferred until it
// changes (a gate removed is a pod update).
func (s *Scheduler) rememberFailures(ssn *framework.Session, now time.Time, epoch uint64) {
	for _, id := range ssn.Attempted() {
		j, ok := ssn.Jobs[id]
		if !ok {
			continue
		}
		view := committedView(ssn, j)
		reserving := view != j || j.WaitingTaskNum() > 0
		switch {
		case !reserving && view.HeldByGates():
			s.failures[id] = failure{at: now, epoch: epoch, held: true}
		case !reserving && (view.HasPendingTasks() || j.Phase == schedulingv1beta1.PodGroupPending):
			s.failures[id] = failure{at: now, epoch: epoch}
		default:
			delete(s.failures, id)
		}
	}
}

// committedView returns the job as the cluster will see it: placements kept in the session
// without being committed (a pipelined job holding resources) do not count.
func committedView(ssn *framework.Session, j *api.JobInfo) *api.JobInfo {
	kept := false
	for _, t := range j.Tasks {
		if t.Status == api.Allocated {
			if !ssn.Committed(t.UID) {
				kept = true
				break
			}
		}
	}
	if !kept {
		return j
	}
	c := j.Clone()
	for uid, t := range c.Tasks {
		if t.Status == api.Allocated && !ssn.Committed(t.UID) {
			c.UpdateTaskStatus(c.OwnTask(uid), api.Pending)
		}
	}
	return c
}

func sameCondition(stored []schedulingv1beta1.PodGroupCondition, c schedulingv1beta1.PodGroupCondition) bool {
	for _, s := range stored {
		if s.Type == c.Type {
			return s.Status == c.Status && s.Reason == c.Reason && s.Message == c.Message
		}
	}
	return false
}

// lonePodStatus records a lone pod's decided phase and, when it could not be placed, an event
// on the pod saying why (once per distinct message).
func (s *Scheduler) lonePodStatus(ssn *framework.Session, j *api.JobInfo, phases map[api.JobID]cache.DecidedPhase) {
	view := committedView(ssn, j)
	phases[j.UID] = cache.DecidedPhase{Phase: status.Phase(view, false)}
	if !ssn.WasAttempted(j.UID) || view.ReadyTaskNum() > 0 || !view.HasPendingTasks() {
		delete(s.loneMessages, j.UID)
		return
	}
	msg := gang.Message(view, ssn.PeekDiagnosis(j.UID))
	if s.loneMessages[j.UID] == msg {
		return
	}
	s.loneMessages[j.UID] = msg
	for _, t := range j.Tasks {
		s.recorder.Eventf(t.Pod, nil, corev1.EventTypeWarning, "FailedScheduling", "Scheduling", "%s", msg)
	}
}

// orphanEvent records, once, an event on the pending pods of a PodGroup that does not exist.
func (s *Scheduler) orphanEvent(j *api.JobInfo) {
	if !j.HasPendingTasks() {
		delete(s.loneMessages, j.UID)
		return
	}
	msg := fmt.Sprintf("PodGroup %s does not exist; the pod waits for it: create the PodGroup or correct the pod's %s annotation",
		j.UID, schedulingv1beta1.KubeGroupNameAnnotationKey)
	if s.loneMessages[j.UID] == msg {
		return
	}
	s.loneMessages[j.UID] = msg
	for _, t := range j.Tasks {
		if t.Status == api.Pending {
			s.recorder.Eventf(t.Pod, nil, corev1.EventTypeWarning, "FailedScheduling", "Scheduling", "%s", msg)
		}
	}
}

// queueStatuses hands the queue statuses that differ from the stored ones to the status workers.
func (s *Scheduler) queueStatuses() int {
	writes := 0
	requests := func(name string) (lifecycle.QueueRequest, bool) {
		q, ok := s.snapshot.Queues[name]
		if !ok {
			return lifecycle.QueueRequest{}, false
		}
		return lifecycle.QueueRequest{
			Requested: schedulingv1beta1.QueueState(q.Queue.Annotations[schedulingv1beta1.QueueRequestedStateAnnotationKey]),
			Parent:    q.Queue.Spec.Parent,
		}, true
	}
	parents := make(map[string]string, len(s.snapshot.Queues))
	for name, q := range s.snapshot.Queues {
		parents[name] = q.Queue.Spec.Parent
	}
	tree := status.TreeAllocated(parents, s.snapshot.Usage)
	for name, q := range s.snapshot.Queues {
		want := status.Queue(q.Queue.Status, s.snapshot.Usage[name])
		if sum, ok := tree[name]; ok {
			want.Allocated = nil
			if rl := sum.ResourceList(); len(rl) > 0 {
				want.Allocated = rl
			}
		}
		if requested := lifecycle.QueueRequestInTree(name, requests); requested != "" {
			// The state the last queue Command asked for (recorded by the queue-command
			// controller), of this queue or of an ancestor: the scheduler is the one writer of a
			// Queue's status.
			held := want.Pending + want.Inqueue + want.Running + want.Unknown + want.Completed
			want.State = lifecycle.QueueState(q.Queue.Status.State, requested, held)
		}
		if status.QueueEqual(q.Queue.Status, want) {
			continue
		}
		s.statuses.wantQueue(q.Queue, want)
		writes++
	}
	return writes
}

// Stats returns how many binds and status writes have succeeded since the scheduler started.
func (s *Scheduler) Stats() (binds, statusWrites int64) {
	return s.bindsDone.Load(), s.statusWrites.Load()
}

// newCache makes the scheduler's cache for its options.
func newCache(opts Options) *cache.Cache {
	c := cache.New(opts.SchedulerNames, opts.DefaultQueue)
	if opts.WaitForPodGroups {
		c.WaitForPodGroups()
	}
	return c
}
