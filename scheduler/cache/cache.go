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

// Package cache is the scheduler's incremental view of the cluster, fed by informer events:
// nodes, pods, PodGroups, Queues, PriorityClasses and PodDisruptionBudgets become NodeInfos,
// JobInfos, QueueInfos and BudgetInfos, kept up to date one event at a time. It remembers what
// changed since the last snapshot update so that UpdateSnapshot copies only that. It also holds
// what the scheduler has decided but the API server has not yet shown: binds in flight,
// evictions in flight, PodGroup phases not yet written and nominated nodes.
package cache

import (
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/internal/podgroup"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// budget is a PodDisruptionBudget as the cache keeps it: what the snapshot reads, and the
// selector it was read from, to tell a change that matters from a status write that does not.
type budget struct {
	info     *api.BudgetInfo
	selector *metav1.LabelSelector
}

// Cache is the scheduler's view of the cluster. All methods are safe for concurrent use.
type Cache struct {
	mu sync.Mutex

	schedulerNames map[string]bool
	defaultQueue   string
	// waitForGroups leaves pods that name no PodGroup to the PodGroup controller (WaitForPodGroups).
	waitForGroups bool

	nodes     map[string]*api.NodeInfo
	jobs      map[api.JobID]*api.JobInfo
	podGroups map[api.JobID]*schedulingv1beta1.PodGroup
	queues    map[string]*api.QueueInfo
	// podJob maps each of our pods to its job; podNode maps every pod holding a node to it.
	podJob  map[types.UID]api.JobID
	podNode map[types.UID]string

	priorityClasses map[string]int32
	defaultClass    string

	// budgets holds the PodDisruptionBudgets by namespace/name.
	budgets map[string]*budget

	assumed   map[types.UID]string
	evicting  map[types.UID]bool
	nominated map[types.UID]string
	// assumedPhase holds, per job, the phase a cycle decided until its PodGroup shows it.
	assumedPhase map[api.JobID]DecidedPhase
	// refused holds, per pod whose bind the API server refused for good, the pod's resource
	// version then: that version of the pod is held (status Gated) and not placed again.
	refused map[types.UID]string

	dirtyNodes  map[string]struct{}
	dirtyJobs   map[api.JobID]struct{}
	dirtyQueues map[string]struct{}
	// dirtyBudgets holds the keys (namespace/name) of the budgets changed since the last update.
	dirtyBudgets map[string]struct{}

	// hyperNodes holds the HyperNodes by name; hyperNodesDirty is true when one changed since
	// the last update.
	hyperNodes      map[string]*topologyv1alpha1.HyperNode
	hyperNodesDirty bool

	notify chan struct{}
	// capacityEpoch counts the changes that may give room to jobs that did not fit: a pod leaving
	// a node, a node added or changed, a queue changed, a PodGroup gone or no longer admitted.
	capacityEpoch uint64
}

// New returns an empty cache serving pods whose schedulerName is one of schedulerNames; jobs
// that name no queue go to defaultQueue.
func New(schedulerNames []string, defaultQueue string) *Cache {
	names := map[string]bool{}
	for _, n := range schedulerNames {
		names[n] = true
	}
	return &Cache{
		schedulerNames:  names,
		defaultQueue:    defaultQueue,
		nodes:           map[string]*api.NodeInfo{},
		jobs:            map[api.JobID]*api.JobInfo{},
		podGroups:       map[api.JobID]*schedulingv1beta1.PodGroup{},
		queues:          map[string]*api.QueueInfo{},
		podJob:          map[types.UID]api.JobID{},
		podNode:         map[types.UID]string{},
		priorityClasses: map[string]int32{},
		budgets:         map[string]*budget{},
		assumed:         map[types.UID]string{},
		evicting:        map[types.UID]bool{},
		nominated:       map[types.UID]string{},
		assumedPhase:    map[api.JobID]DecidedPhase{},
		refused:         map[types.UID]string{},
		dirtyNodes:      map[string]struct{}{},
		dirtyJobs:       map[api.JobID]struct{}{},
		dirtyQueues:     map[string]struct{}{},
		dirtyBudgets:    map[string]struct{}{},
		hyperNodes:      map[string]*topologyv1alpha1.HyperNode{},
		notify:          make(chan struct{}, 1),
	}
}

// Notify returns a channel that receives a value after a change that may let the scheduler
// place or admit something.
func (c *Cache) Notify() <-chan struct{} { return c.notify }

func (c *Cache) kick() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// CapacityEpoch returns a counter that grows whenever room may have been freed: a pod left a node,
// a node was added or changed, a queue changed, a PodGroup is gone or no longer admitted (its
// queue's room for it is free), a PodDisruptionBudget allows more disruptions (or covers other
// pods) or is gone.
func (c *Cache) CapacityEpoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.capacityEpoch
}

