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
	"regexp"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling/engine"
	fluxkstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	fluxkustomize "github.com/fluxcd/pkg/apis/kustomize"
	fluxcel "github.com/fluxcd/pkg/runtime/cel"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/argocd"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// holdFinalizer keeps a pod the suite put it on from going away, so that a job stays in
// Restarting long enough to be read.
const holdFinalizer = "caldera.sh/e2e-gitops-hold"

// updateTestdataEnv, when set to a non-empty value, makes the suite write the live objects it
// reads to the testdata folders of config/argocd/resource_customizations.
const updateTestdataEnv = "CALDERA_UPDATE_ARGOCD_TESTDATA"

// verdict is what each tool should make of a live object.
type verdict struct {
	// argoCD is the health.lua status.
	argoCD string
	// kstatus is what sigs.k8s.io/cli-utils kstatus computes: what Flux's wait reads without
	// healthCheckExprs.
	kstatus kstatus.Status
	// flux is what Flux's CEL status reader makes of the object with the healthCheckExprs of
	// samples/flux/kustomization.yaml.
	flux kstatus.Status
}

// liveCase is a live object in one phase and what each tool should make of it.
type liveCase struct {
	name string
	obj  *unstructured.Unstructured
	want verdict
}

// jobVerdicts are the verdicts for each job phase the suite reaches.
var jobVerdicts = map[string]verdict{
	// No status yet: kstatus has nothing to go by and says Current; Flux's expressions cannot
	// evaluate and Flux reports Unknown, so its wait goes on.
	"created":    {argocd.Progressing, kstatus.CurrentStatus, kstatus.UnknownStatus},
	"pending":    {argocd.Progressing, kstatus.InProgressStatus, kstatus.InProgressStatus},
	"running":    {argocd.Progressing, kstatus.InProgressStatus, kstatus.InProgressStatus},
	"restarting": {argocd.Progressing, kstatus.InProgressStatus, kstatus.InProgressStatus},
	// An edit from Git the controller has not taken up yet (status.observedGeneration behind).
	"edited":         {argocd.Progressing, kstatus.InProgressStatus, kstatus.InProgressStatus},
	"completed":      {argocd.Healthy, kstatus.CurrentStatus, kstatus.CurrentStatus},
	"failed":         {argocd.Degraded, kstatus.FailedStatus, kstatus.FailedStatus},
	"terminated":     {argocd.Degraded, kstatus.FailedStatus, kstatus.FailedStatus},
	"aborted-policy": {argocd.Degraded, kstatus.FailedStatus, kstatus.FailedStatus},
	"stalled-queue":  {argocd.Degraded, kstatus.FailedStatus, kstatus.FailedStatus},
	// A gang that can never fit (its PodGroup's reason Unsatisfiable): Stalled, so Failed.
	"unsatisfiable": {argocd.Degraded, kstatus.FailedStatus, kstatus.FailedStatus},
	// Aborted by an AbortJob Command (reason CommandIssued): paused by a user, who can resume
	// it; Argo CD shows it Suspended. Git did not ask for it, so kstatus and Flux read Failed.
	"aborted-command": {argocd.Suspended, kstatus.FailedStatus, kstatus.FailedStatus},
	// Held by spec.suspend: the state Git asks for, Current to kstatus and Flux (the job has
	// only Suspended=True, no Ready=False), so a wait: true Kustomization does not time out.
	"suspended": {argocd.Suspended, kstatus.CurrentStatus, kstatus.CurrentStatus},
}

