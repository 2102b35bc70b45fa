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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// The scheduler allocates devices from the nodes' ResourceSlices to the claims
// kube-controller-manager makes from the jobs' ResourceClaimTemplates, and
// kube-controller-manager deallocates them once the pods are done, as on a real cluster.
var _ = Describe("Dynamic Resource Allocation", Label("e2e:dra"), func() {
	var ns, driver, class string
	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("dra")
		driver = ns + ".gpu.example.com"
		class = ns + "-gpu"
		startCaldera(ctx)
		create := func(obj client.Object) {
			Expect(fw.Client.Create(ctx, obj)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, obj))).To(Succeed()) })
		}
		create(wrappers.GPUClass(class, driver))
		// Two fake GPUs on each of the first two nodes.
		for _, node := range nodes[:2] {
			create(wrappers.GPUSlice(node, driver, 2))
		}
		Expect(fw.Client.Create(ctx, wrappers.GPUClaimTemplate(ns, "a-gpu", class, 1))).To(Succeed())
	})

	// claimsOf returns each pod's claim (made from the template) by pod name.
	claimsOf := func(ctx context.Context, g Gomega, pods []corev1.Pod) map[string]*resourcev1.ResourceClaim {
		out := map[string]*resourcev1.ResourceClaim{}
		for _, pod := range pods {
			g.Expect(pod.Status.ResourceClaimStatuses).To(HaveLen(1), "pod %s has no claim yet", pod.Name)
			name := pod.Status.ResourceClaimStatuses[0].ResourceClaimName
			g.Expect(name).NotTo(BeNil())
			claim := &resourcev1.ResourceClaim{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: *name}, claim)).To(Succeed())
			out[pod.Name] = claim
		}
		return out
	}

	It("runs a gang of 4 with a GPU each to Completed, each claim allocated a device of its pod's node, and a second gang on the same devices after", func(ctx SpecContext) {
		first := wrappers.MakeJob("first", ns).MinAvailable(4).Task("worker", 4).ClaimFromTemplate("gpu", "a-gpu").RunFor(3 * time.Second).Obj()
		Expect(fw.Client.Create(ctx, first)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, first)
			g.Expect(pods).To(HaveLen(4))
			devices := map[string]bool{}
			for name, claim := range claimsOf(ctx, g, pods) {
				g.Expect(claim.Status.Allocation).NotTo(BeNil(), "claim of %s", name)
				r := claim.Status.Allocation.Devices.Results[0]
				g.Expect(r.Driver).To(Equal(driver))
				devices[r.Pool+"/"+r.Device] = true
				for _, pod := range pods {
					if pod.Name == name {
						g.Expect(pod.Spec.NodeName).To(Equal(r.Pool), "pod %s is on its device's node", name)
					}
				}
				g.Expect(claim.Status.ReservedFor).To(HaveLen(1))
			}
			g.Expect(devices).To(HaveLen(4), "four devices, each once")
		}, framework.LongTimeout, framework.Interval).Should(Succeed())

		// Every device is taken: the second gang waits until the first is done and its claims
		// are deallocated.
		second := wrappers.MakeJob("second", ns).MinAvailable(4).Task("worker", 4).ClaimFromTemplate("gpu", "a-gpu").RunFor(time.Second).Obj()
		Expect(fw.Client.Create(ctx, second)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPhase(ctx, g, first).Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPhase(ctx, g, second).Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("runs samples/dra/gpu-training.yaml to Completed on nodes publishing their GPUs as gpu.nvidia.com", func(ctx SpecContext) {
		for _, obj := range []client.Object{wrappers.GPUClass(framework.GPUDriver, framework.GPUDriver),
			wrappers.GPUSlice(nodes[1], framework.GPUDriver, 2), wrappers.GPUSlice(nodes[2], framework.GPUDriver, 2)} {
			Expect(fw.Client.Create(ctx, obj)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, obj))).To(Succeed()) })
		}
		applyAll(ctx, "samples/dra/gpu-training.yaml", ns)
		job := &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gpu-training"}}
		Eventually(func(g Gomega) {
			g.Expect(jobPhase(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("binds nothing of a gang needing more GPUs than the cluster has, and says why", func(ctx SpecContext) {
		job := wrappers.MakeJob("five", ns).MinAvailable(5).Task("worker", 5).ClaimFromTemplate("gpu", "a-gpu").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			pg := podGroupOfJob(ctx, g, job)
			g.Expect(pg.Status.Conditions).To(ContainElement(HaveField("Message", ContainSubstring("cannot allocate all claims"))))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveEach(HaveField("Spec.NodeName", BeEmpty())))
			for _, claim := range claimsOf(ctx, g, pods) {
				g.Expect(claim.Status.Allocation).To(BeNil(), "a member of a gang that does not fit got a device")
			}
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
	})
})

// podGroupOfJob returns the PodGroup of a job.
func podGroupOfJob(ctx context.Context, g Gomega, job *batchv1alpha1.Job) schedulingv1beta1.PodGroup {
	var groups schedulingv1beta1.PodGroupList
	g.Expect(fw.Client.List(ctx, &groups, client.InNamespace(job.Namespace))).To(Succeed())
	for _, pg := range groups.Items {
		for _, ref := range pg.OwnerReferences {
			if ref.Kind == "Job" && ref.Name == job.Name {
				return pg
			}
		}
	}
	g.Expect(groups.Items).To(ContainElement(HaveField("OwnerReferences", ContainElement(HaveField("Name", job.Name)))), "the PodGroup of job %s", job.Name)
	return schedulingv1beta1.PodGroup{}
}
