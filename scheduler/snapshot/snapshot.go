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

// Package snapshot is what a scheduling cycle works from: private copies of the nodes, jobs,
// queues and PodDisruptionBudgets, kept from cycle to cycle and brought up to date with only what
// changed (in the cache, or by the previous cycle's own tentative changes), together with sums
// kept up to date the same way: per-queue usage and PodGroup counts, cluster totals and the set
// of jobs that need attention. Updating costs O(what changed), not O(cluster).
package snapshot

import (
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/api"
)

// QueueUsage is what a queue's jobs hold and ask for.
type QueueUsage struct {
	// Allocated is what the queue's placed tasks request.
	Allocated api.Resource
	// Request is Allocated plus what the queue's pending tasks request.
	Request api.Resource
	// Inqueue is what admitted (Inqueue) jobs still need to reach their minResources, less the
	// requests of their pods held by scheduling gates.
	Inqueue api.Resource
	// Elastic is what placed tasks hold beyond their jobs' minResources.
	Elastic api.Resource
	// Phases counts the queue's PodGroups by phase.
	Phases map[schedulingv1beta1.PodGroupPhase]int32
	// Jobs is the number of the queue's jobs.
	Jobs int32
}

func (u *QueueUsage) clone() *QueueUsage {
	c := &QueueUsage{
		Allocated: u.Allocated.Clone(), Request: u.Request.Clone(), Inqueue: u.Inqueue.Clone(), Elastic: u.Elastic.Clone(),
		Phases: make(map[schedulingv1beta1.PodGroupPhase]int32, len(u.Phases)), Jobs: u.Jobs,
	}
	for k, v := range u.Phases {
		c.Phases[k] = v
	}
	return c
}

// Clone returns a copy that may be changed freely.
func (u *QueueUsage) Clone() *QueueUsage { return u.clone() }

type jobContribution struct {
	queue                                string
	allocated, request, inqueue, elastic api.Resource
	phase                                schedulingv1beta1.PodGroupPhase
	// counted: the job belongs to its queue (it has a PodGroup or is a lone pod).
	counted bool
	// podGroup: the job has a PodGroup, counted in the queue's PodGroup phase counts.
	podGroup bool
}

type nodeContribution struct {
	ready       bool
	allocatable api.Resource
	used        api.Resource
	foreign     api.Resource
}

// Snapshot holds a cycle's copies of the cluster. The scheduler owns it; a cycle may change the
// copies freely as long as it marks what it changed with TouchJob and TouchNode, so the next
// update replaces them with fresh copies.
type Snapshot struct {
	// Nodes are the known nodes by name.
	Nodes map[string]*api.NodeInfo
	// NodeList holds the same nodes sorted by name.
	NodeList []*api.NodeInfo
	// Jobs are the jobs by ID.
	Jobs map[api.JobID]*api.JobInfo
	// Queues are the queues by name.
	Queues map[string]*api.QueueInfo
	// Usage is the usage of every queue that has jobs, by queue name.
	Usage map[string]*QueueUsage
	// TotalAllocatable is what the Ready nodes offer.
	TotalAllocatable api.Resource
	// TotalUsed is what pods on the Ready nodes hold.
	TotalUsed api.Resource
	// TotalForeign is what pods of no job hold on the Ready nodes (part of TotalUsed).
	TotalForeign api.Resource
	// Pending holds the jobs that need the scheduler's attention: a task waits to be placed or
	// the PodGroup waits to be admitted.
	Pending map[api.JobID]struct{}
	// Changed holds the jobs replaced or removed by the last update.
	Changed map[api.JobID]struct{}
	// Updated holds the jobs of Changed that changed in the cluster (not only in the last cycle).
	Updated map[api.JobID]struct{}
	// ChangedQueues holds the queues replaced or removed by the last update.
	ChangedQueues map[string]struct{}
	// NodesChanged is true when the last update replaced, added or removed a node.
	NodesChanged bool
	// BudgetsChanged is true when the last update replaced, added or removed a
	// PodDisruptionBudget.
	BudgetsChanged bool
	// Generation counts updates.
	Generation uint64
	// RoomNotes say, per job for which preempt or reclaim evicted pods, what it waits for while
	// the victims go; they outlive the cycle that decided, until the job no longer waits.
	RoomNotes map[api.JobID]string

	nodeIndex     map[string]int
	listDirty     bool
	jobContrib    map[api.JobID]*jobContribution
	nodeContrib   map[string]*nodeContribution
	touchedJobs   map[api.JobID]struct{}
	touchedNodes  map[string]struct{}
	updateRunning bool
	// budgets holds the PodDisruptionBudgets by namespace, each namespace's in Key order.
	budgets map[string][]*api.BudgetInfo
	// hyperNodes are the HyperNodes; topology is the domains built from them and the nodes,
	// built when first asked for and dropped when a HyperNode, or a node's name or labels, change.
	hyperNodes []*topologyv1alpha1.HyperNode
	topology   *topology.Topology
}

