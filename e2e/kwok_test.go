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

package e2e

import (
	"context"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// The pod annotations of config/kwok/stages.yaml.
const (
	runTimeAnnotation   = "caldera.sh/simulate-run-time"
	exitCodeAnnotation  = "caldera.sh/simulate-exit-code"
	startedAtAnnotation = "caldera.sh/simulate-started-at"
)

var _ = Describe("KWOK nodes", func() {
	It("become Ready and keep the capacity they were created with", func(ctx SpecContext) {
		Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())
		for _, name := range nodes {
			var node corev1.Node
			Expect(fw.Client.Get(ctx, client.ObjectKey{Name: name}, &node)).To(Succeed())
			Expect(node.Status.Phase).To(Equal(corev1.NodeRunning))
			Expect(node.Status.Allocatable.Cpu().Cmp(resource.MustParse("32"))).To(BeZero(), "cpu of %s", name)
			Expect(node.Status.Allocatable.Memory().Cmp(resource.MustParse("256Gi"))).To(BeZero(), "memory of %s", name)
			Expect(node.Status.Allocatable.Pods().Value()).To(BeEquivalentTo(110), "pods of %s", name)
			Expect(node.Status.Capacity.Cpu().Cmp(resource.MustParse("32"))).To(BeZero(), "cpu capacity of %s", name)
			Expect(node.Status.Addresses).To(ContainElement(corev1.NodeAddress{Type: corev1.NodeHostName, Address: name}))
			Expect(node.Spec.Taints).To(BeEmpty(), "the not-ready taint of a new node is lifted once it is Ready")
		}
	}, SpecTimeout(framework.Timeout))
})