// podGroupVerdicts and queueVerdicts are the verdicts for PodGroups and Queues. kstatus finds
// no kstatus condition on either and reads them Current whatever their phase.
var (
	podGroupVerdicts = map[string]verdict{
		"created": {argocd.Progressing, kstatus.CurrentStatus, kstatus.UnknownStatus},
		"pending": {argocd.Progressing, kstatus.CurrentStatus, kstatus.InProgressStatus},
		"running": {argocd.Healthy, kstatus.CurrentStatus, kstatus.CurrentStatus},
		// Unschedulable with reason Unsatisfiable: minResources beyond what the cluster offers.
		"unsatisfiable": {argocd.Degraded, kstatus.CurrentStatus, kstatus.FailedStatus},
	}
	queueVerdicts = map[string]verdict{
		"created": {argocd.Progressing, kstatus.CurrentStatus, kstatus.UnknownStatus},
		"open":    {argocd.Healthy, kstatus.CurrentStatus, kstatus.CurrentStatus},
		"closed":  {argocd.Suspended, kstatus.CurrentStatus, kstatus.CurrentStatus},
	}
)

var _ = Describe("Health of live objects in Argo CD, kstatus and Flux", Ordered, Label("e2e:gitops"), func() {
	var (
		ns    string
		cases []liveCase
	)

	// add records a live object under kind/name with the verdicts of table.
	add := func(kind, name string, table map[string]verdict, obj client.Object) {
		GinkgoHelper()
		want, ok := table[name]
		Expect(ok).To(BeTrue(), "no verdict for %s %s", kind, name)
		u := live(obj)
		cases = append(cases, liveCase{name: kind + "/" + name, obj: u, want: want})
	}

	BeforeAll(func(ctx SpecContext) {
		ns = fw.SpecNamespace("gitops")
		collectLiveObjects(ctx, ns, add)
	}, NodeTimeout(2*framework.LongTimeout))

	It("covers every phase in the tables", func() {
		seen := map[string]bool{}
		for _, c := range cases {
			seen[c.name] = true
		}
		for kind, table := range map[string]map[string]verdict{
			"Job": jobVerdicts, "PodGroup": podGroupVerdicts, "Queue": queueVerdicts,
			"JobFlow": jobFlowVerdicts, "JobTemplate": jobTemplateVerdicts, "CronJob": cronJobVerdicts,
		} {
			for name := range table {
				Expect(seen).To(HaveKey(kind+"/"+name), "no live %s read in phase %s", kind, name)
			}
		}
	})

	It("gives the Argo CD health of resource_customizations for each", func() {
		root := filepath.Join(framework.RepoRoot(), argocd.CustomizationsDir)
		for _, c := range cases {
			gvk := c.obj.GroupVersionKind()
			health, err := argocd.RunFile(argocd.ScriptPath(root, gvk.Group, gvk.Kind), c.obj)
			Expect(err).NotTo(HaveOccurred(), c.name)
			Expect(health.Status).To(Equal(c.want.argoCD), "%s: %s", c.name, health.Message)
			Expect(health.Message).NotTo(BeEmpty(), c.name)
			GinkgoWriter.Printf("%-26s Argo CD %-11s %s\n", c.name, health.Status, health.Message)
		}
		if os.Getenv(updateTestdataEnv) != "" {
			writeTestdata(root, ns, cases)
		}
	})

	It("computes the kstatus status Flux waits on for each", func() {
		for _, c := range cases {
			res, err := kstatus.Compute(c.obj)
			Expect(err).NotTo(HaveOccurred(), c.name)
			Expect(res.Status).To(Equal(c.want.kstatus), "%s: %s", c.name, res.Message)
		}
	})

	It("reads each with the healthCheckExprs of samples/flux as Flux does", func(ctx SpecContext) {
		reader := fluxStatusReader()
		for _, c := range cases {
			if !reader.Supports(c.obj.GroupVersionKind().GroupKind()) {
				// No expressions for the kind: Flux computes kstatus, with its fork of cli-utils.
				res, err := fluxkstatus.Compute(c.obj)
				Expect(err).NotTo(HaveOccurred(), c.name)
				Expect(string(res.Status)).To(Equal(string(c.want.flux)), "%s: %s", c.name, res.Message)
				continue
			}
			rs, err := reader.ReadStatusForObject(ctx, nil, c.obj)
			Expect(err).NotTo(HaveOccurred(), c.name)
			Expect(string(rs.Status)).To(Equal(string(c.want.flux)), "%s: %v", c.name, rs.Error)
		}
	})
})