// New returns an empty snapshot.
func New() *Snapshot {
	return &Snapshot{
		Nodes:         map[string]*api.NodeInfo{},
		Jobs:          map[api.JobID]*api.JobInfo{},
		Queues:        map[string]*api.QueueInfo{},
		Usage:         map[string]*QueueUsage{},
		Pending:       map[api.JobID]struct{}{},
		Changed:       map[api.JobID]struct{}{},
		Updated:       map[api.JobID]struct{}{},
		ChangedQueues: map[string]struct{}{},
		nodeIndex:     map[string]int{},
		jobContrib:    map[api.JobID]*jobContribution{},
		nodeContrib:   map[string]*nodeContribution{},
		touchedJobs:   map[api.JobID]struct{}{},
		touchedNodes:  map[string]struct{}{},
		budgets:       map[string][]*api.BudgetInfo{},
		RoomNotes:     map[api.JobID]string{},
	}
}

// NodeIndex returns the position of a node in NodeList.
func (s *Snapshot) NodeIndex(name string) (int, bool) {
	i, ok := s.nodeIndex[name]
	return i, ok
}

// MarkUpdated records that a job changed in the cluster since the last update.
func (s *Snapshot) MarkUpdated(id api.JobID) { s.Updated[id] = struct{}{} }

// TouchJob marks a job as changed by the cycle: the next update replaces it.
func (s *Snapshot) TouchJob(id api.JobID) { s.touchedJobs[id] = struct{}{} }

// TouchNode marks a node as changed by the cycle: the next update replaces it.
func (s *Snapshot) TouchNode(name string) { s.touchedNodes[name] = struct{}{} }

// BeginUpdate starts an update and returns what the previous cycle touched, which the updater
// must replace (or remove) along with what changed in the cache.
func (s *Snapshot) BeginUpdate() (touchedJobs map[api.JobID]struct{}, touchedNodes map[string]struct{}) {
	s.updateRunning = true
	clear(s.Changed)
	clear(s.Updated)
	clear(s.ChangedQueues)
	s.NodesChanged = false
	s.BudgetsChanged = false
	touchedJobs, touchedNodes = s.touchedJobs, s.touchedNodes
	s.touchedJobs, s.touchedNodes = map[api.JobID]struct{}{}, map[string]struct{}{}
	return touchedJobs, touchedNodes
}

// EndUpdate finishes an update.
func (s *Snapshot) EndUpdate() {
	if s.listDirty {
		s.rebuildNodeList()
	}
	s.updateRunning = false
	s.Generation++
}

// SetHyperNodes replaces the HyperNodes.
func (s *Snapshot) SetHyperNodes(list []*topologyv1alpha1.HyperNode) {
	s.hyperNodes = list
	s.topology = nil
}

// Topology returns the network domains of the HyperNodes over the snapshot's nodes.
func (s *Snapshot) Topology() *topology.Topology {
	if s.topology == nil {
		nodes := make([]topology.Node, 0, len(s.Nodes))
		for _, n := range s.Nodes {
			if n.Node != nil {
				nodes = append(nodes, topology.Node{Name: n.Name, Labels: n.Node.Labels})
			}
		}
		s.topology = topology.Build(s.hyperNodes, nodes)
	}
	return s.topology
}

