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
	"encoding/json"
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

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
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
	// A pod interned after a collection shares the strings of those interned before it.
	runtime.GC()
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

func TestPodsShareWhatTheAPIServerGivesEveryPod(t *testing.T) {
	a, b := decoded(t, jobPod(t, 0)), decoded(t, jobPod(t, 1))
	Pod(a)
	Pod(b)
	if &a.Spec.Tolerations[0] != &b.Spec.Tolerations[0] {
		t.Errorf("two pods with the same tolerations hold two lists")
	}
	if a.Spec.SecurityContext != b.Spec.SecurityContext {
		t.Errorf("two pods with an empty security context hold two")
	}
	if a.Spec.Priority != b.Spec.Priority || a.Spec.PreemptionPolicy != b.Spec.PreemptionPolicy ||
		a.Spec.TerminationGracePeriodSeconds != b.Spec.TerminationGracePeriodSeconds {
		t.Errorf("two pods with the same priority, preemption policy and grace period hold their own pointers to them")
	}

	// A pod that differs in each of them keeps its own values.
	other := jobPod(t, 2)
	other.Spec.Tolerations[1].TolerationSeconds = ptr.To[int64](60)
	other.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true)}
	other.Spec.Priority, other.Spec.PreemptionPolicy = ptr.To[int32](1000), ptr.To(corev1.PreemptNever)
	other.Spec.TerminationGracePeriodSeconds = ptr.To[int64](5)
	want, got := decoded(t, other), decoded(t, other)
	Pod(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the pod changed (-want +got):\n%s", diff)
	}
	if &got.Spec.Tolerations[0] == &a.Spec.Tolerations[0] || got.Spec.SecurityContext == a.Spec.SecurityContext || got.Spec.Priority == a.Spec.Priority {
		t.Errorf("a pod shares values that differ from its own")
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
	for _, interned := range []bool{false, true} {
		b.Run(fmt.Sprintf("interned=%t", interned), func(b *testing.B) {
			var perPod float64
			for b.Loop() {
				before := heapAlloc()
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
				perPod = float64(heapAlloc()-before) / n
				runtime.KeepAlive(kept)
			}
			b.ReportMetric(perPod, "bytes/pod")
		})
	}
}

