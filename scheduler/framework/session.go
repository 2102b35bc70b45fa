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
	"slices"
	"sort"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// Dispatcher carries out what a session commits. Calls are made while the session runs and must
// not block for long: binds and evictions are queued for workers.
type Dispatcher interface {
	// Bind hands placed tasks (each with its NodeName) to the binder.
	Bind(tasks []*api.TaskInfo)
	// Evict asks for a task to be evicted, with a reason for the pod's event.
	Evict(task *api.TaskInfo, reason string)
	// Nominate promises a node to a pending task whose resources are being freed for it.
	Nominate(task *api.TaskInfo, node string)
}

// Volumes places pods' PersistentVolumeClaims (scheduler/volumes implements it with
// kube-scheduler's volume binder). Only pods that use claims are asked about.
type Volumes interface {
	// PreFilter says why the pod's claims let it go on no node (a claim missing, lost, being
	// deleted, or unbound with Immediate binding), or returns nil.
	PreFilter(pod *corev1.Pod) error
	// Filter returns why the pod's claims cannot be satisfied on the node, or "". The checks say
	// which of the node-level volume filters beside binding run.
	Filter(pod *corev1.Pod, node *api.NodeInfo, checks VolumeChecks) string
	// Reserve assumes the pod's volumes on the node, so later placements do not count on them.
	Reserve(pod *corev1.Pod, node *corev1.Node) error
	// Unreserve gives back what Reserve assumed for a pod.
	Unreserve(uid types.UID)
	// Commit keeps a pod's reservation past the cycle: the pod goes to be bound.
	Commit(uid types.UID)
	// CloseSession gives back the reservations the cycle did not commit.
	CloseSession()
}

// VolumeChecks switch the volume filters that run beside binding (the predicates plugin's
// predicate.NodeVolumeLimitsEnable and predicate.VolumeZoneEnable).
type VolumeChecks struct {
	// Limits counts CSI volumes against the node's CSINode limits.
	Limits bool
	// Zone matches volumes' zone and region labels with the node's.
	Zone bool
}

// Devices allocates pods' ResourceClaims (Dynamic Resource Allocation; scheduler/dra implements
// it with the structured-parameters allocator). Only pods with spec.resourceClaims are asked
// about.
type Devices interface {
	// PreFilter says why the pod's claims let it go on no node (a claim not made yet, being
	// deleted, made for another pod, in use by as many consumers as it may have, or asking for a
	// DeviceClass that does not exist), or returns nil.
	PreFilter(pod *corev1.Pod) error
	// Filter returns why the pod's claims cannot be had on the node, or "": an allocated claim
	// is on other nodes, or the node's devices cannot satisfy the claims still to allocate.
	Filter(pod *corev1.Pod, node *api.NodeInfo) string
	// Reserve allocates the pod's claims on the node for the rest of the cycle, so later
	// placements do not count on the same devices.
	Reserve(pod *corev1.Pod, node *corev1.Node) error
	// Unreserve gives back what Reserve allocated for a pod.
	Unreserve(uid types.UID)
	// Commit keeps a pod's allocation past the cycle: the pod goes to be bound.
	Commit(uid types.UID)
	// CloseSession gives back the allocations the cycle did not commit.
	CloseSession()
}

// SessionOption sets up a session beyond its snapshot and configuration.
type SessionOption func(*Session)

// WithDevices gives the session a device allocator; without one, a pod with resourceClaims is
// not placed, and says why.
func WithDevices(d Devices) SessionOption {
	return func(ssn *Session) { ssn.devices = d }
}

// WithVolumes gives the session a volume binder; without one, pods' claims are not looked at.
func WithVolumes(v Volumes) SessionOption {
	return func(ssn *Session) { ssn.volumes = v }
}

