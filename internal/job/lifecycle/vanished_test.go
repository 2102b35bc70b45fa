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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

func TestVanishedPods(t *testing.T) {
	counted := func(running, succeeded, failed, terminating int32) jobOpt {
		return func(j *batchv1alpha1.Job) {
			j.Status.Running, j.Status.Succeeded, j.Status.Failed, j.Status.Terminating = running, succeeded, failed, terminating
		}
	}
	tasks := []batchv1alpha1.TaskSpec{task("ps", 1), task("worker", 3)}
	tests := []struct {
		name string
		job  *batchv1alpha1.Job
		pods []*corev1.Pod
		want []string
	}{
		{
			name: "every counted pod exists",
			job:  newJob(tasks, inPhase(batchv1alpha1.Running), counted(4, 0, 0, 0)),
			pods: []*corev1.Pod{newPod("ps", 0, corev1.PodRunning), newPod("worker", 0, corev1.PodRunning),
				newPod("worker", 1, corev1.PodRunning), newPod("worker", 2, corev1.PodRunning)},
		},
		{
			name: "a running pod deleted while no controller ran",
			job:  newJob(tasks, inPhase(batchv1alpha1.Running), counted(4, 0, 0, 0)),
			pods: []*corev1.Pod{newPod("ps", 0, corev1.PodRunning), newPod("worker", 0, corev1.PodRunning),
				newPod("worker", 2, corev1.PodRunning)},
			want: []string{"j-worker-1"},
		},
		{
			name: "a pod being deleted still exists",
			job:  newJob(tasks, inPhase(batchv1alpha1.Running), counted(3, 0, 0, 0)),
			pods: []*corev1.Pod{newPod("ps", 0, corev1.PodRunning), newPod("worker", 0, corev1.PodRunning),
				newPod("worker", 1, corev1.PodRunning), newPod("worker", 2, corev1.PodRunning, deleting())},
		},
		{
			name: "pods the controller was deleting (terminating) are not counted",
			job:  newJob(tasks, inPhase(batchv1alpha1.Running), counted(2, 0, 0, 2)),
			pods: []*corev1.Pod{newPod("ps", 0, corev1.PodRunning), newPod("worker", 0, corev1.PodRunning)},
		},
		{
			name: "pods not yet counted are not missing",
			job:  newJob(tasks, inPhase(batchv1alpha1.Pending)),
			pods: nil,
		},
		{
			name: "a finished job is left alone",
			job:  newJob(tasks, inPhase(batchv1alpha1.Completed), counted(0, 4, 0, 0)),
		},
		{
			name: "no more than the counts say are missing",
			job:  newJob(tasks, inPhase(batchv1alpha1.Running), counted(1, 0, 1, 0)),
			pods: nil,
			want: []string{"j-ps-0", "j-worker-0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := EffectiveSpec(&tc.job.Spec, "volcano")
			if err != nil {
				t.Fatal(err)
			}
			got := VanishedPods(tc.job, spec, tc.pods)
			if diff := cmp.Diff(tc.want, podNames(got)); diff != "" {
				t.Errorf("vanished pods (-want +got):\n%s", diff)
			}
			for _, p := range got {
				reqs := PodRequests(spec, p, nil, tc.pods)
				if len(reqs) != 1 || reqs[0].Event != busv1alpha1.PodEvictedEvent || reqs[0].JobUID != tc.job.UID ||
					*reqs[0].JobVersion != tc.job.Status.Version {
					t.Errorf("requests of vanished pod %s = %+v; want one PodEvicted of the current version", p.Name, reqs)
				}
			}
		})
	}
}
