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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/volume"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// The scheduler binds pods' claims before the pods, with kube-controller-manager's
// PersistentVolume controller finishing each binding, as on a real cluster.
var _ = Describe("Volumes", Label("e2e:volumes"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) {
		ns = fw.SpecNamespace("volumes")
		startCaldera(ctx)
	})

	// storageClass creates a StorageClass for the spec alone and removes it after.
	storageClass := func(ctx context.Context, sc *storagev1.StorageClass) string {
		GinkgoHelper()
		sc.Name = ns + "-" + sc.Name
		Expect(fw.Client.Create(ctx, sc)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, sc))).To(Succeed()) })
		return sc.Name
	}
	// localVolumes creates one local volume of the class on each node and removes them after.
	localVolumes := func(ctx context.Context, class string, on []string) []*corev1.PersistentVolume {
		GinkgoHelper()
		var pvs []*corev1.PersistentVolume
		for i, node := range on {
			pv := framework.LocalVolume(fmt.Sprintf("%s-%d-%s", class, i, node), class, node, "1Gi")
			Expect(fw.Client.Create(ctx, pv)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, pv))).To(Succeed()) })
			pvs = append(pvs, pv)
		}
		return pvs
	}
	// claimOf is a claim of 1Gi, ReadWriteOnce, from the class.
	claimOf := func(name, class string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				StorageClassName: ptr.To(class),
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}
	}
	podGroupOf := func(ctx context.Context, g Gomega) schedulingv1beta1.PodGroup {
		var groups schedulingv1beta1.PodGroupList
		g.Expect(fw.Client.List(ctx, &groups, client.InNamespace(ns))).To(Succeed())
		g.Expect(groups.Items).To(HaveLen(1))
		return groups.Items[0]
	}
	// someUnschedulable waits until one of the namespace's PodGroups says it cannot be placed, in
	// words that contain words.
	someUnschedulable := func(ctx context.Context, words string) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			var groups schedulingv1beta1.PodGroupList
			g.Expect(fw.Client.List(ctx, &groups, client.InNamespace(ns))).To(Succeed())
			var said []string
			for _, pg := range groups.Items {
				for _, c := range pg.Status.Conditions {
					if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
						said = append(said, c.Message)
					}
				}
			}
			g.Expect(said).To(ContainElement(ContainSubstring(words)))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	}
	unschedulable := func(ctx context.Context, words string) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			pg := podGroupOf(ctx, g)
			g.Expect(pg.Status.Conditions).To(ContainElement(And(
				HaveField("Type", schedulingv1beta1.PodGroupUnschedulableType),
				HaveField("Status", corev1.ConditionTrue),
				HaveField("Message", ContainSubstring(words)),
			)))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	}

	It("runs a gang of 4 whose pods each have their own local volume to Completed, each claim bound to a volume on its pod's node", func(ctx SpecContext) {
		class := storageClass(ctx, framework.LocalStorageClass("local"))
		// Four volumes: two on the first node, one on each other.
		pvs := localVolumes(ctx, class, append([]string{nodes[0]}, nodes...))
		nodeOf := map[string]string{}
		for _, pv := range pvs {
			nodeOf[pv.Name] = pv.Labels["caldera.sh/local-volume-node"]
		}
		job := wrappers.MakeJob("disks", ns).MinAvailable(int32(len(pvs))).Task("worker", int32(len(pvs))).
			EphemeralVolume("scratch", "/scratch", class, "1Gi").RunFor(time.Second).Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(len(pvs)))
			for _, pod := range pods {
				g.Expect(pod.Spec.NodeName).NotTo(BeEmpty())
				claim := &corev1.PersistentVolumeClaim{}
				g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: pod.Name + "-scratch"}, claim)).To(Succeed())
				g.Expect(claim.Status.Phase).To(Equal(corev1.ClaimBound))
				g.Expect(nodeOf).To(HaveKeyWithValue(claim.Spec.VolumeName, pod.Spec.NodeName))
			}
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(jobPhase(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Completed))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("binds nothing of a gang whose last member's volume cannot be placed, and says why", func(ctx SpecContext) {
		class := storageClass(ctx, framework.LocalStorageClass("short"))
		pvs := localVolumes(ctx, class, nodes)
		size := int32(len(nodes) + 1)
		job := wrappers.MakeJob("one-short", ns).MinAvailable(size).Task("worker", size).
			EphemeralVolume("scratch", "/scratch", class, "1Gi").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		unschedulable(ctx, "node(s) didn't find available persistent volumes to bind")
		Eventually(func(g Gomega) {
			var events corev1.EventList
			g.Expect(fw.Client.List(ctx, &events, client.InNamespace(ns))).To(Succeed())
			var said []string
			for _, e := range events.Items {
				if e.Reason == "FailedScheduling" {
					said = append(said, e.Message)
				}
			}
			g.Expect(said).To(ContainElement(ContainSubstring("didn't find available persistent volumes to bind")))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			for _, pv := range pvs {
				cur := &corev1.PersistentVolume{}
				g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(pv), cur)).To(Succeed())
				g.Expect(cur.Spec.ClaimRef).To(BeNil(), "volume %s was given to a member of a gang that does not fit", pv.Name)
			}
			g.Expect(jobPods(ctx, g, job)).To(HaveEach(HaveField("Spec.NodeName", BeEmpty())))
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
	})

	It("asks for a volume to be provisioned on the chosen node (WaitForFirstConsumer), and binds the pod once it is", func(ctx SpecContext) {
		class := storageClass(ctx, &storagev1.StorageClass{
			ObjectMeta:        metav1.ObjectMeta{Name: "dynamic"},
			Provisioner:       "example.com/simulated",
			VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
		})
		job := wrappers.MakeJob("dynamic", ns).Task("worker", 1).EphemeralVolume("data", "/data", class, "1Gi").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())

		claim := &corev1.PersistentVolumeClaim{}
		key := client.ObjectKey{Namespace: ns, Name: "dynamic-worker-0-data"}
		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, key, claim)).To(Succeed())
			g.Expect(claim.Annotations).To(HaveKeyWithValue(volume.AnnSelectedNode, BeElementOf(nodes)))
		}, framework.Timeout, framework.Interval).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(jobPods(ctx, g, job)).To(HaveEach(HaveField("Spec.NodeName", BeEmpty())), "the pod is bound before its volume exists")
		}, framework.ConsistentlyDuration, framework.Interval).Should(Succeed())
		// The wait is not silent: the pod says where it goes and what it waits for, and its
		// PodGroup no longer says it cannot be placed.
		Eventually(func(g Gomega) {
			var events corev1.EventList
			g.Expect(fw.Client.List(ctx, &events, client.InNamespace(ns))).To(Succeed())
			var said []string
			for _, e := range events.Items {
				if e.InvolvedObject.Name == "dynamic-worker-0" {
					said = append(said, e.Reason+": "+e.Message)
				}
			}
			g.Expect(said).To(ContainElement(HavePrefix("WaitingForVolumes: placed on node " + claim.Annotations[volume.AnnSelectedNode])))
			pg := podGroupOf(ctx, g)
			g.Expect(pg.Status.Conditions).NotTo(ContainElement(And(
				HaveField("Type", schedulingv1beta1.PodGroupUnschedulableType), HaveField("Status", corev1.ConditionTrue))))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		// What the provisioner of the class does: a volume on the selected node, bound to the
		// claim; the PersistentVolume controller binds the claim to it.
		node := claim.Annotations[volume.AnnSelectedNode]
		pv := framework.LocalVolume(class+"-"+node, class, node, "1Gi")
		pv.Annotations = map[string]string{"pv.kubernetes.io/provisioned-by": "example.com/simulated"}
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: ns, Name: claim.Name, UID: claim.UID}
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimDelete
		Expect(fw.Client.Create(ctx, pv)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, pv))).To(Succeed()) })

		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Spec.NodeName).To(Equal(node))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})

	It("places no more volumes of a CSI driver on a node than its CSINode allows", func(ctx SpecContext) {
		const driver = "disk.example.com"
		class := storageClass(ctx, &storagev1.StorageClass{
			ObjectMeta:        metav1.ObjectMeta{Name: "limited"},
			Provisioner:       driver,
			VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
		})
		// The driver attaches no volume to any node but the last, and one there.
		for i, node := range nodes {
			count := int32(0)
			if i == len(nodes)-1 {
				count = 1
			}
			csiNode := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: node}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{
				Name: driver, NodeID: node, Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To(count)},
			}}}}
			Expect(fw.Client.Create(ctx, csiNode)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, csiNode))).To(Succeed()) })
		}
		job := wrappers.MakeJob("first", ns).Task("worker", 1).EphemeralVolume("data", "/data", class, "1Gi").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			claim := &corev1.PersistentVolumeClaim{}
			g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "first-worker-0-data"}, claim)).To(Succeed())
			g.Expect(claim.Annotations).To(HaveKeyWithValue(volume.AnnSelectedNode, nodes[len(nodes)-1]))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		second := wrappers.MakeJob("second", ns).Task("worker", 1).EphemeralVolume("data", "/data", class, "1Gi").Obj()
		Expect(fw.Client.Create(ctx, second)).To(Succeed())
		someUnschedulable(ctx, fmt.Sprintf("%d node(s) exceed max volume count", len(nodes)))
	})

	It("places no pod whose volume is labelled with a zone no node is in, and lets one pod at a time use a ReadWriteOncePod claim", func(ctx SpecContext) {
		class := storageClass(ctx, framework.LocalStorageClass("zoned"))
		far := framework.LocalVolume(class+"-far", class, nodes[0], "1Gi")
		far.Labels[corev1.LabelTopologyZone] = "zone-elsewhere"
		Expect(fw.Client.Create(ctx, far)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, far))).To(Succeed()) })
		claim := claimOf("far", class)
		claim.Spec.VolumeName = far.Name
		Expect(fw.Client.Create(ctx, claim)).To(Succeed())
		job := wrappers.MakeJob("far", ns).Task("worker", 1).ClaimedVolume("data", "/data", "far").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		unschedulable(ctx, fmt.Sprintf("0/%d nodes are available: 1 node(s) had no available volume zone, %d node(s) didn't match PersistentVolume's node affinity.", len(nodes), len(nodes)-1))
		Expect(fw.Client.Delete(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			var groups schedulingv1beta1.PodGroupList
			g.Expect(fw.Client.List(ctx, &groups, client.InNamespace(ns))).To(Succeed())
			g.Expect(groups.Items).To(BeEmpty())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		lone := framework.LocalVolume(class+"-lone", class, nodes[1], "1Gi")
		lone.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}
		Expect(fw.Client.Create(ctx, lone)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, lone))).To(Succeed()) })
		single := claimOf("single", class)
		single.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}
		Expect(fw.Client.Create(ctx, single)).To(Succeed())
		first := wrappers.MakeJob("first", ns).Task("worker", 1).ClaimedVolume("data", "/data", "single").Obj()
		Expect(fw.Client.Create(ctx, first)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, first)
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Spec.NodeName).To(Equal(nodes[1]))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
		second := wrappers.MakeJob("second", ns).Task("worker", 1).ClaimedVolume("data", "/data", "single").Obj()
		Expect(fw.Client.Create(ctx, second)).To(Succeed())
		someUnschedulable(ctx, "PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod")
	})

	It("places a pod whose claim is bound on the node its volume is on", func(ctx SpecContext) {
		class := storageClass(ctx, framework.LocalStorageClass("bound"))
		target := nodes[len(nodes)-1]
		pv := localVolumes(ctx, class, []string{target})[0]
		claim := claimOf("data", class)
		claim.Spec.VolumeName = pv.Name
		Expect(fw.Client.Create(ctx, claim)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim)).To(Succeed())
			g.Expect(claim.Status.Phase).To(Equal(corev1.ClaimBound))
		}, framework.Timeout, framework.Interval).Should(Succeed())

		job := wrappers.MakeJob("pinned", ns).Task("worker", 1).ClaimedVolume("data", "/data", "data").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Spec.NodeName).To(Equal(target))
		}, framework.Timeout, framework.Interval).Should(Succeed())
	})

	It("says why a pod waits for its claim: missing, or not bound though it binds Immediate", func(ctx SpecContext) {
		job := wrappers.MakeJob("missing", ns).Task("worker", 1).ClaimedVolume("data", "/data", "nowhere").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		unschedulable(ctx, `persistentvolumeclaim "nowhere" not found`)
		Expect(fw.Client.Delete(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			var groups schedulingv1beta1.PodGroupList
			g.Expect(fw.Client.List(ctx, &groups, client.InNamespace(ns))).To(Succeed())
			g.Expect(groups.Items).To(BeEmpty())
		}, framework.Timeout, framework.Interval).Should(Succeed())

		class := storageClass(ctx, &storagev1.StorageClass{
			ObjectMeta:        metav1.ObjectMeta{Name: "immediate"},
			Provisioner:       framework.NoProvisioner,
			VolumeBindingMode: ptr.To(storagev1.VolumeBindingImmediate),
		})
		claim := claimOf("later", class)
		Expect(fw.Client.Create(ctx, claim)).To(Succeed())
		job = wrappers.MakeJob("immediate", ns).Task("worker", 1).ClaimedVolume("data", "/data", "later").Obj()
		Expect(fw.Client.Create(ctx, job)).To(Succeed())
		unschedulable(ctx, "pod has unbound immediate PersistentVolumeClaims")

		// A volume appears; the PersistentVolume controller binds the claim, and the pod goes.
		localVolumes(ctx, class, nodes[:1])
		Eventually(func(g Gomega) {
			pods := jobPods(ctx, g, job)
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Spec.NodeName).To(Equal(nodes[0]))
		}, framework.LongTimeout, framework.Interval).Should(Succeed())
	})
})

// jobPods returns the pods of a job.
func jobPods(ctx context.Context, g Gomega, job *batchv1alpha1.Job) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(fw.Client.List(ctx, pods, client.InNamespace(job.Namespace),
		client.MatchingLabels{batchv1alpha1.JobNameKey: job.Name})).To(Succeed())
	return pods.Items
}