// JobDiagnosis is what a session learned about why a job was not placed.
type JobDiagnosis struct {
	// Reasons are job-level reasons (queue closed, quota, gang), in the order first seen.
	Reasons []string
	// Reason is the PodGroup condition reason (such as QueueNotFound) that came with the first
	// job-level reason recorded by ExplainReason; empty when none did.
	Reason string
	// ShareReasons are reasons that the queue's share is used up; they are shown only when no
	// node-level reason is known (a full cluster explains more than a full share).
	ShareReasons []string
	// TaskFit holds, per task, why no node fitted it.
	TaskFit map[api.TaskID]*api.FitErrors
	// FirstFailedTask is the first task no node fitted.
	FirstFailedTask api.TaskID
}

type pluginEntry struct {
	tier   int
	option conf.PluginOption
	plugin Plugin
}

// Session is one scheduling cycle: the snapshot, the plugins' callbacks and what the actions
// decide. Actions change jobs and nodes of the snapshot only through Statements, which mark what
// they touch so the next snapshot update replaces it with a fresh copy.
type Session struct {
	// UID identifies the cycle; it is the transitionID of the conditions it writes.
	UID types.UID
	// Now is the cycle's time.
	Now time.Time
	// Snapshot is what the cycle works from.
	Snapshot *snapshot.Snapshot
	// Jobs, Nodes, NodeList and Queues are the snapshot's.
	Jobs     map[api.JobID]*api.JobInfo
	Nodes    map[string]*api.NodeInfo
	NodeList []*api.NodeInfo
	Queues   map[string]*api.QueueInfo
	// TotalResource is what the Ready nodes offer.
	TotalResource api.Resource
	// SharedResource is what the Ready nodes offer to queues: TotalResource less what pods of no
	// job hold (pods of other schedulers, static and DaemonSet pods). Queues' deserved shares
	// divide it; capabilities and guarantees are cut from TotalResource.
	SharedResource api.Resource
	// Config is the configuration in force.
	Config *Config
	// Log is the cycle's logger.
	Log logr.Logger

	dispatcher Dispatcher
	plugins    []pluginEntry

	jobOrderFns       map[string]JobOrderFn
	queueOrderFns     map[string]QueueOrderFn
	taskOrderFns      map[string]TaskOrderFn
	jobValidFns       map[string]JobValidFn
	jobReadyFns       map[string]JobCheckFn
	jobPipelinedFns   map[string]JobVoteFn
	jobEnqueueableFns map[string]JobVoteFn
	jobEnqueuedFns    map[string]JobFn
	jobStarvingFns    map[string]JobCheckFn
	overusedFns       map[string]QueueCheckFn
	allocatableFns    map[string]QueueTaskCheckFn
	preemptiveFns     map[string]QueueTaskCheckFn
	preemptableFns    map[string]VictimsFn
	reclaimableFns    map[string]VictimsFn
	prePredicateFns   map[string]PrePredicateFn
	predicateFns      map[string]PredicateFn
	nodeOrderFns      map[string]NodeOrderFn
	hyperNodeOrderFns map[string]hyperNodeScorer
	eventHandlers     []*EventHandler

	diagnoses  map[api.JobID]*JobDiagnosis
	conditions map[api.JobID][]schedulingv1beta1.PodGroupCondition
	attempted  map[api.JobID]struct{}
	enqueued   map[api.JobID]struct{}
	nodeStart  int
	queueNotes map[string]string
	committed  map[api.TaskID]struct{}
	deferred   map[api.JobID]struct{}
	// budgetUsed counts, per PodDisruptionBudget, the evictions committed in the cycle.
	budgetUsed map[string]int32
	// roomAdmitted is what the PodGroups admitted in the cycle need (their minResources), so
	// that RoomCanBeMade does not count that room for another.
	roomAdmitted api.Resource
	// admission is what RoomCanBeMade works from, gathered on its first call in the cycle.
	admission *admissionRoom

	// The enabled per-node callbacks, in tier order, gathered once the plugins registered.
	predicates    []PredicateFn
	prePredicates []PrePredicateFn
	nodeOrders    []NodeOrderFn

	// nodeVersion counts the changes made to each node (by NodeList position) in the cycle;
	// nodeLog lists the positions changed, in order. Node rankings catch up from it.
	nodeVersion []uint64
	nodeLog     []int
	rankings    map[uint64]*nodeRanking
	keyUses     map[uint64]int
	// antiAffinity is set when some pod on a node refuses neighbours (required anti-affinity):
	// filters then depend on each pod's labels and node rankings cannot be shared.
	antiAffinity bool
	// scoresSpanNodes is set when a node score depends on other nodes (MarkScoresSpanNodes).
	scoresSpanNodes bool
	// podSpecific are filter reasons that depend on more than a task's predicate key.
	podSpecific map[string]bool
	// onceReleased is set while filters are asked about nodes as they will be once their
	// releasing pods are gone (see OnceReleased).
	onceReleased bool
	// volumes places pods' claims; nil when the scheduler has no volume binder.
	volumes Volumes
	// devices allocates pods' ResourceClaims; nil when the scheduler has no device allocator.
	devices Devices
}