// SetNode puts a node copy in the snapshot, replacing an older one.
func (s *Snapshot) SetNode(n *api.NodeInfo) {
	s.NodesChanged = true
	if s.topology != nil {
		if old, ok := s.Nodes[n.Name]; !ok || old.Node == nil || n.Node == nil || !maps.Equal(old.Node.Labels, n.Node.Labels) {
			s.topology = nil
		}
	}
	if c, ok := s.nodeContrib[n.Name]; ok {
		s.subNode(c)
	}
	c := &nodeContribution{ready: n.Ready}
	if n.Ready {
		c.allocatable = n.Allocatable.Clone()
		c.used = n.Used.Clone()
		c.foreign = n.Foreign.Clone()
		s.TotalAllocatable.Add(&c.allocatable)
		s.TotalUsed.Add(&c.used)
		s.TotalForeign.Add(&c.foreign)
	}
	s.nodeContrib[n.Name] = c
	if idx, ok := s.nodeIndex[n.Name]; ok && !s.listDirty {
		s.NodeList[idx] = n
	} else if !ok {
		s.listDirty = true
	}
	s.Nodes[n.Name] = n
}

// RemoveNode takes a node out of the snapshot.
func (s *Snapshot) RemoveNode(name string) {
	if _, ok := s.Nodes[name]; !ok {
		return
	}
	s.NodesChanged = true
	s.topology = nil
	if c, ok := s.nodeContrib[name]; ok {
		s.subNode(c)
		delete(s.nodeContrib, name)
	}
	delete(s.Nodes, name)
	s.listDirty = true
}

func (s *Snapshot) subNode(c *nodeContribution) {
	if c.ready {
		s.TotalAllocatable.Sub(&c.allocatable)
		s.TotalUsed.Sub(&c.used)
		s.TotalForeign.Sub(&c.foreign)
	}
}

func (s *Snapshot) rebuildNodeList() {
	s.NodeList = s.NodeList[:0]
	for _, n := range s.Nodes {
		s.NodeList = append(s.NodeList, n)
	}
	sort.Slice(s.NodeList, func(i, j int) bool { return s.NodeList[i].Name < s.NodeList[j].Name })
	clear(s.nodeIndex)
	for i, n := range s.NodeList {
		s.nodeIndex[n.Name] = i
	}
	s.listDirty = false
}

// SetJob puts a job copy in the snapshot, replacing an older one.
func (s *Snapshot) SetJob(j *api.JobInfo) {
	s.Changed[j.UID] = struct{}{}
	if c, ok := s.jobContrib[j.UID]; ok {
		s.applyJob(c, -1)
	}
	c := contributionOf(j)
	s.applyJob(c, 1)
	s.jobContrib[j.UID] = c
	s.Jobs[j.UID] = j
	if NeedsAttention(j) {
		s.Pending[j.UID] = struct{}{}
	} else {
		delete(s.Pending, j.UID)
	}
}

// RemoveJob takes a job out of the snapshot.
func (s *Snapshot) RemoveJob(id api.JobID) {
	if _, ok := s.Jobs[id]; !ok {
		return
	}
	s.Changed[id] = struct{}{}
	if c, ok := s.jobContrib[id]; ok {
		s.applyJob(c, -1)
		delete(s.jobContrib, id)
	}
	delete(s.Jobs, id)
	delete(s.Pending, id)
}

// SetQueue puts a queue in the snapshot, replacing an older one.
func (s *Snapshot) SetQueue(q *api.QueueInfo) {
	s.ChangedQueues[q.Name] = struct{}{}
	s.Queues[q.Name] = q
}

// RemoveQueue takes a queue out of the snapshot.
func (s *Snapshot) RemoveQueue(name string) {
	if _, ok := s.Queues[name]; ok {
		s.ChangedQueues[name] = struct{}{}
		delete(s.Queues, name)
	}
}

// SetBudget puts a PodDisruptionBudget in the snapshot, replacing an older one of the same Key.
// The snapshot keeps b; it must not be changed afterwards.
func (s *Snapshot) SetBudget(b *api.BudgetInfo) {
	s.BudgetsChanged = true
	list := s.budgets[b.Namespace]
	i := sort.Search(len(list), func(i int) bool { return list[i].Key >= b.Key })
	if i < len(list) && list[i].Key == b.Key {
		list[i] = b
		return
	}
	list = append(list, nil)
	copy(list[i+1:], list[i:])
	list[i] = b
	s.budgets[b.Namespace] = list
}

// RemoveBudget takes the PodDisruptionBudget with key namespace/name out of the snapshot.
func (s *Snapshot) RemoveBudget(key string) {
	namespace, _, _ := strings.Cut(key, "/")
	list := s.budgets[namespace]
	i := sort.Search(len(list), func(i int) bool { return list[i].Key >= key })
	if i == len(list) || list[i].Key != key {
		return
	}
	s.BudgetsChanged = true
	if len(list) == 1 {
		delete(s.budgets, namespace)
		return
	}
	s.budgets[namespace] = append(list[:i], list[i+1:]...)
}

