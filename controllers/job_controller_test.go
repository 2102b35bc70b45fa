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
	"fmt"
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/job/naming"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// getJob reads the job again.
func getJob(ctx context.Context, g Gomega, job *batchv1alpha1.Job) *batchv1alpha1.Job {
	cur := &batchv1alpha1.Job{}
	g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)).To(Succeed())
	return cur
}

// jobPods lists the job's pods that are not being deleted, sorted by name.
func jobPods(ctx context.Context, g Gomega, job *batchv1alpha1.Job) []corev1.Pod {
	list := &corev1.PodList{}
	g.Expect(fw.Client.List(ctx, list, client.InNamespace(job.Namespace),
		client.MatchingLabels{batchv1alpha1.JobNameKey: job.Name})).To(Succeed())
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func podNames(pods []corev1.Pod) []string {
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	return names
}

// expectPhase waits until the job reaches phase.
func expectPhase(ctx context.Context, job *batchv1alpha1.Job, phase batchv1alpha1.JobPhase, timeout time.Duration) *batchv1alpha1.Job {
	GinkgoHelper()
	var cur *batchv1alpha1.Job
	Eventually(func(g Gomega) {
		cur = getJob(ctx, g, job)
		g.Expect(cur.Status.State.Phase).To(Equal(phase))
	}, timeout, framework.Interval).Should(Succeed())
	return cur
}

func condition(job *batchv1alpha1.Job, t string) *metav1.Condition {
	return meta.FindStatusCondition(job.Status.Conditions, t)
}

var _ = Describe("Job controller", Label("controller:job"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("job")
		startControllers(ctx)
	})

	It("runs a two-task job to completion with Volcano's pods and a PodGroup", func(ctx SpecContext) {
		job := wrappers.MakeJob("tf", ns).Scheduler(testScheduler).
			Task("ps", 1).RunFor(2*time.Second).
			Task("worker", 2).RunFor(2 * time.Second).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(podNames(pods)).To(Equal([]string{"tf-ps-0", "tf-worker-0", "tf-worker-1"}))
			cur := getJob(ctx, g, job)
			p := pods[2]
			g.Expect(p.Labels).To(HaveKeyWithValue(batchv1alpha1.JobNameKey, "tf"))
			g.Expect(p.Labels).To(HaveKeyWithValue(batchv1alpha1.TaskSpecKey, "worker"))
			g.Expect(p.Labels).To(HaveKeyWithValue(batchv1alpha1.TaskIndex, "1"))
			g.Expect(p.Annotations).To(HaveKeyWithValue(schedulingv1beta1.KubeGroupNameAnnotationKey, naming.PodGroupName("tf", cur.UID)))
			g.Expect(p.Annotations).To(HaveKeyWithValue(batchv1alpha1.JobVersion, "0"))
			g.Expect(p.Annotations).To(HaveKeyWithValue(batchv1alpha1.QueueNameKey, "default"))
			g.Expect(metav1.IsControlledBy(&p, cur)).To(BeTrue())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		Eventually(func(g Gomega) {
			pg := &schedulingv1beta1.PodGroup{}
			cur := getJob(ctx, g, job)
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: naming.PodGroupName("tf", cur.UID)}, pg)).To(Succeed())
			g.Expect(pg.Spec.MinMember).To(Equal(int32(3)))
			g.Expect(pg.Spec.MinTaskMember).To(Equal(map[string]int32{"ps": 1, "worker": 2}))
			g.Expect(pg.Spec.Queue).To(Equal("default"))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		cur := expectPhase(ctx, job, batchv1alpha1.Completed, framework.LongTimeout)
		Expect(cur.Status.Succeeded).To(Equal(int32(3)))
		Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
		ready := condition(cur, batchv1alpha1.ReadyCondition)
		Expect(ready).NotTo(BeNil())
		Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		Expect(condition(cur, batchv1alpha1.ReconcilingCondition)).To(BeNil())
	})

	It("names unnamed tasks default<i> as Volcano does, without writing the name into the spec", func(ctx SpecContext) {
		job := wrappers.MakeJob("anon", ns).Scheduler(testScheduler).
			UnnamedTask(1).RunFor(2 * time.Second).
			UnnamedTask(1).RunFor(2 * time.Second).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(podNames(pods)).To(Equal([]string{"anon-default0-0", "anon-default1-0"}))
			for i, p := range pods {
				task := fmt.Sprintf("default%d", i)
				g.Expect(p.Labels).To(HaveKeyWithValue(batchv1alpha1.TaskSpecKey, task))
				g.Expect(p.Annotations).To(HaveKeyWithValue(batchv1alpha1.TaskSpecKey, task))
				g.Expect(p.Annotations).To(HaveKeyWithValue(batchv1alpha1.TemplateUID, "anon-"+task))
			}
			cur := getJob(ctx, g, job)
			pg := &schedulingv1beta1.PodGroup{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: naming.PodGroupName("anon", cur.UID)}, pg)).To(Succeed())
			g.Expect(pg.Spec.MinTaskMember).To(Equal(map[string]int32{"default0": 1, "default1": 1}))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		cur := expectPhase(ctx, job, batchv1alpha1.Completed, framework.LongTimeout)
		Expect(cur.Status.TaskStatusCount).To(HaveKey("default0"))
		Expect(cur.Status.TaskStatusCount).To(HaveKey("default1"))
		// The spec is as applied: no task name written (generation 1: nothing wrote the spec).
		Expect(cur.Generation).To(Equal(int64(1)))
		Expect(cur.Spec.Tasks).To(HaveLen(2))
		for _, t := range cur.Spec.Tasks {
			Expect(t.Name).To(BeEmpty())
		}
	})

	It("restarts the job when a pod fails and fails it once maxRetry runs are used", func(ctx SpecContext) {
		job := wrappers.MakeJob("retry", ns).Scheduler(testScheduler).MaxRetry(2).
			Task("worker", 2).RunFor(time.Second).ExitCode(1).
			Policy(wrappers.OnEvent(busv1alpha1.PodFailedEvent, busv1alpha1.RestartJobAction)).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		cur := expectPhase(ctx, job, batchv1alpha1.Failed, framework.LongTimeout)
		Expect(cur.Status.RetryCount).To(Equal(int32(2)))
		Expect(cur.Status.Version).To(BeNumerically(">=", 2))
		stalled := condition(cur, batchv1alpha1.StalledCondition)
		Expect(stalled).NotTo(BeNil())
		Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
		Expect(stalled.Reason).To(Equal(batchv1alpha1.JobFailedReason))
	})

	It("restarts a task on its exit code", func(ctx SpecContext) {
		job := wrappers.MakeJob("exit", ns).Scheduler(testScheduler).MaxRetry(2).
			Task("ps", 1).
			Task("worker", 1).RunFor(time.Second).ExitCode(3).
			TaskPolicy(wrappers.OnExitCode(3, busv1alpha1.RestartTaskAction)).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		var firstPS types.UID
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).NotTo(BeEmpty())
			g.Expect(pods[0].Name).To(Equal("exit-ps-0"))
			firstPS = pods[0].UID
		}, framework.Timeout, framework.Interval).Should(Succeed())
		// RestartTask restarts the worker only: once the worker has been restarted, the ps pod is
		// still the first one.
		Eventually(func(g Gomega) {
			g.Expect(getJob(ctx, g, job).Status.RetryCount).To(BeNumerically(">=", 1))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		ps := &corev1.Pod{}
		Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "exit-ps-0"}, ps)).To(Succeed())
		Expect(ps.UID).To(Equal(firstPS), "the ps pod was not restarted")
		cur := expectPhase(ctx, job, batchv1alpha1.Failed, framework.LongTimeout)
		Expect(cur.Status.RetryCount).To(Equal(int32(2)))
		Expect(cur.Status.Version).To(Equal(int32(0)))
	})

	It("aborts on a Command, which runs once, and resumes without counting a retry", func(ctx SpecContext) {
		job := wrappers.MakeJob("cmd", ns).Scheduler(testScheduler).Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)

		Expect(fw.Client.Create(ctx, wrappers.Command("cmd-abort", job, busv1alpha1.AbortJobAction))).To(Succeed())
		cur := expectPhase(ctx, job, batchv1alpha1.Aborted, framework.LongTimeout)
		Expect(condition(cur, batchv1alpha1.StalledCondition).Reason).To(Equal(batchv1alpha1.JobAbortedReason))
		Eventually(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(BeEmpty())
			err := fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "cmd-abort"}, &busv1alpha1.Command{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the Command is deleted when it is taken")
		}, framework.Timeout, framework.Interval).Should(Succeed())

		Expect(fw.Client.Create(ctx, wrappers.Command("cmd-resume", job, busv1alpha1.ResumeJobAction))).To(Succeed())
		cur = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
		Expect(cur.Status.RetryCount).To(Equal(int32(0)))
		Eventually(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(HaveLen(2))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("holds the job while spec.suspend is true and resumes it from Git", func(ctx SpecContext) {
		job := wrappers.MakeJob("pause", ns).Scheduler(testScheduler).Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)

		patch := client.MergeFrom(job.DeepCopy())
		job.Spec.Suspend = ptr.To(true)
		Expect(fw.Client.Patch(ctx, job, patch)).To(Succeed())
		cur := expectPhase(ctx, job, batchv1alpha1.Aborted, framework.LongTimeout)
		Eventually(func(g Gomega) {
			cur = getJob(ctx, g, job)
			s := condition(cur, batchv1alpha1.SuspendedCondition)
			g.Expect(s).NotTo(BeNil())
			g.Expect(s.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(jobPods(ctx, g, job)).To(BeEmpty())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		patch = client.MergeFrom(cur.DeepCopy())
		cur.Spec.Suspend = ptr.To(false)
		Expect(fw.Client.Patch(ctx, cur, patch)).To(Succeed())
		cur = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
		Expect(cur.Status.RetryCount).To(Equal(int32(0)))
		Expect(condition(cur, batchv1alpha1.SuspendedCondition)).To(BeNil())
	})

	It("leaves a job whose queue does not exist Stalled, and runs it once the queue exists", func(ctx SpecContext) {
		queue := "later-" + ns
		job := wrappers.MakeJob("waits", ns).Scheduler(testScheduler).Queue(queue).Task("worker", 1).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			s := condition(cur, batchv1alpha1.StalledCondition)
			g.Expect(s).NotTo(BeNil())
			g.Expect(s.Reason).To(Equal(batchv1alpha1.QueueNotFoundReason))
			g.Expect(s.Message).To(ContainSubstring("spec.queue"))
			g.Expect(s.Message).To(ContainSubstring(queue))
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Pending))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		Expect(fw.Client.Create(ctx, wrappers.MakeQueue(queue).Obj())).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, wrappers.MakeQueue(queue).Obj()))).To(Succeed())
		})
		expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
	})

	It("scales a task in place when replicas change from Git", func(ctx SpecContext) {
		job := wrappers.MakeJob("scale", ns).Scheduler(testScheduler).Task("worker", 3).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
		var keep types.UID
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(3))
			keep = pods[0].UID
		}, framework.Timeout, framework.Interval).Should(Succeed())

		patch := client.MergeFrom(job.DeepCopy())
		job.Spec.Tasks[0].Replicas = 1
		Expect(fw.Client.Patch(ctx, job, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(podNames(pods)).To(Equal([]string{"scale-worker-0"}))
			g.Expect(pods[0].UID).To(Equal(keep))
			cur := getJob(ctx, g, job)
			g.Expect(cur.Status.Version).To(Equal(int32(0)))
			g.Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("restarts the job at a new version when a pod template changes, without counting a retry", func(ctx SpecContext) {
		job := wrappers.MakeJob("edit", ns).Scheduler(testScheduler).Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)

		patch := client.MergeFrom(job.DeepCopy())
		job.Spec.Tasks[0].Template.Spec.Containers[0].Image = "busybox:1.37"
		Expect(fw.Client.Patch(ctx, job, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(cur.Status.Version).To(Equal(int32(1)))
			g.Expect(cur.Status.RetryCount).To(Equal(int32(0)))
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Running))
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(2))
			for _, p := range pods {
				g.Expect(p.Spec.Containers[0].Image).To(Equal("busybox:1.37"))
				g.Expect(p.Annotations).To(HaveKeyWithValue(batchv1alpha1.JobVersion, "1"))
			}
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("restarts the job when a pod is evicted, without consuming a retry", func(ctx SpecContext) {
		job := wrappers.MakeJob("evict", ns).Scheduler(testScheduler).Task("worker", 2).
			Policy(wrappers.OnEvent(busv1alpha1.PodEvictedEvent, busv1alpha1.RestartJobAction)).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)

		victim := &corev1.Pod{}
		Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "evict-worker-1"}, victim)).To(Succeed())
		Expect(fw.Client.Delete(ctx, victim)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(cur.Status.Version).To(Equal(int32(1)))
			g.Expect(cur.Status.RetryCount).To(Equal(int32(0)))
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Running))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("makes the svc and env plugins' objects and settings", func(ctx SpecContext) {
		job := wrappers.MakeJob("mpi", ns).Scheduler(testScheduler).Plugin("svc").Plugin("env").
			Task("master", 1).Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(condition(cur, batchv1alpha1.StalledCondition)).To(BeNil(), "job status: %+v", cur.Status)
			cm := &corev1.ConfigMap{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "mpi-svc"}, cm)).To(Succeed())
			g.Expect(cm.Data).To(HaveKeyWithValue("worker.host", "mpi-worker-0.mpi\nmpi-worker-1.mpi"))
			svc := &corev1.Service{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "mpi"}, svc)).To(Succeed())
			g.Expect(svc.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone))
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(3))
			w := pods[2]
			g.Expect(w.Spec.Hostname).To(Equal("mpi-worker-1"))
			g.Expect(w.Spec.Subdomain).To(Equal("mpi"))
			g.Expect(w.Spec.Containers[0].Env).To(ContainElement(corev1.EnvVar{Name: "VC_TASK_INDEX", Value: "1"}))
			cur = getJob(ctx, g, job)
			g.Expect(cur.Status.ControlledResources).To(HaveKeyWithValue("plugin-svc", "svc"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("makes the svc plugin's objects while the job waits for its PodGroup's admission, as Volcano does", func(ctx SpecContext) {
		// Its gang asks for more than the nodes have, so the PodGroup is never admitted.
		job := wrappers.MakeJob("waiting", ns).Scheduler(testScheduler).Plugin("svc").Task("worker", 2).
			Requests(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100000")}).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			cm := &corev1.ConfigMap{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "waiting-svc"}, cm)).To(Succeed())
			g.Expect(cm.Data).To(HaveKeyWithValue("worker.host", "waiting-worker-0.waiting\nwaiting-worker-1.waiting"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(jobPods(ctx, Default, job)).To(BeEmpty())
	})

	It("updates the svc plugin's hosts when a job is scaled down, while the removed pod is still terminating", func(ctx SpecContext) {
		job := wrappers.MakeJob("scaled", ns).Scheduler(testScheduler).Plugin("svc").Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
		// A finalizer keeps the removed pod terminating, so its deletion stays unobserved.
		held := &corev1.Pod{}
		Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "scaled-worker-1"}, held)).To(Succeed())
		patch := client.MergeFrom(held.DeepCopy())
		held.Finalizers = append(held.Finalizers, "caldera.sh/test-hold")
		Expect(fw.Client.Patch(ctx, held, patch)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			cur := &corev1.Pod{}
			if err := fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "scaled-worker-1"}, cur); err == nil {
				patch := client.MergeFrom(cur.DeepCopy())
				cur.Finalizers = nil
				Expect(fw.Client.Patch(ctx, cur, patch)).To(Succeed())
			}
		})

		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			cur.Spec.MinAvailable = 1
			cur.Spec.Tasks[0].Replicas = 1
			g.Expect(fw.Client.Update(ctx, cur)).To(Succeed())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			cm := &corev1.ConfigMap{}
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "scaled-svc"}, cm)).To(Succeed())
			g.Expect(cm.Data).To(HaveKeyWithValue("worker.host", "scaled-worker-0.scaled"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "scaled-worker-1"}, held)).To(Succeed())
		Expect(held.DeletionTimestamp).NotTo(BeNil())
	})

	It("deletes an aborted job once its TTL has passed", func(ctx SpecContext) {
		job := wrappers.MakeJob("ttl", ns).Scheduler(testScheduler).TTL(1).Task("worker", 1).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
		Expect(fw.Client.Create(ctx, wrappers.Command("ttl-abort", job, busv1alpha1.AbortJobAction))).To(Succeed())
		// The deletion is a foreground one: without a garbage collector in the test control plane
		// the job keeps its foregroundDeletion finalizer, so it is being deleted rather than gone.
		Eventually(func(g Gomega) {
			cur := &batchv1alpha1.Job{}
			err := fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)
			g.Expect(apierrors.IsNotFound(err) || cur.DeletionTimestamp != nil).To(BeTrue(), "the job is deleted")
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})
})