// OpenSession starts a cycle on an up-to-date snapshot with the given configuration: it makes
// each configured plugin and lets it register its callbacks. A plugin whose arguments no longer
// build (which Compile rules out) is skipped and logged.
func OpenSession(s *snapshot.Snapshot, cfg *Config, d Dispatcher, uid types.UID, now time.Time, log logr.Logger, opts ...SessionOption) *Session {
	ssn := &Session{
		UID: uid, Now: now, Snapshot: s,
		Jobs: s.Jobs, Nodes: s.Nodes, NodeList: s.NodeList, Queues: s.Queues,
		TotalResource: s.TotalAllocatable.Clone(), SharedResource: s.TotalAllocatable.Clone(),
		Config: cfg, Log: log, dispatcher: d,

		jobOrderFns: map[string]JobOrderFn{}, queueOrderFns: map[string]QueueOrderFn{}, taskOrderFns: map[string]TaskOrderFn{},
		jobValidFns: map[string]JobValidFn{}, jobReadyFns: map[string]JobCheckFn{}, jobPipelinedFns: map[string]JobVoteFn{},
		jobEnqueueableFns: map[string]JobVoteFn{}, jobEnqueuedFns: map[string]JobFn{}, jobStarvingFns: map[string]JobCheckFn{},
		overusedFns: map[string]QueueCheckFn{}, allocatableFns: map[string]QueueTaskCheckFn{}, preemptiveFns: map[string]QueueTaskCheckFn{},
		preemptableFns: map[string]VictimsFn{}, reclaimableFns: map[string]VictimsFn{},
		prePredicateFns: map[string]PrePredicateFn{}, predicateFns: map[string]PredicateFn{}, nodeOrderFns: map[string]NodeOrderFn{},
		hyperNodeOrderFns: map[string]hyperNodeScorer{},

		diagnoses:  map[api.JobID]*JobDiagnosis{},
		conditions: map[api.JobID][]schedulingv1beta1.PodGroupCondition{},
		attempted:  map[api.JobID]struct{}{},
		enqueued:   map[api.JobID]struct{}{},

		podSpecific: map[string]bool{},
		queueNotes:  map[string]string{},
		committed:   map[api.TaskID]struct{}{},
		budgetUsed:  map[string]int32{},
	}
	for _, o := range opts {
		o(ssn)
	}
	for i, tier := range cfg.Tiers {
		for _, opt := range tier.Plugins {
			build, ok := cfg.builders[opt.Name]
			if !ok {
				log.Error(nil, "plugin not registered; skipped", "plugin", opt.Name)
				continue
			}
			p, err := build(opt.Arguments)
			if err != nil {
				log.Error(err, "plugin arguments rejected; plugin skipped", "plugin", opt.Name)
				continue
			}
			ssn.plugins = append(ssn.plugins, pluginEntry{tier: i, option: opt, plugin: p})
		}
	}
	ssn.SharedResource.SubFloor(&s.TotalForeign)
	for _, p := range ssn.plugins {
		p.plugin.OnSessionOpen(ssn)
	}
	ssn.gatherNodeCallbacks()
	ssn.nodeVersion = make([]uint64, len(ssn.NodeList))
	ssn.rankings = map[uint64]*nodeRanking{}
	ssn.keyUses = map[uint64]int{}
	for _, n := range ssn.NodeList {
		if n.AntiAffinityPods > 0 {
			ssn.antiAffinity = true
			break
		}
	}
	return ssn
}

