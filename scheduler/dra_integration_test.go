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
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
	"github.com/caldera-sh/caldera/scheduler"
)

// usesClaim gives a pod the claim named claim, used by its containers.
func usesClaim(claim string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, corev1.PodResourceClaim{Name: "gpu", ResourceClaimName: ptr.To(claim)})
		for i := range p.Spec.Containers {
			p.Spec.Containers[i].Resources.Claims = append(p.Spec.Containers[i].Resources.Claims, corev1.ResourceClaim{Name: "gpu"})
		}
	}
}

// ownClaim gives each pod (named <prefix>-<i>) the claim <prefix>-<i>.
func ownClaim(p *corev1.Pod) { usesClaim(p.Name)(p) }

// claimOf reads a claim.
func claimOf(ns, name string) *resourcev1.ResourceClaim {
	GinkgoHelper()
	c := &resourcev1.ResourceClaim{}
	Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, c)).To(Succeed())
	return c
}

// allocatedClaims counts the namespace's claims with an allocation.
func allocatedClaims(ns string) func() int {
	return func() int {
		var list resourcev1.ResourceClaimList
		if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return -1
		}
		n := 0
		for _, c := range list.Items {
			if c.Status.Allocation != nil {
				n++
			}
		}
		return n
	}
}

var _ = Describe("Dynamic Resource Allocation", func() {
	var ns, driver, class string
	BeforeEach(func() {
		ns = fw.SpecNamespace("dra")
		driver = uniqueName("gpu") + ".example.com"
		class = uniqueName("gpu")
		createAndCleanup(wrappers.GPUClass(class, driver))
	})

	// gpuNodes makes n nodes of 8 cpu, each with a slice of gpus devices of the spec's driver.
	gpuNodes := func(n, gpus int) []string {
		var names []string
		for i := 0; i < n; i++ {
			name := createNode(uniqueName(fmt.Sprintf("gpu%d", i)), resources("cpu", "8", "memory", "16Gi"), nil).Name
			createAndCleanup(wrappers.GPUSlice(name, driver, gpus))
			names = append(names, name)
		}
		return names
	}
	claims := func(prefix string, n int) {
		for i := 0; i < n; i++ {
			createAndCleanup(wrappers.GPUClaim(ns, fmt.Sprintf("%s-%d", prefix, i), class, 1))
		}
	}

	It("gives each pod of a gang its own device on the node it is bound to, the claim written before the bind", func() {
		startScheduler(scheduler.Options{})
		nodes := gpuNodes(2, 2)
		claims("train", 4)
		podGroup(ns, "train", "default", 4)
		created := pods(ns, "train", "train", 4, resources("cpu", "1"), ownClaim)
		Eventually(boundCount(ns, "train"), framework.Timeout, framework.Interval).Should(Equal(4))

		devices := map[string]bool{}
		for _, p := range created {
			pod := &corev1.Pod{}
			Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(p), pod)).To(Succeed())
			Expect(nodes).To(ContainElement(pod.Spec.NodeName))
			c := claimOf(ns, p.Name)
			Expect(c.Status.Allocation).NotTo(BeNil(), "claim %s", c.Name)
			Expect(c.Finalizers).To(ContainElement(resourcev1.Finalizer))
			Expect(c.Status.ReservedFor).To(ConsistOf(resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID}))
			Expect(c.Status.Allocation.Devices.Results).To(HaveLen(1))
			r := c.Status.Allocation.Devices.Results[0]
			Expect(r.Driver).To(Equal(driver))
			Expect(r.Pool).To(Equal(pod.Spec.NodeName), "the device is on the pod's node")
			id := r.Pool + "/" + r.Device
			Expect(devices).NotTo(HaveKey(id), "a device is allocated once")
			devices[id] = true
		}
	})

	It("binds nothing of a gang whose claims need more devices than there are, allocates nothing, and says why", func() {
		startScheduler(scheduler.Options{})
		gpuNodes(1, 2)
		claims("big", 3)
		podGroup(ns, "big", "default", 3)
		pods(ns, "big", "big", 3, resources("cpu", "1"), ownClaim)
		Eventually(unschedulableMessage(ns, "big"), framework.Timeout, framework.Interval).Should(ContainSubstring("cannot allocate all claims"))
		Consistently(boundCount(ns, "big"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(0))
		Expect(allocatedClaims(ns)()).To(Equal(0))

		By("a node with devices comes: the gang is placed whole")
		gpuNodes(1, 1)
		Eventually(boundCount(ns, "big"), framework.Timeout, framework.Interval).Should(Equal(3))
		Expect(allocatedClaims(ns)()).To(Equal(3))
	})

	It("takes the pods of a shared claim to the node of its allocation", func() {
		startScheduler(scheduler.Options{})
		gpuNodes(3, 1)
		createAndCleanup(wrappers.GPUClaim(ns, "shared", class, 1))
		podGroup(ns, "pair", "default", 2)
		created := pods(ns, "pair", "pair", 2, resources("cpu", "1"), usesClaim("shared"))
		Eventually(boundCount(ns, "pair"), framework.Timeout, framework.Interval).Should(Equal(2))
		Expect(hostsOf(ns, "pair")()).To(HaveLen(1), "both on one node")
		c := claimOf(ns, "shared")
		Expect(c.Status.Allocation).NotTo(BeNil())
		var uids []types.UID
		for _, r := range c.Status.ReservedFor {
			uids = append(uids, r.UID)
		}
		Expect(uids).To(ConsistOf(created[0].UID, created[1].UID))

		By("a later pod of the claim goes where its devices are")
		podGroup(ns, "third", "default", 1)
		pods(ns, "third", "third", 1, resources("cpu", "1"), usesClaim("shared"))
		Eventually(boundCount(ns, "third"), framework.Timeout, framework.Interval).Should(Equal(1))
		Expect(hostsOf(ns, "third")()).To(HaveKey(c.Status.Allocation.Devices.Results[0].Pool))
	})

	It("waits naming what is missing: a claim, then a DeviceClass", func() {
		startScheduler(scheduler.Options{})
		gpuNodes(1, 1)
		missing := uniqueName("missing")
		podGroup(ns, "lone", "default", 1)
		pods(ns, "lone", "lone", 1, resources("cpu", "1"), usesClaim("lone-claim"))
		Eventually(unschedulableMessage(ns, "lone"), framework.Timeout, framework.Interval).Should(
			ContainSubstring(`resourceclaim "lone-claim" of pod claim "gpu" does not exist`))

		createAndCleanup(wrappers.GPUClaim(ns, "lone-claim", missing, 1))
		Eventually(unschedulableMessage(ns, "lone"), framework.Timeout, framework.Interval).Should(
			ContainSubstring(fmt.Sprintf(`resourceclaim "lone-claim", request gpu: device class %s does not exist`, missing)))
		Expect(boundCount(ns, "lone")()).To(Equal(0))

		createAndCleanup(wrappers.GPUClass(missing, driver))
		Eventually(boundCount(ns, "lone"), framework.Timeout, framework.Interval).Should(Equal(1))
		Expect(slices.ContainsFunc(claimOf(ns, "lone-claim").Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool {
			return r.Name == "lone-0"
		})).To(BeTrue())
	})
})