var _ = Describe("Job controller and TTL under GitOps", Label("controller:job"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("ttl")
		startControllers(ctx)
	})

	It("keeps a Flux-managed job as the record when its TTL passes, deleting what it made", func(ctx SpecContext) {
		job := wrappers.MakeJob("flux", ns).Scheduler(testScheduler).TTL(1).Task("worker", 2).RunFor(time.Second).
			Plugin("svc").Label("kustomize.toolkit.fluxcd.io/name", "batch").Label("kustomize.toolkit.fluxcd.io/namespace", "flux-system").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		job = expectPhase(ctx, job, batchv1alpha1.Completed, framework.LongTimeout)

		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			c := condition(cur, batchv1alpha1.ChildrenDeletedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(batchv1alpha1.TTLExpiredReason))
			g.Expect(c.Message).To(ContainSubstring("Flux Kustomization flux-system/batch manages the job"))
			g.Expect(jobPods(ctx, g, job)).To(BeEmpty())
			g.Expect(apierrors.IsNotFound(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "flux"}, &corev1.Service{}))).To(BeTrue())
			pgs := &schedulingv1beta1.PodGroupList{}
			g.Expect(fw.Client.List(ctx, pgs, client.InNamespace(ns))).To(Succeed())
			g.Expect(pgs.Items).To(BeEmpty())
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		// The Job stays, Completed and Ready, for the tool to find as Git says.
		Consistently(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(cur.DeletionTimestamp).To(BeNil())
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
			g.Expect(jobPods(ctx, g, job)).To(BeEmpty())
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
	})

	It("never deletes a job held by spec.suspend", func(ctx SpecContext) {
		job := wrappers.MakeJob("paused", ns).Scheduler(testScheduler).TTL(1).Suspend(true).Task("worker", 1).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Aborted))
			g.Expect(cur.Status.Health).To(Equal(batchv1alpha1.HealthSuspended))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(getJob(ctx, g, job).DeletionTimestamp).To(BeNil())
		}, 3*framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
	})
})

