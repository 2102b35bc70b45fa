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

// Package predicates filters nodes as kube-scheduler does for the checks a batch scheduler
// needs: cordoned nodes, nodeSelector and required node affinity, taints and tolerations, and
// host ports. (Resources, extended resources such as nvidia.com/gpu included, and the pod count
// are checked for every placement by the framework.) Required inter-pod affinity and
// anti-affinity are honoured on any topology key (hostname, zone, rack), counting the pods placed
// earlier in the cycle, so a gang's own members spread or gather as its terms ask.
package predicates

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// Name is the plugin's name.
const Name = "predicates"

// Arguments (Volcano's names).
const (
	// NodeAffinityEnable switches the nodeSelector and node affinity filter.
	NodeAffinityEnable = "predicate.NodeAffinityEnable"
	// TaintTolerationEnable switches the taint filter.
	TaintTolerationEnable = "predicate.TaintTolerationEnable"
	// NodePortsEnable switches the host port filter.
	NodePortsEnable = "predicate.NodePortsEnable"
	// PodAffinityEnable switches the inter-pod affinity filter.
	PodAffinityEnable = "predicate.PodAffinityEnable"
	// PodTopologySpreadEnable switches the topology spread filter (whenUnsatisfiable:
	// DoNotSchedule).
	PodTopologySpreadEnable = "predicate.PodTopologySpreadEnable"
	// VolumeBindingEnable switches the PersistentVolumeClaim filter: claims that must exist and
	// be bound (Immediate), volumes reachable from the node, volumes or provisioning available
	// there (WaitForFirstConsumer).
	VolumeBindingEnable = "predicate.VolumeBindingEnable"
	// NodeVolumeLimitsEnable switches the CSI volume count filter (CSINode limits).
	NodeVolumeLimitsEnable = "predicate.NodeVolumeLimitsEnable"
	// VolumeZoneEnable switches the filter of volumes' zone and region labels.
	VolumeZoneEnable = "predicate.VolumeZoneEnable"
	// DynamicResourceAllocationEnable, when false, keeps pods with resourceClaims from being
	// placed (their claims are allocated otherwise; Volcano's default is false, which places them
	// without devices, where they cannot start).
	DynamicResourceAllocationEnable = "predicate.DynamicResourceAllocationEnable"
)

// Reasons, worded as kube-scheduler words them.
const (
	ReasonUnschedulable = "node(s) were unschedulable"
	ReasonNodeAffinity  = "node(s) didn't match Pod's node affinity/selector"
	ReasonNodePorts     = "node(s) didn't have free ports for the requested pod ports"
	ReasonPodAffinity   = "node(s) didn't match pod affinity rules"
	ReasonAntiAffinity  = "node(s) didn't match pod anti-affinity rules"
	ReasonSpread        = "node(s) didn't match pod topology spread constraints"
	ReasonSpreadLabel   = "node(s) didn't match pod topology spread constraints (missing required label)"
)

// VolumeReasons are the reasons kube-scheduler's volume binder gives for a node.
var VolumeReasons = []string{
	"node(s) didn't find available persistent volumes to bind",
	"node(s) didn't match PersistentVolume's node affinity",
	"node(s) did not have enough free storage",
	"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)",
	"node(s) exceed max volume count",
	"node(s) had no available volume zone",
}

// acceptedKeys are the arguments known: those used, and Volcano's others, accepted for
// compatibility.
var acceptedKeys = []string{
	NodeAffinityEnable, TaintTolerationEnable, NodePortsEnable, PodAffinityEnable, PodTopologySpreadEnable,
	VolumeBindingEnable, NodeVolumeLimitsEnable, VolumeZoneEnable, "predicate.CacheEnable",
	DynamicResourceAllocationEnable,
	"predicate.ProportionalEnable", "predicate.resources", "predicate.GPUSharingEnable", "predicate.GPUNumberEnable",
}

// Options switch the filters.
type Options struct {
	NodeAffinity, TaintToleration, NodePorts, PodAffinity, TopologySpread, VolumeBinding bool
	// DynamicResourceAllocation lets pods with resourceClaims be placed, their claims allocated.
	DynamicResourceAllocation bool
	// Volumes are the volume filters beside binding.
	Volumes framework.VolumeChecks
}

type plugin struct{ opts Options }