// BenchmarkPod reports the CPU time Pod takes for one decoded job pod: the informer's transform
// runs it on every pod event the manager receives, a bind's among them. As in an informer, the
// pods' earlier versions, interned, stay in memory meanwhile.
func BenchmarkPod(b *testing.B) {
	const n = 1000
	raw := make([][]byte, n)
	cached := make([]corev1.Pod, n)
	for i := range raw {
		var err error
		if raw[i], err = jobPod(b, i).Marshal(); err != nil {
			b.Fatal(err)
		}
		if err := cached[i].Unmarshal(raw[i]); err != nil {
			b.Fatal(err)
		}
		Pod(&cached[i])
	}
	pods := make([]corev1.Pod, n)
	defer runtime.KeepAlive(cached)
	for b.Loop() {
		b.StopTimer()
		for i, data := range raw {
			pods[i] = corev1.Pod{}
			if err := pods[i].Unmarshal(data); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for i := range pods {
			Pod(&pods[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pod")
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

func TestCanonicalStringsStayFew(t *testing.T) {
	for i := range maxStrings + 10 {
		str(fmt.Sprintf("value-%d", i))
	}
	strs.mu.Lock()
	defer strs.mu.Unlock()
	if n := len(strs.m); n > maxStrings {
		t.Errorf("the table holds %d strings, more than %d", n, maxStrings)
	}
}

func TestResourceListsStayFew(t *testing.T) {
	table := newTable(sameList, resourceLists.own)
	for i := range maxShared + 10 {
		rl := corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(int64(i+1), resource.DecimalSI)}
		table.share(listKey(rl), rl)
	}
	if n := len(table.values); n > maxShared {
		t.Errorf("the table holds %d lists, more than %d", n, maxShared)
	}
}

// benchJob returns job i of a team's jobs as the API server stores it: two tasks, plugins,
// policies, a claim volume, and the status the job controller writes while it runs.
func benchJob(i int) *batchv1alpha1.Job {
	job := wrappers.MakeJob(fmt.Sprintf("job-%d", i), "team-a").Queue("research").
		Plugin("svc").Plugin("env").Plugin("ssh", "--no-root").
		Policy(batchv1alpha1.LifecyclePolicy{Event: busv1alpha1.PodEvictedEvent, Action: busv1alpha1.RestartJobAction}).
		ClaimVolume("/data", "standard", "1Gi").
		Task("master", 1).Requests(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}).
		Task("worker", 4).Requests(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}).
		DependsOn("master").
		Obj()
	job.UID = types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i))
	job.ResourceVersion = fmt.Sprint(100000 + i)
	job.CreationTimestamp = metav1.NewTime(time.Unix(1800000000+int64(i), 0))
	started := metav1.NewTime(time.Unix(1800000100, 0))
	job.Status = batchv1alpha1.JobStatus{
		State:               batchv1alpha1.JobState{Phase: batchv1alpha1.Running, LastTransitionTime: started},
		MinAvailable:        5,
		Running:             5,
		TaskStatusCount:     map[string]batchv1alpha1.TaskState{"master": {Phase: map[corev1.PodPhase]int32{corev1.PodRunning: 1}}, "worker": {Phase: map[corev1.PodPhase]int32{corev1.PodRunning: 4}}},
		ControlledResources: map[string]string{"plugin-svc": "svc", "plugin-env": "env", "plugin-ssh": "ssh"},
		Health:              batchv1alpha1.HealthProgressing,
		Conditions: []metav1.Condition{
			{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Running", Message: "the job's pods run", LastTransitionTime: started},
			{Type: "Reconciling", Status: metav1.ConditionFalse, Reason: "Running", Message: "the job's pods run", LastTransitionTime: started},
		},
	}
	return job
}

// benchPodGroup returns the PodGroup of benchJob(i), as the job controller makes it and the
// scheduler writes its status.
func benchPodGroup(i int) *schedulingv1beta1.PodGroup {
	pg := pods.BuildPodGroup(benchJob(i), 5, nil)
	pg.UID = types.UID(fmt.Sprintf("22222222-0000-0000-0000-%012d", i))
	pg.Status = schedulingv1beta1.PodGroupStatus{Phase: schedulingv1beta1.PodGroupRunning, Running: 5, Conditions: []schedulingv1beta1.PodGroupCondition{
		{Type: schedulingv1beta1.PodGroupScheduled, Status: corev1.ConditionTrue, TransitionID: fmt.Sprint(i), Reason: "tasks in gang are ready to be scheduled",
			LastTransitionTime: metav1.NewTime(time.Unix(1800000100, 0))},
	}}
	return pg
}

// decodedJSON returns a fresh JSON decoding of obj, as an informer of a custom resource holds it.
func decodedJSON[T any](tb testing.TB, obj *T) *T {
	tb.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestJobAndPodGroupKeepTheirContent(t *testing.T) {
	for i := range 3 {
		job := benchJob(i)
		job.Spec.NetworkTopology = &batchv1alpha1.NetworkTopologySpec{Mode: batchv1alpha1.HardNetworkTopologyMode, HighestTierName: "rack"}
		want, got := decodedJSON(t, job), decodedJSON(t, job)
		Job(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("job %d changed (-want +got):\n%s", i, diff)
		}
		pg := benchPodGroup(i)
		pg.Spec.SubGroupPolicy = []schedulingv1beta1.SubGroupPolicySpec{{Name: "workers", MatchLabelKeys: []string{"volcano.sh/task-spec"},
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "worker"}}}}
		wantPG, gotPG := decodedJSON(t, pg), decodedJSON(t, pg)
		PodGroup(gotPG)
		if diff := cmp.Diff(wantPG, gotPG); diff != "" {
			t.Errorf("PodGroup %d changed (-want +got):\n%s", i, diff)
		}
	}
}

func TestJobsAndPodGroupsShareTheirRepeatedStrings(t *testing.T) {
	a, b := decodedJSON(t, benchJob(0)), decodedJSON(t, benchJob(1))
	Job(a)
	Job(b)
	shared := func(what string, x, y string) {
		t.Helper()
		if x != y || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: %q and %q are not one copy", what, x, y)
		}
	}
	shared("queue", a.Spec.Queue, b.Spec.Queue)
	shared("task name", a.Spec.Tasks[1].Name, b.Spec.Tasks[1].Name)
	shared("template image", a.Spec.Tasks[1].Template.Spec.Containers[0].Image, b.Spec.Tasks[1].Template.Spec.Containers[0].Image)
	shared("policy action", string(a.Spec.Policies[0].Action), string(b.Spec.Policies[0].Action))
	shared("condition message", a.Status.Conditions[0].Message, b.Status.Conditions[0].Message)
	if !sameMap(a.Spec.Tasks[1].Template.Spec.Containers[0].Resources.Requests, b.Spec.Tasks[1].Template.Spec.Containers[0].Resources.Requests) {
		t.Errorf("the workers' resource requests are not one map")
	}
	pa, pb := decodedJSON(t, benchPodGroup(0)), decodedJSON(t, benchPodGroup(1))
	PodGroup(pa)
	PodGroup(pb)
	shared("PodGroup queue", pa.Spec.Queue, pb.Spec.Queue)
	shared("PodGroup condition reason", pa.Status.Conditions[0].Reason, pb.Status.Conditions[0].Reason)
	if !sameMap(*pa.Spec.MinResources, *pb.Spec.MinResources) {
		t.Errorf("the PodGroups' minResources are not one map")
	}
	if a.Name == b.Name || pa.UID == pb.UID {
		t.Errorf("the objects' own names and UIDs must stay theirs")
	}
}

