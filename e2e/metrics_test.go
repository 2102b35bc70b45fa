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
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/testing/caldera"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/metricstest"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
	"github.com/caldera-sh/caldera/scheduler"
)

// series is one scrape of /metrics: "name{label="value",...}" (labels sorted) -> value; a
// histogram gives its _count and _sum.
type series map[string]float64

// scrape reads the manager's /metrics over HTTP.
func scrape(ctx context.Context, url string) (series, error) {
	s, err := metricstest.Scrape(ctx, url)
	return series(s), err
}

// withPrefix returns the series whose key starts with prefix.
func (s series) withPrefix(prefix string) series {
	out := series{}
	for k, v := range s {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// mustScrape scrapes, failing g on error.
func mustScrape(ctx context.Context, g Gomega, url string) series {
	s, err := scrape(ctx, url)
	g.Expect(err).NotTo(HaveOccurred())
	return s
}

var _ = Describe("Metrics of the whole manager", Label("e2e:metrics"), func() {
	It("move on /metrics as a job runs to Completed, and go with the jobs and queues they name", func(ctx SpecContext) {
		Expect(fw.WaitForNodesReady(ctx, nodes...)).To(Succeed())
		ns := fw.SpecNamespace("metrics")
		// A queue of the spec's own (the namespace's name is unique), so its series are the spec's
		// alone: every manager of the process shares controller-runtime's registry.
		queueName := ns
		Expect(fw.Client.Create(ctx, wrappers.MakeQueue(queueName).Weight(3).Obj())).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			Expect(fw.DeleteQueue(ctx, queueName)).To(Succeed())
		})

		stop, url, err := fw.StartManagerWithMetrics(ctx, caldera.Setup(controllers.Options{}, scheduler.Options{}))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(stop()).To(Succeed()) })

		var before series
		Eventually(func(g Gomega) {
			before = mustScrape(ctx, g, url)
		}, framework.Timeout, framework.Interval).Should(Succeed(), "the manager serves %s", url)

		By("running a job of two pods to Completed")
		job := wrappers.MakeJob("counted", ns).Queue(queueName).MinAvailable(2).Task("work", 2).RunFor(3 * time.Second).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		queueLabel := fmt.Sprintf(`{queue_name=%q}`, queueName)
		Eventually(func(g Gomega) {
			s := mustScrape(ctx, g, url)
			g.Expect(s).To(HaveKeyWithValue("volcano_queue_weight"+queueLabel, 3.0))
			g.Expect(s).To(HaveKeyWithValue("volcano_queue_allocated_milli_cpu"+queueLabel, 200.0),
				"the two running pods request 100m each")
			g.Expect(s).To(HaveKeyWithValue("volcano_queue_request_milli_cpu"+queueLabel, 200.0))
			g.Expect(s).To(HaveKeyWithValue("volcano_queue_deserved_milli_cpu"+queueLabel, 200.0),
				"a queue alone with work deserves what it asks for")
			g.Expect(s).To(HaveKeyWithValue("volcano_queue_allocated_memory_bytes"+queueLabel, float64(128<<20)))
			g.Expect(s).To(HaveKeyWithValue(fmt.Sprintf(`caldera_jobs{phase="Running",queue=%q}`, queueName), 1.0))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())

		Eventually(func(g Gomega) {
			cur := jobPhase(ctx, g, job)
			g.Expect(cur.Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())

		Eventually(func(g Gomega) {
			s := mustScrape(ctx, g, url)
			moved := func(key string, by float64) {
				g.Expect(s[key]-before[key]).To(BeNumerically(">=", by), "%s went from %v to %v", key, before[key], s[key])
			}
			// The scheduler's, under Volcano's names.
			moved(`volcano_schedule_attempts_total{result="scheduled"}`, 1)
			moved("volcano_e2e_scheduling_latency_milliseconds_count", 1)
			moved("volcano_e2e_job_scheduling_latency_milliseconds_count", 1)
			moved(`volcano_action_scheduling_latency_microseconds_count{action="allocate"}`, 1)
			// The job controller's.
			g.Expect(s).To(HaveKeyWithValue(fmt.Sprintf(`caldera_jobs{phase="Completed",queue=%q}`, queueName), 1.0))
			g.Expect(s).To(HaveKeyWithValue(fmt.Sprintf(`caldera_jobs{phase="Running",queue=%q}`, queueName), 0.0))
			moved(`caldera_job_pod_creations_total{result="success"}`, 2)
			moved("caldera_job_time_to_running_seconds_count", 1)
			moved(`caldera_job_time_to_finish_seconds_count{phase="Completed"}`, 1)
			g.Expect(s[`caldera_job_time_to_finish_seconds_sum{phase="Completed"}`]-before[`caldera_job_time_to_finish_seconds_sum{phase="Completed"}`]).
				To(BeNumerically(">=", 3), "the pods ran for 3s")
		}, framework.Timeout, framework.Interval).Should(Succeed())

		By("a job that cannot be placed shows its unschedulable tasks while it exists")
		big := wrappers.MakeJob("too-big", ns).Queue(queueName).MinAvailable(1).Task("huge", 1).Obj()
		big.Spec.Tasks[0].Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1000")
		Expect(fw.Client.Create(ctx, big)).To(Succeed())
		jobIDPrefix := `volcano_unschedule_task_count{job_id="` + ns + `/`
		Eventually(func(g Gomega) {
			s := mustScrape(ctx, g, url)
			g.Expect(s.withPrefix(jobIDPrefix)).To(HaveLen(1), "the unschedulable job's series")
			for _, v := range s.withPrefix(jobIDPrefix) {
				g.Expect(v).To(Equal(1.0), "its gang of one is missing")
			}
			g.Expect(s["volcano_unschedule_job_count"]).To(BeNumerically(">=", 1))
			moved := s[`volcano_schedule_attempts_total{result="unschedulable"}`] - before[`volcano_schedule_attempts_total{result="unschedulable"}`]
			g.Expect(moved).To(BeNumerically(">=", 1))
			g.Expect(s).To(HaveKeyWithValue(fmt.Sprintf(`caldera_jobs{phase="Pending",queue=%q}`, queueName), 1.0))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		By("deleting the jobs, their PodGroups and the queue, their series go")
		for _, j := range []*batchv1alpha1.Job{job, big} {
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, j, client.PropagationPolicy("Background")))).To(Succeed())
		}
		// Without relying on garbage collection.
		Expect(fw.Client.DeleteAllOf(ctx, &schedulingv1beta1.PodGroup{}, client.InNamespace(ns))).To(Succeed())
		Expect(fw.DeleteQueue(ctx, queueName)).To(Succeed())
		Eventually(func(g Gomega) {
			s := mustScrape(ctx, g, url)
			g.Expect(s.withPrefix(jobIDPrefix)).To(BeEmpty(), "the deleted job's unschedulable series")
			g.Expect(s).NotTo(HaveKey(fmt.Sprintf(`caldera_jobs{phase="Completed",queue=%q}`, queueName)))
			g.Expect(s).NotTo(HaveKey(fmt.Sprintf(`caldera_jobs{phase="Pending",queue=%q}`, queueName)))
			g.Expect(s).NotTo(HaveKey("volcano_queue_weight" + queueLabel))
			g.Expect(s).NotTo(HaveKey("volcano_queue_allocated_milli_cpu" + queueLabel))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	}, SpecTimeout(3*framework.LongTimeout))
})
