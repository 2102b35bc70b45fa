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
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// operator is another operator the suite runs as a child process: the binary NAME that
// hack/kube-binaries.sh builds into the assets folder, beside its CRDs in NAME-crds.
type operator struct {
	name string
	// args are its flags, given its kubeconfig.
	args func(kubeconfig string) []string
	// check, when set, runs before the start and says why the operator cannot start here.
	check   func() error
	process *framework.Process
}

// kuberay is the KubeRay operator with the Volcano batch scheduler: it makes a PodGroup
// ray-<name>-pg for every RayCluster and puts the cluster's pods in it. It serves neither metrics
// nor probes and takes no lease.
var kuberay = &operator{
	name: "kuberay-operator",
	args: func(string) []string {
		return []string{
			"--batch-scheduler=volcano",
			"--enable-leader-election=false",
			"--metrics-addr=0",
			"--health-probe-bind-address=0",
			"--log-stdout-encoder=console",
		}
	},
}

// mpiHealthPort is the port the MPI operator serves /healthz on: fixed (8080) in v0.6.0, on
// every interface.
const mpiHealthPort = 8080

// mpiOperator is the Kubeflow MPI operator with Volcano gang scheduling: it makes a PodGroup
// named after every MPIJob and puts the launcher's and the workers' pods in it. It always takes a
// lease (here in the namespace "default").
var mpiOperator = &operator{
	name: "mpi-operator",
	args: func(kubeconfig string) []string {
		return []string{
			"--kubeConfig=" + kubeconfig,
			"--gang-scheduling=volcano",
			"--lock-namespace=default",
			"--kube-api-qps=50",
			"--kube-api-burst=100",
		}
	},
	check: func() error {
		l, err := net.Listen("tcp", ":"+strconv.Itoa(mpiHealthPort))
		if err != nil {
			return fmt.Errorf("mpi-operator serves its health check on the fixed port %d, which is taken here: %w", mpiHealthPort, err)
		}
		return l.Close()
	},
}

// start starts the operator from assets against the API server of kubeconfig, logging into dir.
func (o *operator) start(assets, dir, kubeconfig string) error {
	if o.check != nil {
		if err := o.check(); err != nil {
			return err
		}
	}
	cmd := exec.Command(filepath.Join(assets, o.name), o.args(kubeconfig)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Dir = dir
	p, err := framework.StartProcess(o.name, cmd, filepath.Join(dir, o.name+".log"), os.Getenv("CALDERA_ATTACH_CONTROL_PLANE_OUTPUT") != "")
	if err != nil {
		return err
	}
	o.process = p
	return nil
}

// stop stops the operator; one that was never started is no error.
func (o *operator) stop() error {
	return o.process.Stop()
}

// operatorAssets returns the assets folder (framework.Assets) once it holds every operator and
// its CRDs, running hack/kube-binaries.sh to build them when it does not (as happens when
// KUBEBUILDER_ASSETS points at a folder the script has not filled).
func operatorAssets() (string, error) {
	assets, err := framework.Assets()
	if err != nil {
		return "", err
	}
	missing := func() error {
		var errs []error
		for _, op := range []*operator{kuberay, mpiOperator} {
			for _, name := range []string{op.name, op.name + "-crds"} {
				if _, err := os.Stat(filepath.Join(assets, name)); err != nil {
					errs = append(errs, err)
				}
			}
		}
		return errors.Join(errs...)
	}
	if missing() == nil {
		return assets, nil
	}
	cmd := exec.Command("bash", filepath.Join(framework.RepoRoot(), "hack", "kube-binaries.sh"))
	cmd.Stdout = GinkgoWriter
	cmd.Stderr = GinkgoWriter
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the operators with hack/kube-binaries.sh: %w", err)
	}
	if err := missing(); err != nil {
		return "", fmt.Errorf("hack/kube-binaries.sh did not put the operators into %s: %w", assets, err)
	}
	return assets, nil
}

// applySample creates the first object of the sample file at path (relative to the repository)
// in namespace ns, after edit when not nil, and returns it. When the spec ends, the object is
// deleted in the foreground and waited for, before its namespace: an operator still running
// the object would otherwise make its PodGroup again between the namespace's cleanup and its
// deletion, and that admitted PodGroup would hold room in the queue for the next specs.
func applySample(ctx context.Context, path, ns string, edit func(*unstructured.Unstructured)) *unstructured.Unstructured {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(framework.RepoRoot(), path))
	Expect(err).NotTo(HaveOccurred())
	obj := &unstructured.Unstructured{}
	Expect(utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&obj.Object)).To(Succeed())
	obj.SetNamespace(ns)
	if edit != nil {
		edit(obj)
	}
	Expect(fw.Client.Create(ctx, obj)).To(Succeed())
	DeferCleanup(deleteAndWait, obj, NodeTimeout(framework.Timeout))
	return obj
}

// deleteAndWait deletes obj in the foreground (what it owns first, through the garbage
// collector of kube-controller-manager) and waits until it is gone.
func deleteAndWait(ctx SpecContext, obj *unstructured.Unstructured) {
	err := fw.Client.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationForeground))
	Expect(client.IgnoreNotFound(err)).To(Succeed())
	Eventually(func() error {
		return fw.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopy())
	}).WithContext(ctx).WithTimeout(framework.Timeout).WithPolling(framework.Interval).Should(Satisfy(apierrors.IsNotFound))
}

