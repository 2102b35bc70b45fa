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
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/install"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// managerBinary builds ./cmd/manager once for the suite, into suiteDir.
var managerBinary = sync.OnceValues(func() (string, error) {
	return framework.BuildManager(context.Background(), suiteDir)
})

// renderer renders one way of installing Caldera.
type renderer func(ctx context.Context, assets string) ([]unstructured.Unstructured, error)

var _ = Describe("Caldera installed from its manifests", Label("e2e:install"), func() {
	DescribeTable("runs a job with svc, ssh and env plugins, a claim, GPUs by resource claims, a Command and its own queue to Completed as the installed ServiceAccount, with no forbidden request",
		func(ctx SpecContext, render renderer) {
			assets, err := framework.Assets()
			Expect(err).NotTo(HaveOccurred())
			objs, err := render(ctx, assets)
			Expect(err).NotTo(HaveOccurred())
			applyInstallation(ctx, objs)
			manager := startInstalledManager(ctx, objs)

			ns := fw.SpecNamespace("install")
			queue := wrappers.MakeQueue("install-" + ns).Obj()
			Expect(fw.Client.Create(ctx, queue)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(fw.DeleteQueue(ctx, queue.Name)).To(Succeed()) })
			storageClass := "caldera-install-" + ns
			pv := hostPathVolume("install-"+ns, storageClass, "1Gi")
			Expect(fw.Client.Create(ctx, pv)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, pv))).To(Succeed()) })
			// A fake GPU on each node, for the workers' claims.
			driver, class := ns+".gpu.example.com", ns+"-gpu"
			for _, obj := range []client.Object{wrappers.GPUClass(class, driver), wrappers.GPUSlice(nodes[0], driver, 1), wrappers.GPUSlice(nodes[1], driver, 1)} {
				Expect(fw.Client.Create(ctx, obj)).To(Succeed())
				DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, obj))).To(Succeed()) })
			}
			Expect(fw.Client.Create(ctx, wrappers.GPUClaimTemplate(ns, "gpu", class, 1))).To(Succeed())

			job := wrappers.MakeJob("train", ns).Queue(queue.Name).
				Plugin("svc").Plugin("ssh").Plugin("env").
				ClaimVolume("/data", storageClass, "1Gi").
				Task("master", 1).RunFor(6*time.Second).
				Task("worker", 2).RunFor(6*time.Second).ClaimFromTemplate("gpu", "gpu").
				Obj()
			Expect(fw.Client.Create(ctx, job)).To(Succeed())

			By("running it with the plugins' objects and a claim that kube-controller-manager bound")
			Eventually(func(g Gomega) {
				g.Expect(jobPhase(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Running))
				for _, list := range []client.ObjectList{&corev1.ServiceList{}, &corev1.ConfigMapList{}, &corev1.SecretList{}, &corev1.PersistentVolumeClaimList{}} {
					g.Expect(fw.Client.List(ctx, list, client.InNamespace(ns))).To(Succeed())
					g.Expect(ownedBy(list, job.UID)).NotTo(BeEmpty(), "%T owned by the job", list)
				}
				claims := &corev1.PersistentVolumeClaimList{}
				g.Expect(fw.Client.List(ctx, claims, client.InNamespace(ns))).To(Succeed())
				g.Expect(claims.Items).To(HaveLen(1))
				g.Expect(claims.Items[0].Status.Phase).To(Equal(corev1.ClaimBound))
				gpus := &resourcev1.ResourceClaimList{}
				g.Expect(fw.Client.List(ctx, gpus, client.InNamespace(ns))).To(Succeed())
				g.Expect(gpus.Items).To(HaveLen(2))
				g.Expect(gpus.Items).To(HaveEach(HaveField("Status.Allocation", Not(BeNil()))), "the workers' claims are allocated")
			}, framework.LongTimeout, framework.Interval).Should(Succeed())

			By("restarting the running job with a Command")
			Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(job), job)).To(Succeed())
			restart := wrappers.Command("restart", job, busv1alpha1.RestartJobAction)
			Expect(fw.Client.Create(ctx, restart)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(apierrors.IsNotFound(fw.Client.Get(ctx, client.ObjectKeyFromObject(restart), &busv1alpha1.Command{}))).To(BeTrue(), "the Command is consumed")
				g.Expect(jobPhase(ctx, g, job).Status.Version).To(BeNumerically(">=", 1), "the Command restarted the job")
			}, framework.LongTimeout, framework.Interval).Should(Succeed())

			By("running it to Completed")
			Eventually(func(g Gomega) {
				g.Expect(jobPhase(ctx, g, job).Status.State.Phase).To(Equal(batchv1alpha1.Completed))
			}, framework.LongTimeout, framework.Interval).Should(Succeed())

			Expect(manager.Exited()).To(Succeed())
			Expect(forbiddenLines(manager.LogPath())).To(BeEmpty(), "the installed RBAC lets the manager do everything it tried")
		},
		Entry("the Helm chart with its default values", renderer(func(ctx context.Context, assets string) ([]unstructured.Unstructured, error) {
			return install.RenderChart(ctx, assets, "caldera", "caldera-helm", nil)
		})),
		Entry("config/default, as kubectl apply -k", renderer(func(ctx context.Context, assets string) ([]unstructured.Unstructured, error) {
			return install.RenderKustomize(ctx, assets, install.KustomizeDir())
		})),
	)
})

