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

// Package intern makes the strings many cached objects repeat share one copy. A decoder gives
// every object its own copy of each string: the 10 pods of a job each hold the job's name, its
// queue, Volcano's label and annotation keys, the image, the node, the well-known values of
// the pod's spec and status. Interned, they are held once, which is about a sixth of a decoded
// pod's memory. The containers' resource lists, the same in every pod of a task, are shared too,
// and so are the tolerations, empty security context and small values the API server gives
// every pod. The object's content does not change.
package intern

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// str returns the canonical copy of s: the first copy of it seen since the table of canonical
// copies was last emptied (strs).
func str[S ~string](s S) S {
	if s == "" {
		return s
	}
	strs.mu.Lock()
	defer strs.mu.Unlock()
	if c, ok := strs.m[string(s)]; ok {
		return S(c)
	}
	if len(strs.m) >= maxStrings {
		clear(strs.m)
	}
	// A decoder allocates each string of an object on its own, so keeping s keeps nothing more.
	strs.m[string(s)] = string(s)
	return s
}

// strs holds the canonical copy of each string interned lately. It holds them itself: the
// unique package drops a canonical copy at the next collection once no unique.Handle refers to
// it, whatever strings share its bytes, so objects decoded after a collection got copies of
// their own, and every first lookup after one paid for a weak pointer. The table is emptied when
// full: objects holding a copy keep it, and later ones share a new one.
var strs = struct {
	mu sync.Mutex
	m  map[string]string
}{m: map[string]string{}}

// maxStrings bounds strs: a cluster of 100000 pods in 10000 jobs repeats fewer different
// strings, at about 50 bytes a string held.
const maxStrings = 1 << 17

// stringMap returns m with its keys and values interned. It is a new map: a map keeps the key
// it was first given, so the keys cannot be swapped in place.
func stringMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[str(k)] = str(v)
	}
	return out
}

// keys returns m with its keys interned, in a new map (see stringMap).
func keys[K ~string, V any](m map[K]V) map[K]V {
	if len(m) == 0 {
		return m
	}
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[str(k)] = v
	}
	return out
}

// resources returns the shared copy of rl (resourceLists), or rl's own content with its names
// interned (the quantities are not strings), as stringMap, when there is none yet.
func resources(rl corev1.ResourceList) corev1.ResourceList {
	if len(rl) == 0 {
		return rl
	}
	return resourceLists.share(listKey(rl), rl)
}

// resourceLists holds one copy of each container resource list seen lately. The containers of a
// task's pods ask for the same resources, and a decoder gives every pod its own maps of them, a
// few hundred bytes a container: a job pod holds 4.2 KB with its strings interned, 3.5 KB with
// its lists shared too, and 3.1 KB with its tolerations and spec's pointers shared as well
// (BenchmarkPodMemory). Cached objects are read and never written, so pods
// may share a map. A list is shared only with lists of the same quantities written the same way
// (the key holds each quantity's string, sameList its value and format), so no pod's content
// changes.
var resourceLists = newTable(sameList, func(rl corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(rl))
	for name, q := range rl {
		out[str(name)] = q
	}
	return out
})

// sameList reports whether two resource lists hold the same quantities in the same formats.
// (reflect.DeepEqual, which also compares how a quantity is held inside, costs a tenth of the
// manager's CPU during a burst of binds, at one comparison a container for each pod event.)
func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		if !ok || qa.Format != qb.Format || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// maxShared bounds each table of shared values. A cluster's pods hold far fewer different ones.
const maxShared = 4096

// table holds one copy of each value of type T seen lately, found by a key that values equal in
// content share. A value is shared only with values equal to it (equal), so no object's content
// changes. The table is emptied when it is full: it stays small whatever goes by, and objects
// already holding a copy keep it.
type table[T any] struct {
	mu     sync.Mutex
	values map[string]T
	// equal reports whether two values are equal in content.
	equal func(a, b T) bool
	// own returns the copy of a value the table keeps, made from the first object that holds it.
	own func(T) T
}

func newTable[T any](equal func(a, b T) bool, own func(T) T) *table[T] {
	return &table[T]{values: map[string]T{}, equal: equal, own: own}
}

// share returns the table's copy of v, found by key, or keeps its own copy of v when it has none.
func (t *table[T]) share(key string, v T) T {
	t.mu.Lock()
	defer t.mu.Unlock()
	if shared, ok := t.values[key]; ok && t.equal(shared, v) {
		return shared
	}
	out := t.own(v)
	if len(t.values) >= maxShared {
		clear(t.values)
	}
	t.values[key] = out
	return out
}

