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

package cli_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/caldera"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// The words `vcctl job why` prints come from Caldera's controllers and scheduler, so these
// specs run them (the cluster has no nodes) rather than writing statuses by hand.
var _ = Describe("vcctl job why", Label("vcctl"), func() {
	var ns, queue string

	BeforeEach(func() {
		namespace, err := fw.CreateNamespace(ctx, "why")
		Expect(err).NotTo(HaveOccurred())
		ns = namespace.Name
		queue = "why-" + rand.String(6)
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, namespace))).To(Succeed())
			q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: queue}}
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, q))).To(Succeed())
		})

		stop, err := fw.StartManager(ctx, caldera.Setup(controllers.Options{SchedulerNames: []string{"volcano"}}, scheduler.Options{SchedulerNames: []string{"volcano"}}))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(stop()).To(Succeed()) })
	})

	// why runs `vcctl job why` on job and returns its lines.
	why := func(g Gomega, job string) []string {
		out, err := vcctl("job", "why", job, "-n", ns)
		g.Expect(err).NotTo(HaveOccurred())
		return strings.Split(strings.TrimRight(out, "\n"), "\n")
	}

	It("says a job waits for its closed queue and how to open it", func() {
		_, err := vcctl("queue", "create", "-n", queue, "-S", "Closed")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			q := &schedulingv1beta1.Queue{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Name: queue}, q)).To(Succeed())
			g.Expect(q.Status.State).To(Equal(schedulingv1beta1.QueueStateClosed))
		}, framework.Timeout, 500*time.Millisecond).Should(Succeed())

		_, err = vcctl("job", "run", "-N", "blocked", "-n", ns, "-q", queue, "-r", "2", "-m", "2")
		Expect(err).NotTo(HaveOccurred())

		Eventually(func(g Gomega) {
			lines := why(g, "blocked")
			g.Expect(lines[0]).To(HavePrefix("job " + ns + "/blocked is Pending (queue " + queue))
			g.Expect(lines).To(ContainElements(
				HavePrefix("- the job is stalled (QueueNotOpen): spec.queue: Invalid value: \""+queue+"\": can only submit job to queue with state `Open`"),
				"  next: open the queue (vcctl queue operate -n "+queue+" -a open), or submit the job to an open queue",
				HavePrefix("- queue "+queue+": weight 1, deserved <none>, allocated <none>, capability unlimited"),
			))
			g.Expect(lines).NotTo(ContainElement(HavePrefix("- the job has no PodGroup yet")),
				"a job stalled on its queue gets no PodGroup until the queue opens")
		}, framework.Timeout, 500*time.Millisecond).Should(Succeed())
	})

	It("says why a gang the cluster cannot hold is not admitted, in the scheduler's words", func() {
		_, err := vcctl("queue", "create", "-n", queue)
		Expect(err).NotTo(HaveOccurred())
		_, err = vcctl("job", "run", "-N", "too-big", "-n", ns, "-q", queue, "-r", "3", "-m", "3", "-R", "cpu=2,memory=1Gi", "-L", "cpu=2,memory=1Gi")
		Expect(err).NotTo(HaveOccurred())

		Eventually(func(g Gomega) {
			lines := why(g, "too-big")
			g.Expect(lines[0]).To(MatchRegexp(`^job ` + ns + `/too-big is Pending \(queue ` + queue + `, PodGroup too-big-\S+ Pending\)$`))
			g.Expect(lines).To(ContainElements(
				HavePrefix("- queue "+queue+": weight 1,"),
				// The overcommit plugin's words: the cluster (no nodes) cannot hold the gang.
				MatchRegexp(`^- the PodGroup is not admitted to queue `+queue+` \(Pending\): \d+ of \d+ pods wait: `+
					`resource in cluster is overused: the cluster offers 0 of cpu .*; this PodGroup's minResources need 6 more; `+
					`wait for running jobs to finish or add nodes`),
				"  next: the message above says what holds it; the scheduler tries again every cycle",
			))
		}, framework.Timeout, 500*time.Millisecond).Should(Succeed())
	})
})
