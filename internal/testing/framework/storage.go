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
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// LocalStorageClassName is the StorageClass of the local volumes CreateLocalVolumes makes.
const LocalStorageClassName = "caldera-local"

// NoProvisioner is the provisioner of StorageClasses whose volumes are made by hand.
const NoProvisioner = "kubernetes.io/no-provisioner"

// LocalStorageClass is a StorageClass of volumes made by hand and bound once a pod that uses their
// claim is placed (WaitForFirstConsumer), as local volumes are on a real cluster.
func LocalStorageClass(name string) *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: name},
		Provisioner:       NoProvisioner,
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
		ReclaimPolicy:     ptr.To(corev1.PersistentVolumeReclaimRetain),
	}
}

// LocalVolume is a local PersistentVolume of the class on one node (its node affinity names the
// node's hostname), ReadWriteOnce, kept when its claim goes.
func LocalVolume(name, class, node, size string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"caldera.sh/local-volume-node": node}},
		Spec: corev1.PersistentVolumeSpec{
			StorageClassName:              class,
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disks/" + name}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
	}
}

// CreateLocalVolumes creates the StorageClass caldera-local and, on each node, perNode local
// volumes of the given size named <node>-disk-<i>, and returns their names. Objects that exist
// already are kept.
func (f *Framework) CreateLocalVolumes(ctx context.Context, nodes []string, perNode int, size string) ([]string, error) {
	if err := f.Client.Create(ctx, LocalStorageClass(LocalStorageClassName)); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating StorageClass %s: %w", LocalStorageClassName, err)
	}
	var names []string
	for _, node := range nodes {
		for i := 0; i < perNode; i++ {
			pv := LocalVolume(fmt.Sprintf("%s-disk-%d", node, i), LocalStorageClassName, node, size)
			if err := f.Client.Create(ctx, pv); err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, fmt.Errorf("creating PersistentVolume %s: %w", pv.Name, err)
			}
			names = append(names, pv.Name)
		}
	}
	return names, nil
}