// setRequests sets the requests and limits of the first container of the pod template at
// fields in obj to cpu and memory.
func setRequests(obj *unstructured.Unstructured, cpu, memory string, fields ...string) {
	GinkgoHelper()
	containers, found, err := unstructured.NestedSlice(obj.Object, append(fields, "spec", "containers")...)
	Expect(err).NotTo(HaveOccurred())
	Expect(found).To(BeTrue(), "no containers at %v", fields)
	resources := map[string]any{"cpu": cpu, "memory": memory}
	first := containers[0].(map[string]any)
	first["resources"] = map[string]any{"requests": resources, "limits": resources}
	Expect(unstructured.SetNestedSlice(obj.Object, containers, append(fields, "spec", "containers")...)).To(Succeed())
}

// podGroup returns the PodGroup name in ns.
func podGroup(ctx context.Context, g Gomega, ns, name string) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{}
	g.Expect(fw.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg)).To(Succeed())
	return pg
}

// groupPods returns the pods of ns that name the PodGroup group in their group-name annotation.
func groupPods(ctx context.Context, g Gomega, ns, group string) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(fw.Client.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
	var in []corev1.Pod
	for _, p := range pods.Items {
		if p.Annotations[schedulingv1beta1.KubeGroupNameAnnotationKey] == group {
			in = append(in, p)
		}
	}
	return in
}

// expectOperatorsRunning fails g when an operator has exited.
func expectOperatorsRunning(g Gomega) {
	for _, op := range operators {
		g.Expect(op.process.Exited()).To(Succeed())
	}
}

// expectGangPlaced waits until the PodGroup group in ns asks for size members, was made by an
// object of ownerKind and holds size pods for schedulerName "volcano", all bound to KWOK nodes,
// and returns those pods.
func expectGangPlaced(ctx context.Context, ns, group, ownerKind string, size int) []corev1.Pod {
	GinkgoHelper()
	var pods []corev1.Pod
	Eventually(func(g Gomega) {
		expectOperatorsRunning(g)
		pg := podGroup(ctx, g, ns, group)
		g.Expect(pg.Spec.MinMember).To(BeEquivalentTo(size), "minMember of PodGroup %s", group)
		g.Expect(pg.OwnerReferences).To(ContainElement(HaveField("Kind", ownerKind)), "owner of PodGroup %s", group)
		pods = groupPods(ctx, g, ns, group)
		g.Expect(pods).To(HaveLen(size), "pods of PodGroup %s", group)
		for _, p := range pods {
			g.Expect(p.Spec.SchedulerName).To(Equal(schedulerName), "schedulerName of %s", p.Name)
			g.Expect(p.Spec.NodeName).To(BeElementOf(nodes), "node of %s", p.Name)
		}
	}).WithContext(ctx).WithTimeout(framework.LongTimeout).WithPolling(framework.Interval).Should(Succeed())
	return pods
}

// expectGangUnplaced waits until the PodGroup group in ns holds size pods, each marked
// PodScheduled=False (Unschedulable), and says in its Unschedulable condition that no node has
// the CPUs; it then checks that none of its pods is bound for framework.ConsistentlyDuration and
// returns the condition's message.
func expectGangUnplaced(ctx context.Context, ns, group string, size int) string {
	GinkgoHelper()
	var message string
	Eventually(func(g Gomega) {
		expectOperatorsRunning(g)
		pg := podGroup(ctx, g, ns, group)
		g.Expect(pg.Spec.MinMember).To(BeEquivalentTo(size), "minMember of PodGroup %s", group)
		pods := groupPods(ctx, g, ns, group)
		g.Expect(pods).To(HaveLen(size), "pods of PodGroup %s", group)
		for _, p := range pods {
			g.Expect(p.Status.Conditions).To(ContainElement(And(
				HaveField("Type", corev1.PodScheduled),
				HaveField("Status", corev1.ConditionFalse),
				HaveField("Reason", corev1.PodReasonUnschedulable),
			)), "PodScheduled of %s", p.Name)
		}
		var found bool
		for _, c := range pg.Status.Conditions {
			if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
				found, message = true, c.Message
			}
		}
		g.Expect(found).To(BeTrue(), "no Unschedulable=True condition on PodGroup %s: %+v", group, pg.Status)
		g.Expect(message).To(ContainSubstring("Insufficient cpu"), "the message of the Unschedulable condition")
	}).WithContext(ctx).WithTimeout(framework.LongTimeout).WithPolling(framework.Interval).Should(Succeed())
	Consistently(func(g Gomega) {
		for _, p := range groupPods(ctx, g, ns, group) {
			g.Expect(p.Spec.NodeName).To(BeEmpty(), "%s is bound although its gang cannot be placed", p.Name)
		}
	}).WithContext(ctx).WithTimeout(framework.ConsistentlyDuration).WithPolling(framework.Interval).Should(Succeed())
	return message
}

// schedulerName is the schedulerName of Caldera's scheduler, which both operators give their pods.
const schedulerName = "volcano"
