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
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// flowJob reads the job of flow f of JobFlow jf, or nil when it does not exist.
func flowJob(ctx context.Context, g Gomega, jf *flowv1alpha1.JobFlow, f string) *batchv1alpha1.Job {
	job := &batchv1alpha1.Job{}
	err := fw.Client.Get(ctx, types.NamespacedName{Namespace: jf.Namespace, Name: jf.Name + "-" + f}, job)
	if apierrors.IsNotFound(err) {
		return nil
	}
	g.Expect(err).NotTo(HaveOccurred())
	return job
}

// getFlow reads the JobFlow again.
func getFlow(ctx context.Context, g Gomega, jf *flowv1alpha1.JobFlow) *flowv1alpha1.JobFlow {
	cur := &flowv1alpha1.JobFlow{}
	g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(jf), cur)).To(Succeed())
	return cur
}

// expectFlowPhase waits until the JobFlow reaches phase.
func expectFlowPhase(ctx context.Context, jf *flowv1alpha1.JobFlow, phase flowv1alpha1.Phase) *flowv1alpha1.JobFlow {
	GinkgoHelper()
	var cur *flowv1alpha1.JobFlow
	Eventually(func(g Gomega) {
		cur = getFlow(ctx, g, jf)
		g.Expect(cur.Status.State.Phase).To(Equal(phase))
	}, framework.LongTimeout, framework.Interval).Should(Succeed())
	return cur
}

// flowCondition returns the flow's condition of type kind, or nil.
func flowCondition(jf *flowv1alpha1.JobFlow, kind string) *metav1.Condition {
	for i := range jf.Status.Conditions {
		if jf.Status.Conditions[i].Type == kind {
			return &jf.Status.Conditions[i]
		}
	}
	return nil
}

