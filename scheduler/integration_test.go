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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

const preemptConf = `actions: "enqueue, allocate, backfill, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
`

const reclaimConf = `actions: "enqueue, allocate, backfill, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
`

const slaConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: sla
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
`

const noGangConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: conformance
- plugins:
  - name: predicates
  - name: proportion
  - name: nodeorder
`

// podGroup creates a PodGroup.
func podGroup(ns, name, queue string, minMember int32, mutate ...func(*schedulingv1beta1.PodGroup)) *schedulingv1beta1.PodGroup {
	GinkgoHelper()
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       schedulingv1beta1.PodGroupSpec{MinMember: minMember, Queue: queue},
	}
	for _, m := range mutate {
		m(pg)
	}
	Expect(k8s.Create(context.Background(), pg)).To(Succeed())
	return pg
}

// pods creates n pods of the PodGroup group (none when group is ""), each requesting req.
func pods(ns, prefix, group string, n int, req corev1.ResourceList, mutate ...func(*corev1.Pod)) []*corev1.Pod {
	GinkgoHelper()
	var out []*corev1.Pod
	for i := 0; i < n; i++ {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", prefix, i), Annotations: map[string]string{}},
			Spec: corev1.PodSpec{
				SchedulerName: "volcano",
				Containers: []corev1.Container{{Name: "main", Image: "busybox",
					Resources: corev1.ResourceRequirements{Requests: req.DeepCopy(), Limits: extendedLimits(req)}}},
			},
		}
		if group != "" {
			p.Annotations[schedulingv1beta1.KubeGroupNameAnnotationKey] = group
		}
		for _, m := range mutate {
			m(p)
		}
		Expect(k8s.Create(context.Background(), p)).To(Succeed())
		out = append(out, p)
	}
	return out
}

// extendedLimits returns limits equal to the extended resources of req, as the API requires.
func extendedLimits(req corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range req {
		if strings.Contains(string(name), "/") {
			out[name] = q
		}
	}
	return out
}

// boundCount returns how many of the namespace's pods whose names start with prefix are bound.
func boundCount(ns, prefix string) func() int {
	return func() int {
		var list corev1.PodList
		if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return -1
		}
		n := 0
		for _, p := range list.Items {
			if strings.HasPrefix(p.Name, prefix) && p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
				n++
			}
		}
		return n
	}
}

func getPodGroup(ns, name string) func() *schedulingv1beta1.PodGroup {
	return func() *schedulingv1beta1.PodGroup {
		pg := &schedulingv1beta1.PodGroup{}
		if err := k8s.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, pg); err != nil {
			return nil
		}
		return pg
	}
}

func condition(pg *schedulingv1beta1.PodGroup, t schedulingv1beta1.PodGroupConditionType) *schedulingv1beta1.PodGroupCondition {
	if pg == nil {
		return nil
	}
	for i := range pg.Status.Conditions {
		if pg.Status.Conditions[i].Type == t {
			return &pg.Status.Conditions[i]
		}
	}
	return nil
}

// eventsAbout returns the notes of the events recorded about an object.
func eventsAbout(ns, name string) func() []string {
	return func() []string {
		var list corev1.EventList
		if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return nil
		}
		var out []string
		for _, e := range list.Items {
			if e.InvolvedObject.Name == name {
				out = append(out, e.Reason+": "+e.Message)
			}
		}
		return out
	}
}

func queue(name string, weight int32, mutate ...func(*schedulingv1beta1.Queue)) *schedulingv1beta1.Queue {
	reclaimable := true
	q := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: schedulingv1beta1.QueueSpec{Weight: weight, Reclaimable: &reclaimable}}
	for _, m := range mutate {
		m(q)
	}
	createAndCleanup(q)
	return q
}

// setQueueState sets a queue's state as a queue controller or command would, retrying on conflicts
// with the scheduler's own status writes.
func setQueueState(name string, state schedulingv1beta1.QueueState) {
	GinkgoHelper()
	Eventually(func() error {
		q := &schedulingv1beta1.Queue{}
		if err := k8s.Get(context.Background(), types.NamespacedName{Name: name}, q); err != nil {
			return err
		}
		q.Status.State = state
		return k8s.Status().Update(context.Background(), q)
	}, framework.Timeout, framework.Interval).Should(Succeed())
}

func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
}