// collectLiveObjects runs jobs, PodGroups, Queues, JobFlows, JobTemplates and CronJobs to each
// phase of the verdict tables in namespace ns and records each live object with add. It stops and
// restarts Caldera's manager to read objects whose edit the controller has not taken up.
func collectLiveObjects(ctx context.Context, ns string, add func(kind, name string, table map[string]verdict, obj client.Object)) {
	GinkgoHelper()
	job := func(name string) *wrappers.JobWrapper {
		return wrappers.MakeJob(name, ns).Scheduler("volcano")
	}
	failing := func(name string, action busv1alpha1.Action) *batchv1alpha1.Job {
		return job(name).MaxRetry(1).Task("worker", 1).RunFor(time.Second).ExitCode(1).
			Policy(wrappers.OnEvent(busv1alpha1.PodFailedEvent, action)).Obj()
	}
	jobs := map[string]*batchv1alpha1.Job{
		// More than a node offers (32 cpus), less than the nodes together: admitted, never placed.
		"pending": job("pending").Task("worker", 1).Requests(corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("33"),
		}).Obj(),
		// More than the nodes offer together: the scheduler calls the gang Unsatisfiable.
		"unsatisfiable": job("unsatisfiable").Task("worker", 1).Requests(corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1000"),
		}).Obj(),
		"running":         job("running").Task("worker", 2).Obj(),
		"restarting":      job("restarting").Task("worker", 2).Obj(),
		"completed":       job("completed").Task("worker", 2).RunFor(time.Second).Obj(),
		"failed":          failing("failed", busv1alpha1.RestartJobAction),
		"terminated":      failing("terminated", busv1alpha1.TerminateJobAction),
		"aborted-policy":  failing("aborted-policy", busv1alpha1.AbortJobAction),
		"aborted-command": job("aborted-command").Task("worker", 1).Obj(),
		"suspended":       job("suspended").Suspend(true).Task("worker", 1).Obj(),
		"stalled-queue":   job("stalled-queue").Queue("missing-"+ns).Task("worker", 1).Obj(),
	}
	for name, j := range jobs {
		created := createUnstructured(ctx, j)
		if name == "running" {
			// The server's answer to the create: the job as it is before the controller's first
			// write, with no status.
			add("Job", "created", jobVerdicts, created)
		}
	}
	// The flows run beside the jobs, to keep the suite short.
	flows := createFlowObjects(ctx, ns, add)
	flows.collectRunning(ctx, add)

	// A PodGroup from Git, for pods another operator makes; none come, so it stays Pending.
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "from-git", Namespace: ns},
		Spec:       schedulingv1beta1.PodGroupSpec{MinMember: 2},
	}
	add("PodGroup", "created", podGroupVerdicts, createUnstructured(ctx, pg))

	queue := wrappers.MakeQueue("gitops-" + ns).Obj()
	add("Queue", "created", queueVerdicts, createUnstructured(ctx, queue))
	DeferCleanup(func(ctx SpecContext) {
		Expect(fw.DeleteQueue(ctx, queue.Name)).To(Succeed())
	})

	// Jobs that a Command acts on once they run.
	running := waitForJob(ctx, jobs["aborted-command"], isPhase(batchv1alpha1.Running))
	Expect(fw.Client.Create(ctx, wrappers.Command("abort", running, busv1alpha1.AbortJobAction))).To(Succeed())
	restarting := waitForJob(ctx, jobs["restarting"], isPhase(batchv1alpha1.Running))
	holdPods(ctx, restarting)
	Expect(fw.Client.Create(ctx, wrappers.Command("restart", restarting, busv1alpha1.RestartJobAction))).To(Succeed())
	add("Job", "restarting", jobVerdicts, waitForJob(ctx, restarting, isPhase(batchv1alpha1.Restarting)))
	releasePods(ctx, restarting)

	for _, name := range []string{"pending", "running", "completed", "failed", "terminated", "aborted-policy", "aborted-command", "suspended"} {
		want := map[string]batchv1alpha1.JobPhase{
			"pending": batchv1alpha1.Pending, "running": batchv1alpha1.Running,
			"completed": batchv1alpha1.Completed, "failed": batchv1alpha1.Failed,
			"terminated": batchv1alpha1.Terminated, "aborted-policy": batchv1alpha1.Aborted,
			"aborted-command": batchv1alpha1.Aborted, "suspended": batchv1alpha1.Aborted,
		}[name]
		add("Job", name, jobVerdicts, waitForJob(ctx, jobs[name], isPhase(want)))
	}
	add("Job", "stalled-queue", jobVerdicts, waitForJob(ctx, jobs["stalled-queue"], func(g Gomega, j *batchv1alpha1.Job) {
		g.Expect(j.Status.Conditions).To(ContainElement(And(
			HaveField("Type", batchv1alpha1.StalledCondition),
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", batchv1alpha1.QueueNotFoundReason))))
	}))
	add("Job", "unsatisfiable", jobVerdicts, waitForJob(ctx, jobs["unsatisfiable"], func(g Gomega, j *batchv1alpha1.Job) {
		g.Expect(j.Status.Conditions).To(ContainElement(And(
			HaveField("Type", batchv1alpha1.StalledCondition),
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", batchv1alpha1.UnsatisfiableReason))))
	}))

	// PodGroups: the running job's is Running, the pending job's and the one from Git wait, the
	// unsatisfiable job's never fits.
	add("PodGroup", "running", podGroupVerdicts, waitForPodGroupOf(ctx, jobs["running"], schedulingv1beta1.PodGroupRunning))
	add("PodGroup", "pending", podGroupVerdicts, waitForPodGroupOf(ctx, jobs["pending"], ""))
	// The job is Stalled only once its PodGroup says Unsatisfiable.
	add("PodGroup", "unsatisfiable", podGroupVerdicts, waitForPodGroupOf(ctx, jobs["unsatisfiable"], schedulingv1beta1.PodGroupPending))

	// Queues: open, then closed by a CloseQueue Command.
	add("Queue", "open", queueVerdicts, waitForQueue(ctx, queue.Name, schedulingv1beta1.QueueStateOpen))
	Expect(fw.Client.Create(ctx, &busv1alpha1.Command{
		ObjectMeta: metav1.ObjectMeta{Name: "close", Namespace: ns},
		Action:     string(busv1alpha1.CloseQueueAction),
		TargetObject: &metav1.OwnerReference{
			APIVersion: schedulingv1beta1.GroupVersion.String(), Kind: "Queue", Name: queue.Name, UID: queue.UID,
		},
	})).To(Succeed())
	add("Queue", "closed", queueVerdicts, waitForQueue(ctx, queue.Name, schedulingv1beta1.QueueStateClosed))

	flows.collect(ctx, add)

	// An edit from Git while no controller runs: status.observedGeneration stays behind.
	stopCalderaNow()
	flows.edit(ctx, add)
	edited := &batchv1alpha1.Job{}
	Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(jobs["running"]), edited)).To(Succeed())
	Expect(edited.Status.ObservedGeneration).To(Equal(edited.Generation), "the running job's spec is taken up")
	patch := client.MergeFrom(edited.DeepCopy())
	edited.Spec.Tasks[0].Replicas = 3
	Expect(fw.Client.Patch(ctx, edited, patch)).To(Succeed())
	Expect(edited.Generation).To(BeNumerically(">", edited.Status.ObservedGeneration))
	add("Job", "edited", jobVerdicts, edited)
	startCaldera(ctx)
}

// createUnstructured creates obj (typed, without its status) as an unstructured object and
// returns the API server's answer; obj's name, UID and generation are set from it.
func createUnstructured(ctx context.Context, obj client.Object) *unstructured.Unstructured {
	GinkgoHelper()
	gvk, err := apiutil.GVKForObject(obj, fw.Scheme)
	Expect(err).NotTo(HaveOccurred())
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	Expect(err).NotTo(HaveOccurred())
	delete(content, "status")
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	Expect(fw.Client.Create(ctx, u)).To(Succeed(), obj.GetName())
	Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(u), obj)).To(Succeed())
	return u
}

// live reads obj from the API server as an unstructured object, as Argo CD and Flux read it;
// an unstructured obj is taken as it is.
func live(obj client.Object) *unstructured.Unstructured {
	GinkgoHelper()
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.DeepCopy()
	}
	gvk, err := apiutil.GVKForObject(obj, fw.Scheme)
	Expect(err).NotTo(HaveOccurred())
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	Expect(fw.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), u)).To(Succeed())
	return u
}