// WaitForPodGroups makes the cache leave the pods of ours that name no PodGroup out of every job
// until they name one: the PodGroup controller gives each a PodGroup (podgroup-<owner uid>) and
// annotates it, so that the pods of a Deployment or StatefulSet are placed as the gang their
// owner asks for rather than one by one. Without it, such a pod is placed alone as a gang of
// one. Call it before the informers start.
func (c *Cache) WaitForPodGroups() { c.waitForGroups = true }

// Ours reports whether the scheduler serves a pod.
func (c *Cache) Ours(pod *corev1.Pod) bool { return c.schedulerNames[pod.Spec.SchedulerName] }

// UpdateSnapshot brings s up to date: every node, job, queue and PodDisruptionBudget that changed
// in the cache since the last update, or that the last cycle touched, is copied in (or removed).
func (c *Cache) UpdateSnapshot(s *snapshot.Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	touchedJobs, touchedNodes := s.BeginUpdate()
	for name := range touchedNodes {
		c.dirtyNodes[name] = struct{}{}
	}
	for id := range c.dirtyJobs {
		s.MarkUpdated(id)
	}
	for id := range touchedJobs {
		c.dirtyJobs[id] = struct{}{}
	}
	for name := range c.dirtyNodes {
		if n, ok := c.nodes[name]; ok && n.Node != nil {
			s.SetNode(n.Clone())
		} else {
			s.RemoveNode(name)
		}
	}
	for id := range c.dirtyJobs {
		if j, ok := c.jobs[id]; ok {
			s.SetJob(j.Clone())
		} else {
			s.RemoveJob(id)
		}
	}
	for name := range c.dirtyQueues {
		if q, ok := c.queues[name]; ok {
			s.SetQueue(q)
		} else {
			s.RemoveQueue(name)
		}
	}
	for key := range c.dirtyBudgets {
		if b, ok := c.budgets[key]; ok {
			s.SetBudget(b.info)
		} else {
			s.RemoveBudget(key)
		}
	}
	if c.hyperNodesDirty {
		list := make([]*topologyv1alpha1.HyperNode, 0, len(c.hyperNodes))
		for _, hn := range c.hyperNodes {
			list = append(list, hn)
		}
		s.SetHyperNodes(list)
		c.hyperNodesDirty = false
	}
	clear(c.dirtyNodes)
	clear(c.dirtyJobs)
	clear(c.dirtyQueues)
	clear(c.dirtyBudgets)
	s.EndUpdate()
}

// ---- nodes ----

// AddNode records a node.
func (c *Cache) AddNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[node.Name]
	if !ok {
		n = api.NewNodeInfo(node.Name, nil)
		c.nodes[node.Name] = n
	}
	if n.Node != nil && !nodeChanged(n.Node, node) {
		return
	}
	n.SetNode(node)
	c.dirtyNodes[node.Name] = struct{}{}
	c.capacityEpoch++
	c.kick()
}

// nodeChanged reports whether a node update changes anything scheduling reads (heartbeats do not).
func nodeChanged(old, node *corev1.Node) bool {
	if old.Spec.Unschedulable != node.Spec.Unschedulable || !equality.Semantic.DeepEqual(old.Spec.Taints, node.Spec.Taints) {
		return true
	}
	if !equality.Semantic.DeepEqual(old.Labels, node.Labels) || !equality.Semantic.DeepEqual(old.Status.Allocatable, node.Status.Allocatable) {
		return true
	}
	return nodeReady(old) != nodeReady(node)
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// DeleteNode forgets a node. Pods still naming it keep a placeholder until they go.
func (c *Cache) DeleteNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[name]
	if !ok {
		return
	}
	if len(n.Tasks) == 0 {
		delete(c.nodes, name)
	} else {
		n.SetNode(nil)
	}
	c.dirtyNodes[name] = struct{}{}
	c.kick()
}

// ---- HyperNodes ----