// BenchmarkJobMemory reports the heap a JSON-decoded Volcano job and its PodGroup hold
// (bytes/job, bytes/podgroup), as informers keep them, with and without their strings interned.
func BenchmarkJobMemory(b *testing.B) {
	const n = 5000
	jobs, groups := make([][]byte, n), make([][]byte, n)
	for i := range n {
		var err error
		if jobs[i], err = json.Marshal(benchJob(i)); err != nil {
			b.Fatal(err)
		}
		if groups[i], err = json.Marshal(benchPodGroup(i)); err != nil {
			b.Fatal(err)
		}
	}
	for _, interned := range []bool{false, true} {
		b.Run(fmt.Sprintf("interned=%t", interned), func(b *testing.B) {
			var perJob, perGroup float64
			for b.Loop() {
				before := heapAlloc()
				kept := decodeAll(b, jobs, interned, Job)
				middle := heapAlloc()
				keptGroups := decodeAll(b, groups, interned, PodGroup)
				perJob, perGroup = float64(middle-before)/n, float64(heapAlloc()-middle)/n
				runtime.KeepAlive(kept)
				runtime.KeepAlive(keptGroups)
			}
			b.ReportMetric(perJob, "bytes/job")
			b.ReportMetric(perGroup, "bytes/podgroup")
		})
	}
}

// heapAlloc is the heap in use after a garbage collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// decodeAll decodes each of raw from JSON, interning each with share when interned.
func decodeAll[T any](tb testing.TB, raw [][]byte, interned bool, share func(*T)) []*T {
	out := make([]*T, len(raw))
	for i, data := range raw {
		out[i] = new(T)
		if err := json.Unmarshal(data, out[i]); err != nil {
			tb.Fatal(err)
		}
		if interned {
			share(out[i])
		}
	}
	return out
}