// isPhase is a check that the job is in phase with its status up to date with its spec.
func isPhase(phase batchv1alpha1.JobPhase) func(Gomega, *batchv1alpha1.Job) {
	return func(g Gomega, j *batchv1alpha1.Job) {
		g.Expect(j.Status.State.Phase).To(Equal(phase))
		g.Expect(j.Status.ObservedGeneration).To(Equal(j.Generation))
	}
}

// waitForJob waits until check holds for the job and returns it.
func waitForJob(ctx context.Context, job *batchv1alpha1.Job, check func(Gomega, *batchv1alpha1.Job)) *batchv1alpha1.Job {
	GinkgoHelper()
	cur := &batchv1alpha1.Job{}
	Eventually(func(g Gomega) {
		g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), cur)).To(Succeed())
		check(g, cur)
	}, framework.LongTimeout, framework.Interval).Should(Succeed(), "job %s", job.Name)
	return cur
}

// jobPods lists the job's pods.
func jobPods(ctx context.Context, g Gomega, job *batchv1alpha1.Job) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(fw.Client.List(ctx, pods, client.InNamespace(job.Namespace),
		client.MatchingLabels{batchv1alpha1.JobNameKey: job.Name})).To(Succeed())
	return pods.Items
}

// holdPods puts holdFinalizer on every pod of the job, once all of them run.
func holdPods(ctx context.Context, job *batchv1alpha1.Job) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		pods := jobPods(ctx, g, job)
		g.Expect(pods).To(HaveLen(int(job.Spec.Tasks[0].Replicas)))
		for i := range pods {
			if !controllerutil.ContainsFinalizer(&pods[i], holdFinalizer) {
				patch := client.MergeFrom(pods[i].DeepCopy())
				controllerutil.AddFinalizer(&pods[i], holdFinalizer)
				g.Expect(fw.Client.Patch(ctx, &pods[i], patch)).To(Succeed())
			}
		}
	}, framework.Timeout, framework.Interval).Should(Succeed())
	DeferCleanup(releasePods, job)
}

