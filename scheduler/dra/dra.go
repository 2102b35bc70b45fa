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

// Package dra allocates pods' ResourceClaims (Dynamic Resource Allocation, resource.k8s.io/v1)
// as kube-scheduler does, with the structured-parameters allocator of
// k8s.io/dynamic-resource-allocation:
//
//   - a claim not made yet (from its ResourceClaimTemplate), being deleted, made for another pod,
//     reserved for as many consumers as a claim may have, or asking for a DeviceClass that does
//     not exist refuses the pod before any node is looked at;
//   - an allocated claim takes its pod to the nodes its allocation is on;
//   - a claim still to allocate needs devices on the node, from the node's ResourceSlices (or
//     slices for all nodes or for a node selector matching it), that no other claim holds;
//   - once a node is chosen the devices are allocated for the rest of the cycle, so the gang's
//     next member does not take the same ones; a gang that does not fit gives them all back;
//   - before the pod is bound, its claims get the finalizer resource.kubernetes.io/delete-protection,
//     their allocation and the pod in status.reservedFor. kube-controller-manager's ResourceClaim
//     controller takes finished pods out of reservedFor and deallocates claims none uses.
package dra

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/scheduler/api"
	schedcache "github.com/caldera-sh/caldera/scheduler/cache"
)

// ReasonCannotAllocate is why a node whose devices cannot satisfy a pod's claims is refused
// (kube-scheduler's words).
const ReasonCannotAllocate = "cannot allocate all claims"

// ReasonNotAvailable is why a node outside an allocated claim's nodes is refused (kube-scheduler's
// words).
const ReasonNotAvailable = "resourceclaim not available on the node"

// filterTimeout bounds one node's allocation attempt, as kube-scheduler's DRA filter timeout does.
const filterTimeout = 10 * time.Second

// Features are the allocator features of Kubernetes 1.36's defaults: admin access, prioritized
// lists, partitionable devices, device taints and consumable capacity. Devices with binding
// conditions are not chosen: this scheduler does not wait for them.
var Features = structured.Features{
	AdminAccess:          true,
	PrioritizedList:      true,
	PartitionableDevices: true,
	DeviceTaints:         true,
	ConsumableCapacity:   true,
}

// Allocator decides which devices pods' claims get and writes the allocations. It is safe for the
// scheduling cycle and the bind workers to use at once.
type Allocator struct {
	ctx      context.Context
	kube     kubernetes.Interface
	claims   resourcelisters.ResourceClaimLister
	slices   resourcelisters.ResourceSliceLister
	classes  classLister
	celCache *cel.Cache
	log      logr.Logger

	mu sync.Mutex
	// pods are the pods' claims as the cycle's pre-filter found them.
	pods map[types.UID]*podClaims
	// assumed are the claims allocated by placements: those of the cycle, and those committed
	// until the informer shows them allocated (or the pod's bind fails).
	assumed map[types.UID]*assumedClaim
	// reserved are the claims each placed pod needs written before it is bound.
	reserved map[types.UID]*reservation
	// state is the devices held by allocated and assumed claims; nil until a cycle needs it,
	// and again whenever an allocation is given back. version counts its changes.
	state   *structured.AllocatedState
	version uint64
}

// podClaims are a pod's claims in the order of spec.resourceClaims, as the informer has them.
type podClaims struct {
	claims []*resourceapi.ResourceClaim
	// allocator is built on the device state of version, for the claims still to allocate.
	allocator structured.Allocator
	version   uint64
	// results are, per node, the allocations of the claims still to allocate (in order), found
	// on state version.
	results map[string][]resourceapi.AllocationResult
}

type assumedClaim struct {
	claim     *resourceapi.ResourceClaim
	pod       types.UID
	committed bool
}

type reservation struct {
	node      string
	writes    []claimWrite
	committed bool
}

// claimWrite is what a pod's bind writes to one claim: the allocation (nil when the claim was
// allocated already) and the pod as a consumer.
type claimWrite struct {
	namespace, name string
	uid             types.UID
	allocation      *resourceapi.AllocationResult
}

// New builds an Allocator on the manager's informers for ResourceClaims, ResourceSlices and
// DeviceClasses, which it starts if they are not yet (the caller waits for the cache to sync before
// the first cycle).
func New(ctx context.Context, kube kubernetes.Interface, informers crcache.Informers, log logr.Logger) (*Allocator, error) {
	get := func(obj client.Object) (toolscache.Indexer, error) {
		inf, err := schedcache.SharedInformer(ctx, informers, obj)
		if err != nil {
			return nil, err
		}
		return inf.GetIndexer(), nil
	}
	claims, err1 := get(&resourceapi.ResourceClaim{})
	sl, err2 := get(&resourceapi.ResourceSlice{})
	classes, err3 := get(&resourceapi.DeviceClass{})
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	return newAllocator(ctx, kube, claims, sl, classes, log), nil
}

