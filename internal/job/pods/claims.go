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

package pods

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// BuildClaims returns the PersistentVolumeClaims a job makes: one per volume that gives
// volumeClaim and no volumeClaimName, named naming.JobClaimName, with the job as controller
// owner. Volumes naming an existing claim need none; the controller only checks that it exists.
func BuildClaims(job *batchv1alpha1.Job) []*corev1.PersistentVolumeClaim {
	var out []*corev1.PersistentVolumeClaim
	for i := range job.Spec.Volumes {
		v := &job.Spec.Volumes[i]
		if v.VolumeClaimName != "" || v.VolumeClaim == nil {
			continue
		}
		out = append(out, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{
				Name:            naming.JobClaimName(job.Name, v.MountPath),
				Namespace:       job.Namespace,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, jobKind)},
			},
			Spec: *v.VolumeClaim.DeepCopy(),
		})
	}
	return out
}
