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
package operators

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// raySample is a RayCluster of one head and three workers (samples/integrations/kuberay).
const raySample = "samples/integrations/kuberay/raycluster.yaml"

var _ = Describe("KubeRay with --batch-scheduler=volcano", func() {
	var ns string

	BeforeEach(func() {
		ns = fw.SpecNamespace("kuberay")
	})

	It("gang-schedules a RayCluster's head and workers through its PodGroup ray-<name>-pg", func(ctx SpecContext) {
		rc := applySample(ctx, raySample, ns, nil)
		group := "ray-" + rc.GetName() + "-pg"

		pods := expectGangPlaced(ctx, ns, group, "RayCluster", 4)
		Eventually(func(g Gomega) {
			pg := podGroup(ctx, g, ns, group)
			g.Expect(pg.Spec.Queue).To(Equal(schedulingv1beta1.DefaultQueue), "the queue of the volcano.sh/queue-name label")
			g.Expect(pg.Status.Phase).To(Equal(schedulingv1beta1.PodGroupRunning))
			g.Expect(pg.Status.Running).To(BeEquivalentTo(4))
			for _, p := range groupPods(ctx, g, ns, group) {
				g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "phase of %s", p.Name)
			}
		}).WithContext(ctx).WithTimeout(framework.Timeout).WithPolling(framework.Interval).Should(Succeed())

		roles := map[string]int{}
		for _, p := range pods {
			roles[p.Labels["ray.io/node-type"]]++
		}
		Expect(roles).To(Equal(map[string]int{"head": 1, "worker": 3}))
	}, SpecTimeout(framework.LongTimeout))

	It("binds none of a RayCluster's pods while the whole cluster cannot fit", func(ctx SpecContext) {
		// Four workers of 20 CPUs: each of the three 32-CPU nodes holds one, so four of the five
		// pods (the head and three workers) could be placed, but not all of them.
		rc := applySample(ctx, raySample, ns, func(rc *unstructured.Unstructured) {
			groups, _, err := unstructured.NestedSlice(rc.Object, "spec", "workerGroupSpecs")
			Expect(err).NotTo(HaveOccurred())
			workers := groups[0].(map[string]any)
			for _, f := range []string{"replicas", "minReplicas", "maxReplicas"} {
				workers[f] = int64(4)
			}
			Expect(unstructured.SetNestedSlice(rc.Object, groups, "spec", "workerGroupSpecs")).To(Succeed())
			setWorkerRequests(rc)
		})
		message := expectGangUnplaced(ctx, ns, "ray-"+rc.GetName()+"-pg", 5)
		GinkgoWriter.Printf("Unschedulable: %s\n", message)
	}, SpecTimeout(framework.LongTimeout))
})

// setWorkerRequests makes the first worker group of a RayCluster ask for 20 CPUs a pod.
func setWorkerRequests(rc *unstructured.Unstructured) {
	GinkgoHelper()
	groups, _, err := unstructured.NestedSlice(rc.Object, "spec", "workerGroupSpecs")
	Expect(err).NotTo(HaveOccurred())
	worker := &unstructured.Unstructured{Object: groups[0].(map[string]any)}
	setRequests(worker, "20", "8Gi", "template")
	groups[0] = worker.Object
	Expect(unstructured.SetNestedSlice(rc.Object, groups, "spec", "workerGroupSpecs")).To(Succeed())
}
