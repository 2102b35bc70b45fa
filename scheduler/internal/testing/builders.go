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

// Package testing holds fluent builders of pods, nodes, PodGroups, Queues, PriorityClasses and
// PodDisruptionBudgets for the scheduler's tests, and a way to turn a set of objects into a snapshot through the real
// cache.
package testing

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/scheduler/cache"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// SchedulerName is the scheduler name the builders give pods.
const SchedulerName = "volcano"

// Epoch is the creation time builders give objects unless told otherwise.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func uid(kind, ns, name string) types.UID { return types.UID(kind + "/" + ns + "/" + name) }

// ---- pods ----

// PodWrapper builds a pod.
type PodWrapper struct{ corev1.Pod }

// MakePod starts a pending pod of ours with one container and no requests.
func MakePod(ns, name string) *PodWrapper {
	return &PodWrapper{corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid("pod", ns, name), CreationTimestamp: metav1.NewTime(Epoch)},
		Spec: corev1.PodSpec{
			SchedulerName: SchedulerName,
			Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}}
}

// Obj returns the pod.
func (p *PodWrapper) Obj() *corev1.Pod { return p.Pod.DeepCopy() }

// Req sets the container's cpu and memory requests ("" leaves one out).
func (p *PodWrapper) Req(cpu, memory string) *PodWrapper {
	if p.Spec.Containers[0].Resources.Requests == nil {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{}
	}
	if cpu != "" {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return p
}

// Res sets a request of any resource (and the matching limit, as extended resources need).
func (p *PodWrapper) Res(name corev1.ResourceName, qty string) *PodWrapper {
	c := &p.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	c.Resources.Requests[name] = resource.MustParse(qty)
	c.Resources.Limits[name] = resource.MustParse(qty)
	return p
}

// Group puts the pod in a PodGroup.
func (p *PodWrapper) Group(name string) *PodWrapper {
	return p.Annotation(schedulingv1beta1.KubeGroupNameAnnotationKey, name)
}

// Role sets the pod's task name (volcano.sh/task-spec).
func (p *PodWrapper) Role(role string) *PodWrapper {
	return p.Annotation(batchv1alpha1.TaskSpecKey, role)
}

// Annotation sets an annotation.
func (p *PodWrapper) Annotation(k, v string) *PodWrapper {
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[k] = v
	return p
}

// Label sets a label.
func (p *PodWrapper) Label(k, v string) *PodWrapper {
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[k] = v
	return p
}

// Node binds the pod to a node and makes it Running.
func (p *PodWrapper) Node(node string) *PodWrapper {
	p.Spec.NodeName = node
	p.Status.Phase = corev1.PodRunning
	return p
}

// Phase sets the pod's phase.
func (p *PodWrapper) Phase(phase corev1.PodPhase) *PodWrapper {
	p.Status.Phase = phase
	return p
}

// Priority sets the pod's priority and priority class name.
func (p *PodWrapper) Priority(class string, value int32) *PodWrapper {
	p.Spec.PriorityClassName = class
	p.Spec.Priority = &value
	return p
}

// PreemptNever sets preemptionPolicy Never.
func (p *PodWrapper) PreemptNever() *PodWrapper {
	never := corev1.PreemptNever
	p.Spec.PreemptionPolicy = &never
	return p
}

// Scheduler sets the pod's schedulerName.
func (p *PodWrapper) Scheduler(name string) *PodWrapper {
	p.Spec.SchedulerName = name
	return p
}

// NodeSelector adds a node selector entry.
func (p *PodWrapper) NodeSelector(k, v string) *PodWrapper {
	if p.Spec.NodeSelector == nil {
		p.Spec.NodeSelector = map[string]string{}
	}
	p.Spec.NodeSelector[k] = v
	return p
}

// RequiredNodeAffinity requires a node label to be one of values.
func (p *PodWrapper) RequiredNodeAffinity(key string, values ...string) *PodWrapper {
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}},
		}}},
	}}
	return p
}

// PreferredNodeAffinity prefers, with weight, a node label with one of values.
func (p *PodWrapper) PreferredNodeAffinity(weight int32, key string, values ...string) *PodWrapper {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(
		p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}},
		}})
	return p
}

// Toleration adds a toleration of key=value with an effect ("" tolerates every effect).
func (p *PodWrapper) Toleration(key, value string, effect corev1.TaintEffect) *PodWrapper {
	p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: effect})
	return p
}

// RequiredPodAffinity adds a required pod affinity term on the hostname topology for pods
// labelled key=value.
func (p *PodWrapper) RequiredPodAffinity(key, value string) *PodWrapper {
	return p.RequiredTerm(false, corev1.LabelHostname, key, value)
}