// AddHyperNode records a HyperNode. A change of its spec may let jobs with a network topology
// fit where they did not.
func (c *Cache) AddHyperNode(hn *topologyv1alpha1.HyperNode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.hyperNodes[hn.Name]; ok && old.Generation == hn.Generation && old.UID == hn.UID {
		return
	}
	c.hyperNodes[hn.Name] = hn
	c.hyperNodesDirty = true
	c.capacityEpoch++
	c.kick()
}

// DeleteHyperNode forgets a HyperNode.
func (c *Cache) DeleteHyperNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.hyperNodes[name]; !ok {
		return
	}
	delete(c.hyperNodes, name)
	c.hyperNodesDirty = true
	c.capacityEpoch++
	c.kick()
}

// ---- queues ----

// AddQueue records a queue.
func (c *Cache) AddQueue(q *schedulingv1beta1.Queue) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.queues[q.Name]
	qi := api.NewQueueInfo(q)
	c.queues[q.Name] = qi
	c.dirtyQueues[q.Name] = struct{}{}
	if old == nil || old.Queue.Generation != q.Generation || old.State != qi.State {
		c.capacityEpoch++
		c.kick()
	}
}

// DeleteQueue forgets a queue.
func (c *Cache) DeleteQueue(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.queues, name)
	c.dirtyQueues[name] = struct{}{}
	c.kick()
}

// Queue returns the queue as last seen, or nil.
func (c *Cache) Queue(name string) *schedulingv1beta1.Queue {
	c.mu.Lock()
	defer c.mu.Unlock()
	if q, ok := c.queues[name]; ok {
		return q.Queue
	}
	return nil
}

// ---- priority classes ----

// AddPriorityClass records a PriorityClass.
func (c *Cache) AddPriorityClass(pc *schedulingv1.PriorityClass) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, had := c.priorityClasses[pc.Name]
	c.priorityClasses[pc.Name] = pc.Value
	wasDefault := c.defaultClass == pc.Name
	if pc.GlobalDefault {
		c.defaultClass = pc.Name
	} else if wasDefault {
		c.defaultClass = ""
	}
	if !had || old != pc.Value || wasDefault != pc.GlobalDefault {
		c.repriorityLocked(pc.Name, wasDefault || pc.GlobalDefault)
	}
}

// DeletePriorityClass forgets a PriorityClass.
func (c *Cache) DeletePriorityClass(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.priorityClasses, name)
	wasDefault := c.defaultClass == name
	if wasDefault {
		c.defaultClass = ""
	}
	c.repriorityLocked(name, wasDefault)
}

func (c *Cache) repriorityLocked(class string, defaultChanged bool) {
	for id, j := range c.jobs {
		pg := j.PodGroup
		if pg == nil {
			continue
		}
		if pg.Spec.PriorityClassName == class || (defaultChanged && pg.Spec.PriorityClassName == "") {
			j.Priority = c.priorityOfLocked(pg.Spec.PriorityClassName)
			j.MissingPriorityClass = c.missingClassLocked(pg.Spec.PriorityClassName)
			c.dirtyJobs[id] = struct{}{}
		}
	}
	c.kick()
}

// missingClassLocked returns class when it names a PriorityClass that does not exist.
func (c *Cache) missingClassLocked(class string) string {
	if _, ok := c.priorityClasses[class]; class != "" && !ok {
		return class
	}
	return ""
}

func (c *Cache) priorityOfLocked(class string) int32 {
	if class != "" {
		if v, ok := c.priorityClasses[class]; ok {
			return v
		}
	}
	if c.defaultClass != "" {
		return c.priorityClasses[c.defaultClass]
	}
	return 0
}

// ---- PodDisruptionBudgets ----

// AddPodDisruptionBudget records a PodDisruptionBudget (add or update). Only a change of its
// selector or of the disruptions it allows counts: the disruption controller rewrites the other
// numbers of its status whenever a covered pod changes. A budget that allows more than before
// (or covers other pods) may let through a preemption it stopped, so the scheduler is woken;
// a new one, or one that allows less, needs no new cycle.
func (c *Cache) AddPodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := pdb.Namespace + "/" + pdb.Name
	info := api.NewBudgetInfo(pdb)
	old, had := c.budgets[key]
	sameSelector := had && equality.Semantic.DeepEqual(old.selector, pdb.Spec.Selector)
	if sameSelector && old.info.Allowed == info.Allowed {
		return
	}
	c.budgets[key] = &budget{info: info, selector: pdb.Spec.Selector}
	c.dirtyBudgets[key] = struct{}{}
	if had && (!sameSelector || info.Allowed > old.info.Allowed) {
		c.capacityEpoch++
		c.kick()
	}
}