// releasePods takes holdFinalizer off the job's pods.
func releasePods(ctx context.Context, job *batchv1alpha1.Job) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		for _, pod := range jobPods(ctx, g, job) {
			if controllerutil.ContainsFinalizer(&pod, holdFinalizer) {
				patch := client.MergeFrom(pod.DeepCopy())
				controllerutil.RemoveFinalizer(&pod, holdFinalizer)
				g.Expect(client.IgnoreNotFound(fw.Client.Patch(ctx, &pod, patch))).To(Succeed())
			}
		}
	}, framework.Timeout, framework.Interval).Should(Succeed())
}

// waitForPodGroupOf waits for the job's PodGroup to be in phase (any phase but Running when
// phase is empty) and returns it.
func waitForPodGroupOf(ctx context.Context, job *batchv1alpha1.Job, phase schedulingv1beta1.PodGroupPhase) *schedulingv1beta1.PodGroup {
	GinkgoHelper()
	pg := &schedulingv1beta1.PodGroup{}
	Eventually(func(g Gomega) {
		list := &schedulingv1beta1.PodGroupList{}
		g.Expect(fw.Client.List(ctx, list, client.InNamespace(job.Namespace))).To(Succeed())
		var found bool
		for i := range list.Items {
			for _, ref := range list.Items[i].OwnerReferences {
				if ref.UID == job.UID {
					*pg, found = list.Items[i], true
				}
			}
		}
		g.Expect(found).To(BeTrue(), "the job %s has no PodGroup", job.Name)
		if phase != "" {
			g.Expect(pg.Status.Phase).To(Equal(phase))
		} else {
			g.Expect(pg.Status.Phase).To(BeElementOf(schedulingv1beta1.PodGroupPending, schedulingv1beta1.PodGroupInqueue))
		}
	}, framework.LongTimeout, framework.Interval).Should(Succeed())
	return pg
}