// RequiredPodAntiAffinity adds a required pod anti-affinity term on the hostname topology for
// pods labelled key=value.
func (p *PodWrapper) RequiredPodAntiAffinity(key, value string) *PodWrapper {
	return p.RequiredTerm(true, corev1.LabelHostname, key, value)
}

// RequiredTerm adds a required pod affinity (anti: anti-affinity) term on the topology key topo
// for pods labelled key=value.
func (p *PodWrapper) RequiredTerm(anti bool, topo, key, value string) *PodWrapper {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	a := p.Spec.Affinity
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
		TopologyKey:   topo,
	}
	switch {
	case anti && a.PodAntiAffinity == nil:
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	case !anti && a.PodAffinity == nil:
		a.PodAffinity = &corev1.PodAffinity{}
	}
	if anti {
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	} else {
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	}
	return p
}

// Gate adds a scheduling gate.
func (p *PodWrapper) Gate(name string) *PodWrapper {
	p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: name})
	return p
}

// HostPort adds a TCP host port.
func (p *PodWrapper) HostPort(port int32) *PodWrapper {
	p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP})
	return p
}

// Created sets the creation time.
func (p *PodWrapper) Created(t time.Time) *PodWrapper {
	p.CreationTimestamp = metav1.NewTime(t)
	return p
}

// Deleting marks the pod as being deleted.
func (p *PodWrapper) Deleting() *PodWrapper {
	now := metav1.NewTime(Epoch)
	p.DeletionTimestamp = &now
	return p
}

// ---- nodes ----

// NodeWrapper builds a node.
type NodeWrapper struct{ corev1.Node }

// MakeNode starts a Ready node with the given allocatable cpu and memory and room for 110 pods.
func MakeNode(name, cpu, memory string) *NodeWrapper {
	rl := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &NodeWrapper{corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("node", "", name), Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Capacity:    rl.DeepCopy(),
			Allocatable: rl,
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}}
}

// Obj returns the node.
func (n *NodeWrapper) Obj() *corev1.Node { return n.Node.DeepCopy() }

// Res sets an allocatable resource.
func (n *NodeWrapper) Res(name corev1.ResourceName, qty string) *NodeWrapper {
	n.Status.Allocatable[name] = resource.MustParse(qty)
	n.Status.Capacity[name] = resource.MustParse(qty)
	return n
}

// Label sets a label.
func (n *NodeWrapper) Label(k, v string) *NodeWrapper {
	n.Labels[k] = v
	return n
}

// Taint adds a taint.
func (n *NodeWrapper) Taint(key, value string, effect corev1.TaintEffect) *NodeWrapper {
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return n
}

// Unschedulable cordons the node.
func (n *NodeWrapper) Unschedulable() *NodeWrapper {
	n.Spec.Unschedulable = true
	return n
}

// NotReady sets the Ready condition to False.
func (n *NodeWrapper) NotReady() *NodeWrapper {
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
	return n
}

// ---- PodGroups ----

// PodGroupWrapper builds a PodGroup.
type PodGroupWrapper struct{ schedulingv1beta1.PodGroup }

// MakePodGroup starts a Pending PodGroup in the default queue with the given minMember.
func MakePodGroup(ns, name string, minMember int32) *PodGroupWrapper {
	return &PodGroupWrapper{schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid("pg", ns, name), CreationTimestamp: metav1.NewTime(Epoch), Generation: 1},
		Spec:       schedulingv1beta1.PodGroupSpec{MinMember: minMember, Queue: schedulingv1beta1.DefaultQueue},
		Status:     schedulingv1beta1.PodGroupStatus{Phase: schedulingv1beta1.PodGroupPending},
	}}
}

// Obj returns the PodGroup.
func (g *PodGroupWrapper) Obj() *schedulingv1beta1.PodGroup { return g.PodGroup.DeepCopy() }

// Queue sets the queue.
func (g *PodGroupWrapper) Queue(q string) *PodGroupWrapper {
	g.Spec.Queue = q
	return g
}

// Phase sets status.phase.
func (g *PodGroupWrapper) Phase(p schedulingv1beta1.PodGroupPhase) *PodGroupWrapper {
	g.Status.Phase = p
	return g
}

// PriorityClass sets the priority class name.
func (g *PodGroupWrapper) PriorityClass(name string) *PodGroupWrapper {
	g.Spec.PriorityClassName = name
	return g
}

// MinTaskMember sets a task's minimum.
func (g *PodGroupWrapper) MinTaskMember(task string, n int32) *PodGroupWrapper {
	if g.Spec.MinTaskMember == nil {
		g.Spec.MinTaskMember = map[string]int32{}
	}
	g.Spec.MinTaskMember[task] = n
	return g
}