// DeletePodDisruptionBudget forgets a PodDisruptionBudget.
func (c *Cache) DeletePodDisruptionBudget(namespace, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := namespace + "/" + name
	if _, ok := c.budgets[key]; !ok {
		return
	}
	delete(c.budgets, key)
	c.dirtyBudgets[key] = struct{}{}
	c.capacityEpoch++
	c.kick()
}

// ---- PodGroups ----

// AddPodGroup records a PodGroup (add or update).
func (c *Cache) AddPodGroup(pg *schedulingv1beta1.PodGroup) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := api.GroupJobID(pg.Namespace, pg.Name)
	old := c.podGroups[id]
	c.podGroups[id] = pg
	if old != nil && holdsRoom(old.Status.Phase) && !holdsRoom(pg.Status.Phase) {
		// It gave back the room its queue held for it.
		c.capacityEpoch++
	}
	j, ok := c.jobs[id]
	if !ok {
		j = api.NewJobInfo(id)
		c.jobs[id] = j
	}
	if a, ok := c.assumedPhase[id]; ok && (a.PodGroupUID != pg.UID || a.Phase == pg.Status.Phase) {
		delete(c.assumedPhase, id)
	}
	c.applyPodGroupLocked(j, pg)
	c.dirtyJobs[id] = struct{}{}
	// A change of status alone (most often the scheduler's own write) needs no new cycle.
	if old == nil || old.UID != pg.UID || old.Generation != pg.Generation {
		c.kick()
	}
}

// holdsRoom reports whether a PodGroup in the phase holds room in its queue (it was admitted).
func holdsRoom(p schedulingv1beta1.PodGroupPhase) bool {
	return p == schedulingv1beta1.PodGroupInqueue || p == schedulingv1beta1.PodGroupRunning || p == schedulingv1beta1.PodGroupUnknown
}

// DeletePodGroup forgets a PodGroup; its pods wait for a new one.
func (c *Cache) DeletePodGroup(namespace, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := api.GroupJobID(namespace, name)
	delete(c.podGroups, id)
	delete(c.assumedPhase, id)
	// Its queue no longer holds room for it: a job that could not be admitted may be now.
	c.capacityEpoch++
	if j, ok := c.jobs[id]; ok {
		j.PodGroup = nil
		if len(j.Tasks) == 0 {
			delete(c.jobs, id)
		}
		c.dirtyJobs[id] = struct{}{}
	}
	c.kick()
}

// PodGroup returns the PodGroup of a job as last seen, or nil.
func (c *Cache) PodGroup(id api.JobID) *schedulingv1beta1.PodGroup {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.podGroups[id]
}

func (c *Cache) applyPodGroupLocked(j *api.JobInfo, pg *schedulingv1beta1.PodGroup) {
	j.PodGroup = pg
	j.PodOnly = false
	j.Name, j.Namespace = pg.Name, pg.Namespace
	j.Queue = pg.Spec.Queue
	if j.Queue == "" {
		j.Queue = c.defaultQueue
	}
	j.MinAvailable = pg.Spec.MinMember
	j.TaskMinAvailable = pg.Spec.MinTaskMember
	j.SubGroups = api.NewSubGroupPolicies(pg.Spec.SubGroupPolicy)
	j.MinResources = nil
	if pg.Spec.MinResources != nil {
		r := api.NewResource(*pg.Spec.MinResources)
		j.MinResources = &r
	}
	j.Priority = c.priorityOfLocked(pg.Spec.PriorityClassName)
	j.MissingPriorityClass = c.missingClassLocked(pg.Spec.PriorityClassName)
	j.CreationTime = pg.CreationTimestamp.Time
	j.WaitingTime = waitingTime(pg.Annotations)
	j.Preemptable = true
	if v, ok := pg.Annotations[schedulingv1beta1.PodPreemptable]; ok {
		b, err := strconv.ParseBool(v)
		j.Preemptable = err == nil && b
	}
	j.Phase = pg.Status.Phase
	if a, ok := c.assumedPhase[j.UID]; ok && a.PodGroupUID == pg.UID {
		j.Phase = a.Phase
	}
	if j.Phase == "" {
		j.Phase = schedulingv1beta1.PodGroupPending
	}
}

