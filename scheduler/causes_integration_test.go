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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/scheduler"
)

// cause is a reason a pod can go nowhere: setup makes the cluster (its nodes and the pods already
// on them) and the pod "p-0" of the one-pod PodGroup "pg" that cannot be placed there.
type cause struct {
	setup func(c *causeCluster)
	// words are what the pod's event, its PodScheduled condition and the PodGroup's Unschedulable
	// condition say.
	words string
	// job is set for a cause of the whole job (its PodGroup), which the PodGroup's condition and
	// event say rather than its pods.
	job bool
}

// causeCluster builds the cluster of one cause in the spec's namespace.
type causeCluster struct{ ns string }

// node creates a Ready node of 4 cpu and 8Gi in zone a, changed by mutate before it is created.
func (c *causeCluster) node(mutate ...func(*corev1.Node)) *corev1.Node {
	GinkgoHelper()
	return createNode(uniqueName("cause"), resources("cpu", "4", "memory", "8Gi"), map[string]string{corev1.LabelTopologyZone: "a"}, mutate...)
}

// pod creates the pod that cannot be placed, of 1 cpu, in its PodGroup.
func (c *causeCluster) pod(mutate ...func(*corev1.Pod)) {
	GinkgoHelper()
	podGroup(c.ns, "pg", "default", 1)
	pods(c.ns, "p", "pg", 1, resources("cpu", "1"), mutate...)
}

// claim creates a claim of 1Gi, ReadWriteOnce, of the class ("": none).
func (c *causeCluster) claim(name, class string, mutate ...func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	GinkgoHelper()
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: c.ns, Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: resources("storage", "1Gi")}}}
	if class != "" {
		pvc.Spec.StorageClassName = &class
	}
	for _, m := range mutate {
		m(pvc)
	}
	Expect(k8s.Create(context.Background(), pvc)).To(Succeed())
	return pvc
}

// on creates a pod of no PodGroup already bound to node.
func (c *causeCluster) on(node *corev1.Node, name string, mutate ...func(*corev1.Pod)) {
	GinkgoHelper()
	pods(c.ns, name, "", 1, resources("cpu", "100m"), append([]func(*corev1.Pod){func(p *corev1.Pod) { p.Spec.NodeName = node.Name }}, mutate...)...)
}

func withLabel(key, value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[key] = value
	}
}

func withHostPort(port int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: port, HostPort: port}}
	}
}

func withRequests(pairs ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests = resources(pairs...)
		p.Spec.Containers[0].Resources.Limits = extendedLimits(p.Spec.Containers[0].Resources.Requests)
	}
}

// withTerm adds a required pod affinity (or anti-affinity) term on app=value over key.
func withTerm(anti bool, key, value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		term := corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}}}
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if anti {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
		} else {
			p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
		}
	}
}

func withSpread(key string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "p"}}}}
	}
}

func withClaim(name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
	}
}

