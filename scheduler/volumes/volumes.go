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

// Package volumes places pods' PersistentVolumeClaims as kube-scheduler does, with its own
// volume binder (k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumebinding):
//
//   - a claim that is missing, being deleted, lost, or unbound with Immediate binding refuses the
//     pod before any node is looked at, and so does a ReadWriteOncePod claim another pod uses;
//   - a node whose CSI drivers can attach no more volumes (CSINode allocatable counts) is refused;
//   - a bound claim's PersistentVolume must be reachable from the node (its node affinity, and
//     its zone and region labels);
//   - an unbound WaitForFirstConsumer claim needs, on the node, an available PersistentVolume that
//     satisfies it (class, access modes, size, selector, node affinity) or a StorageClass that can
//     provision there (allowedTopologies, CSIStorageCapacity);
//   - once a node is chosen the matches are assumed, so the gang's next member does not take the
//     same volume; a gang that does not fit gives them all back;
//   - before the pod is bound its claims are bound: matched volumes get the claim, claims to
//     provision get the annotation volume.kubernetes.io/selected-node; the pod is bound once
//     kube-controller-manager's PersistentVolume controller reports them bound.
package volumes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/component-helpers/storage/volume"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumebinding"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/scheduler/api"
	schedcache "github.com/caldera-sh/caldera/scheduler/cache"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// DefaultBindTimeout is how long a pod waits for its claims to be bound before its bind is given
// up and it is placed again (kube-scheduler's VolumeBinding bindTimeoutSeconds).
const DefaultBindTimeout = 600 * time.Second

// ReasonUnboundImmediate is why a pod whose Immediate claims are not bound yet goes nowhere.
const ReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"

// Binder decides where pods' claims can be satisfied and binds them. It is safe for the
// scheduling cycle and the bind workers to use at once.
type Binder struct {
	binder  volumebinding.SchedulerVolumeBinder
	limits  *limits
	pvcs    corelisters.PersistentVolumeClaimLister
	pvs     corelisters.PersistentVolumeLister
	pods    corelisters.PodLister
	classes storagelisters.StorageClassLister
	log     logr.Logger

	mu sync.Mutex
	// claims are the pods' claims as the cycle's pre-filter sorted them.
	claims map[types.UID]*volumebinding.PodVolumeClaims
	// reserved are the volumes assumed for pods placed by a cycle, until they are bound or given
	// back.
	reserved map[types.UID]*reservation
}

type reservation struct {
	volumes   *volumebinding.PodVolumes
	node      string
	allBound  bool
	committed bool
}

