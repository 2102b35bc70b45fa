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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// mpiSample is an MPIJob of one launcher and three workers (samples/integrations/mpi-operator).
const mpiSample = "samples/integrations/mpi-operator/mpijob.yaml"

var _ = Describe("The MPI operator with --gang-scheduling=volcano", func() {
	var ns string

	BeforeEach(func() {
		ns = fw.SpecNamespace("mpi")
	})

	It("gang-schedules an MPIJob's launcher and workers through its PodGroup and runs it to Succeeded", func(ctx SpecContext) {
		job := applySample(ctx, mpiSample, ns, nil)
		group := job.GetName()

		pods := expectGangPlaced(ctx, ns, group, "MPIJob", 4)
		roles := map[string]int{}
		for _, p := range pods {
			roles[p.Labels["training.kubeflow.org/job-role"]]++
		}
		Expect(roles).To(Equal(map[string]int{"launcher": 1, "worker": 3}))
		Expect(podGroup(ctx, Default, ns, group).Spec.Queue).To(Equal(schedulingv1beta1.DefaultQueue))

		// The launcher succeeds after its simulated run time, and the MPIJob with it.
		Eventually(func(g Gomega) {
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(job.GroupVersionKind())
			g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)).To(Succeed())
			conditions, _, err := unstructured.NestedSlice(cur.Object, "status", "conditions")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(conditions).To(ContainElement(And(
				HaveKeyWithValue("type", "Succeeded"),
				HaveKeyWithValue("status", "True"),
			)))
		}).WithContext(ctx).WithTimeout(framework.LongTimeout).WithPolling(framework.Interval).Should(Succeed())
	}, SpecTimeout(framework.LongTimeout))

	It("binds none of an MPIJob's pods while the whole job cannot fit", func(ctx SpecContext) {
		// Four workers of 20 CPUs: each of the three 32-CPU nodes holds one, so four of the five
		// pods could be placed, but not all of them.
		job := applySample(ctx, mpiSample, ns, func(job *unstructured.Unstructured) {
			Expect(unstructured.SetNestedField(job.Object, int64(4), "spec", "mpiReplicaSpecs", "Worker", "replicas")).To(Succeed())
			setRequests(job, "20", "8Gi", "spec", "mpiReplicaSpecs", "Worker", "template")
		})
		message := expectGangUnplaced(ctx, ns, job.GetName(), 5)
		GinkgoWriter.Printf("Unschedulable: %s\n", message)
	}, SpecTimeout(framework.LongTimeout))
})
