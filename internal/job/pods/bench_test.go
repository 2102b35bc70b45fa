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

	jobplugins "github.com/caldera-sh/caldera/internal/job/plugins"
)

// BenchmarkBuildPods builds every pod of a 1000-replica job with the env and svc plugins, and
// its PodGroup, as a reconcile that creates the whole job does.
func BenchmarkBuildPods(b *testing.B) {
	job := makeJob("big").Task(makeTask("worker", 1000, ctr("main", rl("cpu", "1", "memory", "1Gi"), nil))).Obj()
	job.Spec.Plugins = map[string][]string{"env": nil, "svc": nil}
	for b.Loop() {
		plugins, _, err := jobplugins.ForJob(job)
		if err != nil {
			b.Fatal(err)
		}
		for i := range 1000 {
			if _, err := BuildPod(job, "worker", i, PodOptions{Plugins: plugins}); err != nil {
				b.Fatal(err)
			}
		}
		_ = BuildPodGroup(job, 1000, nil)
	}
}

// BenchmarkBuildPodTensorflow builds the pods of a 1000-worker TensorFlow job, whose TF_CONFIG
// lists every worker in every pod.
func BenchmarkBuildPodTensorflow(b *testing.B) {
	job := makeJob("tf").Task(makeTask("ps", 2)).Task(makeTask("worker", 1000)).Obj()
	job.Spec.Plugins = map[string][]string{"tensorflow": nil}
	plugins, _, err := jobplugins.ForJob(job)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for i := range 1000 {
			if _, err := BuildPod(job, "worker", i, PodOptions{Plugins: plugins}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