var _ = Describe("JobFlow", Label("controller:jobflow"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("flow")
		startControllers(ctx)
	})

	// template makes a JobTemplate of one pod that succeeds after d.
	template := func(ctx context.Context, name string, d time.Duration) {
		GinkgoHelper()
		tmpl := wrappers.MakeJob(name, ns).Scheduler(testScheduler).Task("worker", 1).RunFor(d).JobTemplate()
		Expect(fw.Client.Create(ctx, tmpl)).To(Succeed())
	}

	It("runs Volcano's five-job diamond in order to Succeed", func(ctx SpecContext) {
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			template(ctx, n, time.Second)
		}
		jf := wrappers.MakeJobFlow("diamond", ns).Flow("a").Flow("b", "a").Flow("c", "b").Flow("d", "b").Flow("e", "c", "d").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())

		cur := expectFlowPhase(ctx, jf, flowv1alpha1.Succeed)
		created := map[string]time.Time{}
		finished := map[string]time.Time{}
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			job := flowJob(ctx, Default, jf, n)
			Expect(job).NotTo(BeNil())
			Expect(job.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
			Expect(metav1.IsControlledBy(job, cur)).To(BeTrue(), "job %s is owned by the flow", job.Name)
			Expect(job.Labels).To(HaveKeyWithValue(flowv1alpha1.CreatedByJobFlow, ns+".diamond"))
			Expect(job.Annotations).To(HaveKeyWithValue(flowv1alpha1.CreatedByJobTemplate, ns+"."+n))
			created[n] = job.CreationTimestamp.Time
			finished[n] = job.Status.State.LastTransitionTime.Time
		}
		for _, edge := range [][2]string{{"a", "b"}, {"b", "c"}, {"b", "d"}, {"c", "e"}, {"d", "e"}} {
			Expect(created[edge[1]]).NotTo(BeTemporally("<", finished[edge[0]].Truncate(time.Second)),
				"%s is created after %s completed", edge[1], edge[0])
		}
		Expect(cur.Status.CompletedJobs).To(HaveLen(5))
		Expect(cur.Status.JobStatusList).To(HaveLen(5))
		Expect(cur.Status.JobConditions).To(HaveKey("diamond-e"))
		Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
		ready := flowCondition(cur, flowv1alpha1.ReadyCondition)
		Expect(ready).NotTo(BeNil())
		Expect(ready.Status).To(Equal(metav1.ConditionTrue))

		Eventually(func(g Gomega) {
			tmpl := &flowv1alpha1.JobTemplate{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "e"}, tmpl)).To(Succeed())
			g.Expect(tmpl.Status.JobDependsOnList).To(Equal([]string{"diamond-e"}))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("fails the flow when a middle job fails and never creates its dependents", func(ctx SpecContext) {
		template(ctx, "a", time.Second)
		bad := wrappers.MakeJob("b", ns).Scheduler(testScheduler).MaxRetry(1).Task("worker", 1).RunFor(time.Second).ExitCode(1).
			Policy(wrappers.OnEvent(busv1alpha1.PodFailedEvent, busv1alpha1.RestartJobAction)).JobTemplate()
		Expect(fw.Client.Create(ctx, bad)).To(Succeed())
		template(ctx, "c", time.Second)
		jf := wrappers.MakeJobFlow("failing", ns).Flow("a").Flow("b", "a").Flow("c", "b").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())

		cur := expectFlowPhase(ctx, jf, flowv1alpha1.Failed)
		Expect(cur.Status.FailedJobs).To(Equal([]string{"failing-b"}))
		stalled := flowCondition(cur, flowv1alpha1.StalledCondition)
		Expect(stalled).NotTo(BeNil())
		Expect(stalled.Reason).To(Equal(flowv1alpha1.FlowFailedReason))
		Consistently(func(g Gomega) {
			g.Expect(flowJob(ctx, g, jf, "c")).To(BeNil())
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
	})

	It("deletes the jobs once the flow succeeded under jobRetainPolicy delete", func(ctx SpecContext) {
		template(ctx, "a", time.Second)
		template(ctx, "b", time.Second)
		jf := wrappers.MakeJobFlow("cleanup", ns).RetainPolicy(flowv1alpha1.Delete).Flow("a").Flow("b", "a").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())

		expectFlowPhase(ctx, jf, flowv1alpha1.Succeed)
		Eventually(func(g Gomega) {
			g.Expect(flowJob(ctx, g, jf, "a")).To(BeNil())
			g.Expect(flowJob(ctx, g, jf, "b")).To(BeNil())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			cur := getFlow(ctx, g, jf)
			g.Expect(cur.Status.State.Phase).To(Equal(flowv1alpha1.Succeed))
			g.Expect(cur.Status.CompletedJobs).To(ConsistOf("cleanup-a", "cleanup-b"))
			g.Expect(flowJob(ctx, g, jf, "a")).To(BeNil(), "a deleted job is not created again")
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
	})

	It("refuses an unknown target at apply time and marks a cycle Stalled naming its flows", func(ctx SpecContext) {
		unknown := wrappers.MakeJobFlow("unknown", ns).Flow("a", "nope").Obj()
		err := fw.Client.Create(ctx, unknown)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("dependsOn.targets must name other flows of this JobFlow"))

		template(ctx, "a", time.Second)
		jf := wrappers.MakeJobFlow("cycle", ns).Flow("a", "c").Flow("b", "a").Flow("c", "b").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getFlow(ctx, g, jf)
			stalled := flowCondition(cur, flowv1alpha1.StalledCondition)
			g.Expect(stalled).NotTo(BeNil())
			g.Expect(stalled.Reason).To(Equal(flowv1alpha1.DependencyCycleReason))
			g.Expect(stalled.Message).To(ContainSubstring("a -> c -> b -> a"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(flowJob(ctx, Default, jf, "a")).To(BeNil())
	})

	It("marks a missing template Stalled and continues once it is applied", func(ctx SpecContext) {
		jf := wrappers.MakeJobFlow("late", ns).Flow("a").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())
		Eventually(func(g Gomega) {
			stalled := flowCondition(getFlow(ctx, g, jf), flowv1alpha1.StalledCondition)
			g.Expect(stalled).NotTo(BeNil())
			g.Expect(stalled.Reason).To(Equal(flowv1alpha1.TemplateNotFoundReason))
			g.Expect(stalled.Message).To(ContainSubstring("JobTemplate a not found"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		template(ctx, "a", time.Second)
		expectFlowPhase(ctx, jf, flowv1alpha1.Succeed)
	})

	It("marks a job the API server refuses Stalled, naming the flow, and still creates the others", func(ctx SpecContext) {
		template(ctx, "a", time.Second)
		template(ctx, "b", time.Second)
		jf := wrappers.MakeJobFlow("refused", ns).Flow("a").Patch(`{"minAvailable": 99}`).Flow("b").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())
		Eventually(func(g Gomega) {
			stalled := flowCondition(getFlow(ctx, g, jf), flowv1alpha1.StalledCondition)
			g.Expect(stalled).NotTo(BeNil())
			g.Expect(stalled.Reason).To(Equal(flowv1alpha1.JobRefusedReason))
			g.Expect(stalled.Message).To(ContainSubstring("flow a: the job made from JobTemplate a"))
			g.Expect(stalled.Message).To(ContainSubstring("minAvailable"))
			g.Expect(flowJob(ctx, g, jf, "b")).NotTo(BeNil())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(flowJob(ctx, Default, jf, "a")).To(BeNil())
	})

	It("gates an edge with a when condition over the finished job's status", func(ctx SpecContext) {
		train := wrappers.MakeJob("train", ns).Scheduler(testScheduler).Task("worker", 2).RunFor(time.Second).JobTemplate()
		Expect(fw.Client.Create(ctx, train)).To(Succeed())
		template(ctx, "eval", time.Second)
		template(ctx, "publish", time.Second)
		template(ctx, "report", time.Second)
		jf := wrappers.MakeJobFlow("gated", ns).Flow("train").
			Flow("eval", "train").When("jobs.train.status.state.phase == 'Completed' && jobs.train.status.succeeded >= 2").
			Flow("publish", "train").When("jobs.train.status.succeeded >= 3").
			Flow("report", "publish").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())

		cur := expectFlowPhase(ctx, jf, flowv1alpha1.Succeed)
		Expect(flowJob(ctx, Default, jf, "eval")).NotTo(BeNil())
		Expect(flowJob(ctx, Default, jf, "publish")).To(BeNil())
		Expect(flowJob(ctx, Default, jf, "report")).To(BeNil())
		Expect(cur.Status.SkippedJobs).To(ConsistOf("gated-publish", "gated-report"))
	})

	It("starts a flow early once a task of its target has a pod in the probe's phase", func(ctx SpecContext) {
		server := wrappers.MakeJob("server", ns).Scheduler(testScheduler).Task("ps", 1).RunFor(time.Hour).JobTemplate()
		Expect(fw.Client.Create(ctx, server)).To(Succeed())
		template(ctx, "client", time.Second)
		jf := wrappers.MakeJobFlow("probed", ns).Flow("server").Flow("client", "server").Obj()
		jf.Spec.Flows[1].DependsOn.Probe = &flowv1alpha1.Probe{TaskStatusList: []flowv1alpha1.TaskStatus{{TaskName: "ps", Phase: "Running"}}}
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())

		Eventually(func(g Gomega) {
			clientJob := flowJob(ctx, g, jf, "client")
			g.Expect(clientJob).NotTo(BeNil())
			g.Expect(clientJob.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		server2 := flowJob(ctx, Default, jf, "server")
		Expect(server2.Status.State.Phase).To(Equal(batchv1alpha1.Running), "the client ran while the server still runs")
		Expect(getFlow(ctx, Default, jf).Status.State.Phase).To(Equal(flowv1alpha1.Running))
	})

	It("continues a flow edited in Git with the jobs not yet created", func(ctx SpecContext) {
		template(ctx, "a", time.Second)
		template(ctx, "b", time.Second)
		template(ctx, "c", time.Second)
		jf := wrappers.MakeJobFlow("edited", ns).Flow("a").Flow("b", "a").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())
		var jobA *batchv1alpha1.Job
		Eventually(func(g Gomega) {
			jobA = flowJob(ctx, g, jf, "a")
			g.Expect(jobA).NotTo(BeNil())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		By("changing b's patch and adding c while a runs")
		Eventually(func(g Gomega) {
			cur := getFlow(ctx, g, jf)
			cur.Spec.Flows[1].Patch = &flowv1alpha1.Patch{JobSpec: wrappers.MakeJobFlow("x", ns).Flow("x").
				Patch(`{"tasks":[{"name":"worker","replicas":2}]}`).Spec.Flows[0].Patch.JobSpec}
			cur.Spec.Flows = append(cur.Spec.Flows, flowv1alpha1.Flow{Name: "c", DependsOn: &flowv1alpha1.DependsOn{Targets: []string{"b"}}})
			g.Expect(fw.Client.Update(ctx, cur)).To(Succeed())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		cur := expectFlowPhase(ctx, jf, flowv1alpha1.Succeed)
		Expect(cur.Status.CompletedJobs).To(ConsistOf("edited-a", "edited-b", "edited-c"))
		Expect(flowJob(ctx, Default, jf, "a").UID).To(Equal(jobA.UID), "the job already created is kept")
		b := flowJob(ctx, Default, jf, "b")
		Expect(b.Spec.Tasks[0].Replicas).To(Equal(int32(2)), "b is made with the new patch")
		Expect(b.Status.Succeeded).To(Equal(int32(2)))
	})

	It("reports Terminating while a foreground deletion waits for its jobs", func(ctx SpecContext) {
		template(ctx, "a", time.Hour)
		jf := wrappers.MakeJobFlow("going", ns).Flow("a").Obj()
		Expect(fw.Client.Create(ctx, jf)).To(Succeed())
		var job *batchv1alpha1.Job
		Eventually(func(g Gomega) {
			job = flowJob(ctx, g, jf, "a")
			g.Expect(job).NotTo(BeNil())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		// A finalizer of the spec's own holds the job, so the flow stays while it is deleted.
		const hold = "caldera.sh/test-hold"
		Eventually(func(g Gomega) {
			cur := flowJob(ctx, g, jf, "a")
			cur.Finalizers = append(cur.Finalizers, hold)
			g.Expect(fw.Client.Update(ctx, cur)).To(Succeed())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(fw.Client.Delete(ctx, getFlow(ctx, Default, jf), client.PropagationPolicy(metav1.DeletePropagationForeground))).To(Succeed())

		cur := expectFlowPhase(ctx, jf, flowv1alpha1.Terminating)
		Expect(flowCondition(cur, flowv1alpha1.ReconcilingCondition).Reason).To(Equal(flowv1alpha1.FlowTerminatingReason))
		Eventually(func(g Gomega) {
			j := flowJob(ctx, g, jf, "a")
			j.Finalizers = nil
			g.Expect(fw.Client.Update(ctx, j)).To(Succeed())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			err := fw.Client.Get(ctx, client.ObjectKeyFromObject(jf), &flowv1alpha1.JobFlow{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})
})