// applyInstallation applies the rendered objects in order with server-side apply, as helm install
// or kubectl apply --server-side would, making their namespace first when the manifests do not.
// When the spec ends everything but the CRDs is deleted again, the namespaces last.
func applyInstallation(ctx context.Context, objs []unstructured.Unstructured) {
	GinkgoHelper()
	var created []*unstructured.Unstructured
	namespaces := map[string]bool{}
	for i := range objs {
		obj := &objs[i]
		if obj.GetKind() == "Namespace" {
			namespaces[obj.GetName()] = true
		}
	}
	for i := range objs {
		obj := objs[i].DeepCopy()
		if ns := obj.GetNamespace(); ns != "" && !namespaces[ns] {
			namespaces[ns] = true
			nsObj := &unstructured.Unstructured{}
			nsObj.SetAPIVersion("v1")
			nsObj.SetKind("Namespace")
			nsObj.SetName(ns)
			Expect(fw.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(nsObj), client.FieldOwner("e2e-install"), client.ForceOwnership)).To(Succeed())
			created = append(created, nsObj)
		}
		Expect(fw.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("e2e-install"), client.ForceOwnership)).
			To(Succeed(), "applying %s %s", obj.GetKind(), obj.GetName())
		if obj.GetKind() != "CustomResourceDefinition" {
			created = append(created, obj)
		}
	}
	DeferCleanup(func(ctx SpecContext) {
		var last []*unstructured.Unstructured
		for i := len(created) - 1; i >= 0; i-- {
			if created[i].GetKind() == "Namespace" {
				last = append(last, created[i])
				continue
			}
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, created[i]))).To(Succeed())
		}
		for _, ns := range last {
			Expect(client.IgnoreNotFound(fw.Client.Delete(ctx, ns))).To(Succeed())
		}
	})
}

// startInstalledManager runs the shipped manager binary as the installed Deployment's container
// would run: its arguments, its scheduler configuration from the installed ConfigMap, and the
// identity of its ServiceAccount from a TokenRequest, as the kubelet would project it. Only what
// ties a process to a pod changes: the kubeconfig, the lease's namespace (in a pod, read from the
// mounted ServiceAccount), loopback ports and temporary folders. It waits until /readyz answers
// and stops the manager when the spec ends.
func startInstalledManager(ctx context.Context, objs []unstructured.Unstructured) *framework.Process {
	GinkgoHelper()
	var dep appsv1.Deployment
	configMaps := map[string]*corev1.ConfigMap{}
	for i := range objs {
		switch objs[i].GetKind() {
		case "Deployment":
			Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(objs[i].Object, &dep)).To(Succeed())
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(objs[i].Object, cm)).To(Succeed())
			configMaps[cm.Name] = cm
		}
	}
	Expect(dep.Name).NotTo(BeEmpty(), "the manifests hold a Deployment")
	pod := dep.Spec.Template.Spec
	Expect(pod.Containers).NotTo(BeEmpty())
	container := pod.Containers[0]
	Expect(pod.ServiceAccountName).NotTo(BeEmpty(), "the Deployment names its ServiceAccount")

	dir := GinkgoT().TempDir()
	cfg, err := fw.ServiceAccountConfig(ctx, dep.Namespace, pod.ServiceAccountName, time.Hour)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(dir, "kubeconfig")
	Expect(framework.WriteKubeconfig(cfg, kubeconfig)).To(Succeed())

	probeAddr := freeAddress()
	_, webhookPort, err := net.SplitHostPort(freeAddress())
	Expect(err).NotTo(HaveOccurred())
	args := map[string]string{
		"kubeconfig":                kubeconfig,
		"leader-election-namespace": dep.Namespace,
		"metrics-bind-address":      "0",
		"health-probe-bind-address": probeAddr,
		"webhook-port":              webhookPort,
		"webhook-cert-dir":          filepath.Join(dir, "webhook-certs"),
	}
	final := []string{}
	for _, arg := range container.Args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if name == "scheduler-conf" {
			value = mountedConfigMapFile(dir, pod, container, configMaps, value)
		}
		if override, ok := args[name]; ok {
			value, hasValue = override, true
			delete(args, name)
		}
		if !hasValue {
			final = append(final, "--"+name)
			continue
		}
		final = append(final, "--"+name+"="+value)
	}
	for name, value := range args {
		final = append(final, "--"+name+"="+value)
	}

	binary, err := managerBinary()
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.Command(binary, final...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "POD_NAMESPACE="+dep.Namespace, "KUBECONFIG="+kubeconfig)
	manager, err := framework.StartProcess("manager", cmd, filepath.Join(dir, "manager.log"), false)
	Expect(err).NotTo(HaveOccurred())
	// The kubelet syncs the webhook certificate's Secret into the folder the server reads.
	syncCtx, stopSync := context.WithCancel(context.Background())
	DeferCleanup(stopSync)
	syncSecretVolumes(syncCtx, pod, container, dep.Namespace, map[string]string{defaultWebhookCertDir: filepath.Join(dir, "webhook-certs")})
	DeferCleanup(func() {
		if CurrentSpecReport().Failed() {
			AddReportEntry("manager log", manager.Tail(60))
		}
		Expect(manager.Stop()).To(Succeed())
	})
	Eventually(func(g Gomega) {
		g.Expect(manager.Exited()).To(Succeed())
		resp, err := http.Get("http://" + probeAddr + "/readyz")
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}, framework.Timeout, framework.Interval).Should(Succeed())
	return manager
}