func (ssn *Session) gatherNodeCallbacks() {
	for _, p := range ssn.plugins {
		name := p.option.Name
		if conf.Enabled(p.option.EnabledPredicate) {
			if fn, ok := ssn.predicateFns[name]; ok {
				ssn.predicates = append(ssn.predicates, fn)
			}
			if fn, ok := ssn.prePredicateFns[name]; ok {
				ssn.prePredicates = append(ssn.prePredicates, fn)
			}
		}
		if conf.Enabled(p.option.EnabledNodeOrder) {
			if fn, ok := ssn.nodeOrderFns[name]; ok {
				ssn.nodeOrders = append(ssn.nodeOrders, fn)
			}
		}
	}
}

// Run executes the configured actions in order.
func (ssn *Session) Run() {
	for _, a := range ssn.Config.Actions {
		a.Execute(ssn)
	}
}

// Close lets every plugin finish the cycle. Jobs that still wait for the victims preempt or
// reclaim evicted for them say so again (see snapshot.RoomNotes); the others' notes go.
func (ssn *Session) Close() {
	for id, note := range ssn.Snapshot.RoomNotes {
		j, ok := ssn.Jobs[id]
		switch {
		case !ok || j.WaitingTaskNum() == 0:
			delete(ssn.Snapshot.RoomNotes, id)
		case ssn.WasAttempted(id):
			ssn.Explain(id, note)
		}
	}
	for _, p := range ssn.plugins {
		p.plugin.OnSessionClose(ssn)
	}
	if ssn.volumes != nil {
		ssn.volumes.CloseSession()
	}
	if ssn.devices != nil {
		ssn.devices.CloseSession()
	}
}

// Volumes returns the session's volume binder, or nil when pods' claims are not looked at.
func (ssn *Session) Volumes() Volumes { return ssn.volumes }

// Defer leaves jobs out of this cycle's work (PendingJobs): the scheduler uses it for jobs that
// failed recently and have not changed since.
func (ssn *Session) Defer(ids map[api.JobID]struct{}) { ssn.deferred = ids }

// PendingJobs returns the jobs that need attention, less the deferred ones, ordered by job ID
// for determinism.
func (ssn *Session) PendingJobs() []*api.JobInfo {
	out := make([]*api.JobInfo, 0, len(ssn.Snapshot.Pending))
	for id := range ssn.Snapshot.Pending {
		if _, skip := ssn.deferred[id]; skip {
			continue
		}
		if j, ok := ssn.Jobs[id]; ok {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i].UID < out[k].UID })
	return out
}

// MarkAttempted records that an action worked on a job this cycle (its status is recomputed).
func (ssn *Session) MarkAttempted(job *api.JobInfo) { ssn.attempted[job.UID] = struct{}{} }