// pointerTable holds the one pointer to each value of a small type the pods' specs point to
// (priorities, grace periods, preemption policies): a decoder allocates each of them anew for
// every pod.
type pointerTable[T comparable] struct {
	mu   sync.Mutex
	ptrs map[T]*T
}

// share returns the table's pointer to p's value, or p when p is nil.
func (t *pointerTable[T]) share(p *T) *T {
	if p == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if shared, ok := t.ptrs[*p]; ok {
		return shared
	}
	if t.ptrs == nil || len(t.ptrs) >= maxShared {
		t.ptrs = map[T]*T{}
	}
	t.ptrs[*p] = p
	return p
}

var (
	int32Ptrs      pointerTable[int32]
	int64Ptrs      pointerTable[int64]
	boolPtrs       pointerTable[bool]
	preemptionPtrs pointerTable[corev1.PreemptionPolicy]
)

// tolerationLists holds one copy of each pod's list of tolerations: the API server gives every
// pod the same two (not-ready and unreachable, 300 s), and a job's pods share their template's.
var tolerationLists = newTable(sameTolerations, func(ts []corev1.Toleration) []corev1.Toleration {
	out := slices.Clone(ts)
	for i := range out {
		t := &out[i]
		t.Key, t.Operator, t.Value, t.Effect = str(t.Key), str(t.Operator), str(t.Value), str(t.Effect)
	}
	return out
})

func sameTolerations(a, b []corev1.Toleration) bool {
	return slices.EqualFunc(a, b, func(x, y corev1.Toleration) bool {
		return x.Key == y.Key && x.Operator == y.Operator && x.Value == y.Value && x.Effect == y.Effect &&
			ptr.Equal(x.TolerationSeconds, y.TolerationSeconds)
	})
}

func tolerations(ts []corev1.Toleration) []corev1.Toleration {
	if len(ts) == 0 {
		return ts
	}
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.Key)
		b.WriteByte('|')
		b.WriteString(string(t.Operator))
		b.WriteByte('|')
		b.WriteString(t.Value)
		b.WriteByte('|')
		b.WriteString(string(t.Effect))
		if t.TolerationSeconds != nil {
			b.WriteByte('|')
			b.WriteString(strconv.FormatInt(*t.TolerationSeconds, 10))
		}
		b.WriteByte(';')
	}
	return tolerationLists.share(b.String(), ts)
}

// emptyPodSecurityContext is the one empty security context the pods share: the API server gives
// a pod without one an empty one.
var emptyPodSecurityContext = &corev1.PodSecurityContext{}

func podSecurityContext(sc *corev1.PodSecurityContext) *corev1.PodSecurityContext {
	// Size is 0 only when no field is set (any set field takes bytes in the pod's protobuf),
	// whatever fields later versions add, and it costs far less than reflect.DeepEqual.
	if sc != nil && sc.Size() == 0 {
		return emptyPodSecurityContext
	}
	return sc
}

// listKey names a resource list by its names and quantities, in name order: lists with the same
// key are equal in value, and share only when also equal in form.
func listKey(rl corev1.ResourceList) string {
	names := make([]string, 0, len(rl))
	for name := range rl {
		names = append(names, string(name))
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		q := rl[corev1.ResourceName(name)]
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(q.String())
		b.WriteByte(';')
	}
	return b.String()
}

// ObjectMeta interns the strings of an object's metadata that other objects repeat: its
// namespace, label and annotation keys and values, owners and finalizers. Names and UIDs of the
// object itself are its own and are left.
func ObjectMeta(m *metav1.ObjectMeta) {
	m.Namespace = str(m.Namespace)
	m.GenerateName = str(m.GenerateName)
	m.Labels, m.Annotations = stringMap(m.Labels), stringMap(m.Annotations)
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		r.APIVersion, r.Kind, r.Name, r.UID = str(r.APIVersion), str(r.Kind), str(r.Name), str[types.UID](r.UID)
	}
	for i := range m.Finalizers {
		m.Finalizers[i] = str(m.Finalizers[i])
	}
}

// Pod interns the strings of a pod that other pods repeat (see ObjectMeta for its metadata).
func Pod(pod *corev1.Pod) {
	ObjectMeta(&pod.ObjectMeta)
	podSpec(&pod.Spec)
	podStatus(&pod.Status)
}

