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
	"os"
	"path/filepath"
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/internal/cronjob"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/install"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// cronClock is a fake clock for the CronJob controller: the spec moves it from one schedule
// time to the next, so a one-minute schedule runs in seconds. The job controller, the
// scheduler and KWOK keep real time, so runs start and finish as usual.
type cronClock struct{ *testingclock.FakeClock }

// nextMinute moves the clock one second past the next whole minute and returns that minute:
// the schedule time of "* * * * *" that is now due.
func (c cronClock) nextMinute() time.Time {
	next := c.Now().Truncate(time.Minute).Add(time.Minute)
	c.SetTime(next.Add(time.Second))
	return next
}

// cronStartMargin is the least time left in the minute when a CronJob spec starts its clock:
// more than the spec takes to start the manager and create its CronJob.
const cronStartMargin = 10 * time.Second

// startCronControllers starts the controllers and the scheduler with the CronJob controller on
// a fake clock set to the real time, for the rest of the spec.
func startCronControllers(ctx context.Context) cronClock {
	GinkgoHelper()
	// A CronJob's schedule times count from its creation, which the API server stamps with the
	// real time. Should a minute begin between starting the fake clock and creating the spec's
	// CronJob, the spec's first nextMinute would be the CronJob's creation minute, never due:
	// start clear of a minute's end.
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < cronStartMargin {
		time.Sleep(left + 100*time.Millisecond)
	}
	clk := cronClock{testingclock.NewFakeClock(time.Now())}
	stop, err := fw.StartManager(ctx, func(mgr ctrl.Manager) error {
		if err := controllers.Setup(mgr, controllers.Options{SchedulerNames: []string{testScheduler}, CronJobClock: clk}); err != nil {
			return err
		}
		return addScheduler(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })
	return clk
}

func getCronJob(ctx context.Context, g Gomega, cj *batchv1alpha1.CronJob) *batchv1alpha1.CronJob {
	cur := &batchv1alpha1.CronJob{}
	g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(cj), cur)).To(Succeed())
	return cur
}

// cronRuns lists the runs of a CronJob that are not being deleted, oldest schedule first.
func cronRuns(ctx context.Context, g Gomega, cj *batchv1alpha1.CronJob) []batchv1alpha1.Job {
	list := &batchv1alpha1.JobList{}
	g.Expect(fw.Client.List(ctx, list, client.InNamespace(cj.Namespace))).To(Succeed())
	var out []batchv1alpha1.Job
	for _, j := range list.Items {
		if ref := metav1.GetControllerOf(&j); ref != nil && ref.Name == cj.Name && j.DeletionTimestamp == nil {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Name < out[k].Name })
	return out
}

func runNames(jobs []batchv1alpha1.Job) []string {
	names := make([]string, len(jobs))
	for i, j := range jobs {
		names[i] = j.Name
	}
	return names
}

func activeNames(cj *batchv1alpha1.CronJob) []string {
	var names []string
	for _, ref := range cj.Status.Active {
		names = append(names, ref.Name)
	}
	return names
}

// expectCronReady waits until the CronJob has taken up its generation and is Ready with reason.
func expectCronReady(ctx context.Context, cj *batchv1alpha1.CronJob, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		cur := getCronJob(ctx, g, cj)
		g.Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
		ready := meta.FindStatusCondition(cur.Status.Conditions, batchv1alpha1.ReadyCondition)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(ready.Reason).To(Equal(reason))
		g.Expect(meta.FindStatusCondition(cur.Status.Conditions, batchv1alpha1.StalledCondition)).To(BeNil())
	}, framework.Timeout, framework.Interval).Should(Succeed())
}

// expectRun waits for the run of schedule time t and returns it.
func expectRun(ctx context.Context, cj *batchv1alpha1.CronJob, t time.Time) *batchv1alpha1.Job {
	GinkgoHelper()
	job := &batchv1alpha1.Job{}
	Eventually(func(g Gomega) {
		g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: cj.Namespace, Name: cronjob.JobName(cj.Name, t)}, job)).To(Succeed())
	}, framework.Timeout, framework.Interval).Should(Succeed())
	return job
}