func newAllocator(ctx context.Context, kube kubernetes.Interface, claims, sl, classes toolscache.Indexer, log logr.Logger) *Allocator {
	return &Allocator{
		ctx:      ctx,
		kube:     kube,
		claims:   resourcelisters.NewResourceClaimLister(claims),
		slices:   resourcelisters.NewResourceSliceLister(sl),
		classes:  classLister{resourcelisters.NewDeviceClassLister(classes)},
		celCache: cel.NewCache(1000, cel.Features{EnableConsumableCapacity: Features.ConsumableCapacity}),
		log:      log,
		pods:     map[types.UID]*podClaims{},
		assumed:  map[types.UID]*assumedClaim{},
		reserved: map[types.UID]*reservation{},
	}
}

// PreFilter finds the pod's claims and says why they let it go on no node, or returns nil; it
// remembers them for Filter until the cycle ends.
func (a *Allocator) PreFilter(pod *corev1.Pod) error {
	pc, err := a.podClaims(pod)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, claim := range pc.claims {
		claim = a.currentLocked(claim)
		if claim.Status.Allocation != nil {
			// The API takes no more consumers than that.
			if len(claim.Status.ReservedFor) >= resourceapi.ResourceClaimReservedForMaxSize && !resourceclaim.IsReservedForPod(pod, claim, false) {
				return fmt.Errorf("resourceclaim %q is in use by as many consumers as it may have (%d)", claim.Name, resourceapi.ResourceClaimReservedForMaxSize)
			}
			continue
		}
		if err := a.checkClasses(claim); err != nil {
			return err
		}
	}
	a.pods[pod.UID] = pc
	return nil
}

// podClaims reads the claims a pod names, refusing the pod when one is missing, being deleted or
// made for another pod.
func (a *Allocator) podClaims(pod *corev1.Pod) (*podClaims, error) {
	pc := &podClaims{results: map[string][]resourceapi.AllocationResult{}}
	for i := range pod.Spec.ResourceClaims {
		podClaim := &pod.Spec.ResourceClaims[i]
		name, mustCheckOwner, err := resourceclaim.Name(pod, podClaim)
		if errors.Is(err, resourceclaim.ErrClaimNotFound) {
			return nil, fmt.Errorf("waiting for the ResourceClaim of pod claim %q to be made from ResourceClaimTemplate %q (by kube-controller-manager's ResourceClaim controller)",
				podClaim.Name, ptr.Deref(podClaim.ResourceClaimTemplateName, ""))
		}
		if err != nil {
			return nil, err
		}
		if name == nil {
			// The template made no claim: the pod does not need one.
			continue
		}
		claim, err := a.claims.ResourceClaims(pod.Namespace).Get(*name)
		if err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("resourceclaim %q of pod claim %q does not exist", *name, podClaim.Name)
			}
			return nil, err
		}
		if claim.DeletionTimestamp != nil {
			return nil, fmt.Errorf("resourceclaim %q is being deleted", claim.Name)
		}
		if mustCheckOwner {
			if err := resourceclaim.IsForPod(pod, claim, false); err != nil {
				return nil, err
			}
		}
		pc.claims = append(pc.claims, claim)
	}
	return pc, nil
}

// checkClasses refuses a claim whose requests name a DeviceClass that does not exist.
func (a *Allocator) checkClasses(claim *resourceapi.ResourceClaim) error {
	check := func(class, request string) error {
		if class == "" {
			return fmt.Errorf("resourceclaim %q, request %s: no deviceClassName", claim.Name, request)
		}
		if _, err := a.classes.Get(class); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("resourceclaim %q, request %s: device class %s does not exist", claim.Name, request, class)
			}
			return err
		}
		return nil
	}
	for _, req := range claim.Spec.Devices.Requests {
		switch {
		case req.Exactly != nil:
			if err := check(req.Exactly.DeviceClassName, req.Name); err != nil {
				return err
			}
		case len(req.FirstAvailable) > 0:
			for _, sub := range req.FirstAvailable {
				if err := check(sub.DeviceClassName, req.Name+"/"+sub.Name); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("resourceclaim %q, request %s: neither exactly nor firstAvailable is set", claim.Name, req.Name)
		}
	}
	return nil
}

// currentLocked returns the claim as the cycle sees it: allocated by a placement, or as the
// informer has it.
func (a *Allocator) currentLocked(claim *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	if c, ok := a.assumed[claim.UID]; ok && claim.Status.Allocation == nil {
		return c.claim
	}
	return claim
}

// Filter returns why the pod's claims cannot be had on the node, or "".
func (a *Allocator) Filter(pod *corev1.Pod, n *api.NodeInfo) string {
	_, reason := a.allocate(pod, n.Node)
	return reason
}