// New builds the plugin from its arguments.
func New(args conf.Arguments) (framework.Plugin, error) {
	if err := args.CheckKeys(acceptedKeys, "volumebinding.", "predicate.resources."); err != nil {
		return nil, err
	}
	var opts Options
	var err error
	for _, b := range []struct {
		key string
		dst *bool
	}{{NodeAffinityEnable, &opts.NodeAffinity}, {TaintTolerationEnable, &opts.TaintToleration}, {NodePortsEnable, &opts.NodePorts}, {PodAffinityEnable, &opts.PodAffinity},
		{PodTopologySpreadEnable, &opts.TopologySpread}, {VolumeBindingEnable, &opts.VolumeBinding},
		{NodeVolumeLimitsEnable, &opts.Volumes.Limits}, {VolumeZoneEnable, &opts.Volumes.Zone},
		{DynamicResourceAllocationEnable, &opts.DynamicResourceAllocation}} {
		if *b.dst, err = args.Bool(b.key, true); err != nil {
			return nil, err
		}
	}
	return &plugin{opts: opts}, nil
}

func (p *plugin) Name() string { return Name }

func (p *plugin) OnSessionOpen(ssn *framework.Session) {
	f := NewFilter(p.opts, ssn.Nodes)
	f.OnceReleased = ssn.OnceReleased
	if p.opts.VolumeBinding {
		f.Volumes = ssn.Volumes()
	}
	// A pod's claims are its own: a node its volumes refuse may suit the job's next pod.
	for _, r := range VolumeReasons {
		ssn.MarkPodSpecificReason(r)
	}
	// These reasons depend on the pod's own labels, not only on what its predicate key covers.
	ssn.MarkPodSpecificReason(ReasonAntiAffinity)
	ssn.MarkPodSpecificReason(ReasonPodAffinity)
	ssn.MarkPodSpecificReason(ReasonSpread)
	ssn.MarkPodSpecificReason(ReasonSpreadLabel)
	if p.opts.DynamicResourceAllocation {
		ssn.AddPrePredicateFn(Name, f.PreFilter)
	} else {
		ssn.AddPrePredicateFn(Name, func(t *api.TaskInfo) error {
			if api.UsesResourceClaims(t.Pod) {
				return fmt.Errorf("pod %s/%s has resourceClaims, and the scheduler configuration turns Dynamic Resource Allocation off (%s: false): it is not placed",
					t.Namespace, t.Name, DynamicResourceAllocationEnable)
			}
			return f.PreFilter(t)
		})
	}
	ssn.AddPredicateFn(Name, f.Filter)
	// A placement made or undone in the cycle may give a pod's affinity terms their first match;
	// a pod placed with anti-affinity on a wide topology refuses neighbours beyond its node.
	ssn.AddEventHandler(&framework.EventHandler{
		AllocateFunc: func(e *framework.Event) {
			f.ForgetAffinityMatches()
			clear(f.spread)
			if n, ok := ssn.Nodes[e.Task.NodeName]; ok && wideAntiAffinity(e.Task.Pod) {
				f.wideAnti[n.Name] = n
			}
		},
		DeallocateFunc: func(*framework.Event) { f.ForgetAffinityMatches(); clear(f.spread) },
	})
}

func (p *plugin) OnSessionClose(*framework.Session) {}

// Filter checks tasks against nodes; it remembers per task what it parsed.
type Filter struct {
	opts     Options
	nodes    map[string]*api.NodeInfo
	affinity map[api.TaskID]nodeaffinity.RequiredNodeAffinity
	// The last task seen, whose parsed affinity and host ports are kept at hand: a task is
	// checked against many nodes in a row.
	last      *api.TaskInfo
	lastAff   nodeaffinity.RequiredNodeAffinity
	lastPorts []hostPort
	// anyAffinityMatch remembers, per task, whether some pod anywhere matches one of its required
	// pod affinity terms; ForgetAffinityMatches clears it when a placement changes.
	anyAffinityMatch map[api.TaskID]bool
	// OnceReleased, when set and true, asks about nodes as they will be once their releasing
	// pods are gone: those pods hold no port and match no affinity term.
	OnceReleased func() bool
	// Topology indexes the nodes by topology domain.
	*Topology
	// wideAnti holds the nodes with a pod whose required anti-affinity uses a topology key other
	// than the hostname: such a pod refuses newcomers on other nodes of its domain.
	wideAnti map[string]*api.NodeInfo
	// spread holds, per task, the pod counts of its topology spread constraints, until a
	// placement is made or undone.
	spread map[api.TaskID][]SpreadCount
	// Volumes, when set, places pods' PersistentVolumeClaims.
	Volumes framework.Volumes
}

// wideAntiAffinity reports whether a pod has a required anti-affinity term on a topology key
// other than the hostname.
func wideAntiAffinity(pod *corev1.Pod) bool {
	if !api.HasRequiredAntiAffinity(pod) {
		return false
	}
	for _, term := range pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != corev1.LabelHostname {
			return true
		}
	}
	return false
}

// sameDomain reports whether nodes a and b share a value of the topology key: a node is its own
// hostname domain, and a node without the key's label is in no domain of it.
func sameDomain(key string, a, b *api.NodeInfo) bool {
	if a == b && key == corev1.LabelHostname {
		return true
	}
	if a.Node == nil || b.Node == nil {
		return false
	}
	va, ok := a.Node.Labels[key]
	if !ok {
		return false
	}
	vb, ok := b.Node.Labels[key]
	return ok && va == vb
}