var _ = Describe("Job controller status writes", Label("controller:job"), func() {
	It("writes phase, conditions and observedGeneration together, in one write each reconcile", func(ctx SpecContext) {
		ns := fw.SpecNamespace("onewrite")
		startControllers(ctx)
		wc, err := client.NewWithWatch(fw.Config, client.Options{Scheme: fw.Client.Scheme()})
		Expect(err).NotTo(HaveOccurred())
		w, err := wc.Watch(ctx, &batchv1alpha1.JobList{}, client.InNamespace(ns))
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()

		job := wrappers.MakeJob("steps", ns).Scheduler(testScheduler).Task("worker", 2).RunFor(time.Second).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		reasonOf := map[batchv1alpha1.JobPhase]string{
			batchv1alpha1.Pending: batchv1alpha1.JobPendingReason, batchv1alpha1.Running: batchv1alpha1.JobRunningReason,
		}
		deadline := time.After(framework.LongTimeout)
		for done := false; !done; {
			select {
			case ev := <-w.ResultChan():
				cur, ok := ev.Object.(*batchv1alpha1.Job)
				Expect(ok).To(BeTrue())
				if len(cur.Status.Conditions) == 0 {
					continue
				}
				Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation), "conditions without their observedGeneration: %+v", cur.Status)
				if r := condition(cur, batchv1alpha1.ReconcilingCondition); r != nil && reasonOf[cur.Status.State.Phase] != "" {
					Expect(r.Reason).To(Equal(reasonOf[cur.Status.State.Phase]), "Reconciling says %s beside phase %s", r.Reason, cur.Status.State.Phase)
				}
				done = cur.Status.State.Phase == batchv1alpha1.Completed
			case <-deadline:
				Fail("the job did not complete")
			}
		}
	})
})