// Budgets returns the PodDisruptionBudgets that cover a pod (those of its namespace whose
// selector matches its labels: an empty selector matches every pod, a missing one none), in Key
// order, each with the disruptions it still allows; nil when none does. The slice is the
// caller's: a session may count down Allowed as it picks victims.
//
// The Eviction API does not consult budgets for a pod that is Pending, finished or already being
// deleted, and it refuses (with a server error, not a 429) to evict a pod that more than one
// budget covers.
func (s *Snapshot) Budgets(pod *corev1.Pod) []api.Budget {
	if pod == nil {
		return nil
	}
	list := s.budgets[pod.Namespace]
	if len(list) == 0 {
		return nil
	}
	var out []api.Budget
	set := labels.Set(pod.Labels)
	for _, b := range list {
		if b.Selector != nil && b.Selector.Matches(set) {
			out = append(out, api.Budget{Key: b.Key, Allowed: b.Allowed})
		}
	}
	return out
}

// NeedsAttention reports whether a job has work for the scheduler: a task to place, a PodGroup
// to admit, or a gang held by scheduling gates to explain.
func NeedsAttention(j *api.JobInfo) bool {
	if !j.Schedulable() {
		return false
	}
	return j.HasPendingTasks() || j.HeldByGates() || j.Phase == schedulingv1beta1.PodGroupPending || j.Phase == ""
}

func contributionOf(j *api.JobInfo) *jobContribution {
	c := &jobContribution{queue: j.Queue, phase: j.Phase, counted: j.Schedulable(), podGroup: j.PodGroup != nil}
	c.allocated = j.Allocated.Clone()
	c.request = j.Allocated.Clone()
	c.request.Add(&j.PendingRequest)
	if j.MinResources != nil && (j.Phase == schedulingv1beta1.PodGroupPending || j.Phase == "") {
		// A PodGroup waiting to be admitted has no pods yet: it asks its queue for its
		// minResources, so the queue's fair share counts it (and reclaim may act for it).
		for _, name := range j.MinResources.Names() {
			if v := j.MinResources.Get(name); c.request.Get(name) < v {
				c.request.Set(name, v)
			}
		}
	}
	if j.MinResources != nil {
		if j.Phase == schedulingv1beta1.PodGroupInqueue {
			c.inqueue = j.MinResources.Clone()
			c.inqueue.SubFloor(&j.Allocated)
			// Pods held by scheduling gates take nothing until released, as in Volcano: an
			// admitted gang that waits on its gates does not keep other jobs out.
			if j.GatedTaskNum() > 0 {
				for _, t := range j.Tasks {
					if t.Status == api.Gated {
						c.inqueue.SubFloor(t.Resreq)
					}
				}
			}
		}
		c.elastic = j.Allocated.Clone()
		c.elastic.SubFloor(j.MinResources)
	}
	return c
}

func (s *Snapshot) applyJob(c *jobContribution, sign int32) {
	if !c.counted {
		// Pods waiting for their PodGroup belong to no queue yet.
		return
	}
	u, ok := s.Usage[c.queue]
	if !ok {
		if sign < 0 {
			return
		}
		u = &QueueUsage{Phases: map[schedulingv1beta1.PodGroupPhase]int32{}}
		s.Usage[c.queue] = u
	}
	if sign > 0 {
		u.Allocated.Add(&c.allocated)
		u.Request.Add(&c.request)
		u.Inqueue.Add(&c.inqueue)
		u.Elastic.Add(&c.elastic)
	} else {
		u.Allocated.Sub(&c.allocated)
		u.Request.Sub(&c.request)
		u.Inqueue.Sub(&c.inqueue)
		u.Elastic.Sub(&c.elastic)
	}
	u.Jobs += sign
	if c.podGroup {
		phase := c.phase
		if phase == "" {
			phase = schedulingv1beta1.PodGroupPending
		}
		u.Phases[phase] += sign
		if u.Phases[phase] == 0 {
			delete(u.Phases, phase)
		}
	}
	if u.Jobs == 0 {
		delete(s.Usage, c.queue)
	}
}
