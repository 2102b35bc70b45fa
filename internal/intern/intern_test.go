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

package intern

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/caldera-sh/caldera/internal/job/pods"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// jobPod returns pod i of 10-pod jobs as the API server stores it: built by the job controller,
// defaulted, bound and scheduled.
func jobPod(tb testing.TB, i int) *corev1.Pod {
	tb.Helper()
	job := wrappers.MakeJob(fmt.Sprintf("job-%d", i/10), "team-a").Task("worker", 10).Obj()
	job.UID = types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i/10))
	pod, err := pods.BuildPod(job, "worker", i%10, pods.PodOptions{DefaultSchedulerName: "volcano"})
	if err != nil {
		tb.Fatal(err)
	}
	pod.UID = types.UID(fmt.Sprintf("11111111-0000-0000-0000-%012d", i))
	pod.ResourceVersion = fmt.Sprint(100000 + i)
	pod.CreationTimestamp = metav1.NewTime(time.Unix(1800000000+int64(i), 0))
	for c := range pod.Spec.Containers {
		ct := &pod.Spec.Containers[c]
		ct.TerminationMessagePath, ct.TerminationMessagePolicy = "/dev/termination-log", corev1.TerminationMessageReadFile
		ct.ImagePullPolicy = corev1.PullIfNotPresent
	}
	spec := &pod.Spec
	spec.RestartPolicy, spec.DNSPolicy, spec.ServiceAccountName = corev1.RestartPolicyAlways, corev1.DNSClusterFirst, "default"
	spec.SecurityContext, spec.TerminationGracePeriodSeconds = &corev1.PodSecurityContext{}, ptr.To[int64](30)
	spec.Priority, spec.PreemptionPolicy = ptr.To[int32](0), ptr.To(corev1.PreemptLowerPriority)
	spec.NodeName = fmt.Sprintf("node-%d", i%500)
	spec.Tolerations = []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
	}
	started := metav1.NewTime(time.Unix(1800000100, 0))
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable, HostIP: "10.0.0.1",
		HostIPs: []corev1.HostIP{{IP: "10.0.0.1"}}, PodIP: fmt.Sprintf("10.1.%d.%d", i/250%250, i%250), StartTime: &started,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: pod.Spec.Containers[0].Name, Image: pod.Spec.Containers[0].Image, ImageID: "docker-pullable://busybox@sha256:0123",
			Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}},
	}
	return pod
}

// decoded returns a fresh decoding of pod, as an informer holds it: no string shared with pod.
func decoded(tb testing.TB, pod *corev1.Pod) *corev1.Pod {
	tb.Helper()
	b, err := pod.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	out := &corev1.Pod{}
	if err := out.Unmarshal(b); err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestPodKeepsItsContent(t *testing.T) {
	for i := range 3 {
		want := jobPod(t, i)
		want.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox", Command: []string{"sh", "-c", "true"},
			Env: []corev1.EnvVar{{Name: "A", Value: "b"}}, Ports: []corev1.ContainerPort{{Name: "p", ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
			VolumeMounts: []corev1.VolumeMount{{Name: "v", MountPath: "/v"}}}}
		want.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "hosts"}}}}}
		want.Spec.NodeSelector = map[string]string{"zone": "a"}
		want.Spec.RuntimeClassName = ptr.To("gvisor")
		want.Finalizers = []string{"example.com/keep"}
		got := decoded(t, want)
		Pod(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pod %d changed (-want +got):\n%s", i, diff)
		}
	}
}

func TestPodsShareTheirRepeatedStrings(t *testing.T) {
	a, b := decoded(t, jobPod(t, 0)), decoded(t, jobPod(t, 1))
	Pod(a)
	Pod(b)
	shared := func(what string, x, y string) {
		t.Helper()
		if x != y || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: %q and %q are not one copy", what, x, y)
		}
	}
	shared("namespace", a.Namespace, b.Namespace)
	shared("job name owner", a.OwnerReferences[0].Name, b.OwnerReferences[0].Name)
	shared("image", a.Spec.Containers[0].Image, b.Spec.Containers[0].Image)
	shared("toleration key", a.Spec.Tolerations[0].Key, b.Spec.Tolerations[0].Key)
	shared("condition type", string(a.Status.Conditions[0].Type), string(b.Status.Conditions[0].Type))
	for k, v := range a.Labels {
		var bk string
		for k2 := range b.Labels {
			if k2 == k {
				bk = k2
			}
		}
		shared("label key "+k, k, bk)
		if v == b.Labels[k] {
			shared("label value of "+k, v, b.Labels[k])
		}
	}
	if a.UID == b.UID || a.Name == b.Name {
		t.Errorf("the pods' own names and UIDs must stay theirs")
	}
}

// BenchmarkPodMemory reports the heap a decoded job pod holds (bytes/pod), as an informer keeps
// it, with and without its strings interned.
func BenchmarkPodMemory(b *testing.B) {
	const n = 20000
	raw := make([][]byte, n)
	for i := range raw {
		var err error
		if raw[i], err = jobPod(b, i).Marshal(); err != nil {
			b.Fatal(err)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, interned := range []bool{false, true} {
		b.Run(fmt.Sprintf("interned=%t", interned), func(b *testing.B) {
			var perPod float64
			for b.Loop() {
				before := heap()
				kept := make([]*corev1.Pod, n)
				for i, data := range raw {
					kept[i] = &corev1.Pod{}
					if err := kept[i].Unmarshal(data); err != nil {
						b.Fatal(err)
					}
					if interned {
						Pod(kept[i])
					}
				}
				perPod = float64(heap()-before) / n
				runtime.KeepAlive(kept)
			}
			b.ReportMetric(perPod, "bytes/pod")
		})
	}
}

// sameMap reports whether a and b are one map, not two equal ones.
func sameMap(a, b corev1.ResourceList) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestPodsOfATaskShareTheirResourceLists(t *testing.T) {
	withRequests := func(i int, cpu, memory string) *corev1.Pod {
		pod := jobPod(t, i)
		pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)},
		}
		pod = decoded(t, pod)
		Pod(pod)
		return pod
	}
	requests := func(p *corev1.Pod) corev1.ResourceList { return p.Spec.Containers[0].Resources.Requests }
	a, b := withRequests(0, "1", "1Gi"), withRequests(1, "1", "1Gi")
	if !sameMap(requests(a), requests(b)) {
		t.Errorf("two pods asking for the same resources hold two lists")
	}
	if sameMap(requests(a), a.Spec.Containers[0].Resources.Limits) {
		t.Errorf("a container's requests and limits, which differ, are one list")
	}
	if c := withRequests(2, "2", "1Gi"); sameMap(requests(a), requests(c)) || !requests(c)[corev1.ResourceCPU].Equal(resource.MustParse("2")) {
		t.Errorf("a pod asking for more CPU shares the smaller list: %v", requests(c))
	}
	// Another way of writing the same request: shared or not, the pod holds what it decodes to.
	other := jobPod(t, 3)
	other.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m"), corev1.ResourceMemory: resource.MustParse("1024Mi")}
	want, got := decoded(t, other), decoded(t, other)
	Pod(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the pod changed (-want +got):\n%s", diff)
	}
}

func TestResourceListsStayFew(t *testing.T) {
	table := &listTable{lists: map[string]corev1.ResourceList{}}
	for i := range maxResourceLists + 10 {
		table.share(corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(int64(i+1), resource.DecimalSI)})
	}
	if n := len(table.lists); n > maxResourceLists {
		t.Errorf("the table holds %d lists, more than %d", n, maxResourceLists)
	}
}