func podSpec(spec *corev1.PodSpec) {
	spec.NodeName, spec.SchedulerName, spec.PriorityClassName = str(spec.NodeName), str(spec.SchedulerName), str(spec.PriorityClassName)
	spec.ServiceAccountName, spec.DeprecatedServiceAccount = str(spec.ServiceAccountName), str(spec.DeprecatedServiceAccount)
	spec.RestartPolicy, spec.DNSPolicy, spec.RuntimeClassName = str(spec.RestartPolicy), str(spec.DNSPolicy), internPtr(spec.RuntimeClassName)
	spec.Subdomain, spec.Hostname = str(spec.Subdomain), str(spec.Hostname)
	spec.NodeSelector = stringMap(spec.NodeSelector)
	for i := range spec.InitContainers {
		container(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		container(&spec.Containers[i])
	}
	spec.Tolerations = tolerations(spec.Tolerations)
	spec.SecurityContext = podSecurityContext(spec.SecurityContext)
	spec.Priority, spec.PreemptionPolicy = int32Ptrs.share(spec.Priority), preemptionPtrs.share(spec.PreemptionPolicy)
	spec.TerminationGracePeriodSeconds, spec.EnableServiceLinks = int64Ptrs.share(spec.TerminationGracePeriodSeconds), boolPtrs.share(spec.EnableServiceLinks)
	for i := range spec.Volumes {
		v := &spec.Volumes[i]
		v.Name = str(v.Name)
		if v.ConfigMap != nil {
			v.ConfigMap.Name = str(v.ConfigMap.Name)
		}
		if v.Secret != nil {
			v.Secret.SecretName = str(v.Secret.SecretName)
		}
	}
}

func podStatus(status *corev1.PodStatus) {
	status.Phase, status.QOSClass, status.Reason = str(status.Phase), str(status.QOSClass), str(status.Reason)
	status.HostIP, status.NominatedNodeName = str(status.HostIP), str(status.NominatedNodeName)
	for i := range status.HostIPs {
		status.HostIPs[i].IP = str(status.HostIPs[i].IP)
	}
	for i := range status.Conditions {
		c := &status.Conditions[i]
		c.Type, c.Status, c.Reason = str(c.Type), str(c.Status), str(c.Reason)
	}
	for _, statuses := range [][]corev1.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses} {
		for i := range statuses {
			cs := &statuses[i]
			cs.Name, cs.Image, cs.ImageID = str(cs.Name), str(cs.Image), str(cs.ImageID)
			if t := cs.State.Terminated; t != nil {
				t.Reason = str(t.Reason)
			}
			if w := cs.State.Waiting; w != nil {
				w.Reason = str(w.Reason)
			}
		}
	}
}

func container(c *corev1.Container) {
	c.Name, c.Image, c.ImagePullPolicy = str(c.Name), str(c.Image), str(c.ImagePullPolicy)
	c.TerminationMessagePath, c.TerminationMessagePolicy, c.WorkingDir = str(c.TerminationMessagePath), str(c.TerminationMessagePolicy), str(c.WorkingDir)
	for i := range c.Command {
		c.Command[i] = str(c.Command[i])
	}
	for i := range c.Args {
		c.Args[i] = str(c.Args[i])
	}
	for i := range c.Env {
		e := &c.Env[i]
		e.Name, e.Value = str(e.Name), str(e.Value)
	}
	for i := range c.Ports {
		p := &c.Ports[i]
		p.Name, p.Protocol = str(p.Name), str(p.Protocol)
	}
	for i := range c.VolumeMounts {
		m := &c.VolumeMounts[i]
		m.Name, m.MountPath, m.SubPath = str(m.Name), str(m.MountPath), str(m.SubPath)
	}
	c.Resources.Requests, c.Resources.Limits = resources(c.Resources.Requests), resources(c.Resources.Limits)
}

func internPtr[S ~string](s *S) *S {
	if s != nil {
		*s = str(*s)
	}
	return s
}