// Attempted returns the jobs actions worked on this cycle, sorted.
func (ssn *Session) Attempted() []api.JobID {
	out := make([]api.JobID, 0, len(ssn.attempted))
	for id := range ssn.attempted {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// WasAttempted reports whether an action worked on a job this cycle.
func (ssn *Session) WasAttempted(id api.JobID) bool {
	_, ok := ssn.attempted[id]
	return ok
}

// SetJobPhase changes a job's phase in the session (enqueue admits it).
func (ssn *Session) SetJobPhase(job *api.JobInfo, phase schedulingv1beta1.PodGroupPhase) {
	job.Phase = phase
	ssn.Snapshot.TouchJob(job.UID)
	if phase == schedulingv1beta1.PodGroupInqueue {
		ssn.enqueued[job.UID] = struct{}{}
	}
}

// Enqueued reports whether the job was admitted in this cycle.
func (ssn *Session) Enqueued(id api.JobID) bool {
	_, ok := ssn.enqueued[id]
	return ok
}

// Diagnosis returns what the session learned about a job, creating it on first use.
func (ssn *Session) Diagnosis(id api.JobID) *JobDiagnosis {
	d, ok := ssn.diagnoses[id]
	if !ok {
		d = &JobDiagnosis{TaskFit: map[api.TaskID]*api.FitErrors{}}
		ssn.diagnoses[id] = d
	}
	return d
}

// PeekDiagnosis returns what the session learned about a job, or nil.
func (ssn *Session) PeekDiagnosis(id api.JobID) *JobDiagnosis { return ssn.diagnoses[id] }

// Explain records a job-level reason the job was not placed (duplicates are dropped).
func (ssn *Session) Explain(id api.JobID, reason string) {
	d := ssn.Diagnosis(id)
	if !slices.Contains(d.Reasons, reason) {
		d.Reasons = append(d.Reasons, reason)
	}
}

// ExplainReason records a job-level reason the job was not placed, as Explain does, with the
// PodGroup condition reason it amounts to (one of the reasons in the scheduling API, such as
// QueueNotFound); the first such reason recorded for the job is kept.
func (ssn *Session) ExplainReason(id api.JobID, reason, message string) {
	ssn.Explain(id, message)
	if d := ssn.Diagnosis(id); d.Reason == "" {
		d.Reason = reason
	}
}

// ExplainShare records that the job's queue has no share left for it (duplicates are dropped).
func (ssn *Session) ExplainShare(id api.JobID, reason string) {
	d := ssn.Diagnosis(id)
	if !slices.Contains(d.ShareReasons, reason) {
		d.ShareReasons = append(d.ShareReasons, reason)
	}
}

// Committed reports whether a task's placement was committed (handed to the binder) this cycle.
func (ssn *Session) Committed(id api.TaskID) bool {
	_, ok := ssn.committed[id]
	return ok
}

// NoteQueue records why a queue gets nothing more this cycle, for the jobs it holds back.
func (ssn *Session) NoteQueue(queue, note string) { ssn.queueNotes[queue] = note }

// QueueNote returns what was noted about a queue, or "".
func (ssn *Session) QueueNote(queue string) string { return ssn.queueNotes[queue] }

// RecordFitErrors records why no node fitted a task.
func (ssn *Session) RecordFitErrors(task *api.TaskInfo, fe *api.FitErrors) {
	d := ssn.Diagnosis(task.Job)
	if _, ok := d.TaskFit[task.UID]; !ok && d.FirstFailedTask == "" {
		d.FirstFailedTask = task.UID
	}
	d.TaskFit[task.UID] = fe
}

// SetJobCondition sets a PodGroup condition the cycle decided, replacing one of the same type.
func (ssn *Session) SetJobCondition(id api.JobID, c schedulingv1beta1.PodGroupCondition) {
	conds := ssn.conditions[id]
	for i := range conds {
		if conds[i].Type == c.Type {
			conds[i] = c
			return
		}
	}
	ssn.conditions[id] = append(conds, c)
}

// JobConditions returns the conditions the cycle decided for a job.
func (ssn *Session) JobConditions(id api.JobID) []schedulingv1beta1.PodGroupCondition {
	return ssn.conditions[id]
}

// MarkPodSpecificReason declares a filter reason that depends on the pod itself (its labels),
// so a node failing one task for it is not skipped for the job's other tasks.
func (ssn *Session) MarkPodSpecificReason(reason string) { ssn.podSpecific[reason] = true }

// MarkScoresSpanNodes tells the session that a node score depends on other nodes' state (how
// full the node's HyperNodes are), so a placement changes the scores of nodes it did not touch:
// node rankings, which re-score only the nodes a placement changes, are not shared between tasks
// for the rest of the cycle.
func (ssn *Session) MarkScoresSpanNodes() { ssn.scoresSpanNodes = true }

// touch marks a job and a node as changed by the session.
func (ssn *Session) touch(job api.JobID, node string) {
	ssn.Snapshot.TouchJob(job)
	if node != "" {
		ssn.Snapshot.TouchNode(node)
		if idx, ok := ssn.Snapshot.NodeIndex(node); ok && idx < len(ssn.nodeVersion) {
			ssn.nodeVersion[idx]++
			ssn.nodeLog = append(ssn.nodeLog, idx)
		}
	}
}