// waitingTime reads the SLA waiting time of a PodGroup from its annotations.
func waitingTime(annotations map[string]string) *time.Duration {
	for _, key := range []string{schedulingv1beta1.JobWaitingTime, schedulingv1beta1.LegacyJobWaitingTime} {
		if v, ok := annotations[key]; ok {
			if d, err := time.ParseDuration(v); err == nil && d > 0 {
				return &d
			}
		}
	}
	return nil
}

// ---- pods ----

// JobIDOf returns the job a pod of ours belongs to.
func JobIDOf(pod *corev1.Pod) api.JobID {
	if g := podgroup.GroupName(pod); g != "" {
		return api.GroupJobID(pod.Namespace, g)
	}
	return api.PodJobID(pod.Namespace, pod.Name)
}

// AddPod records a pod (add or update).
func (c *Cache) AddPod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.taskLocked(pod.UID)
	held := c.holdsNodeLocked(pod.UID)
	relevant := c.removePodLocked(pod.UID)
	if c.addPodLocked(pod, prev) {
		relevant = true
	}
	if held && !c.holdsNodeLocked(pod.UID) {
		c.capacityEpoch++
	}
	if relevant {
		c.kick()
	}
}

// DeletePod forgets a pod.
func (c *Cache) DeletePod(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holdsNodeLocked(uid) {
		c.capacityEpoch++
	}
	c.removePodLocked(uid)
	delete(c.assumed, uid)
	delete(c.evicting, uid)
	delete(c.nominated, uid)
	delete(c.refused, uid)
	c.kick()
}

// holdsNodeLocked reports whether a pod holds resources on a node.
func (c *Cache) holdsNodeLocked(uid types.UID) bool {
	_, ok := c.podNode[uid]
	return ok
}

// taskLocked returns the task of one of our pods, or nil.
func (c *Cache) taskLocked(uid types.UID) *api.TaskInfo {
	if id, ok := c.podJob[uid]; ok {
		if j, ok := c.jobs[id]; ok {
			return j.Tasks[uid]
		}
	}
	return nil
}

// removePodLocked takes a pod out of its job and node; it reports whether that frees resources
// or removes pending work.
func (c *Cache) removePodLocked(uid types.UID) bool {
	relevant := false
	if name, ok := c.podNode[uid]; ok {
		if n, ok := c.nodes[name]; ok {
			n.RemoveTask(uid)
			if n.Node == nil && len(n.Tasks) == 0 {
				delete(c.nodes, name)
			}
			c.dirtyNodes[name] = struct{}{}
		}
		delete(c.podNode, uid)
	}
	if id, ok := c.podJob[uid]; ok {
		if j, ok := c.jobs[id]; ok {
			if t, ok := j.Tasks[uid]; ok && t.Status == api.Pending {
				relevant = true
			}
			j.DeleteTask(uid)
			if len(j.Tasks) == 0 && j.PodGroup == nil {
				delete(c.jobs, id)
				delete(c.assumedPhase, id)
			}
			c.dirtyJobs[id] = struct{}{}
		}
		delete(c.podJob, uid)
	}
	return relevant
}