var _ = Describe("Job controller restarts", Label("controller:job"), func() {
	It("leaves exactly the expected pods when the manager restarts in the middle of pod creation", func(ctx SpecContext) {
		ns := fw.SpecNamespace("restart")
		const replicas = 60
		job := wrappers.MakeJob("big", ns).Scheduler(testScheduler).Task("worker", replicas).Obj()

		stop, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
			if err := controllers.Setup(mgr, controllers.Options{SchedulerNames: []string{testScheduler}}); err != nil {
				return err
			}
			return addScheduler(mgr)
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).NotTo(BeEmpty())
		}, framework.Timeout, 10*time.Millisecond).Should(Succeed())
		Expect(stop()).To(Succeed())

		startControllers(ctx)
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(replicas))
			seen := map[string]bool{}
			for _, p := range pods {
				seen[p.Name] = true
			}
			for i := range replicas {
				g.Expect(seen).To(HaveKey(fmt.Sprintf("big-worker-%d", i)))
			}
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			all := &corev1.PodList{}
			g.Expect(fw.Client.List(ctx, all, client.InNamespace(ns))).To(Succeed())
			g.Expect(all.Items).To(HaveLen(replicas))
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
	})
})

var _ = Describe("Job controller and bad input", Label("controller:job"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("bad")
		startControllers(ctx)
	})

	expectStalled := func(ctx context.Context, job *batchv1alpha1.Job, reason string, message ...string) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			s := condition(cur, batchv1alpha1.StalledCondition)
			g.Expect(s).NotTo(BeNil())
			g.Expect(s.Reason).To(Equal(reason))
			for _, m := range message {
				g.Expect(s.Message).To(ContainSubstring(m))
			}
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Pending))
			// The verdict is on this generation: tools read Stalled as "this commit is bad".
			g.Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
			g.Expect(cur.Status.Health).To(Equal(batchv1alpha1.HealthFailed))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	}

	It("waits for a claim the job names, and runs once it exists", func(ctx SpecContext) {
		job := wrappers.MakeJob("claim", ns).Scheduler(testScheduler).Task("worker", 1).Obj()
		job.Spec.Volumes = []batchv1alpha1.VolumeSpec{{MountPath: "/data", VolumeClaimName: "data"}}
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		expectStalled(ctx, job, batchv1alpha1.PVCNotFoundReason, "spec.volumes[0].volumeClaimName", "data")
		Consistently(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(BeEmpty())
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())

		claim := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: ns},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceStorage: resourceMustParse("1Gi"),
				}},
			},
		}
		Expect(fw.Client.Create(ctx, claim)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Spec.Volumes).To(ContainElement(HaveField("VolumeSource.PersistentVolumeClaim.ClaimName", "data")))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("stalls a job whose minAvailable dependsOn can never let form, and gangs the first tasks alone when it is left out", func(ctx SpecContext) {
		job := wrappers.MakeJob("staged", ns).Scheduler(testScheduler).MinAvailable(2).
			Task("master", 1).Task("worker", 2).DependsOn("master").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		expectStalled(ctx, job, batchv1alpha1.InvalidSpecReason, "spec.minAvailable", "set spec.minAvailable to at most 1")

		// Left out (from Git), the gang is the master alone; the workers follow once it runs.
		cur := &batchv1alpha1.Job{}
		Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)).To(Succeed())
		patch := client.MergeFrom(cur.DeepCopy())
		cur.Spec.MinAvailable = 0
		Expect(fw.Client.Patch(ctx, cur, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(HaveLen(3))
			g.Expect(condition(getJob(ctx, g, job), batchv1alpha1.StalledCondition)).To(BeNil())
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("keeps a job scaled to no replicas Running, as Volcano does, and runs its pods once scaled up", func(ctx SpecContext) {
		job := wrappers.MakeJob("empty", ns).Scheduler(testScheduler).Plugin("svc").Task("worker", 0).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(getJob(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Running))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(getJob(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Running))
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())

		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			patch := client.MergeFrom(cur.DeepCopy())
			cur.Spec.Tasks[0].Replicas = 2
			g.Expect(fw.Client.Patch(ctx, cur, patch)).To(Succeed())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(HaveLen(2))
			cm := &corev1.ConfigMap{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: job.Name + "-svc"}, cm)).To(Succeed())
			g.Expect(cm.Data).To(HaveKeyWithValue("VC_WORKER_NUM", "2"))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("runs a job whose plugin argument Volcano ignores (ssh --no-root), and says it is ignored", func(ctx SpecContext) {
		job := wrappers.MakeJob("noroot", ns).Scheduler(testScheduler).Plugin("ssh", "--no-root").Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(HaveLen(2))
			g.Expect(condition(getJob(ctx, g, job), batchv1alpha1.StalledCondition)).To(BeNil())
			events := &corev1.EventList{}
			g.Expect(fw.Client.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			var notes []string
			for _, e := range events.Items {
				if e.InvolvedObject.Name == job.Name && e.Type == corev1.EventTypeWarning {
					notes = append(notes, e.Reason+": "+e.Message)
				}
			}
			g.Expect(notes).To(ContainElement(And(HavePrefix("PluginArgumentIgnored: spec.plugins.ssh: argument \"--no-root\""),
				ContainSubstring("ignored, as Volcano ignores them"))))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("stalls a job whose task asks for negative resources, naming the task, the container and the field", func(ctx SpecContext) {
		job := wrappers.MakeJob("negative", ns).Scheduler(testScheduler).Task("worker", 1).Obj()
		job.Spec.Tasks[0].Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resourceMustParse("-1")}
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		expectStalled(ctx, job, batchv1alpha1.PodTemplateInvalidReason,
			"task worker, container "+job.Spec.Tasks[0].Template.Spec.Containers[0].Name+": spec.tasks[0].template.spec.containers[0].resources.requests[cpu]",
			"must be greater than or equal to 0")
	})

	It("stalls a job whose pod template the API server rejects, saying why", func(ctx SpecContext) {
		job := wrappers.MakeJob("template", ns).Scheduler(testScheduler).Task("worker", 3).Obj()
		job.Spec.Tasks[0].Template.Spec.Containers[0].Name = "Bad_Name"
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		expectStalled(ctx, job, batchv1alpha1.PodTemplateInvalidReason, "Bad_Name", "fix the task's pod template")
		Consistently(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(BeEmpty())
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())

		// Fixing the template from Git takes effect.
		cur := &batchv1alpha1.Job{}
		Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)).To(Succeed())
		patch := client.MergeFrom(cur.DeepCopy())
		cur.Spec.Tasks[0].Template.Spec.Containers[0].Name = "worker"
		Expect(fw.Client.Patch(ctx, cur, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(HaveLen(3))
			g.Expect(condition(getJob(ctx, g, job), batchv1alpha1.StalledCondition)).To(BeNil())
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})
})

func resourceMustParse(s string) resource.Quantity { return resource.MustParse(s) }

var _ = Describe("Job controller with the in-tree scheduler", Label("controller:job"), func() {
	It("creates a volcano job's pods only once its PodGroup is admitted", func(ctx SpecContext) {
		ns := fw.SpecNamespace("gate")
		// No scheduler: the spec admits the PodGroup itself.
		startControllersOnly(ctx)
		job := wrappers.MakeJob("gang", ns).Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		pg := &schedulingv1beta1.PodGroup{}
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: naming.PodGroupName("gang", cur.UID)}, pg)).To(Succeed())
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Pending))
			g.Expect(condition(cur, batchv1alpha1.ReconcilingCondition)).NotTo(BeNil())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(BeEmpty())
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())

		pg.Status.Phase = schedulingv1beta1.PodGroupInqueue
		Expect(fw.Client.Status().Update(ctx, pg)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(podNames(pods)).To(Equal([]string{"gang-worker-0", "gang-worker-1"}))
			g.Expect(pods[0].Spec.SchedulerName).To(Equal("volcano"))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("carries its PodGroup's Unschedulable words, is Stalled while the PodGroup is Unsatisfiable, and waits again once that changes", func(ctx SpecContext) {
		ns := fw.SpecNamespace("unsat")
		// No scheduler: the spec writes the PodGroup's Unschedulable condition itself.
		startControllersOnly(ctx)
		job := wrappers.MakeJob("huge", ns).Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		pg := &schedulingv1beta1.PodGroup{}
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: naming.PodGroupName("huge", cur.UID)}, pg)).To(Succeed())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		unschedulable := func(reason, message string) {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(pg), pg)).To(Succeed())
				pg.Status.Conditions = []schedulingv1beta1.PodGroupCondition{{
					Type: schedulingv1beta1.PodGroupUnschedulableType, Status: corev1.ConditionTrue,
					Reason: reason, Message: message, LastTransitionTime: metav1.Now(),
				}}
				g.Expect(fw.Client.Status().Update(ctx, pg)).To(Succeed())
			}, framework.Timeout, framework.Interval).Should(Succeed())
		}

		never := "2 of 2 pods wait: this PodGroup's minResources ask for 64 cpu, more than queue default's capability of 32 cpu: " +
			"the gang can never be admitted; lower minResources (or the tasks' requests), or raise the queue's spec.capability"
		unschedulable(schedulingv1beta1.UnsatisfiableReason, never)
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Pending))
			stalled := condition(cur, batchv1alpha1.StalledCondition)
			g.Expect(stalled).NotTo(BeNil())
			g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(stalled.Reason).To(Equal(batchv1alpha1.UnsatisfiableReason))
			g.Expect(stalled.Message).To(Equal(never))
			g.Expect(condition(cur, batchv1alpha1.ReconcilingCondition)).To(BeNil())
			g.Expect(cur.Status.Health).To(Equal(batchv1alpha1.HealthFailed))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		// The queue's capability is raised: the scheduler's reason changes and the job waits again.
		quota := "2 of 2 pods wait: queue resource quota insufficient: queue default can hold 64 of cpu and already holds 32 for running and admitted jobs"
		unschedulable(schedulingv1beta1.NotEnoughResourcesReason, quota)
		Eventually(func(g Gomega) {
			cur := getJob(ctx, g, job)
			g.Expect(condition(cur, batchv1alpha1.StalledCondition)).To(BeNil())
			reconciling := condition(cur, batchv1alpha1.ReconcilingCondition)
			g.Expect(reconciling).NotTo(BeNil())
			g.Expect(reconciling.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(reconciling.Reason).To(Equal(batchv1alpha1.JobPendingReason))
			g.Expect(reconciling.Message).To(Equal("waiting for the scheduler: " + quota))
			ready := condition(cur, batchv1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(schedulingv1beta1.NotEnoughResourcesReason))
			g.Expect(cur.Status.Health).To(Equal(batchv1alpha1.HealthProgressing))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("creates a volcano job's pods once the scheduler admits its PodGroup, and runs it", func(ctx SpecContext) {
		ns := fw.SpecNamespace("gate")
		startCalderaWithScheduler(ctx)
		job := wrappers.MakeJob("gated", ns).Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		cur := expectPhase(ctx, job, batchv1alpha1.Running, framework.LongTimeout)
		pg := &schedulingv1beta1.PodGroup{}
		Expect(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: naming.PodGroupName("gated", cur.UID)}, pg)).To(Succeed())
		Expect(pg.Status.Phase).NotTo(BeElementOf(schedulingv1beta1.PodGroupPending, schedulingv1beta1.PodGroupPhase("")))
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(2))
			for _, p := range pods {
				g.Expect(p.Spec.SchedulerName).To(Equal("volcano"))
				g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "bound by the in-tree scheduler")
			}
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})
})