// defaultWebhookCertDir is the manager's default --webhook-cert-dir, where the manifests mount
// the webhook certificate's Secret.
const defaultWebhookCertDir = "/tmp/k8s-webhook-server/serving-certs"

// syncSecretVolumes keeps, as the kubelet would, each Secret volume the container mounts at a
// path of dirs in the folder dirs maps it to, until ctx ends.
func syncSecretVolumes(ctx context.Context, pod corev1.PodSpec, container corev1.Container, namespace string, dirs map[string]string) {
	for _, mount := range container.VolumeMounts {
		dir, ok := dirs[mount.MountPath]
		if !ok {
			continue
		}
		for _, vol := range pod.Volumes {
			if vol.Name == mount.Name && vol.Secret != nil {
				fw.SyncSecretVolume(ctx, namespace, vol.Secret.SecretName, dir)
			}
		}
	}
}

// mountedConfigMapFile writes into dir the file at file of the container, where the pod mounts a
// ConfigMap of the manifests, and returns the path written.
func mountedConfigMapFile(dir string, pod corev1.PodSpec, container corev1.Container, configMaps map[string]*corev1.ConfigMap, file string) string {
	GinkgoHelper()
	for _, mount := range container.VolumeMounts {
		if mount.MountPath != path.Dir(file) {
			continue
		}
		for _, vol := range pod.Volumes {
			if vol.Name != mount.Name || vol.ConfigMap == nil {
				continue
			}
			cm, ok := configMaps[vol.ConfigMap.Name]
			Expect(ok).To(BeTrue(), "the manifests hold the ConfigMap %s mounted at %s", vol.ConfigMap.Name, mount.MountPath)
			data, ok := cm.Data[path.Base(file)]
			Expect(ok).To(BeTrue(), "ConfigMap %s has the key %s", cm.Name, path.Base(file))
			out := filepath.Join(dir, "config", path.Base(file))
			Expect(os.MkdirAll(filepath.Dir(out), 0o700)).To(Succeed())
			Expect(os.WriteFile(out, []byte(data), 0o600)).To(Succeed())
			return out
		}
	}
	Fail(fmt.Sprintf("no ConfigMap is mounted at %s in the Deployment", path.Dir(file)))
	return ""
}

// hostPathVolume is a PersistentVolume of the given class and size, kept after its claim goes.
func hostPathVolume(name, storageClass, size string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			StorageClassName:              storageClass,
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + name}},
		},
	}
}

// forbiddenLines returns the lines of the log at path that report a request the API server
// refused for want of rights.
func forbiddenLines(logPath string) []string {
	GinkgoHelper()
	f, err := os.Open(logPath)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(strings.ToLower(sc.Text()), "forbidden") {
			lines = append(lines, sc.Text())
		}
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	return lines
}

// freeAddress returns a loopback address nothing listens on now.
func freeAddress() string {
	GinkgoHelper()
	addr, err := framework.FreeLoopbackAddress()
	Expect(err).NotTo(HaveOccurred())
	return addr
}