// present reports whether a pod on the node counts for ports and inter-pod affinity.
func (f *Filter) present(nt *api.NodeTask) bool {
	return nt.Pod != nil && (nt.Status != api.Releasing || f.OnceReleased == nil || !f.OnceReleased())
}

// ForgetAffinityMatches drops what the filter remembers of which pods match whose affinity terms,
// after a placement was made or undone.
func (f *Filter) ForgetAffinityMatches() { clear(f.anyAffinityMatch) }

// NewFilter returns a filter over the given nodes.
func NewFilter(opts Options, nodes map[string]*api.NodeInfo) *Filter {
	f := &Filter{opts: opts, nodes: nodes, affinity: map[api.TaskID]nodeaffinity.RequiredNodeAffinity{},
		anyAffinityMatch: map[api.TaskID]bool{}, Topology: NewTopology(nodes), wideAnti: map[string]*api.NodeInfo{},
		spread: map[api.TaskID][]SpreadCount{}}
	for _, n := range nodes {
		if n.AntiAffinityPods == 0 {
			continue
		}
		for _, nt := range n.Tasks {
			if wideAntiAffinity(nt.Pod) {
				f.wideAnti[n.Name] = n
				break
			}
		}
	}
	return f
}

// PreFilter refuses pods whose claims cannot be used anywhere (missing, lost, being deleted, or
// unbound with Immediate binding) and pods whose inter-pod affinity terms cannot be evaluated.
func (f *Filter) PreFilter(t *api.TaskInfo) error {
	if f.Volumes != nil && api.UsesClaims(t.Pod) {
		if err := f.Volumes.PreFilter(t.Pod); err != nil {
			return err
		}
	}
	if !f.opts.PodAffinity || t.Pod == nil || t.Pod.Spec.Affinity == nil {
		return nil
	}
	a := t.Pod.Spec.Affinity
	var terms []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
	}
	for _, term := range terms {
		if term.TopologyKey == "" {
			return fmt.Errorf("pod %s/%s has a required pod (anti-)affinity term without a topologyKey; set one, e.g. %q", t.Namespace, t.Name, corev1.LabelHostname)
		}
		if _, err := selectorOf(term); err != nil {
			return fmt.Errorf("pod %s/%s has an invalid pod (anti-)affinity label selector: %v", t.Namespace, t.Name, err)
		}
	}
	return nil
}

// Filter returns "" when the task may go on the node, else the reason it may not. The checks run
// in kube-scheduler's order: cordon, taints, node affinity, ports, volumes, then inter-pod
// affinity and topology spread.
func (f *Filter) Filter(t *api.TaskInfo, n *api.NodeInfo) string {
	pod, node := t.Pod, n.Node
	if pod == nil || node == nil {
		return ""
	}
	if n.Unschedulable && !toleratesUnschedulable(pod) {
		return ReasonUnschedulable
	}
	if f.opts.TaintToleration && len(node.Spec.Taints) > 0 {
		if taint, found := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, hardTaint, false); found {
			return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)
		}
	}
	if f.last != t {
		f.last = t
		aff, ok := f.affinity[t.UID]
		if !ok {
			aff = nodeaffinity.GetRequiredNodeAffinity(pod)
			f.affinity[t.UID] = aff
		}
		f.lastAff = aff
		f.lastPorts = podPorts(pod)
	}
	if f.opts.NodeAffinity {
		if match, err := f.lastAff.Match(node); err != nil || !match {
			return ReasonNodeAffinity
		}
	}
	if f.opts.NodePorts && len(f.lastPorts) > 0 && f.portsConflict(pod, f.lastPorts, n) {
		return ReasonNodePorts
	}
	if f.Volumes != nil && api.UsesClaims(pod) {
		if reason := f.Volumes.Filter(pod, n, f.opts.Volumes); reason != "" {
			return reason
		}
	}
	if f.opts.PodAffinity && (n.AntiAffinityPods > 0 || len(f.wideAnti) > 0 || api.HasRequiredPodAffinity(pod)) {
		if reason := f.podAffinity(t, n); reason != "" {
			return reason
		}
	}
	if f.opts.TopologySpread && len(pod.Spec.TopologySpreadConstraints) > 0 {
		return f.topologySpread(t, n)
	}
	return ""
}

