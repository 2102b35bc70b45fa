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

package volumes

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/component-helpers/storage/volume"

	"github.com/caldera-sh/caldera/scheduler/api"
)

// ReasonMaxVolumeCount is why a node whose CSI drivers can attach no more volumes is refused.
const ReasonMaxVolumeCount = "node(s) exceed max volume count"

// attachmentsByNode indexes VolumeAttachments by the node they attach to.
const attachmentsByNode = "caldera.sh/volumeattachment-node"

// limits counts CSI volumes against the node's CSINode allocatable counts, as kube-scheduler's
// NodeVolumeLimits filter does: a volume is counted once per node however many pods use it, the
// volumes of the node's pods and its VolumeAttachments count as attached, and an unbound claim
// counts for its StorageClass's provisioner. Volumes of in-tree plugins are not counted.
type limits struct {
	pvcs        corelisters.PersistentVolumeClaimLister
	pvs         corelisters.PersistentVolumeLister
	classes     storagelisters.StorageClassLister
	csiNodes    storagelisters.CSINodeLister
	attachments toolscache.Indexer
}

func newLimits(inf informerSet) (*limits, error) {
	err := inf.attachments.AddIndexers(toolscache.Indexers{attachmentsByNode: func(obj any) ([]string, error) {
		if va, ok := obj.(*storagev1.VolumeAttachment); ok {
			return []string{va.Spec.NodeName}, nil
		}
		return nil, nil
	}})
	if err != nil && inf.attachments.GetIndexer().GetIndexers()[attachmentsByNode] == nil {
		return nil, fmt.Errorf("indexing VolumeAttachments by node: %w", err)
	}
	return &limits{
		pvcs:        corelisters.NewPersistentVolumeClaimLister(inf.pvcs.GetIndexer()),
		pvs:         corelisters.NewPersistentVolumeLister(inf.pvs.GetIndexer()),
		classes:     storagelisters.NewStorageClassLister(inf.classes.GetIndexer()),
		csiNodes:    storagelisters.NewCSINodeLister(inf.csiNodes.GetIndexer()),
		attachments: inf.attachments.GetIndexer(),
	}, nil
}

// exceeded reports whether placing pod on the node would attach more volumes of some CSI driver
// than the node allows.
func (l *limits) exceeded(pod *corev1.Pod, n *api.NodeInfo) bool {
	node := n.Node
	csiNode, err := l.csiNodes.Get(node.Name)
	if err != nil {
		return false // no CSINode: no driver reports a limit
	}
	max := map[string]int{}
	for _, d := range csiNode.Spec.Drivers {
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			max[d.Name] = int(*d.Allocatable.Count)
		}
	}
	if len(max) == 0 {
		return false
	}
	added := map[string]string{}
	l.volumesOf(pod, added)
	if len(added) == 0 {
		return false
	}
	attached := map[string]string{}
	for _, nt := range n.Tasks {
		if nt.Pod != nil && nt.UID != pod.UID {
			l.volumesOf(nt.Pod, attached)
		}
	}
	if vas, err := l.attachments.ByIndex(attachmentsByNode, node.Name); err == nil {
		for _, obj := range vas {
			va, ok := obj.(*storagev1.VolumeAttachment)
			if !ok || va.Spec.Source.PersistentVolumeName == nil {
				continue
			}
			pv, err := l.pvs.Get(*va.Spec.Source.PersistentVolumeName)
			if err != nil || pv.Spec.CSI == nil {
				continue
			}
			attached[pv.Spec.CSI.Driver+"/"+pv.Spec.CSI.VolumeHandle] = pv.Spec.CSI.Driver
		}
	}
	attachedCount := map[string]int{}
	for name, driver := range attached {
		delete(added, name) // a volume the node has already adds nothing
		attachedCount[driver]++
	}
	addedCount := map[string]int{}
	for _, driver := range added {
		addedCount[driver]++
	}
	for driver, n := range addedCount {
		if limit, ok := max[driver]; ok && attachedCount[driver]+n > limit {
			return true
		}
	}
	return false
}

// volumesOf adds to out, keyed driver/handle, the CSI volumes of the pod's claims.
func (l *limits) volumesOf(pod *corev1.Pod, out map[string]string) {
	for _, name := range claimNames(pod) {
		pvc, err := l.pvcs.PersistentVolumeClaims(pod.Namespace).Get(name)
		if err != nil {
			continue
		}
		if driver, handle := l.csiVolume(pvc); driver != "" {
			out[driver+"/"+handle] = driver
		}
	}
}

// csiVolume returns the driver and handle of a claim's volume; an unbound claim counts as a new
// volume of its class's provisioner.
func (l *limits) csiVolume(pvc *corev1.PersistentVolumeClaim) (driver, handle string) {
	if pvc.Spec.VolumeName != "" {
		if pv, err := l.pvs.Get(pvc.Spec.VolumeName); err == nil {
			if pv.Spec.CSI == nil {
				return "", ""
			}
			return pv.Spec.CSI.Driver, pv.Spec.CSI.VolumeHandle
		}
	}
	class := volume.GetPersistentVolumeClaimClass(pvc)
	if class == "" {
		return "", ""
	}
	sc, err := l.classes.Get(class)
	if err != nil {
		return "", ""
	}
	return sc.Provisioner, "unbound:" + string(pvc.UID) + "/" + types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}.String()
}