// allocate finds the allocations of the pod's claims still to allocate on node, or why there are
// none.
func (a *Allocator) allocate(pod *corev1.Pod, node *corev1.Node) ([]resourceapi.AllocationResult, string) {
	a.mu.Lock()
	pc, ok := a.pods[pod.UID]
	a.mu.Unlock()
	if !ok {
		if err := a.PreFilter(pod); err != nil {
			return nil, err.Error()
		}
		a.mu.Lock()
		pc = a.pods[pod.UID]
		a.mu.Unlock()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var toAllocate []*resourceapi.ResourceClaim
	for _, claim := range pc.claims {
		claim = a.currentLocked(claim)
		if alloc := claim.Status.Allocation; alloc != nil {
			if alloc.NodeSelector != nil {
				sel, err := nodeaffinity.NewNodeSelector(alloc.NodeSelector)
				if err != nil {
					return nil, fmt.Sprintf("resourceclaim %q: its allocation's node selector: %v", claim.Name, err)
				}
				if !sel.Match(node) {
					return nil, ReasonNotAvailable
				}
			}
			continue
		}
		toAllocate = append(toAllocate, claim)
	}
	if len(toAllocate) == 0 {
		return nil, ""
	}
	if err := a.ensureStateLocked(); err != nil {
		return nil, err.Error()
	}
	if pc.allocator == nil || pc.version != a.version {
		alloc, err := structured.NewAllocator(a.ctx, Features, *a.state, a.classes, a.sliceList(), a.celCache)
		if err != nil {
			return nil, err.Error()
		}
		pc.allocator, pc.version = alloc, a.version
		clear(pc.results)
	}
	if results, ok := pc.results[node.Name]; ok && len(results) == len(toAllocate) {
		return results, ""
	}
	ctx, cancel := context.WithTimeout(a.ctx, filterTimeout)
	defer cancel()
	results, err := pc.allocator.Allocate(ctx, node, toAllocate)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Sprintf("timed out trying to allocate devices on node %s", node.Name)
	case errors.Is(err, structured.ErrFailedAllocationOnNode):
		return nil, err.Error()
	case err != nil:
		return nil, err.Error()
	case len(results) != len(toAllocate):
		return nil, ReasonCannotAllocate
	}
	pc.results[node.Name] = results
	return results, ""
}

func (a *Allocator) sliceList() []*resourceapi.ResourceSlice {
	out, err := a.slices.List(labels.Everything())
	if err != nil {
		return nil
	}
	return out
}

// ensureStateLocked works out the devices allocated claims hold, when a change made it unknown.
func (a *Allocator) ensureStateLocked() error {
	if a.state != nil {
		return nil
	}
	all, err := a.claims.List(labels.Everything())
	if err != nil {
		return err
	}
	st := &structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	seen := make(sets.Set[types.UID], len(all))
	for _, claim := range all {
		seen.Insert(claim.UID)
		addDevices(st, a.currentLocked(claim))
	}
	for uid, c := range a.assumed {
		if !seen.Has(uid) {
			addDevices(st, c.claim)
		}
	}
	a.state = st
	a.version++
	return nil
}

// addDevices counts the devices of a claim's allocation as taken (those allocated with admin
// access take nothing), or their share of capacity.
func addDevices(st *structured.AllocatedState, claim *resourceapi.ResourceClaim) {
	if claim.Status.Allocation == nil {
		return
	}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
		if r.ShareID != nil {
			st.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, r.ShareID))
			if r.ConsumedCapacity != nil {
				st.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
			}
			continue
		}
		st.AllocatedDevices.Insert(id)
	}
}