// New builds a Binder on the manager's informers for the objects volume binding reads, which it
// starts if they are not yet (the caller waits for the cache to sync before the first cycle).
func New(ctx context.Context, kube kubernetes.Interface, informers crcache.Informers, bindTimeout time.Duration, log logr.Logger) (*Binder, error) {
	var inf informerSet
	var errs []error
	for _, w := range []struct {
		obj client.Object
		dst *toolscache.SharedIndexInformer
	}{
		{&corev1.Pod{}, &inf.pods}, {&corev1.Node{}, &inf.nodes}, {&corev1.PersistentVolumeClaim{}, &inf.pvcs},
		{&corev1.PersistentVolume{}, &inf.pvs}, {&storagev1.StorageClass{}, &inf.classes}, {&storagev1.CSINode{}, &inf.csiNodes},
		{&storagev1.CSIDriver{}, &inf.csiDrivers}, {&storagev1.CSIStorageCapacity{}, &inf.capacities},
		{&storagev1.VolumeAttachment{}, &inf.attachments},
	} {
		var err error
		*w.dst, err = schedcache.SharedInformer(ctx, informers, w.obj)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return newBinder(kube, inf, bindTimeout, log)
}

func newBinder(kube kubernetes.Interface, inf informerSet, bindTimeout time.Duration, log logr.Logger) (*Binder, error) {
	// Features as kube-scheduler 1.36 has them by default: VolumeAttributesClass is GA.
	fts := feature.Features{EnableVolumeAttributesClass: true}
	b, err := volumebinding.NewVolumeBinder(log, kube, fts,
		informer[corelisters.PodLister]{inf.pods, corelisters.NewPodLister},
		informer[corelisters.NodeLister]{inf.nodes, corelisters.NewNodeLister},
		informer[storagelisters.CSINodeLister]{inf.csiNodes, storagelisters.NewCSINodeLister},
		informer[corelisters.PersistentVolumeClaimLister]{inf.pvcs, corelisters.NewPersistentVolumeClaimLister},
		informer[corelisters.PersistentVolumeLister]{inf.pvs, corelisters.NewPersistentVolumeLister},
		informer[storagelisters.StorageClassLister]{inf.classes, storagelisters.NewStorageClassLister},
		volumebinding.CapacityCheck{
			CSIDriverInformer:          informer[storagelisters.CSIDriverLister]{inf.csiDrivers, storagelisters.NewCSIDriverLister},
			CSIStorageCapacityInformer: informer[storagelisters.CSIStorageCapacityLister]{inf.capacities, storagelisters.NewCSIStorageCapacityLister},
		},
		bindTimeout)
	if err != nil {
		return nil, fmt.Errorf("building the volume binder: %w", err)
	}
	l, err := newLimits(inf)
	if err != nil {
		return nil, err
	}
	return &Binder{
		binder:   b,
		limits:   l,
		pvcs:     corelisters.NewPersistentVolumeClaimLister(inf.pvcs.GetIndexer()),
		classes:  storagelisters.NewStorageClassLister(inf.classes.GetIndexer()),
		pvs:      corelisters.NewPersistentVolumeLister(inf.pvs.GetIndexer()),
		pods:     corelisters.NewPodLister(inf.pods.GetIndexer()),
		log:      log,
		claims:   map[types.UID]*volumebinding.PodVolumeClaims{},
		reserved: map[types.UID]*reservation{},
	}, nil
}

// PreFilter says why a pod's claims let it go on no node, worded as kube-scheduler words it, or
// returns nil; it remembers the claims for Filter until the cycle ends.
func (b *Binder) PreFilter(pod *corev1.Pod) error {
	immediate, err := b.checkClaims(pod)
	if err != nil {
		return err
	}
	if immediate {
		return errors.New(ReasonUnboundImmediate)
	}
	if b.readWriteOncePodInUse(pod) {
		return errors.New(ReasonReadWriteOncePod)
	}
	claims, err := b.binder.GetPodVolumeClaims(b.log, pod)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.claims[pod.UID] = claims
	b.mu.Unlock()
	return nil
}

// checkClaims finds each claim the pod names and refuses the pod when one is missing, lost,
// being deleted, or (generic ephemeral) made for another pod. immediate is set when a claim is not
// bound yet and binds Immediate (or names its volume already): the PersistentVolume controller
// binds those, wherever the pod goes.
func (b *Binder) checkClaims(pod *corev1.Pod) (immediate bool, err error) {
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		var name string
		ephemeralVolume := false
		switch {
		case vol.PersistentVolumeClaim != nil:
			name = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			name = ephemeral.VolumeClaimName(pod, vol)
			ephemeralVolume = true
		default:
			continue
		}
		pvc, err := b.pvcs.PersistentVolumeClaims(pod.Namespace).Get(name)
		if err != nil {
			if ephemeralVolume && apierrors.IsNotFound(err) {
				return false, fmt.Errorf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", name)
			}
			return false, err
		}
		switch {
		case pvc.Status.Phase == corev1.ClaimLost:
			return false, fmt.Errorf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", pvc.Name, pvc.Spec.VolumeName)
		case pvc.DeletionTimestamp != nil:
			return false, fmt.Errorf("persistentvolumeclaim %q is being deleted", pvc.Name)
		}
		if ephemeralVolume {
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return false, err
			}
		}
		if pvc.Spec.VolumeName != "" && metav1.HasAnnotation(pvc.ObjectMeta, volume.AnnBindCompleted) {
			continue
		}
		delay, err := volume.IsDelayBindingMode(pvc, b.classes)
		if err != nil {
			return false, err
		}
		if !delay || pvc.Spec.VolumeName != "" {
			immediate = true
		}
	}
	return immediate, nil
}

// Filter returns why the pod's claims cannot be satisfied on the node, or "": the node's CSI
// drivers can attach no more volumes, or the claims' volumes cannot be had there.
func (b *Binder) Filter(pod *corev1.Pod, n *api.NodeInfo, checks framework.VolumeChecks) string {
	if checks.Limits && b.limits.exceeded(pod, n) {
		return ReasonMaxVolumeCount
	}
	if _, reason := b.find(pod, n.Node); reason != "" {
		return reason
	}
	if checks.Zone && b.zoneConflict(pod, n.Node) {
		return ReasonVolumeZone
	}
	return ""
}

func (b *Binder) find(pod *corev1.Pod, node *corev1.Node) (*volumebinding.PodVolumes, string) {
	b.mu.Lock()
	claims, ok := b.claims[pod.UID]
	b.mu.Unlock()
	if !ok {
		if err := b.PreFilter(pod); err != nil {
			return nil, err.Error()
		}
		b.mu.Lock()
		claims = b.claims[pod.UID]
		b.mu.Unlock()
	}
	volumes, reasons, err := b.binder.FindPodVolumes(b.log, pod, claims, node)
	if err != nil {
		return nil, err.Error()
	}
	if len(reasons) > 0 {
		return nil, string(reasons[0])
	}
	return volumes, ""
}

