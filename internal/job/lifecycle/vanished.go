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

package lifecycle

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// VanishedPods are the pods of job that its last written status counted but that no longer
// exist, and whose deletion no informer event told of: they were deleted or evicted while no
// controller was running. The controller calls it when it first reconciles a job after it
// started (level-triggered, as the Kubernetes Job controller derives what happened from the
// pods): each returned pod stands for the one that vanished (its name, task, index and the
// job's current version, last seen Running), and PodRequests(spec, pod, nil, pods) turns it
// into the PodEvicted request its deletion would have raised.
//
// Only a Pending or Running job is looked at. The status counts (pending, running, succeeded,
// failed, unknown; terminating pods were being deleted by the controller itself) minus the
// job's pods that exist and are not being deleted is how many vanished; they are taken from
// the job's missing pod slots in task and index order.
func VanishedPods(job *batchv1alpha1.Job, spec *batchv1alpha1.JobSpec, pods []*corev1.Pod) []*corev1.Pod {
	phase := job.Status.State.Phase
	if phase != batchv1alpha1.Running && phase != batchv1alpha1.Pending {
		return nil
	}
	s := job.Status
	counted := s.Pending + s.Running + s.Succeeded + s.Failed + s.Unknown
	var live int32
	for _, p := range pods {
		if !isDeleting(p) {
			live++
		}
	}
	gone := counted - live
	if gone <= 0 {
		return nil
	}
	version := strconv.Itoa(int(s.Version))
	var out []*corev1.Pod
	for _, slot := range MissingPods(job.Name, spec, pods) {
		if int32(len(out)) == gone {
			break
		}
		out = append(out, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:      naming.PodName(job.Name, slot.Task, slot.Index),
				Namespace: job.Namespace,
				Labels: map[string]string{
					batchv1alpha1.TaskSpecKey: slot.Task,
					batchv1alpha1.TaskIndex:   strconv.Itoa(slot.Index),
				},
				Annotations: map[string]string{batchv1alpha1.JobVersion: version},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: batchv1alpha1.GroupVersion.String(), Kind: "Job",
					Name: job.Name, UID: job.UID, Controller: ptrTrue(),
				}},
			},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		})
	}
	return out
}

func ptrTrue() *bool {
	t := true
	return &t
}