// Reserve allocates the pod's claims on node for the rest of the cycle, so that pods placed after
// it do not count on the same devices. A reservation the cycle does not commit is given back when
// it ends.
func (a *Allocator) Reserve(pod *corev1.Pod, node *corev1.Node) error {
	results, reason := a.allocate(pod, node)
	if reason != "" {
		return fmt.Errorf("the resourceClaims of pod %s/%s cannot be allocated on node %s: %s", pod.Namespace, pod.Name, node.Name, reason)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unreserveLocked(pod.UID)
	pc := a.pods[pod.UID]
	r := &reservation{node: node.Name}
	next := 0
	for _, claim := range pc.claims {
		cur := a.currentLocked(claim)
		w := claimWrite{namespace: claim.Namespace, name: claim.Name, uid: claim.UID}
		if cur.Status.Allocation == nil {
			alloc := results[next].DeepCopy()
			next++
			w.allocation = alloc
			assumed := claim.DeepCopy()
			assumed.Status.Allocation = alloc
			a.assumed[claim.UID] = &assumedClaim{claim: assumed, pod: pod.UID}
			if a.state != nil {
				addDevices(a.state, assumed)
				a.version++
			}
		} else if resourceclaim.IsReservedForPod(pod, cur, false) {
			continue
		}
		r.writes = append(r.writes, w)
	}
	a.reserved[pod.UID] = r
	return nil
}

// Unreserve gives back what Reserve allocated for a pod.
func (a *Allocator) Unreserve(uid types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unreserveLocked(uid)
}

func (a *Allocator) unreserveLocked(uid types.UID) {
	if _, ok := a.reserved[uid]; !ok {
		return
	}
	delete(a.reserved, uid)
	for id, c := range a.assumed {
		if c.pod == uid {
			delete(a.assumed, id)
			a.state = nil
		}
	}
}

// Commit keeps a pod's allocation past the cycle: the pod goes to be bound.
func (a *Allocator) Commit(uid types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r, ok := a.reserved[uid]; ok {
		r.committed = true
	}
	for _, c := range a.assumed {
		if c.pod == uid {
			c.committed = true
		}
	}
}

// CloseSession ends a cycle: allocations it did not commit are given back, committed ones the
// informer now shows are forgotten, and the claims it read are forgotten (the next cycle reads
// them anew).
func (a *Allocator) CloseSession() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for uid, r := range a.reserved {
		if !r.committed {
			a.unreserveLocked(uid)
		}
	}
	for id, c := range a.assumed {
		cur, err := a.claims.ResourceClaims(c.claim.Namespace).Get(c.claim.Name)
		if apierrors.IsNotFound(err) || err == nil && (cur.UID != id || cur.Status.Allocation != nil) {
			delete(a.assumed, id)
		}
	}
	clear(a.pods)
	a.state = nil
}

// NeedsBinding reports whether a pod's claims must be written before the pod is bound.
func (a *Allocator) NeedsBinding(uid types.UID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.reserved[uid]
	if ok && len(r.writes) == 0 {
		delete(a.reserved, uid)
		return false
	}
	return ok
}

// Bind writes the pod's claims: the finalizer that keeps an allocated claim from going while
// allocated, the allocation, and the pod as a consumer. On failure the allocations are given
// back; the pod is placed again.
func (a *Allocator) Bind(ctx context.Context, pod *corev1.Pod) error {
	a.mu.Lock()
	r, ok := a.reserved[pod.UID]
	a.mu.Unlock()
	if !ok {
		return nil
	}
	for _, w := range r.writes {
		if err := a.write(ctx, pod, w); err != nil {
			a.Unreserve(pod.UID)
			return err
		}
	}
	a.mu.Lock()
	delete(a.reserved, pod.UID)
	a.mu.Unlock()
	return nil
}

func (a *Allocator) write(ctx context.Context, pod *corev1.Pod, w claimWrite) error {
	claims := a.kube.ResourceV1().ResourceClaims(w.namespace)
	fresh := false
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var claim *resourceapi.ResourceClaim
		var err error
		if cached, cerr := a.claims.ResourceClaims(w.namespace).Get(w.name); cerr == nil && !fresh {
			claim = cached.DeepCopy()
		} else if claim, err = claims.Get(ctx, w.name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("reading resourceclaim %s/%s: %w", w.namespace, w.name, err)
		}
		fresh = true
		switch {
		case claim.UID != w.uid:
			return fmt.Errorf("resourceclaim %s/%s was replaced in the meantime", w.namespace, w.name)
		case claim.DeletionTimestamp != nil:
			return fmt.Errorf("resourceclaim %s/%s is being deleted", w.namespace, w.name)
		}
		if w.allocation != nil {
			if claim.Status.Allocation != nil {
				return fmt.Errorf("resourceclaim %s/%s was allocated elsewhere in the meantime", w.namespace, w.name)
			}
			if !slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
				claim.Finalizers = append(claim.Finalizers, resourceapi.Finalizer)
				if claim, err = claims.Update(ctx, claim, metav1.UpdateOptions{}); err != nil {
					return fmt.Errorf("adding the finalizer to resourceclaim %s/%s: %w", w.namespace, w.name, err)
				}
			}
			claim.Status.Allocation = w.allocation
		} else if claim.Status.Allocation == nil {
			return fmt.Errorf("resourceclaim %s/%s was deallocated in the meantime", w.namespace, w.name)
		}
		if !resourceclaim.IsReservedForPod(pod, claim, false) {
			claim.Status.ReservedFor = append(claim.Status.ReservedFor,
				resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID})
		}
		if _, err := claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("writing the allocation of resourceclaim %s/%s: %w", w.namespace, w.name, err)
		}
		return nil
	})
}

// classLister is the DeviceClass lister as the allocator reads it.
type classLister struct {
	lister resourcelisters.DeviceClassLister
}

func (l classLister) List() ([]*resourceapi.DeviceClass, error) {
	return l.lister.List(labels.Everything())
}

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) { return l.lister.Get(name) }
