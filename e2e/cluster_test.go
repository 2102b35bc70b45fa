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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// jobChildren are the kinds of object a job owns, as lists.
func jobChildren() []client.ObjectList {
	return []client.ObjectList{
		&corev1.PodList{}, &schedulingv1beta1.PodGroupList{}, &corev1.ServiceList{},
		&corev1.ConfigMapList{}, &corev1.SecretList{},
	}
}

// ownedIn returns, per kind, the names of the objects in namespace ns that the job owns.
func ownedIn(ctx SpecContext, g Gomega, ns string, job *batchv1alpha1.Job) map[string][]string {
	owned := map[string][]string{}
	for _, list := range jobChildren() {
		g.Expect(fw.Client.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		if names := ownedBy(list, job.UID); len(names) > 0 {
			owned[listKind(list)] = names
		}
	}
	return owned
}

// ownedBy returns the names of the list's objects that uid owns.
func ownedBy(list client.ObjectList, uid types.UID) []string {
	GinkgoHelper()
	items, err := meta.ExtractList(list)
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, item := range items {
		obj, err := meta.Accessor(item)
		Expect(err).NotTo(HaveOccurred())
		for _, ref := range obj.GetOwnerReferences() {
			if ref.UID == uid {
				names = append(names, obj.GetName())
			}
		}
	}
	return names
}

// listKind names the kind of the list's items.
func listKind(list client.ObjectList) string {
	switch list.(type) {
	case *corev1.PodList:
		return "Pod"
	case *schedulingv1beta1.PodGroupList:
		return "PodGroup"
	case *corev1.ServiceList:
		return "Service"
	case *corev1.ConfigMapList:
		return "ConfigMap"
	case *corev1.SecretList:
		return "Secret"
	}
	return "?"
}

var _ = Describe("The local control plane behaves like a cluster", Label("e2e:cluster"), func() {
	var ns string

	BeforeEach(func(ctx SpecContext) {
		Expect(fw.ControllerManagerRunning()).To(BeTrue(), "the e2e suite runs kube-controller-manager")
		ns = fw.SpecNamespace("cluster")
		startCaldera(ctx)
	})

	It("garbage-collects a deleted job's pods, PodGroup and plugin objects", func(ctx SpecContext) {
		job := wrappers.MakeJob("gc", ns).Plugin("svc").Plugin("ssh").Plugin("env").
			Task("master", 1).Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPhase(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Running))
			owned := ownedIn(ctx, g, ns, job)
			g.Expect(owned).To(HaveKey("Pod"))
			g.Expect(owned["Pod"]).To(HaveLen(3))
			g.Expect(owned).To(HaveKey("PodGroup"))
			g.Expect(owned).To(HaveKey("Service"))
			g.Expect(owned).To(HaveKey("ConfigMap"))
			g.Expect(owned).To(HaveKey("Secret"))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())

		Expect(fw.Client.Delete(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(ownedIn(ctx, g, ns, job)).To(BeEmpty(), "what the job owned is gone")
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("deletes a finished job after ttlSecondsAfterFinished, with what it owns (foreground deletion completes)", func(ctx SpecContext) {
		job := wrappers.MakeJob("ttl", ns).TTL(5).Plugin("svc").
			Task("worker", 2).RunFor(time.Second).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		var finished metav1.Time
		Eventually(func(g Gomega) {
			cur := jobPhase(ctx, g, job)
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
			finished = cur.Status.State.LastTransitionTime
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		Expect(finished.IsZero()).To(BeFalse(), "a finished job says when it finished")

		Eventually(func(g Gomega) {
			err := fw.Client.Get(ctx, client.ObjectKeyFromObject(job), &batchv1alpha1.Job{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the job is gone, not left with a deletionTimestamp: %v", err)
			g.Expect(ownedIn(ctx, g, ns, job)).To(BeEmpty(), "what the job owned is gone")
		}, framework.Timeout, framework.Interval).Should(Succeed())
		// lastTransitionTime is in whole seconds, rounded down, so this is never less than the
		// true time between the finish and the deletion.
		gone := time.Since(finished.Time)
		Expect(gone).To(BeNumerically(">=", 5*time.Second), "kept for ttlSecondsAfterFinished")
		AddReportEntry("job gone after it finished", gone.Round(100*time.Millisecond).String())
	})

	It("empties a deleted namespace", func(ctx SpecContext) {
		other, err := fw.CreateNamespace(ctx, "doomed")
		Expect(err).NotTo(HaveOccurred())
		job := wrappers.MakeJob("doomed", other.Name).Plugin("svc").Task("worker", 2).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPhase(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Running))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())

		Expect(fw.Client.Delete(ctx, other)).To(Succeed())
		Eventually(func(g Gomega) {
			err := fw.Client.Get(ctx, client.ObjectKeyFromObject(other), &corev1.Namespace{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the namespace is gone: %v", err)
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})
})