// MinResources sets minResources cpu and memory.
func (g *PodGroupWrapper) MinResources(cpu, memory string) *PodGroupWrapper {
	rl := corev1.ResourceList{}
	if cpu != "" {
		rl[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		rl[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	g.Spec.MinResources = &rl
	return g
}

// Annotation sets an annotation.
func (g *PodGroupWrapper) Annotation(k, v string) *PodGroupWrapper {
	if g.Annotations == nil {
		g.Annotations = map[string]string{}
	}
	g.Annotations[k] = v
	return g
}

// ControlledBy makes the PodGroup controlled by an object of the given API version and kind
// (a Volcano job's is "batch.volcano.sh/v1alpha1", "Job").
func (g *PodGroupWrapper) ControlledBy(apiVersion, kind, name string) *PodGroupWrapper {
	controller := true
	g.OwnerReferences = append(g.OwnerReferences, metav1.OwnerReference{
		APIVersion: apiVersion, Kind: kind, Name: name, UID: uid(kind, g.Namespace, name), Controller: &controller,
	})
	return g
}

// Created sets the creation time.
func (g *PodGroupWrapper) Created(t time.Time) *PodGroupWrapper {
	g.CreationTimestamp = metav1.NewTime(t)
	return g
}

// Condition adds a status condition.
func (g *PodGroupWrapper) Condition(c schedulingv1beta1.PodGroupCondition) *PodGroupWrapper {
	g.Status.Conditions = append(g.Status.Conditions, c)
	return g
}

// ---- queues ----

// QueueWrapper builds a Queue.
type QueueWrapper struct{ schedulingv1beta1.Queue }

// NetworkTopology sets the PodGroup's network topology: mode hard or soft, and the highest tier
// allowed (tier > 0) or the highest tier's name (tierName != "").
func (g *PodGroupWrapper) NetworkTopology(mode string, tier int32, tierName string) *PodGroupWrapper {
	nt := &schedulingv1beta1.NetworkTopologySpec{Mode: schedulingv1beta1.NetworkTopologyMode(mode), HighestTierName: tierName}
	if tier > 0 {
		nt.HighestTierAllowed = &tier
	}
	g.Spec.NetworkTopology = nt
	return g
}

// SubGroupPolicy adds a subGroupPolicy entry grouping the pods labelled volcano.sh/task-spec=task
// by their volcano.sh/partition-id (a vcjob's partitions), with a network topology when mode is
// not empty.
func (g *PodGroupWrapper) SubGroupPolicy(task string, size, min int32, mode string, tier int32) *PodGroupWrapper {
	p := schedulingv1beta1.SubGroupPolicySpec{Name: task, SubGroupSize: &size, MinSubGroups: &min,
		LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": task}},
		MatchLabelKeys: []string{"volcano.sh/partition-id"}}
	if mode != "" {
		p.NetworkTopology = &schedulingv1beta1.NetworkTopologySpec{Mode: schedulingv1beta1.NetworkTopologyMode(mode), HighestTierAllowed: &tier}
	}
	g.Spec.SubGroupPolicy = append(g.Spec.SubGroupPolicy, p)
	return g
}

// MakeHyperNode returns a HyperNode of a tier whose members are the nodes (tier 1) or the
// HyperNodes (higher tiers) named, each by exact name.
func MakeHyperNode(name string, tier int, members ...string) *topologyv1alpha1.HyperNode {
	typ := topologyv1alpha1.MemberTypeHyperNode
	if tier == 1 {
		typ = topologyv1alpha1.MemberTypeNode
	}
	hn := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("hypernode", "", name), Generation: 1},
		Spec: topologyv1alpha1.HyperNodeSpec{Tier: tier}}
	for _, m := range members {
		hn.Spec.Members = append(hn.Spec.Members, topologyv1alpha1.MemberSpec{Type: typ,
			Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: m}}})
	}
	return hn
}

// MakeQueue starts an Open queue with the given weight.
func MakeQueue(name string, weight int32) *QueueWrapper {
	reclaimable := true
	return &QueueWrapper{schedulingv1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("queue", "", name), Generation: 1},
		Spec:       schedulingv1beta1.QueueSpec{Weight: weight, Reclaimable: &reclaimable},
		Status:     schedulingv1beta1.QueueStatus{State: schedulingv1beta1.QueueStateOpen},
	}}
}

// Obj returns the queue.
func (q *QueueWrapper) Obj() *schedulingv1beta1.Queue { return q.Queue.DeepCopy() }

// Annotation sets an annotation.
func (q *QueueWrapper) Annotation(key, value string) *QueueWrapper {
	if q.Annotations == nil {
		q.Annotations = map[string]string{}
	}
	q.Annotations[key] = value
	return q
}

// Capability caps a resource.
func (q *QueueWrapper) Capability(name corev1.ResourceName, qty string) *QueueWrapper {
	if q.Spec.Capability == nil {
		q.Spec.Capability = corev1.ResourceList{}
	}
	q.Spec.Capability[name] = resource.MustParse(qty)
	return q
}

