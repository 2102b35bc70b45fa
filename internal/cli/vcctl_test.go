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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// lines splits output into lines with runs of spaces folded to one, so table rows can be
// compared without their padding.
func lines(out string) []string {
	var ls []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		ls = append(ls, strings.Join(strings.Fields(l), " "))
	}
	return ls
}

// commandsFor returns the Commands in namespace whose target is named target.
func commandsFor(namespace, target string) []busv1alpha1.Command {
	GinkgoHelper()
	list := &busv1alpha1.CommandList{}
	Expect(fw.Client.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
	var out []busv1alpha1.Command
	for _, c := range list.Items {
		if c.TargetObject != nil && c.TargetObject.Name == target {
			out = append(out, c)
		}
	}
	return out
}

// controllerRef is the reference a Command made by vcctl carries to its target.
func controllerRef(apiVersion, kind, name string, uid string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}

var _ = Describe("vcctl", Label("vcctl"), func() {
	var ns string

	BeforeEach(func() {
		namespace, err := fw.CreateNamespace(ctx, "vcctl")
		Expect(err).NotTo(HaveOccurred())
		ns = namespace.Name
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, namespace))).To(Succeed())
		})
	})

	getJob := func(name string) *batchv1alpha1.Job {
		GinkgoHelper()
		job := &batchv1alpha1.Job{}
		Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, job)).To(Succeed())
		return job
	}

	Describe("job run", func() {
		It("creates a job from flags", func() {
			out, err := vcctl("job", "run", "-N", "demo", "-n", ns, "-r", "3", "-m", "2", "-i", "nginx",
				"-R", "cpu=500m,memory=64Mi", "-L", "cpu=1,memory=64Mi", "-q", "default")
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal("run job demo successfully\n"))

			job := getJob("demo")
			Expect(job.Spec.MinAvailable).To(Equal(int32(2)))
			Expect(job.Spec.SchedulerName).To(Equal("volcano"))
			Expect(job.Spec.Queue).To(Equal("default"))
			Expect(job.Spec.Tasks).To(HaveLen(1))
			task := job.Spec.Tasks[0]
			Expect(task.Name).To(BeEmpty(), "an unnamed task stays unnamed: the controller names it default0 without writing it")
			Expect(task.Replicas).To(Equal(int32(3)))
			Expect(task.Template.Spec.RestartPolicy).To(Equal(corev1.RestartPolicyNever))
			Expect(task.Template.Spec.Containers).To(HaveLen(1))
			c := task.Template.Spec.Containers[0]
			Expect(c.Name).To(Equal("demo"))
			Expect(c.Image).To(Equal("nginx"))
			Expect(c.Resources.Requests.Cpu().Cmp(resource.MustParse("500m"))).To(BeZero())
			Expect(c.Resources.Limits.Cpu().Cmp(resource.MustParse("1"))).To(BeZero())
			Expect(c.Resources.Limits.Memory().Cmp(resource.MustParse("64Mi"))).To(BeZero())
		})

		It("creates a job from a YAML file, in the namespace of -n", func() {
			file := filepath.Join(GinkgoT().TempDir(), "job.yaml")
			Expect(os.WriteFile(file, []byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: from-file
  labels:
    volcano.sh/job-type: Train
spec:
  minAvailable: 2
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: busybox
`), 0o600)).To(Succeed())
			out, err := vcctl("job", "run", "-f", file, "-n", ns)
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal("run job from-file successfully\n"))
			job := getJob("from-file")
			Expect(job.Labels).To(HaveKeyWithValue("volcano.sh/job-type", "Train"))
			Expect(job.Spec.Tasks[0].Name).To(Equal("worker"))
		})

		It("says how to fix a name that is taken", func() {
			_, err := vcctl("job", "run", "-N", "demo", "-n", ns)
			Expect(err).NotTo(HaveOccurred())
			_, err = vcctl("job", "run", "-N", "demo", "-n", ns)
			Expect(err).To(MatchError(fmt.Sprintf("job %s/demo already exists: choose another name (-N/--name), "+
				"or delete it first with `vcctl job delete -N demo -n %s`", ns, ns)))
		})

		It("passes on the API server's field errors", func() {
			file := filepath.Join(GinkgoT().TempDir(), "job.yaml")
			Expect(os.WriteFile(file, []byte(`kind: Job
metadata:
  name: too-big-a-gang
spec:
  minAvailable: 5
  tasks:
  - name: worker
    replicas: 1
    template:
      spec:
        containers:
        - name: main
          image: busybox
`), 0o600)).To(Succeed())
			_, err := vcctl("job", "run", "-f", file, "-n", ns)
			Expect(err).To(MatchError(And(
				ContainSubstring(fmt.Sprintf("creating job %s/too-big-a-gang: the API server refused it: ", ns)),
				ContainSubstring("spec.minAvailable: Invalid value"))))
		})
	})

	Describe("job list and view", func() {
		BeforeEach(func() {
			for _, name := range []string{"train", "serve"} {
				_, err := vcctl("job", "run", "-N", name, "-n", ns, "-r", "2", "-m", "2")
				Expect(err).NotTo(HaveOccurred())
			}
			job := getJob("train")
			job.Status = batchv1alpha1.JobStatus{
				State:        batchv1alpha1.JobState{Phase: batchv1alpha1.Running, Reason: "PodsRunning", LastTransitionTime: metav1.NewTime(clk.Now().Add(-5 * time.Minute))},
				MinAvailable: 2, Pending: 1, Running: 1, RetryCount: 1, ObservedGeneration: job.Generation,
				Conditions: []metav1.Condition{
					{Type: "Ready", Status: metav1.ConditionFalse, Reason: "JobRunning", Message: "the job runs",
						LastTransitionTime: metav1.NewTime(clk.Now().Add(-5 * time.Minute))},
					{Type: "Reconciling", Status: metav1.ConditionTrue, Reason: "JobRunning", Message: "waiting for 1 more pod",
						LastTransitionTime: metav1.NewTime(clk.Now().Add(-5 * time.Minute))},
					{Type: "Stalled", Status: metav1.ConditionFalse, Reason: "JobRunning", Message: "the job runs",
						LastTransitionTime: metav1.NewTime(clk.Now().Add(-2 * time.Minute))},
				},
			}
			Expect(fw.Client.Status().Update(ctx, job)).To(Succeed())
		})

		It("lists the jobs of a namespace in Volcano's columns", func() {
			out, err := vcctl("job", "list", "-n", ns)
			Expect(err).NotTo(HaveOccurred())
			day := getJob("train").CreationTimestamp.Format("2006-01-02")
			Expect(out).To(Equal(""+
				"Name    Creation       Phase       JobType     Replicas    Min   Pending   Running   Succeeded   Failed    Unknown     RetryCount\n"+
				"serve   "+day+"                 Batch       2           0     0         0         0           0         0           0         \n"+
				"train   "+day+"     Running     Batch       2           2     1         1         0           0         0           1         \n"),
				"Volcano's columns and padding, trailing spaces included")

			out, err = vcctl("job", "list", "-n", ns, "--selector", "rai")
			Expect(err).NotTo(HaveOccurred())
			Expect(lines(out)).To(HaveLen(2))
			Expect(lines(out)[1]).To(HavePrefix("train "))

			out, err = vcctl("job", "list", "-n", ns, "-q", "no-such-queue")
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal("No resources found\n"))

			out, err = vcctl("job", "list", "--all-namespaces")
			Expect(err).NotTo(HaveOccurred())
			Expect(lines(out)[0]).To(HavePrefix("Namespace Name Creation Phase"))
			Expect(lines(out)).To(ContainElement(ns + " train " + day + " Running Batch 2 2 1 1 0 0 0 1"))
		})

		It("views a job with its conditions, their reasons and messages, and its events", func() {
			job := getJob("train")
			Expect(fw.Client.Create(ctx, &corev1.Event{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train.1"},
				InvolvedObject: corev1.ObjectReference{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job",
					Namespace: ns, Name: "train", UID: job.UID},
				Type: corev1.EventTypeNormal, Reason: "PodsCreated", Message: "created 2 pods", Count: 1,
				Source:         corev1.EventSource{Component: "caldera-job-controller"},
				FirstTimestamp: metav1.NewTime(clk.Now().Add(-3 * time.Minute)),
				LastTimestamp:  metav1.NewTime(clk.Now().Add(-3 * time.Minute)),
			})).To(Succeed())

			out, err := vcctl("job", "view", "-N", "train", "-n", ns)
			Expect(err).NotTo(HaveOccurred())
			ls := lines(out)
			Expect(ls).To(ContainElements(
				"Name: train",
				"Namespace: "+ns,
				"Queue: default",
				"NAME REPLICAS MIN IMAGE REQUESTS LIMITS",
				"default0 2 2 busybox cpu=1,memory=100Mi cpu=1,memory=100Mi",
				"Phase: Running",
				"Reason: PodsRunning",
				"Retry Count: 1",
				"Conditions:",
				"TYPE STATUS REASON AGE MESSAGE",
				"Ready False JobRunning 5m the job runs",
				"Reconciling True JobRunning 5m waiting for 1 more pod",
				"Stalled False JobRunning 2m the job runs",
				"Events:",
				"Normal PodsCreated 3m caldera-job-controller created 2 pods",
			))
		})

		It("names the flags to check when the job does not exist", func() {
			_, err := vcctl("job", "view", "-N", "nope", "-n", ns)
			Expect(err).To(MatchError(fmt.Sprintf("job %s/nope not found: check -N/--name and -n/--namespace "+
				"(`vcctl job list -n %s` lists the jobs there)", ns, ns)))
		})
	})

	Describe("job suspend, resume and delete", func() {
		var job *batchv1alpha1.Job

		BeforeEach(func() {
			_, err := vcctl("job", "run", "-N", "demo", "-n", ns)
			Expect(err).NotTo(HaveOccurred())
			job = getJob("demo")
		})

		DescribeTable("creates a Command targeting the job",
			func(verb, action, generateName string) {
				out, err := vcctl("job", verb, "-N", "demo", "-n", ns)
				Expect(err).NotTo(HaveOccurred())

				commands := commandsFor(ns, "demo")
				Expect(commands).To(HaveLen(1))
				cmd := commands[0]
				ref := controllerRef("batch.volcano.sh/v1alpha1", "Job", "demo", string(job.UID))
				Expect(cmd.Action).To(Equal(action))
				Expect(cmd.GenerateName).To(Equal(generateName))
				Expect(cmd.Name).To(HavePrefix(generateName))
				Expect(cmd.TargetObject).To(Equal(&ref))
				Expect(cmd.OwnerReferences).To(Equal([]metav1.OwnerReference{ref}))
				Expect(out).To(Equal(fmt.Sprintf("%s command %s/%s created for job %s/demo\n", action, ns, cmd.Name, ns)))
			},
			Entry("suspend: AbortJob", "suspend", "AbortJob", "demo-abortjob-"),
			Entry("resume: ResumeJob", "resume", "ResumeJob", "demo-resumejob-"),
		)

		It("creates no Command for a job that does not exist", func() {
			_, err := vcctl("job", "suspend", "-N", "missing", "-n", ns)
			Expect(err).To(MatchError(HavePrefix(fmt.Sprintf("job %s/missing not found: check -N/--name and -n/--namespace", ns))))
			Expect(commandsFor(ns, "missing")).To(BeEmpty())
		})

		It("deletes a job", func() {
			out, err := vcctl("job", "delete", "-N", "demo", "-n", ns)
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal("delete job demo successfully\n"))
			err = fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "demo"}, &batchv1alpha1.Job{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "got %v", err)

			_, err = vcctl("job", "delete", "-N", "demo", "-n", ns)
			Expect(err).To(MatchError(HavePrefix(fmt.Sprintf("job %s/demo not found", ns))))
		})
	})

	Describe("queues", func() {
		var queue string

		getQueue := func(name string) *schedulingv1beta1.Queue {
			GinkgoHelper()
			q := &schedulingv1beta1.Queue{}
			Expect(fw.Client.Get(ctx, client.ObjectKey{Name: name}, q)).To(Succeed())
			return q
		}

		BeforeEach(func() {
			// Queues are cluster-scoped: name them after the spec's namespace.
			queue = "q-" + ns
			DeferCleanup(func() {
				for _, name := range []string{queue, queue + "-closed"} {
					q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name}}
					Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, q))).To(Succeed())
				}
			})
		})

		It("creates a queue, updates its weight with server-side apply, and deletes it", func() {
			out, err := vcctl("queue", "create", "-n", queue, "-w", "3")
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal("create queue " + queue + " successfully\n"))
			q := getQueue(queue)
			Expect(q.Spec.Weight).To(Equal(int32(3)))
			Expect(commandsFor("default", queue)).To(BeEmpty(), "a queue is created open")

			// A field vcctl does not know of survives the apply.
			q.Spec.Capability = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}
			Expect(fw.Client.Update(ctx, q)).To(Succeed())

			out, err = vcctl("queue", "operate", "-n", queue, "-a", "update", "-w", "7")
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal("update queue " + queue + " weight to 7 successfully\n"))
			q = getQueue(queue)
			Expect(q.Spec.Weight).To(Equal(int32(7)))
			Expect(q.Spec.Capability.Cpu().Cmp(resource.MustParse("8"))).To(BeZero())

			out, err = vcctl("queue", "delete", "-n", queue)
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal("delete queue " + queue + " successfully\n"))
			_, err = vcctl("queue", "delete", "-n", queue)
			Expect(err).To(MatchError("queue " + queue + " not found: check -n/--name (`vcctl queue list` lists the queues)"))
		})

		DescribeTable("closes and opens a queue with a Command in namespace default",
			func(action, wantAction string) {
				_, err := vcctl("queue", "create", "-n", queue)
				Expect(err).NotTo(HaveOccurred())
				q := getQueue(queue)

				out, err := vcctl("queue", "operate", "-n", queue, "-a", action)
				Expect(err).NotTo(HaveOccurred())
				commands := commandsFor("default", queue)
				Expect(commands).To(HaveLen(1))
				cmd := commands[0]
				ref := controllerRef("scheduling.volcano.sh/v1beta1", "Queue", queue, string(q.UID))
				Expect(cmd.Action).To(Equal(wantAction))
				Expect(cmd.GenerateName).To(Equal(queue + "-" + strings.ToLower(wantAction) + "-"))
				Expect(cmd.TargetObject).To(Equal(&ref))
				Expect(cmd.OwnerReferences).To(Equal([]metav1.OwnerReference{ref}))
				Expect(out).To(Equal(fmt.Sprintf("%s command default/%s created for queue %s\n", wantAction, cmd.Name, queue)))
				Expect(fw.Client.Delete(ctx, &cmd)).To(Succeed())
			},
			Entry("close", "close", "CloseQueue"),
			Entry("open", "open", "OpenQueue"),
		)

		It("creates a queue closed by asking the queue controller to close it", func() {
			closed := queue + "-closed"
			out, err := vcctl("queue", "create", "-n", closed, "-S", "Closed")
			Expect(err).NotTo(HaveOccurred())
			commands := commandsFor("default", closed)
			Expect(commands).To(HaveLen(1))
			Expect(commands[0].Action).To(Equal("CloseQueue"))
			Expect(out).To(Equal(fmt.Sprintf("create queue %s successfully\nCloseQueue command default/%s created for queue %s\n",
				closed, commands[0].Name, closed)))
		})

		It("refuses a parent queue that does not exist, before creating anything", func() {
			_, err := vcctl("queue", "create", "-n", queue, "--parent", "no-such-parent")
			Expect(err).To(MatchError("--parent no-such-parent: queue no-such-parent not found: create it first, or name an existing queue"))
			err = fw.Client.Get(ctx, client.ObjectKey{Name: queue}, &schedulingv1beta1.Queue{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "got %v", err)
		})

		It("lists and gets queues with their PodGroups counted by phase", func() {
			_, err := vcctl("queue", "create", "-n", queue, "-w", "4")
			Expect(err).NotTo(HaveOccurred())
			for i, phase := range []schedulingv1beta1.PodGroupPhase{
				schedulingv1beta1.PodGroupRunning, schedulingv1beta1.PodGroupRunning, schedulingv1beta1.PodGroupInqueue,
				schedulingv1beta1.PodGroupPending, schedulingv1beta1.PodGroupCompleted,
			} {
				pg := &schedulingv1beta1.PodGroup{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("pg-%d", i)},
					Spec:       schedulingv1beta1.PodGroupSpec{Queue: queue, MinMember: 1},
				}
				Expect(fw.Client.Create(ctx, pg)).To(Succeed())
				pg.Status.Phase = phase
				Expect(fw.Client.Status().Update(ctx, pg)).To(Succeed())
			}
			q := getQueue(queue)
			q.Status.State = schedulingv1beta1.QueueStateOpen
			Expect(fw.Client.Status().Update(ctx, q)).To(Succeed())

			out, err := vcctl("queue", "get", "-n", queue)
			Expect(err).NotTo(HaveOccurred())
			Expect(lines(out)).To(Equal([]string{
				"Name Weight State Parent Inqueue Pending Running Unknown Completed",
				queue + " 4 Open 1 1 2 0 1",
			}))

			out, err = vcctl("queue", "list")
			Expect(err).NotTo(HaveOccurred())
			Expect(lines(out)[0]).To(Equal("Name Weight State Parent Inqueue Pending Running Unknown Completed"))
			Expect(lines(out)).To(ContainElement(queue + " 4 Open 1 1 2 0 1"))

			_, err = vcctl("queue", "get", "-n", "no-such-queue")
			Expect(err).To(MatchError("queue no-such-queue not found: check -n/--name (`vcctl queue list` lists the queues)"))
		})
	})

	Describe("pod list", func() {
		BeforeEach(func() {
			pod := func(name string, labels, annotations map[string]string) *corev1.Pod {
				return &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, Annotations: annotations},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
				}
			}
			for _, p := range []*corev1.Pod{
				pod("train-worker-0", map[string]string{"volcano.sh/job-name": "train", "volcano.sh/queue-name": "gpu"}, nil),
				pod("train-worker-1", map[string]string{"volcano.sh/job-name": "train", "volcano.sh/queue-name": "gpu"}, nil),
				pod("serve-default0-0", map[string]string{"volcano.sh/job-name": "serve", "volcano.sh/queue-name": "default"}, nil),
				pod("plain", nil, map[string]string{"scheduling.volcano.sh/queue-name": "gpu"}),
				pod("unrelated", nil, nil),
			} {
				Expect(fw.Client.Create(ctx, p)).To(Succeed())
			}
		})

		// names returns the first column of a pod list's rows.
		names := func(out string) []string {
			var ns []string
			for _, l := range lines(out)[1:] {
				ns = append(ns, strings.Fields(l)[0])
			}
			return ns
		}

		It("lists the pods of jobs, of one job, and of one queue", func() {
			out, err := vcctl("pod", "list", "-n", ns)
			Expect(err).NotTo(HaveOccurred())
			Expect(lines(out)[0]).To(Equal("Name Ready Status Restart Age"))
			Expect(names(out)).To(Equal([]string{"serve-default0-0", "train-worker-0", "train-worker-1"}))
			Expect(lines(out)[1]).To(MatchRegexp(`^serve-default0-0 0/1 Pending 0 \S+$`))

			out, err = vcctl("pod", "list", "-n", ns, "-j", "train")
			Expect(err).NotTo(HaveOccurred())
			Expect(names(out)).To(Equal([]string{"train-worker-0", "train-worker-1"}))

			out, err = vcctl("pod", "list", "-n", ns, "-q", "gpu")
			Expect(err).NotTo(HaveOccurred())
			Expect(names(out)).To(Equal([]string{"plain", "train-worker-0", "train-worker-1"}))

			_, err = vcctl("pod", "list", "-n", ns, "-j", "train", "-q", "default")
			Expect(err).To(MatchError("job train is in queue gpu, not default: drop -q/--queue or check -j/--job"))

			out, err = vcctl("pod", "list", "-n", ns, "-j", "nothing")
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal("No resources found\n"))
		})
	})

	It("prints its version without a cluster", func() {
		out, err := vcctl("version")
		Expect(err).NotTo(HaveOccurred())
		Expect(lines(out)).To(ContainElement("API Version: v1alpha1"))
	})

	It("lets -s/--master override the kubeconfig's server", func() {
		_, err := vcctl("job", "list", "-n", ns, "-s", "https://127.0.0.1:1")
		Expect(err).To(MatchError(ContainSubstring("127.0.0.1:1")))
	})

})
