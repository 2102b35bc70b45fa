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

package gitops

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/argocd"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// jobFlowVerdicts, cronJobVerdicts and jobTemplateVerdicts are the verdicts for the phases of
// JobFlows, CronJobs and JobTemplates the suite reaches.
var (
	jobFlowVerdicts = map[string]verdict{
		// No status yet: as for a job, kstatus says Current and Flux's expressions cannot
		// evaluate (Unknown), so a wait goes on.
		"created": {argocd.Progressing, kstatus.CurrentStatus, kstatus.UnknownStatus},
		"running": {argocd.Progressing, kstatus.InProgressStatus, kstatus.InProgressStatus},
		// An edit from Git the controller has not taken up yet.
		"edited":    {argocd.Progressing, kstatus.InProgressStatus, kstatus.InProgressStatus},
		"succeeded": {argocd.Healthy, kstatus.CurrentStatus, kstatus.CurrentStatus},
		"failed":    {argocd.Degraded, kstatus.FailedStatus, kstatus.FailedStatus},
		// A flow naming a JobTemplate that does not exist (reason TemplateNotFound).
		"stalled-template": {argocd.Degraded, kstatus.FailedStatus, kstatus.FailedStatus},
		// Deleted, held by a finalizer: kstatus reads the deletionTimestamp.
		"terminating": {argocd.Progressing, kstatus.TerminatingStatus, kstatus.InProgressStatus},
	}
	cronJobVerdicts = map[string]verdict{
		"created":   {argocd.Progressing, kstatus.CurrentStatus, kstatus.UnknownStatus},
		"scheduled": {argocd.Healthy, kstatus.CurrentStatus, kstatus.CurrentStatus},
		// Held by spec.suspend: Ready=True, the state Git asks for.
		"suspended":        {argocd.Suspended, kstatus.CurrentStatus, kstatus.CurrentStatus},
		"stalled-timezone": {argocd.Degraded, kstatus.FailedStatus, kstatus.FailedStatus},
		"edited":           {argocd.Progressing, kstatus.InProgressStatus, kstatus.InProgressStatus},
	}
	// A JobTemplate has no failure mode, so kstatus alone (Flux has no expressions for it)
	// reads it rightly as Current from the start.
	jobTemplateVerdicts = map[string]verdict{
		"created": {argocd.Progressing, kstatus.CurrentStatus, kstatus.CurrentStatus},
		"ready":   {argocd.Healthy, kstatus.CurrentStatus, kstatus.CurrentStatus},
	}
)

// flowObjects are the JobFlows, JobTemplates and CronJobs the suite creates at its start, to be
// read once each reaches its phase.
type flowObjects struct {
	ns                                string
	diamond, failing, stalled         *flowv1alpha1.JobFlow
	scheduled, suspended, badTimeZone *batchv1alpha1.CronJob
}

