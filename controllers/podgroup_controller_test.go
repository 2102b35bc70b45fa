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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// plainPodSpec is the spec of a pod of ours that names no PodGroup, asking for cpu.
func plainPodSpec(cpu string) corev1.PodSpec {
	return corev1.PodSpec{
		SchedulerName: testScheduler,
		Tolerations:   []corev1.Toleration{{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpExists}},
		Containers: []corev1.Container{{Name: "main", Image: "busybox", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
		}}},
	}
}

// deployment is a Deployment of replicas pods of plainPodSpec(cpu) whose owner annotation asks
// for minMember pods at once.
func deployment(ns, name string, replicas int32, minMember, cpu string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Annotations: map[string]string{schedulingv1beta1.GroupMinMemberAnnotationKey: minMember}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: plainPodSpec(cpu)},
		},
	}
}

// appPods lists the pods of a Deployment by its app label.
func appPods(ctx context.Context, ns, app string) []corev1.Pod {
	list := &corev1.PodList{}
	Expect(fw.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"app": app})).To(Succeed())
	return list.Items
}

// boundAppPods counts the bound pods of a Deployment.
func boundAppPods(ctx context.Context, ns, app string) func() int {
	return func() int {
		n := 0
		for _, p := range appPods(ctx, ns, app) {
			if p.Spec.NodeName != "" {
				n++
			}
		}
		return n
	}
}

// currentReplicaSet returns the ReplicaSet a Deployment's pods belong to.
func currentReplicaSet(ctx context.Context, ns, app string) *appsv1.ReplicaSet {
	GinkgoHelper()
	list := &appsv1.ReplicaSetList{}
	Eventually(func() int {
		Expect(fw.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"app": app})).To(Succeed())
		return len(list.Items)
	}, framework.Timeout, framework.Interval).Should(Equal(1))
	return &list.Items[0]
}

var _ = Describe("PodGroup controller", Label("controller:podgroup"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("plain")
		startControllers(ctx)
	})

	It("gives a bare pod podgroup-<pod uid>, owned by the pod, places it, and the group goes with the pod", func(ctx SpecContext) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bare"}, Spec: plainPodSpec("1")}
		Expect(fw.Client.Create(ctx, pod)).To(Succeed())
		name := "podgroup-" + string(pod.UID)

		pg := &schedulingv1beta1.PodGroup{}
		Eventually(func() error {
			return fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, pg)
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(pg.Spec.MinMember).To(Equal(int32(1)))
		Expect(pg.OwnerReferences).To(ConsistOf(HaveField("UID", pod.UID)))
		Expect(*pg.Spec.MinResources).To(HaveKeyWithValue(corev1.ResourceCPU, resource.MustParse("1")))

		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
			g.Expect(pod.Annotations).To(HaveKeyWithValue(schedulingv1beta1.KubeGroupNameAnnotationKey, name))
			g.Expect(pod.Spec.NodeName).NotTo(BeEmpty())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		Expect(fw.Client.Delete(ctx, pod, client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(fw.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, pg))
		}, framework.LongTimeout, framework.Interval).Should(BeTrue())
	})

	It("places a Deployment's pods as the gang its group-min-member asks for, all or none, and deletes the group when it is scaled to zero", func(ctx SpecContext) {
		// Five pods of 20 cpus need five nodes: the suite has four, so none may start.
		toobig := deployment(ns, "toobig", 5, "5", "20")
		Expect(fw.Client.Create(ctx, toobig)).To(Succeed())
		rs := currentReplicaSet(ctx, ns, "toobig")
		key := types.NamespacedName{Namespace: ns, Name: "podgroup-" + string(rs.UID)}
		pg := &schedulingv1beta1.PodGroup{}
		Eventually(func() error { return fw.Client.Get(ctx, key, pg) }, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(pg.Spec.MinMember).To(Equal(int32(5)))
		Expect(*pg.Spec.MinResources).To(HaveKeyWithValue(corev1.ResourceCPU, resource.MustParse("100")))
		Expect(pg.OwnerReferences).To(ConsistOf(HaveField("UID", rs.UID)))
		Eventually(func() int { return len(appPods(ctx, ns, "toobig")) }, framework.Timeout, framework.Interval).Should(Equal(5))
		Eventually(func() []schedulingv1beta1.PodGroupCondition {
			Expect(fw.Client.Get(ctx, key, pg)).To(Succeed())
			return pg.Status.Conditions
		}, framework.Timeout, framework.Interval).Should(ContainElement(And(
			HaveField("Type", schedulingv1beta1.PodGroupUnschedulableType),
			HaveField("Message", ContainSubstring("5 of 5 pods wait: ")))))
		Consistently(boundAppPods(ctx, ns, "toobig"), framework.ConsistentlyDuration, framework.Interval).Should(BeZero())

		// Scaled to zero, its pods leave (KWOK's pods go at once) and the group follows.
		patch := client.MergeFrom(toobig.DeepCopy())
		toobig.Spec.Replicas = ptr.To(int32(0))
		Expect(fw.Client.Patch(ctx, toobig, patch)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(fw.Client.Get(ctx, key, &schedulingv1beta1.PodGroup{}))
		}, framework.LongTimeout, framework.Interval).Should(BeTrue())

		// Three pods of 20 cpus fit, one a node: all three start.
		Expect(fw.Client.Create(ctx, deployment(ns, "fits", 3, "3", "20"))).To(Succeed())
		Eventually(boundAppPods(ctx, ns, "fits"), framework.Timeout, framework.Interval).Should(Equal(3))
	})

	It("warns on the pod when group-min-member is not a number, and groups it alone", func(ctx SpecContext) {
		Expect(fw.Client.Create(ctx, deployment(ns, "typo", 1, "three", "1"))).To(Succeed())
		Eventually(boundAppPods(ctx, ns, "typo"), framework.Timeout, framework.Interval).Should(Equal(1))
		pod := appPods(ctx, ns, "typo")[0]
		Eventually(func() []string {
			events := &corev1.EventList{}
			Expect(fw.Client.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			var out []string
			for _, e := range events.Items {
				if e.InvolvedObject.UID == pod.UID && e.Type == corev1.EventTypeWarning {
					out = append(out, e.Reason+": "+e.Message)
				}
			}
			return out
		}, framework.Timeout, framework.Interval).Should(ContainElement(
			ContainSubstring(`InvalidGroupMinMember: annotation scheduling.volcano.sh/group-min-member="three"`)))
	})
})