// waitForQueue waits for the queue to be in state and returns it.
func waitForQueue(ctx context.Context, name string, state schedulingv1beta1.QueueState) *schedulingv1beta1.Queue {
	GinkgoHelper()
	q := &schedulingv1beta1.Queue{}
	Eventually(func(g Gomega) {
		g.Expect(fw.Client.Get(ctx, types.NamespacedName{Name: name}, q)).To(Succeed())
		g.Expect(q.Status.State).To(Equal(state))
	}, framework.LongTimeout, framework.Interval).Should(Succeed())
	return q
}

// fluxKustomization is the part of a Flux Kustomization the suite reads.
type fluxKustomization struct {
	Spec struct {
		Wait             bool                              `json:"wait"`
		HealthCheckExprs []fluxkustomize.CustomHealthCheck `json:"healthCheckExprs"`
	} `json:"spec"`
}

// fluxStatusReader is Flux's CEL status reader for the healthCheckExprs of
// samples/flux/kustomization.yaml.
func fluxStatusReader() engine.StatusReader {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "samples", "flux", "kustomization.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var k fluxKustomization
	Expect(yaml.Unmarshal(raw, &k)).To(Succeed())
	Expect(k.Spec.Wait).To(BeTrue())
	Expect(k.Spec.HealthCheckExprs).To(HaveLen(5))
	newReader, err := fluxcel.NewStatusReader(k.Spec.HealthCheckExprs)
	Expect(err).NotTo(HaveOccurred())
	return newReader(fw.Client.RESTMapper())
}

// nextRun is a CronJob's next run time in its Ready condition's message.
var nextRun = regexp.MustCompile(`next run at [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+Z`)

// writeTestdata writes each case's live object, less what changes from run to run, to the
// testdata folder of its kind's health check, named after the case. The suite's namespace ns is
// renamed default wherever it appears (messages name it), and a CronJob's next run time in a
// message is replaced by a fixed one, so that the messages health_test.yaml expects stay the
// same from run to run.
func writeTestdata(root, ns string, cases []liveCase) {
	GinkgoHelper()
	for _, c := range cases {
		obj := c.obj.DeepCopy()
		obj.SetManagedFields(nil)
		obj.SetResourceVersion("")
		obj.SetUID("")
		obj.SetCreationTimestamp(metav1.Time{})
		obj.SetNamespace("default")
		refs := obj.GetOwnerReferences()
		for i := range refs {
			refs[i].UID = ""
		}
		obj.SetOwnerReferences(refs)
		raw, err := yaml.Marshal(obj.Object)
		Expect(err).NotTo(HaveOccurred())
		raw = bytes.ReplaceAll(raw, []byte(ns), []byte("default"))
		raw = nextRun.ReplaceAll(raw, []byte("next run at 2030-01-01T00:00:00Z"))
		gvk := obj.GroupVersionKind()
		name := filepath.Base(c.name)
		path := filepath.Join(root, gvk.Group, gvk.Kind, "testdata", name+".yaml")
		Expect(os.WriteFile(path, raw, 0o644)).To(Succeed())
	}
}