// createFlowObjects creates Volcano's diamond of samples/flow (five JobTemplates and the JobFlow
// test), a flow whose one job fails, a flow naming a missing JobTemplate and three CronJobs in
// namespace ns, and records the server's answers to the creates of the diamond and of its first
// JobTemplate with add.
func createFlowObjects(ctx context.Context, ns string, add func(kind, name string, table map[string]verdict, obj client.Object)) *flowObjects {
	GinkgoHelper()
	f := &flowObjects{ns: ns}
	data, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "samples", "flow", "jobtemplates.yaml"))
	Expect(err).NotTo(HaveOccurred())
	flow, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "samples", "flow", "jobflow.yaml"))
	Expect(err).NotTo(HaveOccurred())
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(append(append(data, "\n---\n"...), flow...)), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			break
		}
		if len(obj.Object) == 0 {
			continue
		}
		obj.SetNamespace(ns)
		Expect(fw.Client.Create(ctx, obj)).To(Succeed(), obj.GetName())
		switch {
		case obj.GetKind() == "JobTemplate" && obj.GetName() == "a":
			add("JobTemplate", "created", jobTemplateVerdicts, obj)
		case obj.GetKind() == "JobFlow":
			add("JobFlow", "created", jobFlowVerdicts, obj)
			f.diamond = &flowv1alpha1.JobFlow{ObjectMeta: metav1.ObjectMeta{Name: obj.GetName(), Namespace: ns}}
		}
	}
	Expect(f.diamond).NotTo(BeNil(), "samples/flow has no JobFlow")

	fail := wrappers.MakeJob("fail", ns).Scheduler("volcano").Task("worker", 1).RunFor(time.Second).ExitCode(1).
		Policy(wrappers.OnEvent(busv1alpha1.PodFailedEvent, busv1alpha1.TerminateJobAction)).JobTemplate()
	Expect(fw.Client.Create(ctx, fail)).To(Succeed())
	f.failing = wrappers.MakeJobFlow("failing", ns).Flow("fail").Obj()
	Expect(fw.Client.Create(ctx, f.failing)).To(Succeed())
	f.stalled = wrappers.MakeJobFlow("stalled", ns).Flow("no-such-template").Obj()
	Expect(fw.Client.Create(ctx, f.stalled)).To(Succeed())

	// Yearly, so that no run starts while the suite reads them.
	const yearly = "0 0 1 1 *"
	run := wrappers.MakeJob("run", ns).Scheduler("volcano").Task("worker", 1).Obj()
	f.scheduled = wrappers.MakeCronJob("scheduled", ns, yearly, run).Obj()
	f.suspended = wrappers.MakeCronJob("suspended", ns, yearly, run).Suspend(true).Obj()
	f.badTimeZone = wrappers.MakeCronJob("stalled-timezone", ns, yearly, run).TimeZone("Mars/Olympus_Mons").Obj()
	for _, cj := range []*batchv1alpha1.CronJob{f.scheduled, f.suspended, f.badTimeZone} {
		created := createUnstructured(ctx, cj)
		if cj == f.scheduled {
			add("CronJob", "created", cronJobVerdicts, created)
		}
	}
	return f
}

// collectRunning records the diamond Running and its JobTemplate a listing the job made from it.
// The diamond's first job runs for 3s: it is called right after createFlowObjects, to read the
// flow before that job completes.
func (f *flowObjects) collectRunning(ctx context.Context, add func(kind, name string, table map[string]verdict, obj client.Object)) {
	GinkgoHelper()
	add("JobFlow", "running", jobFlowVerdicts, waitForFlow(ctx, f.diamond, func(g Gomega, jf *flowv1alpha1.JobFlow) {
		g.Expect(jf.Status.State.Phase).To(Equal(flowv1alpha1.Running))
		g.Expect(jf.Status.CompletedJobs).To(BeEmpty())
	}))
	tmpl := &flowv1alpha1.JobTemplate{}
	Eventually(func(g Gomega) {
		g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "a"}, tmpl)).To(Succeed())
		g.Expect(tmpl.Status.ObservedGeneration).To(Equal(tmpl.Generation))
		g.Expect(apimeta.IsStatusConditionTrue(tmpl.Status.Conditions, flowv1alpha1.ReadyCondition)).To(BeTrue())
		g.Expect(tmpl.Status.JobDependsOnList).To(Equal([]string{f.diamond.Name + "-a"}))
	}, framework.LongTimeout, framework.Interval).Should(Succeed())
	add("JobTemplate", "ready", jobTemplateVerdicts, tmpl)
}

