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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

func TestBuildClaims(t *testing.T) {
	spec := corev1.PersistentVolumeClaimSpec{
		AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		StorageClassName: ptr.To("fast"),
		Resources:        corev1.VolumeResourceRequirements{Requests: rl("storage", "10Gi")},
	}
	cases := []struct {
		name    string
		volumes []batchv1alpha1.VolumeSpec
		want    []*corev1.PersistentVolumeClaim
	}{
		{name: "no volumes"},
		{name: "existing claim only", volumes: []batchv1alpha1.VolumeSpec{{MountPath: "/data", VolumeClaimName: "shared"}}},
		{
			name: "a claim to make",
			volumes: []batchv1alpha1.VolumeSpec{
				{MountPath: "/data", VolumeClaimName: "shared"},
				{MountPath: "/out", VolumeClaim: &spec},
			},
			want: []*corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: naming.JobClaimName("j", "/out"), Namespace: "ns", OwnerReferences: ownerRefs("j")},
				Spec:       spec,
			}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := makeJob("j").Task(makeTask("t", 1)).Obj()
			job.Spec.Volumes = tc.volumes
			if diff := cmp.Diff(tc.want, BuildClaims(job)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