func hardTaint(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

func toleratesUnschedulable(pod *corev1.Pod) bool {
	taint := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	for i := range pod.Spec.Tolerations {
		if pod.Spec.Tolerations[i].ToleratesTaint(klog.Background(), &taint, false) {
			return true
		}
	}
	return false
}

type hostPort struct {
	protocol corev1.Protocol
	ip       string
	port     int32
}

func podPorts(pod *corev1.Pod) []hostPort {
	var out []hostPort
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort <= 0 {
				continue
			}
			proto := p.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			ip := p.HostIP
			if ip == "" {
				ip = "0.0.0.0"
			}
			out = append(out, hostPort{protocol: proto, ip: ip, port: p.HostPort})
		}
	}
	return out
}

func (f *Filter) portsConflict(pod *corev1.Pod, want []hostPort, n *api.NodeInfo) bool {
	for _, nt := range n.Tasks {
		if !f.present(nt) || nt.UID == pod.UID {
			continue
		}
		for _, have := range podPorts(nt.Pod) {
			for _, w := range want {
				if have.port == w.port && have.protocol == w.protocol && (have.ip == w.ip || have.ip == "0.0.0.0" || w.ip == "0.0.0.0") {
					return true
				}
			}
		}
	}
	return false
}

func selectorOf(term corev1.PodAffinityTerm) (labels.Selector, error) {
	if term.LabelSelector == nil {
		return labels.Nothing(), nil
	}
	return metav1.LabelSelectorAsSelector(term.LabelSelector)
}

// MatchesTerm reports whether pod other matches an affinity term of pod p.
func MatchesTerm(p *corev1.Pod, term corev1.PodAffinityTerm, other *corev1.Pod) bool {
	namespaces := term.Namespaces
	if len(namespaces) == 0 && term.NamespaceSelector == nil {
		namespaces = []string{p.Namespace}
	}
	if len(namespaces) > 0 {
		found := false
		for _, ns := range namespaces {
			if ns == other.Namespace {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	sel, err := selectorOf(term)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(other.Labels))
}

// firstOfItsKind reports whether a pod may go where no pod matches its required affinity terms,
// as kube-scheduler allows: no pod anywhere matches any of its terms and the pod matches all of
// them itself, so it is the first of its group (the others then follow it).
func (f *Filter) firstOfItsKind(t *api.TaskInfo, terms []corev1.PodAffinityTerm) bool {
	for _, term := range terms {
		if !MatchesTerm(t.Pod, term, t.Pod) {
			return false
		}
	}
	matched, known := f.anyAffinityMatch[t.UID]
	if !known {
		for _, node := range f.nodes {
			for _, nt := range node.Tasks {
				if nt.Pod == nil || nt.UID == t.UID {
					continue
				}
				for _, term := range terms {
					if MatchesTerm(t.Pod, term, nt.Pod) {
						matched = true
						break
					}
				}
				if matched {
					break
				}
			}
			if matched {
				break
			}
		}
		f.anyAffinityMatch[t.UID] = matched
	}
	return !matched
}

// podAffinity checks required pod affinity and anti-affinity against the pods in the node's
// topology domains (placed ones and those allocated earlier in the cycle).
func (f *Filter) podAffinity(t *api.TaskInfo, n *api.NodeInfo) string {
	a := t.Pod.Spec.Affinity
	if a == nil {
		a = &corev1.Affinity{}
	}
	if a.PodAntiAffinity != nil {
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if f.anyInDomain(t, term, n) {
				return ReasonAntiAffinity
			}
		}
	}
	if a.PodAffinity != nil {
		for _, term := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if !f.anyInDomain(t, term, n) && !f.firstOfItsKind(t, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) {
				return ReasonPodAffinity
			}
		}
	}
	// Pods already placed may refuse the newcomer: those on the node, and those on other nodes
	// of a domain their anti-affinity spans.
	if f.refusedBy(t, n, n) {
		return ReasonAntiAffinity
	}
	for _, m := range f.wideAnti {
		if m != n && f.refusedBy(t, m, n) {
			return ReasonAntiAffinity
		}
	}
	return ""
}

// anyInDomain reports whether a pod other than t in n's domain of the term's topology key matches
// the term.
func (f *Filter) anyInDomain(t *api.TaskInfo, term corev1.PodAffinityTerm, n *api.NodeInfo) bool {
	return f.AnyMatch(t, term, n, f.present)
}

// refusedBy reports whether a pod on node m has a required anti-affinity term that matches t
// and whose topology domain holds node n.
func (f *Filter) refusedBy(t *api.TaskInfo, m, n *api.NodeInfo) bool {
	if m.AntiAffinityPods == 0 {
		return false
	}
	for _, nt := range m.Tasks {
		if !f.present(nt) || nt.UID == t.UID || !api.HasRequiredAntiAffinity(nt.Pod) {
			continue
		}
		for _, term := range nt.Pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if sameDomain(term.TopologyKey, m, n) && MatchesTerm(nt.Pod, term, t.Pod) {
				return true
			}
		}
	}
	return false
}