// Job interns the strings of a Volcano job that other jobs repeat: its metadata (see ObjectMeta),
// its spec's names, policies and plugins, its tasks' pod templates (as Pod does) and its status's
// task names, phases, reasons and messages. The job's own name, UID and Commands are left.
func Job(j *batchv1alpha1.Job) {
	ObjectMeta(&j.ObjectMeta)
	spec := &j.Spec
	spec.SchedulerName, spec.Queue, spec.PriorityClassName = str(spec.SchedulerName), str(spec.Queue), str(spec.PriorityClassName)
	for i := range spec.Volumes {
		v := &spec.Volumes[i]
		v.MountPath, v.VolumeClaimName = str(v.MountPath), str(v.VolumeClaimName)
		if c := v.VolumeClaim; c != nil {
			c.StorageClassName = internPtr(c.StorageClassName)
			for k := range c.AccessModes {
				c.AccessModes[k] = str(c.AccessModes[k])
			}
			c.Resources.Requests, c.Resources.Limits = resources(c.Resources.Requests), resources(c.Resources.Limits)
		}
	}
	policies(spec.Policies)
	for _, args := range spec.Plugins {
		for i := range args {
			args[i] = str(args[i])
		}
	}
	spec.Plugins = keys(spec.Plugins)
	jobTopology(spec.NetworkTopology)
	for i := range spec.Tasks {
		t := &spec.Tasks[i]
		t.Name, t.TopologyPolicy = str(t.Name), str(t.TopologyPolicy)
		ObjectMeta(&t.Template.ObjectMeta)
		podSpec(&t.Template.Spec)
		policies(t.Policies)
		if d := t.DependsOn; d != nil {
			for k := range d.Name {
				d.Name[k] = str(d.Name[k])
			}
			d.Iteration = str(d.Iteration)
		}
		if p := t.PartitionPolicy; p != nil {
			jobTopology(p.NetworkTopology)
		}
	}

	status := &j.Status
	status.State.Phase, status.State.Reason, status.State.Message = str(status.State.Phase), str(status.State.Reason), str(status.State.Message)
	for name, state := range status.TaskStatusCount {
		state.Phase = keys(state.Phase)
		status.TaskStatusCount[name] = state
	}
	status.TaskStatusCount = keys(status.TaskStatusCount)
	status.ControlledResources = stringMap(status.ControlledResources)
	status.Health = str(status.Health)
	conditions(status.Conditions)
}

func policies(ps []batchv1alpha1.LifecyclePolicy) {
	for i := range ps {
		p := &ps[i]
		p.Action, p.Event, p.When = str(p.Action), str(p.Event), str(p.When)
		for k := range p.Events {
			p.Events[k] = str(p.Events[k])
		}
	}
}

func jobTopology(nt *batchv1alpha1.NetworkTopologySpec) {
	if nt != nil {
		nt.Mode, nt.HighestTierName = str(nt.Mode), str(nt.HighestTierName)
	}
}

func conditions(cs []metav1.Condition) {
	for i := range cs {
		c := &cs[i]
		c.Type, c.Status, c.Reason, c.Message = str(c.Type), str(c.Status), str(c.Reason), str(c.Message)
	}
}

// PodGroup interns the strings of a PodGroup that other PodGroups repeat: its metadata (see
// ObjectMeta), queue, priority class, task names, minimum resources (shared as a pod's container
// resources are), network topology and subgroup policies, and its status's phase and conditions.
func PodGroup(pg *schedulingv1beta1.PodGroup) {
	ObjectMeta(&pg.ObjectMeta)
	spec := &pg.Spec
	spec.Queue, spec.PriorityClassName = str(spec.Queue), str(spec.PriorityClassName)
	spec.MinTaskMember = keys(spec.MinTaskMember)
	if spec.MinResources != nil {
		min := resources(*spec.MinResources)
		spec.MinResources = &min
	}
	groupTopology(spec.NetworkTopology)
	for i := range spec.SubGroupPolicy {
		p := &spec.SubGroupPolicy[i]
		p.Name = str(p.Name)
		groupTopology(p.NetworkTopology)
		for k := range p.MatchLabelKeys {
			p.MatchLabelKeys[k] = str(p.MatchLabelKeys[k])
		}
		if sel := p.LabelSelector; sel != nil {
			sel.MatchLabels = stringMap(sel.MatchLabels)
		}
	}
	status := &pg.Status
	status.Phase = str(status.Phase)
	for i := range status.Conditions {
		c := &status.Conditions[i]
		c.Type, c.Status, c.Reason, c.Message = str(c.Type), str(c.Status), str(c.Reason), str(c.Message)
	}
}

func groupTopology(nt *schedulingv1beta1.NetworkTopologySpec) {
	if nt != nil {
		nt.Mode, nt.HighestTierName = str(nt.Mode), str(nt.HighestTierName)
	}
}