// addPodLocked puts a pod in its job (when ours) and on its node (when it holds one). It reports
// whether the change may let the scheduler do more.
func (c *Cache) addPodLocked(pod *corev1.Pod, prev *api.TaskInfo) bool {
	ours := c.schedulerNames[pod.Spec.SchedulerName] && (!c.waitForGroups || podgroup.GroupName(pod) != "")
	if !ours && pod.Spec.NodeName == "" {
		return false
	}
	status := api.PodStatus(pod)
	nodeName := pod.Spec.NodeName
	if node, ok := c.assumed[pod.UID]; ok {
		switch {
		case nodeName != "" || status != api.Pending:
			delete(c.assumed, pod.UID)
		default:
			status, nodeName = api.Binding, node
		}
	}
	if c.evicting[pod.UID] && api.OccupiesNode(status) {
		status = api.Releasing
	}
	if rv, ok := c.refused[pod.UID]; ok {
		switch {
		case rv != pod.ResourceVersion || status != api.Pending:
			// The pod changed since its bind was refused: it may be placed again.
			delete(c.refused, pod.UID)
		default:
			status = api.Gated
		}
	}
	relevant := status == api.Pending || status == api.Succeeded || status == api.Failed || status == api.Releasing
	var resreq *api.Resource
	if ours {
		id := JobIDOf(pod)
		j, ok := c.jobs[id]
		if ok {
			id = j.UID // the job's tasks hold one copy of its ID
		} else {
			j = api.NewJobInfo(id)
			c.jobs[id] = j
			if pg, ok := c.podGroups[id]; ok {
				c.applyPodGroupLocked(j, pg)
			}
		}
		t := api.NewTaskInfo(pod, id, prev)
		t.Status, t.NodeName = status, nodeName
		if status == api.Pending {
			t.EnsurePredicateKey()
		}
		if status == api.Pending {
			// The node promised by this scheduler or, after a restart, the promise it wrote
			// on the pod. Only a pending task is placed, so only its promise counts.
			t.NominatedNode = c.nominated[pod.UID]
			if t.NominatedNode == "" {
				t.NominatedNode = pod.Status.NominatedNodeName
			}
		} else {
			delete(c.nominated, pod.UID)
		}
		resreq = t.Resreq
		if podgroup.GroupName(pod) == "" {
			c.applyLonePodLocked(j, pod, t)
		}
		j.AddTask(t)
		c.podJob[pod.UID] = id
		c.dirtyJobs[id] = struct{}{}
	}
	if nodeName != "" && api.OccupiesNode(status) {
		if resreq == nil {
			r := api.PodRequests(pod)
			resreq = &r
		}
		n, ok := c.nodes[nodeName]
		if !ok {
			n = api.NewNodeInfo(nodeName, nil)
			c.nodes[nodeName] = n
		}
		var id api.JobID
		if ours {
			id = c.podJob[pod.UID]
		}
		n.AddTask(&api.NodeTask{UID: pod.UID, Job: id, Namespace: pod.Namespace, Name: pod.Name, Resreq: resreq, Status: status, Pod: pod})
		c.podNode[pod.UID] = nodeName
		c.dirtyNodes[nodeName] = struct{}{}
	}
	return relevant
}

func (c *Cache) applyLonePodLocked(j *api.JobInfo, pod *corev1.Pod, t *api.TaskInfo) {
	j.PodOnly = true
	j.Name, j.Namespace = pod.Name, pod.Namespace
	j.Queue = pod.Annotations[schedulingv1beta1.QueueNameAnnotationKey]
	if j.Queue == "" {
		j.Queue = c.defaultQueue
	}
	j.MinAvailable = 1
	req := t.Resreq.Clone()
	j.MinResources = &req
	j.Priority = t.Priority
	j.CreationTime = pod.CreationTimestamp.Time
	j.WaitingTime = waitingTime(pod.Annotations)
	j.Phase = schedulingv1beta1.PodGroupPending
	if a, ok := c.assumedPhase[j.UID]; ok {
		j.Phase = a.Phase
	}
}

// ---- decisions not yet seen through the API ----

// Assume records that tasks were handed to the binder, each for its NodeName. A task that is no
// longer pending in the cache (deleted, or bound by someone else meanwhile) is left out; the
// tasks accepted are returned.
func (c *Cache) Assume(tasks []*api.TaskInfo) []*api.TaskInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := tasks[:0:0]
	for _, t := range tasks {
		id, ok := c.podJob[t.UID]
		if !ok {
			continue
		}
		j := c.jobs[id]
		cur, ok := j.Tasks[t.UID]
		if !ok || cur.Status != api.Pending {
			continue
		}
		nt := cur.Clone()
		nt.Status, nt.NodeName = api.Binding, t.NodeName
		j.AddTask(nt)
		n, ok := c.nodes[t.NodeName]
		if !ok {
			n = api.NewNodeInfo(t.NodeName, nil)
			c.nodes[t.NodeName] = n
		}
		n.AddTask(&api.NodeTask{UID: nt.UID, Job: id, Namespace: nt.Namespace, Name: nt.Name, Resreq: nt.Resreq, Status: api.Binding, Pod: nt.Pod})
		c.podNode[t.UID] = t.NodeName
		c.assumed[t.UID] = t.NodeName
		delete(c.nominated, t.UID)
		c.dirtyJobs[id] = struct{}{}
		c.dirtyNodes[t.NodeName] = struct{}{}
		out = append(out, t)
	}
	return out
}

// ForgetBind undoes Assume for a task whose bind failed: it is pending again.
func (c *Cache) ForgetBind(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.assumed[uid]; !ok {
		return
	}
	delete(c.assumed, uid)
	id, ok := c.podJob[uid]
	if !ok {
		return
	}
	j := c.jobs[id]
	cur, ok := j.Tasks[uid]
	if !ok || cur.Status != api.Binding {
		return
	}
	c.removePodLocked(uid)
	c.addPodLocked(cur.Pod, cur)
	c.capacityEpoch++
	c.kick()
}

