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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/storage/ephemeral"
)

// Reasons, worded as kube-scheduler's VolumeZone and VolumeRestrictions filters word them.
const (
	ReasonVolumeZone       = "node(s) had no available volume zone"
	ReasonReadWriteOncePod = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

// topologyLabels are the labels a PersistentVolume's zone and region are read from.
var topologyLabels = []string{
	corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion,
	corev1.LabelTopologyZone, corev1.LabelTopologyRegion,
}

// claimNames returns the names of the claims the pod's volumes use.
func claimNames(pod *corev1.Pod) []string {
	var out []string
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		switch {
		case vol.PersistentVolumeClaim != nil:
			out = append(out, vol.PersistentVolumeClaim.ClaimName)
		case vol.Ephemeral != nil:
			out = append(out, ephemeral.VolumeClaimName(pod, vol))
		}
	}
	return out
}

// readWriteOncePodInUse reports whether one of the pod's ReadWriteOncePod claims is used by
// another pod that is placed and not finished: such a claim is for one pod at a time.
func (b *Binder) readWriteOncePodInUse(pod *corev1.Pod) bool {
	var single []string
	for _, name := range claimNames(pod) {
		pvc, err := b.pvcs.PersistentVolumeClaims(pod.Namespace).Get(name)
		if err == nil && slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteOncePod) {
			single = append(single, name)
		}
	}
	if len(single) == 0 {
		return false
	}
	others, err := b.pods.Pods(pod.Namespace).List(labels.Everything())
	if err != nil {
		return false
	}
	for _, other := range others {
		if other.UID == pod.UID || other.Spec.NodeName == "" ||
			other.Status.Phase == corev1.PodSucceeded || other.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, name := range claimNames(other) {
			if slices.Contains(single, name) {
				return true
			}
		}
	}
	return false
}

// zoneConflict reports whether a volume the pod's bound claims use is labelled with a zone or
// region the node is not in. A node with no zone or region label suits any volume.
func (b *Binder) zoneConflict(pod *corev1.Pod, node *corev1.Node) bool {
	if !slices.ContainsFunc(topologyLabels, func(key string) bool { _, ok := node.Labels[key]; return ok }) {
		return false
	}
	for _, name := range claimNames(pod) {
		pvc, err := b.pvcs.PersistentVolumeClaims(pod.Namespace).Get(name)
		if err != nil || pvc.Spec.VolumeName == "" {
			continue
		}
		pv, err := b.pvs.Get(pvc.Spec.VolumeName)
		if err != nil {
			continue
		}
		for _, key := range topologyLabels {
			value, ok := pv.Labels[key]
			if !ok {
				continue
			}
			have, ok := node.Labels[key]
			if !ok {
				have, ok = node.Labels[gaLabel(key)]
			}
			// A volume's label may name several zones, joined by "__".
			if !ok || !slices.Contains(strings.Split(value, "__"), have) {
				return true
			}
		}
	}
	return false
}

// gaLabel returns the GA label of a beta zone or region label.
func gaLabel(key string) string {
	switch key {
	case corev1.LabelFailureDomainBetaZone:
		return corev1.LabelTopologyZone
	case corev1.LabelFailureDomainBetaRegion:
		return corev1.LabelTopologyRegion
	}
	return key
}