// Reserve assumes the pod's volumes on node for the rest of the cycle, so that pods placed after
// it do not count on them. A reservation the cycle does not commit is given back when it ends.
func (b *Binder) Reserve(pod *corev1.Pod, node *corev1.Node) error {
	volumes, reason := b.find(pod, node)
	if reason != "" {
		return fmt.Errorf("the volumes of pod %s/%s do not fit node %s: %s", pod.Namespace, pod.Name, node.Name, reason)
	}
	allBound, err := b.binder.AssumePodVolumes(b.log, podOn(pod, node.Name), node.Name, volumes)
	if err != nil {
		return fmt.Errorf("assuming the volumes of pod %s/%s on node %s: %w", pod.Namespace, pod.Name, node.Name, err)
	}
	b.mu.Lock()
	if old, ok := b.reserved[pod.UID]; ok {
		b.binder.RevertAssumedPodVolumes(old.volumes)
	}
	b.reserved[pod.UID] = &reservation{volumes: volumes, node: node.Name, allBound: allBound}
	b.mu.Unlock()
	return nil
}

// Unreserve gives back what Reserve assumed for a pod.
func (b *Binder) Unreserve(uid types.UID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r, ok := b.reserved[uid]; ok {
		b.binder.RevertAssumedPodVolumes(r.volumes)
		delete(b.reserved, uid)
	}
}

// Commit keeps a pod's reservation past the cycle: the pod goes to be bound.
func (b *Binder) Commit(uid types.UID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r, ok := b.reserved[uid]; ok {
		r.committed = true
	}
}

// CloseSession ends a cycle: reservations it did not commit are given back, and the claims it
// sorted are forgotten (the next cycle reads them anew).
func (b *Binder) CloseSession() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for uid, r := range b.reserved {
		if !r.committed {
			b.binder.RevertAssumedPodVolumes(r.volumes)
			delete(b.reserved, uid)
		}
	}
	clear(b.claims)
}

// NeedsBinding reports whether a pod's claims must be bound before the pod is.
func (b *Binder) NeedsBinding(uid types.UID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.reserved[uid]
	if ok && r.allBound {
		delete(b.reserved, uid)
		return false
	}
	return ok
}

// Bind binds the claims the pod's reservation holds, and waits until the PersistentVolume
// controller has bound them all (or the bind timeout passes). On failure the reservation is given
// back; the pod is placed again.
func (b *Binder) Bind(ctx context.Context, pod *corev1.Pod) error {
	b.mu.Lock()
	r, ok := b.reserved[pod.UID]
	b.mu.Unlock()
	if !ok || r.allBound {
		b.forget(pod.UID)
		return nil
	}
	err := b.binder.BindPodVolumes(ctx, podOn(pod, r.node), r.volumes)
	if err != nil {
		b.Unreserve(pod.UID)
		return err
	}
	b.forget(pod.UID)
	return nil
}

func (b *Binder) forget(uid types.UID) {
	b.mu.Lock()
	delete(b.reserved, uid)
	b.mu.Unlock()
}

// podOn returns the pod as it is once bound to node, which the binder reads the node from.
func podOn(pod *corev1.Pod, node string) *corev1.Pod {
	if pod.Spec.NodeName == node {
		return pod
	}
	p := pod.DeepCopy()
	p.Spec.NodeName = node
	return p
}

// informerSet holds the informers the binder reads.
type informerSet struct {
	pods, nodes, pvcs, pvs, classes, csiNodes, csiDrivers, capacities, attachments toolscache.SharedIndexInformer
}

// informer is one of the informer types of client-go's factories (an informer and its lister)
// over one of the manager's informers.
type informer[L any] struct {
	inf       toolscache.SharedIndexInformer
	newLister func(toolscache.Indexer) L
}

func (i informer[L]) Informer() toolscache.SharedIndexInformer { return i.inf }
func (i informer[L]) Lister() L                                { return i.newLister(i.inf.GetIndexer()) }

var (
	_ coreinformers.PodInformer                   = informer[corelisters.PodLister]{}
	_ coreinformers.NodeInformer                  = informer[corelisters.NodeLister]{}
	_ coreinformers.PersistentVolumeClaimInformer = informer[corelisters.PersistentVolumeClaimLister]{}
	_ coreinformers.PersistentVolumeInformer      = informer[corelisters.PersistentVolumeLister]{}
	_ storageinformers.StorageClassInformer       = informer[storagelisters.StorageClassLister]{}
	_ storageinformers.CSINodeInformer            = informer[storagelisters.CSINodeLister]{}
	_ storageinformers.CSIDriverInformer          = informer[storagelisters.CSIDriverLister]{}
	_ storageinformers.CSIStorageCapacityInformer = informer[storagelisters.CSIStorageCapacityLister]{}
)
