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

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

// bigJob is a running job of one task with n replicas, all running but the last, which is
// missing, plus 10 surplus pods.
func bigJob(n int32) (*batchv1alpha1.Job, []*corev1.Pod) {
	job := newJob([]batchv1alpha1.TaskSpec{task("w", n)}, jobPolicies(on(busv1alpha1.RestartJobAction, busv1alpha1.PodEvictedEvent)))
	pods := make([]*corev1.Pod, 0, n+10)
	for i := range n + 10 {
		if i != n-1 {
			pods = append(pods, newPod("w", i, corev1.PodRunning, readyAt(t0)))
		}
	}
	return job, pods
}

// BenchmarkExecuteSync1000 is one SyncJob of a 1000-replica job: counts, surplus pods in
// scale-down order, missing pods and the Running status.
func BenchmarkExecuteSync1000(b *testing.B) {
	job, pods := bigJob(1000)
	spec, err := EffectiveSpec(&job.Spec, "volcano")
	if err != nil {
		b.Fatal(err)
	}
	clk := newClock()
	for b.Loop() {
		if _, err := Execute(Snapshot{Job: job, Spec: spec, Pods: pods, CanCreatePods: true}, syncJob, clk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEventToDecision1000 is one pod update of a 1000-replica job turned into requests and
// decisions.
func BenchmarkEventToDecision1000(b *testing.B) {
	job, pods := bigJob(1000)
	old := pods[0]
	cur := newPod("w", 0, corev1.PodRunning, readyAt(t0), restarts(1))
	for b.Loop() {
		for _, req := range PodRequests(&job.Spec, old, cur, pods) {
			if _, err := ResolvePolicy(job, req, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}