// collect waits for each other object to reach its phase and records it with add. The failing flow is
// then deleted under holdFinalizer, to be read Terminating.
func (f *flowObjects) collect(ctx context.Context, add func(kind, name string, table map[string]verdict, obj client.Object)) {
	GinkgoHelper()
	add("JobFlow", "stalled-template", jobFlowVerdicts, waitForFlow(ctx, f.stalled, func(g Gomega, jf *flowv1alpha1.JobFlow) {
		c := apimeta.FindStatusCondition(jf.Status.Conditions, flowv1alpha1.StalledCondition)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(flowv1alpha1.TemplateNotFoundReason))
	}))
	failed := waitForFlow(ctx, f.failing, func(g Gomega, jf *flowv1alpha1.JobFlow) {
		g.Expect(jf.Status.State.Phase).To(Equal(flowv1alpha1.Failed))
	})
	add("JobFlow", "failed", jobFlowVerdicts, failed)

	add("CronJob", "scheduled", cronJobVerdicts, waitForCronJob(ctx, f.scheduled, batchv1alpha1.ReadyCondition, batchv1alpha1.CronJobScheduledReason))
	add("CronJob", "suspended", cronJobVerdicts, waitForCronJob(ctx, f.suspended, batchv1alpha1.ReadyCondition, batchv1alpha1.CronJobSuspendedReason))
	add("CronJob", "stalled-timezone", cronJobVerdicts, waitForCronJob(ctx, f.badTimeZone, batchv1alpha1.StalledCondition, batchv1alpha1.InvalidTimeZoneReason))

	// Terminating: deleted, held by a finalizer of the suite's.
	patch := client.MergeFrom(failed.DeepCopy())
	controllerutil.AddFinalizer(failed, holdFinalizer)
	Expect(fw.Client.Patch(ctx, failed, patch)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		cur := &flowv1alpha1.JobFlow{}
		if err := fw.Client.Get(ctx, client.ObjectKeyFromObject(failed), cur); err == nil {
			patch := client.MergeFrom(cur.DeepCopy())
			controllerutil.RemoveFinalizer(cur, holdFinalizer)
			Expect(client.IgnoreNotFound(fw.Client.Patch(ctx, cur, patch))).To(Succeed())
		}
	})
	Expect(fw.Client.Delete(ctx, failed)).To(Succeed())
	add("JobFlow", "terminating", jobFlowVerdicts, waitForFlow(ctx, failed, func(g Gomega, jf *flowv1alpha1.JobFlow) {
		g.Expect(jf.Status.State.Phase).To(Equal(flowv1alpha1.Terminating))
	}))

	// The diamond last: four rounds of 3s jobs.
	add("JobFlow", "succeeded", jobFlowVerdicts, waitForFlow(ctx, f.diamond, func(g Gomega, jf *flowv1alpha1.JobFlow) {
		g.Expect(jf.Status.State.Phase).To(Equal(flowv1alpha1.Succeed))
	}))
}

// edit changes the spec of the stalled flow and of the scheduled CronJob while no controller
// runs, and records both with their status.observedGeneration behind.
func (f *flowObjects) edit(ctx context.Context, add func(kind, name string, table map[string]verdict, obj client.Object)) {
	GinkgoHelper()
	jf := &flowv1alpha1.JobFlow{}
	Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(f.stalled), jf)).To(Succeed())
	patch := client.MergeFrom(jf.DeepCopy())
	jf.Spec.JobRetainPolicy = flowv1alpha1.Delete
	Expect(fw.Client.Patch(ctx, jf, patch)).To(Succeed())
	Expect(jf.Generation).To(BeNumerically(">", jf.Status.ObservedGeneration))
	add("JobFlow", "edited", jobFlowVerdicts, jf)

	cj := &batchv1alpha1.CronJob{}
	Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(f.scheduled), cj)).To(Succeed())
	patch = client.MergeFrom(cj.DeepCopy())
	cj.Spec.Schedule = "0 0 2 1 *"
	Expect(fw.Client.Patch(ctx, cj, patch)).To(Succeed())
	Expect(cj.Generation).To(BeNumerically(">", cj.Status.ObservedGeneration))
	add("CronJob", "edited", cronJobVerdicts, cj)
}

// waitForFlow waits until check holds for the JobFlow, with its status up to date with its
// spec, and returns it.
func waitForFlow(ctx context.Context, jf *flowv1alpha1.JobFlow, check func(Gomega, *flowv1alpha1.JobFlow)) *flowv1alpha1.JobFlow {
	GinkgoHelper()
	cur := &flowv1alpha1.JobFlow{}
	Eventually(func(g Gomega) {
		g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(jf), cur)).To(Succeed())
		g.Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
		check(g, cur)
	}, framework.LongTimeout, framework.Interval).Should(Succeed(), "JobFlow %s", jf.Name)
	return cur
}

// waitForCronJob waits until the CronJob's status is up to date with its spec and has condition
// kind True with reason, and returns it.
func waitForCronJob(ctx context.Context, cj *batchv1alpha1.CronJob, kind, reason string) *batchv1alpha1.CronJob {
	GinkgoHelper()
	cur := &batchv1alpha1.CronJob{}
	Eventually(func(g Gomega) {
		g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(cj), cur)).To(Succeed())
		g.Expect(cur.Status.ObservedGeneration).To(Equal(cur.Generation))
		c := apimeta.FindStatusCondition(cur.Status.Conditions, kind)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(c.Reason).To(Equal(reason))
	}, framework.LongTimeout, framework.Interval).Should(Succeed(), "CronJob %s", cj.Name)
	return cur
}