var _ = Describe("Scheduler", func() {
	var ns string
	BeforeEach(func() {
		ns = fw.SpecNamespace("sched")
	})

	It("creates the default queue and places a lone pod as a gang of one", func() {
		startScheduler(scheduler.Options{})
		createNode(uniqueName("node"), resources("cpu", "2", "memory", "4Gi"), nil)
		Eventually(func() error {
			return k8s.Get(context.Background(), types.NamespacedName{Name: "default"}, &schedulingv1beta1.Queue{})
		}, framework.Timeout, framework.Interval).Should(Succeed())
		q := &schedulingv1beta1.Queue{}
		Expect(k8s.Get(context.Background(), types.NamespacedName{Name: "default"}, q)).To(Succeed())
		Expect(q.Spec.Weight).To(BeEquivalentTo(1))
		Expect(q.Spec.Reclaimable).NotTo(BeNil())
		Expect(*q.Spec.Reclaimable).To(BeTrue())

		pods(ns, "solo", "", 1, resources("cpu", "500m"))
		Eventually(boundCount(ns, "solo"), framework.Timeout, framework.Interval).Should(Equal(1))
		Eventually(func() schedulingv1beta1.QueueState {
			Expect(k8s.Get(context.Background(), types.NamespacedName{Name: "default"}, q)).To(Succeed())
			return q.Status.State
		}, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.QueueStateOpen))
	})

	It("explains why lone pods and pods of a missing PodGroup wait", func() {
		startScheduler(scheduler.Options{})
		createNode(uniqueName("small"), resources("cpu", "1", "memory", "1Gi"), nil)
		pods(ns, "huge", "", 1, resources("cpu", "8"))
		pods(ns, "orphan", "nowhere", 1, resources("cpu", "100m"))
		Eventually(eventsAbout(ns, "huge-0"), framework.Timeout, framework.Interval).Should(ContainElement(
			And(ContainSubstring("FailedScheduling: 1 of 1 pods wait: resource in cluster is overused"), ContainSubstring("this pod's requests need 8 more"))))
		Eventually(eventsAbout(ns, "orphan-0"), framework.Timeout, framework.Interval).Should(ContainElement(
			ContainSubstring("PodGroup " + ns + "/nowhere does not exist")))
		Consistently(boundCount(ns, "orphan"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(0))
	})

	It("binds nothing of a 5-pod gang on room for 4, says why, and binds all 5 once a node is added", func() {
		startScheduler(scheduler.Options{})
		createNode(uniqueName("gang-a"), resources("cpu", "2", "memory", "4Gi"), nil)
		createNode(uniqueName("gang-b"), resources("cpu", "2", "memory", "4Gi"), nil)
		podGroup(ns, "gang", "default", 5)
		pods(ns, "gang", "gang", 5, resources("cpu", "1"))

		Eventually(func() string {
			c := condition(getPodGroup(ns, "gang")(), schedulingv1beta1.PodGroupUnschedulableType)
			if c == nil || c.Status != corev1.ConditionTrue {
				return ""
			}
			return c.Message
		}, framework.Timeout, framework.Interval).Should(ContainSubstring("0/2 nodes are available: 2 Insufficient cpu."))
		pg := getPodGroup(ns, "gang")()
		c := condition(pg, schedulingv1beta1.PodGroupUnschedulableType)
		Expect(c.Message).To(HavePrefix("5 of 5 pods wait: "))
		Expect(c.Reason).To(Equal(schedulingv1beta1.NotEnoughResourcesReason))
		Expect(c.TransitionID).NotTo(BeEmpty())
		Expect(pg.Status.Phase).To(Equal(schedulingv1beta1.PodGroupInqueue))
		Eventually(eventsAbout(ns, "gang"), framework.Timeout, framework.Interval).Should(ContainElement(ContainSubstring("Unschedulable: 5 of 5 pods wait: ")))
		Consistently(boundCount(ns, "gang"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(0))

		createNode(uniqueName("gang-c"), resources("cpu", "1", "memory", "4Gi"), nil)
		Eventually(boundCount(ns, "gang"), framework.Timeout, framework.Interval).Should(Equal(5))
		Eventually(func() schedulingv1beta1.PodGroupPhase {
			if pg := getPodGroup(ns, "gang")(); pg != nil {
				return pg.Status.Phase
			}
			return ""
		}, framework.Timeout, framework.Interval).Should(Equal(schedulingv1beta1.PodGroupRunning))
		pg = getPodGroup(ns, "gang")()
		Expect(condition(pg, schedulingv1beta1.PodGroupScheduled)).NotTo(BeNil())
		Expect(condition(pg, schedulingv1beta1.PodGroupUnschedulableType).Status).To(Equal(corev1.ConditionFalse))

		// Pods reported running are counted.
		var list corev1.PodList
		Expect(k8s.List(context.Background(), &list, client.InNamespace(ns))).To(Succeed())
		for i := range list.Items {
			p := &list.Items[i]
			p.Status.Phase = corev1.PodRunning
			Expect(k8s.Status().Update(context.Background(), p)).To(Succeed())
		}
		Eventually(func() int32 {
			if pg := getPodGroup(ns, "gang")(); pg != nil {
				return pg.Status.Running
			}
			return -1
		}, framework.Timeout, framework.Interval).Should(BeEquivalentTo(5))
	})

	It("splits a full cluster 1:3 between queues of weights 1 and 3, within one pod", func() {
		small, large := uniqueName("small"), uniqueName("large")
		queue(small, 1)
		queue(large, 3)
		createNode(uniqueName("split-a"), resources("cpu", "4", "memory", "8Gi"), nil)
		createNode(uniqueName("split-b"), resources("cpu", "4", "memory", "8Gi"), nil)
		for i := 0; i < 8; i++ {
			podGroup(ns, fmt.Sprintf("s%d", i), small, 1)
			pods(ns, fmt.Sprintf("s%d", i), fmt.Sprintf("s%d", i), 1, resources("cpu", "1"))
			podGroup(ns, fmt.Sprintf("l%d", i), large, 1)
			pods(ns, fmt.Sprintf("l%d", i), fmt.Sprintf("l%d", i), 1, resources("cpu", "1"))
		}
		// Both queues compete from the first cycle.
		startScheduler(scheduler.Options{})
		Eventually(func() int { return boundCount(ns, "s")() + boundCount(ns, "l")() }, framework.Timeout, framework.Interval).Should(Equal(8))
		Consistently(func() int { return boundCount(ns, "s")() + boundCount(ns, "l")() }, framework.ConsistentlyDuration, framework.Interval).Should(Equal(8))
		Expect(boundCount(ns, "s")()).To(BeNumerically("~", 2, 1))
		Expect(boundCount(ns, "l")()).To(BeNumerically("~", 6, 1))
		// The queues' status shows what they hold.
		Eventually(func() string {
			q := &schedulingv1beta1.Queue{}
			Expect(k8s.Get(context.Background(), types.NamespacedName{Name: large}, q)).To(Succeed())
			cpu := q.Status.Allocated[corev1.ResourceCPU]
			return fmt.Sprintf("%s running=%d pending=%d", cpu.String(), q.Status.Running, q.Status.Inqueue)
		}, framework.Timeout, framework.Interval).Should(Equal(fmt.Sprintf("%d running=%d pending=%d", boundCount(ns, "l")(), boundCount(ns, "l")(), 8-boundCount(ns, "l")())))
	})

	It("caps a queue at its capability", func() {
		startScheduler(scheduler.Options{})
		capped := uniqueName("capped")
		queue(capped, 1, func(q *schedulingv1beta1.Queue) { q.Spec.Capability = resources("cpu", "2") })
		createNode(uniqueName("cap"), resources("cpu", "8", "memory", "8Gi"), nil)
		for i := 0; i < 4; i++ {
			podGroup(ns, fmt.Sprintf("c%d", i), capped, 1)
			pods(ns, fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", i), 1, resources("cpu", "1"))
		}
		Eventually(boundCount(ns, "c"), framework.Timeout, framework.Interval).Should(Equal(2))
		Consistently(boundCount(ns, "c"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(2))
		var unbound string
		for i := 0; i < 4; i++ {
			if c := condition(getPodGroup(ns, fmt.Sprintf("c%d", i))(), schedulingv1beta1.PodGroupUnschedulableType); c != nil && c.Status == corev1.ConditionTrue {
				unbound = c.Message
			}
		}
		Expect(unbound).To(ContainSubstring("has reached its capability of cpu"))
	})

	It("reclaims a queue's share from a queue above its own", func() {
		startScheduler(scheduler.Options{ConfigFile: writeConfig(reclaimConf)})
		greedy, owner := uniqueName("greedy"), uniqueName("owner")
		queue(greedy, 1)
		queue(owner, 1)
		createNode(uniqueName("reclaim"), resources("cpu", "4", "memory", "8Gi"), nil)
		for i := 0; i < 4; i++ {
			podGroup(ns, fmt.Sprintf("g%d", i), greedy, 1)
			pods(ns, fmt.Sprintf("g%d", i), fmt.Sprintf("g%d", i), 1, resources("cpu", "1"))
		}
		Eventually(boundCount(ns, "g"), framework.Timeout, framework.Interval).Should(Equal(4))

		podGroup(ns, "mine", owner, 2)
		pods(ns, "mine", "mine", 2, resources("cpu", "1"))
		Eventually(boundCount(ns, "mine"), framework.Timeout, framework.Interval).Should(Equal(2))
		Expect(boundCount(ns, "g")()).To(Equal(2))
		Eventually(func() []string {
			var all []string
			for i := 0; i < 4; i++ {
				all = append(all, eventsAbout(ns, fmt.Sprintf("g%d-0", i))()...)
			}
			return all
		}, framework.Timeout, framework.Interval).Should(ContainElement(ContainSubstring("reclaimed for queue " + owner)))
	})

	It("preempts lower-priority pods for a higher-priority job of the same queue", func() {
		startScheduler(scheduler.Options{ConfigFile: writeConfig(preemptConf)})
		low, high := uniqueName("low"), uniqueName("high")
		createAndCleanup(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: low}, Value: 10})
		createAndCleanup(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: high}, Value: 1000})
		createNode(uniqueName("preempt"), resources("cpu", "4", "memory", "8Gi"), nil)
		for i := 0; i < 4; i++ {
			podGroup(ns, fmt.Sprintf("low%d", i), "default", 1, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = low })
			pods(ns, fmt.Sprintf("low%d", i), fmt.Sprintf("low%d", i), 1, resources("cpu", "1"), func(p *corev1.Pod) { p.Spec.PriorityClassName = low })
		}
		Eventually(boundCount(ns, "low"), framework.Timeout, framework.Interval).Should(Equal(4))

		podGroup(ns, "urgent", "default", 2, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = high })
		pods(ns, "urgent", "urgent", 2, resources("cpu", "1"), func(p *corev1.Pod) { p.Spec.PriorityClassName = high })
		Eventually(boundCount(ns, "urgent"), framework.Timeout, framework.Interval).Should(Equal(2))
		Expect(boundCount(ns, "low")()).To(Equal(2))
	})

	It("lets a job past its SLA waiting time reserve resources ahead of smaller jobs", func() {
		startScheduler(scheduler.Options{ConfigFile: writeConfig(slaConf)})
		createNode(uniqueName("sla"), resources("cpu", "4", "memory", "8Gi"), nil)
		// The cluster is busy with three running one-cpu jobs.
		for i := 0; i < 3; i++ {
			podGroup(ns, fmt.Sprintf("busy%d", i), "default", 1)
			pods(ns, fmt.Sprintf("busy%d", i), fmt.Sprintf("busy%d", i), 1, resources("cpu", "1"))
		}
		Eventually(boundCount(ns, "busy"), framework.Timeout, framework.Interval).Should(Equal(3))
		// A large gang with a short waiting time, and small jobs arriving after it.
		podGroup(ns, "large", "default", 4, func(pg *schedulingv1beta1.PodGroup) {
			pg.Annotations = map[string]string{schedulingv1beta1.JobWaitingTime: "1s"}
		})
		pods(ns, "large", "large", 4, resources("cpu", "1"))
		time.Sleep(1500 * time.Millisecond)
		for i := 0; i < 3; i++ {
			podGroup(ns, fmt.Sprintf("small%d", i), "default", 1)
			pods(ns, fmt.Sprintf("small%d", i), fmt.Sprintf("small%d", i), 1, resources("cpu", "1"))
		}
		// The free cpu and every cpu freed later is held for the large job, not given to small ones.
		Consistently(boundCount(ns, "small"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(0))
		for i := 0; i < 3; i++ {
			Expect(k8s.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("busy%d-0", i)}},
				client.GracePeriodSeconds(0))).To(Succeed())
			if i < 2 {
				Consistently(boundCount(ns, "small"), time.Second, framework.Interval).Should(Equal(0))
			}
		}
		Eventually(boundCount(ns, "large"), framework.Timeout, framework.Interval).Should(Equal(4))
		Expect(boundCount(ns, "small")()).To(Equal(0))
	})

	It("honours nvidia.com/gpu requests", func() {
		startScheduler(scheduler.Options{})
		gpuNode := uniqueName("gpu")
		createNode(gpuNode, resources("cpu", "8", "memory", "16Gi", "nvidia.com/gpu", "2"), nil)
		createNode(uniqueName("cpu"), resources("cpu", "8", "memory", "16Gi"), nil)
		podGroup(ns, "train", "default", 1)
		pods(ns, "train", "train", 1, resources("cpu", "1", "nvidia.com/gpu", "2"))
		Eventually(boundCount(ns, "train"), framework.Timeout, framework.Interval).Should(Equal(1))
		p := &corev1.Pod{}
		Expect(k8s.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "train-0"}, p)).To(Succeed())
		Expect(p.Spec.NodeName).To(Equal(gpuNode))

		podGroup(ns, "more", "default", 1)
		pods(ns, "more", "more", 1, resources("cpu", "1", "nvidia.com/gpu", "1"))
		Eventually(func() string {
			c := condition(getPodGroup(ns, "more")(), schedulingv1beta1.PodGroupUnschedulableType)
			if c == nil {
				return ""
			}
			return c.Message
		}, framework.Timeout, framework.Interval).Should(ContainSubstring("Insufficient nvidia.com/gpu"))
		Expect(boundCount(ns, "more")()).To(Equal(0))
	})

	It("admits nothing into a closed queue, and admits it once the queue is open", func() {
		startScheduler(scheduler.Options{})
		closed := uniqueName("closed")
		q := queue(closed, 1)
		setQueueState(closed, schedulingv1beta1.QueueStateClosed)
		createNode(uniqueName("closed"), resources("cpu", "4", "memory", "8Gi"), nil)
		podGroup(ns, "late", closed, 1)
		pods(ns, "late", "late", 1, resources("cpu", "1"))
		Eventually(func() string {
			c := condition(getPodGroup(ns, "late")(), schedulingv1beta1.PodGroupUnschedulableType)
			if c == nil {
				return ""
			}
			return c.Message
		}, framework.Timeout, framework.Interval).Should(ContainSubstring("queue " + closed + " is Closed and admits no new PodGroups"))
		Consistently(boundCount(ns, "late"), framework.ConsistentlyDuration, framework.Interval).Should(Equal(0))
		Expect(getPodGroup(ns, "late")().Status.Phase).To(Equal(schedulingv1beta1.PodGroupPending))

		setQueueState(closed, schedulingv1beta1.QueueStateOpen)
		Expect(k8s.Get(context.Background(), types.NamespacedName{Name: closed}, q)).To(Succeed())
		Expect(q.Status.State).To(Equal(schedulingv1beta1.QueueStateOpen))
		Eventually(boundCount(ns, "late"), framework.Timeout, framework.Interval).Should(Equal(1))
	})

	It("refuses an invalid configuration with a log line and an event, keeping the last good one", func() {
		cmName := uniqueName("sched-config")
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cmName}, Data: map[string]string{scheduler.DefaultConfigMapKey: noGangConf}}
		Expect(k8s.Create(context.Background(), cm)).To(Succeed())
		startScheduler(scheduler.Options{ConfigMap: &types.NamespacedName{Namespace: ns, Name: cmName}})
		Eventually(eventsAbout(ns, cmName), framework.Timeout, framework.Interval).Should(ContainElement(ContainSubstring("SchedulerConfigurationLoaded")))

		cm.Data[scheduler.DefaultConfigMapKey] = "actions: \"enqueue, alocate\"\ntiers:\n- plugins:\n  - name: gang\n    arguments:\n      nope: 1\n"
		Expect(k8s.Update(context.Background(), cm)).To(Succeed())
		Eventually(eventsAbout(ns, cmName), framework.Timeout, framework.Interval).Should(ContainElement(And(
			ContainSubstring("InvalidSchedulerConfiguration"),
			ContainSubstring(`unknown action "alocate"`),
			ContainSubstring(`tiers[0].plugins[0].arguments`),
		)))

		// The configuration without gang stays in force: a 3-pod gang on room for 2 binds 2 of them.
		createNode(uniqueName("conf"), resources("cpu", "2", "memory", "4Gi"), nil)
		podGroup(ns, "partial", "default", 3)
		pods(ns, "partial", "partial", 3, resources("cpu", "1"))
		Eventually(boundCount(ns, "partial"), framework.Timeout, framework.Interval).Should(Equal(2))
	})
})