var _ = Describe("CronJob controller", Label("controller:cronjob"), func() {
	var (
		ns  string
		clk cronClock
	)

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("cronjob")
		clk = startCronControllers(ctx)
	})

	It("creates a run at each schedule time of a one-minute schedule, named from it, and prunes finished runs oldest first", func(ctx SpecContext) {
		job := wrappers.MakeJob("", ns).Task("worker", 1).RunFor(time.Second).Obj()
		job.Labels = map[string]string{"team": "ml"}
		cj := wrappers.MakeCronJob("minutely", ns, "* * * * *", job).History(2, 1).Obj()
		Expect(fw.Client.Create(ctx, cj)).To(Succeed())
		expectCronReady(ctx, cj, batchv1alpha1.CronJobScheduledReason)
		Consistently(func(g Gomega) []batchv1alpha1.Job { return cronRuns(ctx, g, cj) },
			framework.ConsistentlyDuration, framework.Interval).Should(BeEmpty(), "nothing is due before the first minute")

		var times []time.Time
		for range 4 {
			t := clk.nextMinute()
			times = append(times, t)
			run := expectRun(ctx, cj, t)
			Expect(run.Labels).To(HaveKeyWithValue("team", "ml"))
			Expect(run.Annotations).To(HaveKeyWithValue(batchv1alpha1.CronJobScheduledTimestampAnnotation, t.UTC().Format(time.RFC3339)))
			Expect(metav1.GetControllerOf(run)).To(HaveField("Name", cj.Name))
			Eventually(func(g Gomega) {
				cur := getCronJob(ctx, g, cj)
				g.Expect(cur.Status.LastScheduleTime).NotTo(BeNil())
				g.Expect(cur.Status.LastScheduleTime.Time.Equal(t)).To(BeTrue())
			}, framework.Timeout, framework.Interval).Should(Succeed())
			expectPhase(ctx, run, batchv1alpha1.Completed, framework.LongTimeout)
			Eventually(func(g Gomega) {
				cur := getCronJob(ctx, g, cj)
				g.Expect(cur.Status.Active).To(BeEmpty(), "a completed run is no longer active")
				g.Expect(cur.Status.LastSuccessfulTime).NotTo(BeNil())
			}, framework.Timeout, framework.Interval).Should(Succeed())
		}
		Eventually(func(g Gomega) []string { return runNames(cronRuns(ctx, g, cj)) }, framework.Timeout, framework.Interval).Should(Equal([]string{
			cronjob.JobName(cj.Name, times[2]), cronjob.JobName(cj.Name, times[3]),
		}), "successfulJobsHistoryLimit 2 keeps the two newest runs")
	})

	It("skips a run under Forbid while one is active, and starts it once the active run has gone", func(ctx SpecContext) {
		job := wrappers.MakeJob("", ns).Task("worker", 1).RunFor(time.Hour).Obj()
		cj := wrappers.MakeCronJob("forbid", ns, "* * * * *", job).Concurrency(batchv1alpha1.ForbidConcurrent).Obj()
		Expect(fw.Client.Create(ctx, cj)).To(Succeed())
		expectCronReady(ctx, cj, batchv1alpha1.CronJobScheduledReason)

		first := expectRun(ctx, cj, clk.nextMinute())
		Eventually(func(g Gomega) []string { return activeNames(getCronJob(ctx, g, cj)) },
			framework.Timeout, framework.Interval).Should(Equal([]string{first.Name}))
		second := clk.nextMinute()
		Consistently(func(g Gomega) []string { return runNames(cronRuns(ctx, g, cj)) },
			framework.ConsistentlyDuration, framework.Interval).Should(Equal([]string{first.Name}), "Forbid: no second run")
		Eventually(func(g Gomega) {
			events := &corev1.EventList{}
			g.Expect(fw.Client.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			var reasons []string
			for _, e := range events.Items {
				if e.InvolvedObject.Name == cj.Name {
					reasons = append(reasons, e.Reason)
				}
			}
			g.Expect(reasons).To(ContainElement("JobAlreadyActive"))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		// With no startingDeadlineSeconds, the skipped run starts late once the active one is gone.
		Expect(fw.Client.Delete(ctx, first)).To(Succeed())
		expectRun(ctx, cj, second)
	})

	It("replaces the active run under Replace", func(ctx SpecContext) {
		job := wrappers.MakeJob("", ns).Task("worker", 1).RunFor(time.Hour).Obj()
		cj := wrappers.MakeCronJob("replace", ns, "* * * * *", job).Concurrency(batchv1alpha1.ReplaceConcurrent).Obj()
		Expect(fw.Client.Create(ctx, cj)).To(Succeed())
		expectCronReady(ctx, cj, batchv1alpha1.CronJobScheduledReason)

		first := expectRun(ctx, cj, clk.nextMinute())
		second := expectRun(ctx, cj, clk.nextMinute())
		Eventually(func(g Gomega) []string { return runNames(cronRuns(ctx, g, cj)) },
			framework.Timeout, framework.Interval).Should(Equal([]string{second.Name}), "the first run %s is deleted", first.Name)
		Eventually(func(g Gomega) []string { return activeNames(getCronJob(ctx, g, cj)) },
			framework.Timeout, framework.Interval).Should(Equal([]string{second.Name}))
	})

	It("starts nothing while suspended, and skips runs missed beyond startingDeadlineSeconds when resumed", func(ctx SpecContext) {
		job := wrappers.MakeJob("", ns).Task("worker", 1).RunFor(time.Hour).Obj()
		cj := wrappers.MakeCronJob("paused", ns, "* * * * *", job).Suspend(true).StartingDeadline(30).Obj()
		Expect(fw.Client.Create(ctx, cj)).To(Succeed())
		expectCronReady(ctx, cj, batchv1alpha1.CronJobSuspendedReason)

		clk.nextMinute()
		clk.nextMinute()
		Consistently(func(g Gomega) []batchv1alpha1.Job { return cronRuns(ctx, g, cj) },
			framework.ConsistentlyDuration, framework.Interval).Should(BeEmpty(), "suspended: no run")

		// 40s after the last schedule time, beyond the 30s deadline: resuming starts nothing.
		clk.SetTime(clk.Now().Truncate(time.Minute).Add(40 * time.Second))
		cur := getCronJob(ctx, Default, cj)
		cur.Spec.Suspend = new(bool)
		Expect(fw.Client.Update(ctx, cur)).To(Succeed())
		expectCronReady(ctx, cj, batchv1alpha1.CronJobScheduledReason)
		Consistently(func(g Gomega) []batchv1alpha1.Job { return cronRuns(ctx, g, cj) },
			framework.ConsistentlyDuration, framework.Interval).Should(BeEmpty(), "the missed runs are past their deadline")

		// The next schedule time runs.
		expectRun(ctx, cj, clk.nextMinute())
	})

	It("is Stalled, naming the field and the fix, for a time zone it does not know, and recovers when it is fixed", func(ctx SpecContext) {
		job := wrappers.MakeJob("", ns).Task("worker", 1).RunFor(time.Second).Obj()
		cj := wrappers.MakeCronJob("mars", ns, "@hourly", job).TimeZone("Mars/Olympus_Mons").Obj()
		Expect(fw.Client.Create(ctx, cj)).To(Succeed())
		Eventually(func(g Gomega) {
			cur := getCronJob(ctx, g, cj)
			g.Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
			stalled := meta.FindStatusCondition(cur.Status.Conditions, batchv1alpha1.StalledCondition)
			g.Expect(stalled).NotTo(BeNil())
			g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(stalled.Reason).To(Equal(batchv1alpha1.InvalidTimeZoneReason))
			g.Expect(stalled.Message).To(ContainSubstring("spec.timeZone"))
			g.Expect(stalled.Message).To(ContainSubstring("IANA"))
			g.Expect(meta.IsStatusConditionFalse(cur.Status.Conditions, batchv1alpha1.ReadyCondition)).To(BeTrue())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		cur := getCronJob(ctx, Default, cj)
		cur.Spec.TimeZone = ptr.To("Europe/Paris")
		Expect(fw.Client.Update(ctx, cur)).To(Succeed())
		expectCronReady(ctx, cj, batchv1alpha1.CronJobScheduledReason)
	})
})

var _ = Describe("CronJob manifests", Label("controller:cronjob"), func() {
	var (
		ns  string
		clk cronClock
	)

	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("cronjob-manifest")
		clk = startCronControllers(ctx)
	})

	// applyManifest creates the CronJob of a manifest, unchanged but for its namespace, and
	// moves the clock just past its next schedule time, which it returns.
	applyManifest := func(ctx context.Context, raw []byte) (*batchv1alpha1.CronJob, time.Time) {
		GinkgoHelper()
		cj := &batchv1alpha1.CronJob{}
		Expect(yaml.UnmarshalStrict(raw, cj)).To(Succeed())
		cj.Namespace = ns
		Expect(fw.Client.Create(ctx, cj)).To(Succeed())
		expectCronReady(ctx, cj, batchv1alpha1.CronJobScheduledReason)
		s, err := cronjob.ParseSchedule(&cj.Spec, clk.Now())
		Expect(err).NotTo(HaveOccurred())
		next := s.Next(clk.Now())
		clk.SetTime(next.Add(time.Second))
		return cj, next
	}

	It("applies Volcano's CronJob example unchanged and starts its run at the schedule time", func(ctx SpecContext) {
		raw, err := install.VolcanoFile(ctx, install.VolcanoModuleVersion, "example/cronjob/cronjob.yaml")
		Expect(err).NotTo(HaveOccurred())
		cj, next := applyManifest(ctx, raw)
		run := expectRun(ctx, cj, next)
		// The example's container runs `date; echo ...`, which the simulated kubelet ends at once,
		// as a kubelet would: the run completes rather than staying Running.
		expectPhase(ctx, run, batchv1alpha1.Completed, framework.LongTimeout)
	})

	It("runs samples/batch/cronjob.yaml to completion at its schedule time in its time zone", func(ctx SpecContext) {
		raw, err := os.ReadFile(filepath.Join("..", "samples", "batch", "cronjob.yaml"))
		Expect(err).NotTo(HaveOccurred())
		cj, next := applyManifest(ctx, raw)
		paris, err := time.LoadLocation("Europe/Paris")
		Expect(err).NotTo(HaveOccurred())
		Expect(next.In(paris).Format("15:04")).To(Equal("01:30"))
		run := expectRun(ctx, cj, next)
		Expect(run.Annotations).To(HaveKeyWithValue(batchv1alpha1.CronJobScheduledTimestampAnnotation, next.In(paris).Format(time.RFC3339)))
		expectPhase(ctx, run, batchv1alpha1.Completed, framework.LongTimeout)
		Eventually(func(g Gomega) {
			cur := getCronJob(ctx, g, cj)
			g.Expect(cur.Status.Active).To(BeEmpty())
			g.Expect(cur.Status.LastSuccessfulTime).NotTo(BeNil())
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})
})

var _ = Describe("CronJob with a template that makes no valid Job", Label("controller:cronjob"), func() {
	It("is Stalled with reason InvalidJobTemplate naming the field, and starts no run", func(ctx SpecContext) {
		ns := fw.SpecNamespace("cronjob-template")
		clk := startCronControllers(ctx)
		// The CronJob's schema accepts it, but the run's pods would be named
		// <cronjob>-<minutes>-<task>-<index>, longer than 63 characters: the Job's schema refuses it.
		job := wrappers.MakeJob("", ns).Task("a-task-name-long-enough-to-overflow-the-pod-names-x", 1).Obj()
		cj := wrappers.MakeCronJob("long-pods", ns, "* * * * *", job).Obj()
		Expect(fw.Client.Create(ctx, cj)).To(Succeed())
		expectCronReady(ctx, cj, batchv1alpha1.CronJobScheduledReason)
		clk.nextMinute()
		Eventually(func(g Gomega) {
			cur := getCronJob(ctx, g, cj)
			stalled := meta.FindStatusCondition(cur.Status.Conditions, batchv1alpha1.StalledCondition)
			g.Expect(stalled).NotTo(BeNil())
			g.Expect(stalled.Reason).To(Equal(batchv1alpha1.InvalidJobTemplateReason))
			g.Expect(stalled.Message).To(ContainSubstring("spec.jobTemplate"))
			g.Expect(cur.Status.LastScheduleTime).To(BeNil())
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Expect(cronRuns(ctx, Default, cj)).To(BeEmpty())
	})
})