// RefuseBind undoes Assume for a task whose bind the API server refused for a reason the pod
// will not outgrow by itself (it is gated, gone, or bound already): the task is held (status
// Gated) until a version of the pod other than resourceVersion, the one the bind was decided
// on, is seen. No room is reported freed for the task's own sake, so its job is not retried
// at once.
func (c *Cache) RefuseBind(uid types.UID, resourceVersion string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.assumed[uid]; !ok {
		return
	}
	delete(c.assumed, uid)
	id, ok := c.podJob[uid]
	if !ok {
		return
	}
	j := c.jobs[id]
	cur, ok := j.Tasks[uid]
	if !ok || cur.Status != api.Binding {
		return
	}
	if cur.Pod.ResourceVersion == resourceVersion {
		c.refused[uid] = resourceVersion
	}
	c.removePodLocked(uid)
	c.addPodLocked(cur.Pod, cur)
	// The node's room the task held is free again for other jobs.
	c.capacityEpoch++
	c.kick()
}

// BindsInFlight returns how many binds are assumed and not yet confirmed.
func (c *Cache) BindsInFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.assumed)
}

// MarkEvicting records that a pod is being evicted: it holds its node as releasing until it is
// gone.
func (c *Cache) MarkEvicting(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evicting[uid] = true
	c.refreshPodLocked(uid)
}

// ForgetEvicting undoes MarkEvicting for an eviction that failed.
func (c *Cache) ForgetEvicting(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.evicting[uid] {
		return
	}
	delete(c.evicting, uid)
	c.refreshPodLocked(uid)
	c.capacityEpoch++
	c.kick()
}

// Nominate remembers a node promised to a pending task by a preemption or reclaim.
func (c *Cache) Nominate(uid types.UID, node string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nominated[uid] = node
	c.refreshPodLocked(uid)
}

// refreshPodLocked rebuilds a pod's task from the pod as last seen.
func (c *Cache) refreshPodLocked(uid types.UID) {
	var pod *corev1.Pod
	if id, ok := c.podJob[uid]; ok {
		if t, ok := c.jobs[id].Tasks[uid]; ok {
			pod = t.Pod
		}
	} else if name, ok := c.podNode[uid]; ok {
		if n, ok := c.nodes[name]; ok {
			if t, ok := n.Tasks[uid]; ok {
				pod = t.Pod
			}
		}
	}
	if pod == nil {
		return
	}
	prev := c.taskLocked(uid)
	c.removePodLocked(uid)
	c.addPodLocked(pod, prev)
}

// DecidedPhase is a phase the scheduler decided for a job, and the UID of the PodGroup it
// decided it for (empty for a lone pod).
type DecidedPhase struct {
	PodGroupUID types.UID
	Phase       schedulingv1beta1.PodGroupPhase
}

// SetJobPhase records the phase the scheduler decided for a job, to be used until the PodGroup
// as seen through the API shows it (or, for a lone pod, for as long as the pod exists).
func (c *Cache) SetJobPhase(id api.JobID, decided DecidedPhase) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setJobPhaseLocked(id, decided)
}

// SetJobPhases records many decided phases at once.
func (c *Cache) SetJobPhases(phases map[api.JobID]DecidedPhase) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, decided := range phases {
		c.setJobPhaseLocked(id, decided)
	}
}

func (c *Cache) setJobPhaseLocked(id api.JobID, decided DecidedPhase) {
	j, ok := c.jobs[id]
	if !ok {
		return
	}
	if decided.PodGroupUID != "" && (j.PodGroup == nil || j.PodGroup.UID != decided.PodGroupUID) {
		// The PodGroup the phase was decided for is gone, perhaps made anew under the same name
		// (a restarted job) while the cycle ran: the new one has a phase of its own to be
		// decided, not this one.
		return
	}
	if j.Phase == decided.Phase {
		return
	}
	if j.PodGroup != nil {
		if j.PodGroup.Status.Phase == decided.Phase {
			delete(c.assumedPhase, id)
		} else {
			c.assumedPhase[id] = DecidedPhase{PodGroupUID: j.PodGroup.UID, Phase: decided.Phase}
		}
	} else {
		c.assumedPhase[id] = DecidedPhase{Phase: decided.Phase}
	}
	j.Phase = decided.Phase
	c.dirtyJobs[id] = struct{}{}
}

