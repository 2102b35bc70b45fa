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

package scheduler_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// taskSpec puts a pod in a task of its group with the volcano.sh/task-spec annotation, as
// operators that create their own PodGroups (LeaderWorkerSet, KubeRay) do.
func taskSpec(task string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Annotations[batchv1alpha1.TaskSpecKey] = task }
}

var _ = Describe("Task minimums of pods other operators make", func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("taskspec")
		startScheduler(scheduler.Options{})
		createNode(uniqueName("tasks"), resources("cpu", "16", "memory", "32Gi"), nil)
	})

	It("places a group made after its pods once every task has its minimum", func() {
		pods(ns, "leader", "lws", 1, resources("cpu", "1"), taskSpec("leader"))
		pods(ns, "worker", "lws", 3, resources("cpu", "1"), taskSpec("worker"))
		Consistently(boundCount(ns, ""), framework.ConsistentlyDuration, framework.Interval).Should(BeZero())

		podGroup(ns, "lws", "default", 4, func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.MinTaskMember = map[string]int32{"leader": 1, "worker": 3}
		})
		Eventually(boundCount(ns, ""), framework.Timeout, framework.Interval).Should(Equal(4))
	})

	It("holds a group whose pods cover minMember but not a task's minimum, and places it when that task's pod comes", func() {
		podGroup(ns, "ray", "default", 3, func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.MinTaskMember = map[string]int32{"head": 1, "worker": 2}
		})
		pods(ns, "worker", "ray", 3, resources("cpu", "1"), taskSpec("worker"))

		Eventually(func() string {
			if c := condition(getPodGroup(ns, "ray")(), schedulingv1beta1.PodGroupUnschedulableType); c != nil {
				return c.Reason + ": " + c.Message
			}
			return ""
		}, framework.Timeout, framework.Interval).Should(ContainSubstring(`not enough valid pods of task "head": 0 of minTaskMember 1 exist`))
		Expect(boundCount(ns, "")()).To(BeZero())

		pods(ns, "head", "ray", 1, resources("cpu", "1"), taskSpec("head"))
		Eventually(boundCount(ns, ""), framework.Timeout, framework.Interval).Should(Equal(4))
	})
})