// What a user sees on the pod and its PodGroup, on the API server, for each reason a pod can go
// nowhere, worded as kube-scheduler words them.
var _ = Describe("Unschedulable causes", func() {
	var c *causeCluster
	BeforeEach(func() {
		c = &causeCluster{ns: fw.SpecNamespace("cause")}
		startScheduler(scheduler.Options{})
	})

	DescribeTable("say why the pod waits, on the pod and on its PodGroup",
		func(tc cause) {
			tc.setup(c)
			Eventually(func() string {
				cond := condition(getPodGroup(c.ns, "pg")(), schedulingv1beta1.PodGroupUnschedulableType)
				if cond == nil || cond.Status != corev1.ConditionTrue {
					return ""
				}
				return cond.Message
			}, framework.Timeout, framework.Interval).Should(ContainSubstring(tc.words))
			if tc.job {
				Eventually(eventsAbout(c.ns, "pg"), framework.Timeout, framework.Interval).Should(ContainElement(
					And(HavePrefix("Unschedulable: "), ContainSubstring(tc.words))))
			} else {
				Eventually(podScheduled(c.ns, "p-0"), framework.Timeout, framework.Interval).Should(
					And(HavePrefix("False/Unschedulable: "), ContainSubstring(tc.words)))
				Eventually(eventsAbout(c.ns, "p-0"), framework.Timeout, framework.Interval).Should(ContainElement(
					And(HavePrefix("FailedScheduling: "), ContainSubstring(tc.words))))
			}
			Expect(boundCount(c.ns, "p-")()).To(Equal(0))
		},
		Entry("cpu", cause{setup: func(c *causeCluster) {
			c.node()
			c.pod(withRequests("cpu", "8"))
		}, words: "0/1 nodes are available: 1 Insufficient cpu."}),
		Entry("memory", cause{setup: func(c *causeCluster) {
			c.node()
			c.pod(withRequests("cpu", "1", "memory", "16Gi"))
		}, words: "0/1 nodes are available: 1 Insufficient memory."}),
		Entry("an extended resource", cause{setup: func(c *causeCluster) {
			c.node()
			c.pod(withRequests("cpu", "1", "nvidia.com/gpu", "1"))
		}, words: "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."}),
		Entry("the pod count", cause{setup: func(c *causeCluster) {
			n := c.node(func(n *corev1.Node) {
				n.Status.Allocatable[corev1.ResourcePods] = resources("pods", "1")[corev1.ResourcePods]
			})
			c.on(n, "other")
			c.pod()
		}, words: "0/1 nodes are available: 1 Too many pods."}),
		Entry("a node selector", cause{setup: func(c *causeCluster) {
			c.node()
			c.pod(func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} })
		}, words: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."}),
		Entry("a taint", cause{setup: func(c *causeCluster) {
			c.node(func(n *corev1.Node) {
				n.Spec.Taints = []corev1.Taint{{Key: "gpu", Value: "yes", Effect: corev1.TaintEffectNoSchedule}}
			})
			c.pod()
		}, words: "0/1 nodes are available: 1 node(s) had untolerated taint {gpu: yes}."}),
		Entry("a cordoned node", cause{setup: func(c *causeCluster) {
			c.node(func(n *corev1.Node) { n.Spec.Unschedulable = true })
			c.pod()
		}, words: "0/1 nodes are available: 1 node(s) were unschedulable."}),
		Entry("a node that is not ready", cause{setup: func(c *causeCluster) {
			c.node(func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse })
			c.node(func(n *corev1.Node) {
				n.Spec.Taints = []corev1.Taint{{Key: "x", Value: "y", Effect: corev1.TaintEffectNoSchedule}}
			})
			c.pod()
		}, words: "0/2 nodes are available: 1 node(s) had untolerated taint {x: y}, 1 node(s) were not ready."}),
		Entry("a host port", cause{setup: func(c *causeCluster) {
			c.on(c.node(), "other", withHostPort(8080))
			c.pod(withHostPort(8080))
		}, words: "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports."}),
		Entry("the pod's anti-affinity", cause{setup: func(c *causeCluster) {
			c.on(c.node(), "db", withLabel("app", "db"))
			c.pod(withTerm(true, corev1.LabelTopologyZone, "db"))
		}, words: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules."}),
		Entry("a placed pod's anti-affinity", cause{setup: func(c *causeCluster) {
			c.on(c.node(), "loner", withTerm(true, corev1.LabelTopologyZone, "p"))
			c.pod(withLabel("app", "p"))
		}, words: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules."}),
		Entry("the pod's affinity", cause{setup: func(c *causeCluster) {
			c.node()
			c.pod(withTerm(false, corev1.LabelTopologyZone, "db"))
		}, words: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules."}),
		Entry("a spread constraint's missing label", cause{setup: func(c *causeCluster) {
			c.node()
			c.pod(withLabel("app", "p"), withSpread("rack"))
		}, words: "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label)."}),
		Entry("a spread constraint's skew", cause{setup: func(c *causeCluster) {
			a := c.node()
			c.node(func(n *corev1.Node) {
				n.Labels[corev1.LabelTopologyZone] = "b"
				n.Spec.Taints = []corev1.Taint{{Key: "full", Effect: corev1.TaintEffectNoSchedule}}
			})
			c.on(a, "web", withLabel("app", "p"))
			c.pod(withLabel("app", "p"), withSpread(corev1.LabelTopologyZone))
		}, words: "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) had untolerated taint {full: }."}),
		Entry("a claim being deleted", cause{setup: func(c *causeCluster) {
			c.node()
			// The API server's StorageObjectInUseProtection keeps a claim in use until no pod uses it.
			claim := c.claim("going", "", func(pvc *corev1.PersistentVolumeClaim) { pvc.Finalizers = []string{"kubernetes.io/pvc-protection"} })
			Expect(k8s.Delete(context.Background(), claim)).To(Succeed())
			DeferCleanup(func() {
				release := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
				Expect(client.IgnoreNotFound(k8s.Patch(context.Background(), claim, release))).To(Succeed())
			})
			c.pod(withClaim("going"))
		}, words: `persistentvolumeclaim "going" is being deleted`}),
		Entry("a PriorityClass that does not exist", cause{setup: func(c *causeCluster) {
			c.node()
			podGroup(c.ns, "pg", "default", 1, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = "nowhere" })
			pods(c.ns, "p", "pg", 1, resources("cpu", "1"))
		}, words: `PriorityClass "nowhere" not found: create it`, job: true}),
		Entry("a missing claim", cause{setup: func(c *causeCluster) {
			c.node()
			c.pod(withClaim("nowhere"))
		}, words: `persistentvolumeclaim "nowhere" not found`}),
		Entry("a claim not bound though it binds Immediate", cause{setup: func(c *causeCluster) {
			c.node()
			class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: uniqueName("immediate")}, Provisioner: framework.NoProvisioner,
				VolumeBindingMode: ptr.To(storagev1.VolumeBindingImmediate)}
			createAndCleanup(class)
			c.claim("later", class.Name)
			c.pod(withClaim("later"))
		}, words: "pod has unbound immediate PersistentVolumeClaims"}),
		Entry("no volume for a WaitForFirstConsumer claim", cause{setup: func(c *causeCluster) {
			c.node()
			class := framework.LocalStorageClass(uniqueName("local"))
			createAndCleanup(class)
			c.claim("scratch", class.Name)
			c.pod(withClaim("scratch"))
		}, words: "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind."}),
	)
})