// ---- informer plumbing ----

// PodHandler returns the informer event handler for pods.
func (c *Cache) PodHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onPod(obj) },
		UpdateFunc: func(_, obj any) { c.onPod(obj) },
		DeleteFunc: func(obj any) {
			if pod, ok := unwrap(obj).(*corev1.Pod); ok {
				c.DeletePod(pod.UID)
			}
		},
	}
}

func (c *Cache) onPod(obj any) {
	if pod, ok := obj.(*corev1.Pod); ok {
		c.AddPod(pod)
	}
}

// NodeHandler returns the informer event handler for nodes.
func (c *Cache) NodeHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onNode(obj) },
		UpdateFunc: func(_, obj any) { c.onNode(obj) },
		DeleteFunc: func(obj any) {
			if n, ok := unwrap(obj).(*corev1.Node); ok {
				c.DeleteNode(n.Name)
			}
		},
	}
}

func (c *Cache) onNode(obj any) {
	if n, ok := obj.(*corev1.Node); ok {
		c.AddNode(n)
	}
}

// PodGroupHandler returns the informer event handler for PodGroups.
func (c *Cache) PodGroupHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onPodGroup(obj) },
		UpdateFunc: func(_, obj any) { c.onPodGroup(obj) },
		DeleteFunc: func(obj any) {
			if pg, ok := unwrap(obj).(*schedulingv1beta1.PodGroup); ok {
				c.DeletePodGroup(pg.Namespace, pg.Name)
			}
		},
	}
}

func (c *Cache) onPodGroup(obj any) {
	if pg, ok := obj.(*schedulingv1beta1.PodGroup); ok {
		c.AddPodGroup(pg)
	}
}

// QueueHandler returns the informer event handler for Queues.
func (c *Cache) QueueHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onQueue(obj) },
		UpdateFunc: func(_, obj any) { c.onQueue(obj) },
		DeleteFunc: func(obj any) {
			if q, ok := unwrap(obj).(*schedulingv1beta1.Queue); ok {
				c.DeleteQueue(q.Name)
			}
		},
	}
}

func (c *Cache) onQueue(obj any) {
	if q, ok := obj.(*schedulingv1beta1.Queue); ok {
		c.AddQueue(q)
	}
}

// HyperNodeHandler returns the informer event handler for HyperNodes.
func (c *Cache) HyperNodeHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onHyperNode(obj) },
		UpdateFunc: func(_, obj any) { c.onHyperNode(obj) },
		DeleteFunc: func(obj any) {
			if hn, ok := unwrap(obj).(*topologyv1alpha1.HyperNode); ok {
				c.DeleteHyperNode(hn.Name)
			}
		},
	}
}

func (c *Cache) onHyperNode(obj any) {
	if hn, ok := obj.(*topologyv1alpha1.HyperNode); ok {
		c.AddHyperNode(hn)
	}
}

// PodDisruptionBudgetHandler returns the informer event handler for PodDisruptionBudgets.
func (c *Cache) PodDisruptionBudgetHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onPodDisruptionBudget(obj) },
		UpdateFunc: func(_, obj any) { c.onPodDisruptionBudget(obj) },
		DeleteFunc: func(obj any) {
			if pdb, ok := unwrap(obj).(*policyv1.PodDisruptionBudget); ok {
				c.DeletePodDisruptionBudget(pdb.Namespace, pdb.Name)
			}
		},
	}
}

func (c *Cache) onPodDisruptionBudget(obj any) {
	if pdb, ok := obj.(*policyv1.PodDisruptionBudget); ok {
		c.AddPodDisruptionBudget(pdb)
	}
}

// PriorityClassHandler returns the informer event handler for PriorityClasses.
func (c *Cache) PriorityClassHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onPriorityClass(obj) },
		UpdateFunc: func(_, obj any) { c.onPriorityClass(obj) },
		DeleteFunc: func(obj any) {
			if pc, ok := unwrap(obj).(*schedulingv1.PriorityClass); ok {
				c.DeletePriorityClass(pc.Name)
			}
		},
	}
}

func (c *Cache) onPriorityClass(obj any) {
	if pc, ok := obj.(*schedulingv1.PriorityClass); ok {
		c.AddPriorityClass(pc)
	}
}

func unwrap(obj any) any {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		return d.Obj
	}
	return obj
}