// Deserved sets one resource of the queue's spec.deserved.
func (q *QueueWrapper) Deserved(name corev1.ResourceName, qty string) *QueueWrapper {
	if q.Spec.Deserved == nil {
		q.Spec.Deserved = corev1.ResourceList{}
	}
	q.Spec.Deserved[name] = resource.MustParse(qty)
	return q
}

// Guarantee reserves a resource.
func (q *QueueWrapper) Guarantee(name corev1.ResourceName, qty string) *QueueWrapper {
	if q.Spec.Guarantee.Resource == nil {
		q.Spec.Guarantee.Resource = corev1.ResourceList{}
	}
	q.Spec.Guarantee.Resource[name] = resource.MustParse(qty)
	return q
}

// Reclaimable sets spec.reclaimable.
func (q *QueueWrapper) Reclaimable(b bool) *QueueWrapper {
	q.Spec.Reclaimable = &b
	return q
}

// State sets status.state.
func (q *QueueWrapper) State(s schedulingv1beta1.QueueState) *QueueWrapper {
	q.Status.State = s
	return q
}

// Parent sets spec.parent.
func (q *QueueWrapper) Parent(name string) *QueueWrapper {
	q.Spec.Parent = name
	return q
}

// Priority sets spec.priority.
func (q *QueueWrapper) Priority(p int32) *QueueWrapper {
	q.Spec.Priority = p
	return q
}

// ---- priority classes ----

// MakePriorityClass returns a PriorityClass.
func MakePriorityClass(name string, value int32) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
}

// ---- PodDisruptionBudgets ----

// PDBWrapper builds a PodDisruptionBudget.
type PDBWrapper struct{ policyv1.PodDisruptionBudget }

// MakePDB starts a PodDisruptionBudget with no selector (it covers no pod) whose status, observed
// at its generation, allows the given number of disruptions.
func MakePDB(ns, name string, allowed int32) *PDBWrapper {
	return &PDBWrapper{policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid("pdb", ns, name), Generation: 1},
		Status:     policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: allowed},
	}}
}

// Obj returns the PodDisruptionBudget.
func (b *PDBWrapper) Obj() *policyv1.PodDisruptionBudget { return b.PodDisruptionBudget.DeepCopy() }

// Selector selects the pods with the given labels (key, value, key, value...); with none, the
// selector is empty and covers every pod of the namespace.
func (b *PDBWrapper) Selector(kv ...string) *PDBWrapper {
	sel := &metav1.LabelSelector{}
	for i := 0; i+1 < len(kv); i += 2 {
		if sel.MatchLabels == nil {
			sel.MatchLabels = map[string]string{}
		}
		sel.MatchLabels[kv[i]] = kv[i+1]
	}
	b.Spec.Selector = sel
	return b
}

// Generation sets the budget's generation and the one its status observed.
func (b *PDBWrapper) Generation(spec, observed int64) *PDBWrapper {
	b.ObjectMeta.Generation = spec
	b.Status.ObservedGeneration = observed
	return b
}

// ---- snapshots ----

// TB is the part of testing.TB the helpers use.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// NewCache returns a cache serving SchedulerName with queue "default" as default, fed with objs
// (pods, nodes, PodGroups, Queues, PriorityClasses, PodDisruptionBudgets, HyperNodes) in order.
func NewCache(tb TB, objs ...any) *cache.Cache {
	tb.Helper()
	c := cache.New([]string{SchedulerName}, schedulingv1beta1.DefaultQueue)
	for _, o := range objs {
		switch v := o.(type) {
		case *corev1.Pod:
			c.AddPod(v)
		case *corev1.Node:
			c.AddNode(v)
		case *schedulingv1beta1.PodGroup:
			c.AddPodGroup(v)
		case *schedulingv1beta1.Queue:
			c.AddQueue(v)
		case *schedulingv1.PriorityClass:
			c.AddPriorityClass(v)
		case *policyv1.PodDisruptionBudget:
			c.AddPodDisruptionBudget(v)
		case *topologyv1alpha1.HyperNode:
			c.AddHyperNode(v)
		default:
			tb.Fatalf("NewCache: unsupported object type %T", o)
		}
	}
	return c
}

// NewSnapshot returns an up-to-date snapshot of a cache fed with objs.
func NewSnapshot(tb TB, objs ...any) *snapshot.Snapshot {
	tb.Helper()
	s := snapshot.New()
	NewCache(tb, objs...).UpdateSnapshot(s)
	return s
}

// Flat joins objects and lists of objects into one list, for NewSnapshot.
func Flat(parts ...any) []any {
	var out []any
	for _, p := range parts {
		if v, ok := p.([]any); ok {
			out = append(out, v...)
		} else {
			out = append(out, p)
		}
	}
	return out
}
