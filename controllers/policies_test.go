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

package controllers_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// misspelt is a field name with a typo, as a user might write it.
var misspelt = "succ" + "eded"

var _ = Describe("CEL lifecycle policies", Label("controller:job", "cel"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("cel")
		startControllers(ctx)
	})

	It("restarts only the pod on exit code 137 or OOMKilled", func(ctx SpecContext) {
		oom := wrappers.When("pod.exitCode == 137 || pod.containers.exists(c, c.reason == 'OOMKilled')",
			busv1alpha1.PodFailedEvent, busv1alpha1.RestartPodAction)
		killed := wrappers.MakeJob("oom", ns).Scheduler(testScheduler).MaxRetry(2).
			Task("worker", 1).RunFor(time.Second).ExitCode(137).TaskPolicy(oom).Obj()
		plain := wrappers.MakeJob("plain", ns).Scheduler(testScheduler).MaxRetry(2).
			Task("worker", 1).RunFor(time.Second).ExitCode(1).TaskPolicy(oom).Obj()
		Expect(fw.Client.Create(ctx, killed)).To(Succeed())
		Expect(fw.Client.Create(ctx, plain)).To(Succeed())

		cur := expectPhase(ctx, killed, batchv1alpha1.Failed, framework.LongTimeout)
		Expect(cur.Status.RetryCount).To(Equal(int32(2)), "exit code 137 restarted the pod until the retries ran out")
		Expect(cur.Status.Version).To(Equal(int32(0)), "RestartPod restarts the pod, not the job")
		cur = expectPhase(ctx, plain, batchv1alpha1.Failed, framework.LongTimeout)
		Expect(cur.Status.RetryCount).To(BeZero(), "exit code 1 does not meet the condition")
	})

	It("completes the job when tasks.worker.succeeded >= 2", func(ctx SpecContext) {
		job := wrappers.MakeJob("enough", ns).Scheduler(testScheduler).
			Policy(batchv1alpha1.LifecyclePolicy{When: "tasks.worker.succeeded >= 2", Action: busv1alpha1.CompleteJobAction}).
			Task("ps", 1).
			Task("worker", 2).RunFor(time.Second).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		cur := expectPhase(ctx, job, batchv1alpha1.Completed, framework.LongTimeout)
		Expect(cur.Status.Succeeded).To(Equal(int32(2)))
	})

	It("fails fast when the ps task fails", func(ctx SpecContext) {
		job := wrappers.MakeJob("fast", ns).Scheduler(testScheduler).
			Policy(wrappers.When("task.name == 'ps'", busv1alpha1.PodFailedEvent, busv1alpha1.TerminateJobAction)).
			Task("ps", 1).RunFor(time.Second).ExitCode(2).
			Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		cur := expectPhase(ctx, job, batchv1alpha1.Terminated, framework.LongTimeout)
		stalled := condition(cur, batchv1alpha1.StalledCondition)
		Expect(stalled).NotTo(BeNil())
		Expect(stalled.Reason).To(Equal(batchv1alpha1.JobTerminatedReason))
	})

	It("aborts a job that has run longer than its limit", func(ctx SpecContext) {
		job := wrappers.MakeJob("long", ns).Scheduler(testScheduler).
			Policy(batchv1alpha1.LifecyclePolicy{When: "elapsed > duration('2s')", Action: busv1alpha1.AbortJobAction}).
			Task("worker", 1).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
		expectPhase(ctx, job, batchv1alpha1.Aborted, framework.LongTimeout)
	})

	DescribeTable("stalls a job whose expression does not compile, creating no pods",
		func(ctx SpecContext, job *wrappers.JobWrapper, path string) {
			obj := job.Scheduler(testScheduler).Task("worker", 1).Obj()
			obj.Namespace = ns
			Expect(fw.Client.Create(ctx, obj)).To(Succeed())
			Eventually(func(g Gomega) {
				cur := getJob(ctx, g, obj)
				s := condition(cur, batchv1alpha1.StalledCondition)
				g.Expect(s).NotTo(BeNil())
				g.Expect(s.Status).To(Equal(metav1.ConditionTrue))
				g.Expect(s.Reason).To(Equal(batchv1alpha1.InvalidPolicyReason))
				g.Expect(s.Message).To(ContainSubstring(path))
				g.Expect(s.Message).To(ContainSubstring(misspelt))
			}, framework.Timeout, framework.Interval).Should(Succeed())
			Consistently(func(g Gomega) {
				g.Expect(jobPods(ctx, g, obj)).To(BeEmpty())
			}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
		},
		Entry("in spec.policies", wrappers.MakeJob("bad-spec", "").
			Policy(batchv1alpha1.LifecyclePolicy{When: "job." + misspelt + " > 1", Action: busv1alpha1.CompleteJobAction}),
			"spec.policies[0].when"),
		Entry("in the caldera.sh/policies annotation", wrappers.MakeJob("bad-annotation", "").
			Annotation(batchv1alpha1.PoliciesAnnotation, "- action: CompleteJob\n  when: job."+misspelt+" > 1\n"),
			"caldera.sh/policies"),
	)
})