var _ = Describe("Pods on KWOK nodes", func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())
		ns = fw.SpecNamespace("kwok")
	}, NodeTimeout(framework.Timeout))

	It("run, and end Succeeded once simulate-run-time has passed", func(ctx SpecContext) {
		pod := boundPod(ns, "ok", nodes[0], map[string]string{runTimeAnnotation: "1s"})
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())

		running := waitForPhase(ctx, pod, corev1.PodRunning)
		Expect(running.Status.StartTime).NotTo(BeNil())
		Expect(running.Status.PodIP).NotTo(BeEmpty())
		Expect(running.Status.ContainerStatuses).To(HaveLen(1))
		Expect(running.Status.ContainerStatuses[0].Ready).To(BeTrue())
		Expect(running.Status.ContainerStatuses[0].State.Running).NotTo(BeNil())

		done := waitForPhase(ctx, pod, corev1.PodSucceeded)
		startedAt, err := time.Parse(time.RFC3339Nano, done.Annotations[startedAtAnnotation])
		Expect(err).NotTo(HaveOccurred(), "annotation %s", startedAtAnnotation)
		Expect(time.Since(startedAt)).To(BeNumerically(">=", time.Second), "the pod ended before its run time")
		state := done.Status.ContainerStatuses[0].State
		Expect(state.Running).To(BeNil())
		Expect(state.Terminated).NotTo(BeNil())
		Expect(state.Terminated.ExitCode).To(BeZero())
		Expect(state.Terminated.Reason).To(Equal("Completed"))
	}, SpecTimeout(framework.LongTimeout))

	It("count simulate-run-time from the start, whatever updates the pod gets meanwhile", func(ctx SpecContext) {
		pod := boundPod(ns, "touched", nodes[1], map[string]string{runTimeAnnotation: "1s"})
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())
		got := waitForPhase(ctx, pod, corev1.PodRunning)

		// Were the clock restarted by each update, the pod could not finish while they go on.
		for i := 0; got.Status.Phase == corev1.PodRunning; i++ {
			Expect(i).To(BeNumerically("<", 20), "the pod still runs after 20 label updates 250ms apart")
			time.Sleep(250 * time.Millisecond)
			patch := client.MergeFrom(got.DeepCopy())
			got.Labels = map[string]string{"touched": strconv.Itoa(i)}
			Expect(fw.Client.Patch(ctx, got, patch)).To(Succeed())
		}
		Expect(got.Status.Phase).To(Equal(corev1.PodSucceeded))
	}, SpecTimeout(framework.LongTimeout))

	It("end Failed with the exit code of simulate-exit-code", func(ctx SpecContext) {
		pod := boundPod(ns, "fail", nodes[1], map[string]string{runTimeAnnotation: "1s", exitCodeAnnotation: "3"})
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())

		done := waitForPhase(ctx, pod, corev1.PodFailed)
		Expect(done.Status.ContainerStatuses).To(HaveLen(1))
		state := done.Status.ContainerStatuses[0].State
		Expect(state.Running).To(BeNil())
		Expect(state.Terminated).NotTo(BeNil())
		Expect(state.Terminated.ExitCode).To(BeEquivalentTo(3))
		Expect(state.Terminated.Reason).To(Equal("Error"))
	}, SpecTimeout(framework.LongTimeout))

	It("end Failed naming the annotation when a simulation annotation is invalid", func(ctx SpecContext) {
		pod := boundPod(ns, "bad", nodes[2], map[string]string{runTimeAnnotation: "1s", exitCodeAnnotation: "three"})
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())

		done := waitForPhase(ctx, pod, corev1.PodFailed)
		Expect(done.Status.Reason).To(Equal("InvalidSimulation"))
		Expect(done.Status.Message).To(ContainSubstring(exitCodeAnnotation))
	}, SpecTimeout(framework.Timeout))

	It("keep running when owned by a Job and not told to finish", func(ctx SpecContext) {
		// The owner exists (no manager runs here to act on it): the garbage collector deletes
		// pods whose owner is gone.
		owner := wrappers.MakeJob("some-job", ns).Task("worker", 1).Obj()
		Expect(fw.Client.Create(ctx, owner)).To(Succeed())
		pod := boundPod(ns, "owned", nodes[2], nil)
		pod.OwnerReferences = []metav1.OwnerReference{{
			APIVersion:         "batch.volcano.sh/v1alpha1",
			Kind:               "Job",
			Name:               owner.Name,
			UID:                owner.UID,
			Controller:         ptr.To(true),
			BlockOwnerDeletion: ptr.To(false),
		}}
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())

		waitForPhase(ctx, pod, corev1.PodRunning)
		Consistently(func(g Gomega) corev1.PodPhase {
			var got corev1.Pod
			g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(pod), &got)).To(Succeed())
			return got.Status.Phase
		}).WithContext(ctx).WithTimeout(framework.ConsistentlyDuration).WithPolling(framework.Interval).
			Should(Equal(corev1.PodRunning))
	}, SpecTimeout(framework.Timeout))

	It("end as their shell command says: Succeeded after sleep, Failed with exit's code", func(ctx SpecContext) {
		ok := boundPod(ns, "sleeps", nodes[0], nil)
		ok.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "sleep 1"}
		fails := boundPod(ns, "exits", nodes[1], nil)
		fails.Spec.Containers[0].Command = []string{"/bin/sh"}
		fails.Spec.Containers[0].Args = []string{"-c", "sleep 1 && exit 3"}
		missing := boundPod(ns, "missing", nodes[2], nil)
		missing.Spec.Containers[0].Command = []string{"sh", "-c", "xxx"}
		for _, pod := range []*corev1.Pod{ok, fails, missing} {
			Expect(fw.Client.Create(ctx, pod)).To(Succeed())
		}

		done := waitForPhase(ctx, ok, corev1.PodSucceeded)
		Expect(done.Status.ContainerStatuses[0].State.Terminated).NotTo(BeNil())
		Expect(done.Status.ContainerStatuses[0].State.Terminated.Reason).To(Equal("Completed"))
		failed := waitForPhase(ctx, fails, corev1.PodFailed)
		Expect(failed.Status.ContainerStatuses[0].State.Terminated.ExitCode).To(BeEquivalentTo(3))
		Expect(failed.Status.ContainerStatuses[0].State.Terminated.Reason).To(Equal("Error"))
		notFound := waitForPhase(ctx, missing, corev1.PodFailed)
		Expect(notFound.Status.ContainerStatuses[0].State.Terminated.ExitCode).To(BeEquivalentTo(127))
	}, SpecTimeout(framework.LongTimeout))

	It("restart a failing command under restartPolicy OnFailure, counting restarts", func(ctx SpecContext) {
		pod := boundPod(ns, "crashes", nodes[0], nil)
		pod.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
		pod.Spec.Containers[0].Command = []string{"sh", "-c", "exit 1"}
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())

		got := &corev1.Pod{}
		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(pod), got)).To(Succeed())
			g.Expect(got.Status.ContainerStatuses).To(HaveLen(1))
			g.Expect(got.Status.ContainerStatuses[0].RestartCount).To(BeEquivalentTo(1))
		}).WithContext(ctx).WithTimeout(framework.Timeout).WithPolling(framework.Interval).Should(Succeed())
		Expect(got.Status.Phase).To(Equal(corev1.PodRunning))
		Expect(got.Status.ContainerStatuses[0].LastTerminationState.Terminated).NotTo(BeNil())
		Expect(got.Status.ContainerStatuses[0].LastTerminationState.Terminated.ExitCode).To(BeEquivalentTo(1))
	}, SpecTimeout(framework.LongTimeout))

	It("disappear when deleted", func(ctx SpecContext) {
		pod := boundPod(ns, "doomed", nodes[0], nil)
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())
		waitForPhase(ctx, pod, corev1.PodRunning)

		Expect(fw.Client.Delete(ctx, pod)).To(Succeed())
		Eventually(func() error {
			return fw.Client.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{})
		}).WithContext(ctx).WithTimeout(framework.Timeout).WithPolling(framework.Interval).
			Should(Satisfy(apierrors.IsNotFound))
	}, SpecTimeout(framework.Timeout))
})

// boundPod is a one-container pod already bound to node, with the given annotations.
func boundPod(ns, name, node string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec: corev1.PodSpec{
			NodeName:      node,
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name:  "main",
				Image: "busybox:1.36",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("1"),
					corev1.ResourceMemory: resource.MustParse("1Gi"),
				}},
			}},
		},
	}
}

// waitForPhase waits until pod reaches phase and returns it as it was then.
func waitForPhase(ctx context.Context, pod *corev1.Pod, phase corev1.PodPhase) *corev1.Pod {
	GinkgoHelper()
	got := &corev1.Pod{}
	Eventually(func(g Gomega) corev1.PodPhase {
		g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(pod), got)).To(Succeed())
		return got.Status.Phase
	}).WithContext(ctx).WithTimeout(framework.Timeout).WithPolling(framework.Interval).Should(Equal(phase))
	return got
}
