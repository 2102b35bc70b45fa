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

package dra

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/caldera-sh/caldera/internal/testing/wrappers"
	"github.com/caldera-sh/caldera/scheduler/api"
)

const driver = "gpu.example.com"

// fixture is an Allocator over in-memory stores: the class "gpu", a slice of gpus devices on each
// node, and the claims given.
type fixture struct {
	a      *Allocator
	claims toolscache.Indexer
	nodes  map[string]*api.NodeInfo
}

func newFixture(t *testing.T, gpus int, nodes []string, claims ...*resourceapi.ResourceClaim) *fixture {
	t.Helper()
	index := func() toolscache.Indexer {
		return toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	}
	claimStore, sliceStore, classStore := index(), index(), index()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(classStore.Add(wrappers.GPUClass("gpu", driver)))
	f := &fixture{claims: claimStore, nodes: map[string]*api.NodeInfo{}}
	for _, n := range nodes {
		must(sliceStore.Add(wrappers.GPUSlice(n, driver, gpus)))
		f.nodes[n] = &api.NodeInfo{Name: n, Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}}
	}
	for _, c := range claims {
		must(claimStore.Add(c))
	}
	f.a = newAllocator(context.Background(), nil, claimStore, sliceStore, classStore, logr.Discard())
	return f
}

func claim(name string) *resourceapi.ResourceClaim {
	c := wrappers.GPUClaim("ns", name, "gpu", 1)
	c.UID = types.UID("uid-" + name)
	return c
}

// podWith is a pod using the named claims.
func podWith(name string, claims ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
	for i, c := range claims {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, corev1.PodResourceClaim{Name: fmt.Sprintf("c%d", i), ResourceClaimName: ptr.To(c)})
	}
	return p
}

// filter returns, per node, the pod's Filter reason.
func (f *fixture) filter(t *testing.T, pod *corev1.Pod) map[string]string {
	t.Helper()
	if err := f.a.PreFilter(pod); err != nil {
		t.Fatalf("PreFilter(%s): %v", pod.Name, err)
	}
	out := map[string]string{}
	for name, n := range f.nodes {
		out[name] = f.a.Filter(pod, n)
	}
	return out
}

func (f *fixture) reserve(t *testing.T, pod *corev1.Pod, node string) {
	t.Helper()
	if err := f.a.PreFilter(pod); err != nil {
		t.Fatalf("PreFilter(%s): %v", pod.Name, err)
	}
	if err := f.a.Reserve(pod, f.nodes[node].Node); err != nil {
		t.Fatalf("Reserve(%s, %s): %v", pod.Name, node, err)
	}
}

func TestDevicesTakenInTheCycleAndGivenBack(t *testing.T) {
	f := newFixture(t, 1, []string{"n1", "n2"}, claim("a"), claim("b"), claim("c"))
	a, b, c := podWith("a", "a"), podWith("b", "b"), podWith("c", "c")

	f.reserve(t, a, "n1")
	if diff := cmp.Diff(map[string]string{"n1": ReasonCannotAllocate, "n2": ""}, f.filter(t, b)); diff != "" {
		t.Errorf("b after a took n1's device (-want +got):\n%s", diff)
	}
	f.reserve(t, b, "n2")
	if diff := cmp.Diff(map[string]string{"n1": ReasonCannotAllocate, "n2": ReasonCannotAllocate}, f.filter(t, c)); diff != "" {
		t.Errorf("c with every device taken (-want +got):\n%s", diff)
	}

	// The gang does not fit: what it took is given back.
	f.a.Unreserve(b.UID)
	f.a.Unreserve(a.UID)
	if diff := cmp.Diff(map[string]string{"n1": "", "n2": ""}, f.filter(t, c)); diff != "" {
		t.Errorf("c once a and b gave their devices back (-want +got):\n%s", diff)
	}
}

func TestSharedClaimFollowsItsAllocation(t *testing.T) {
	f := newFixture(t, 1, []string{"n1", "n2"}, claim("shared"))
	a, b := podWith("a", "shared"), podWith("b", "shared")
	f.reserve(t, a, "n1")
	if diff := cmp.Diff(map[string]string{"n1": "", "n2": ReasonNotAvailable}, f.filter(t, b)); diff != "" {
		t.Errorf("b of a claim allocated on n1 (-want +got):\n%s", diff)
	}
	f.reserve(t, b, "n1")
	got := map[types.UID][]bool{}
	for _, uid := range []types.UID{a.UID, b.UID} {
		for _, w := range f.a.reserved[uid].writes {
			got[uid] = append(got[uid], w.allocation != nil)
		}
	}
	// a writes the allocation, b only adds itself as a consumer.
	if diff := cmp.Diff(map[types.UID][]bool{a.UID: {true}, b.UID: {false}}, got); diff != "" {
		t.Errorf("writes (allocation or not) (-want +got):\n%s", diff)
	}
}

func TestCommittedAllocationsOutliveTheCycleUntilTheInformerHasThem(t *testing.T) {
	f := newFixture(t, 1, []string{"n1"}, claim("a"), claim("b"), claim("c"))
	a, b := podWith("a", "a"), podWith("b", "b")
	f.reserve(t, a, "n1")
	f.a.Commit(a.UID)
	f.a.CloseSession()

	// The next cycle: a's allocation is not written yet, but its device stays taken.
	if diff := cmp.Diff(map[string]string{"n1": ReasonCannotAllocate}, f.filter(t, b)); diff != "" {
		t.Errorf("b while a's allocation is being written (-want +got):\n%s", diff)
	}
	f.a.CloseSession()

	// The informer shows a allocated: the assumption is dropped, the device still taken.
	written := f.a.assumed[types.UID("uid-a")].claim.DeepCopy()
	if err := f.claims.Update(written); err != nil {
		t.Fatal(err)
	}
	f.a.CloseSession()
	if _, ok := f.a.assumed[written.UID]; ok {
		t.Error("a's allocation is still assumed once the informer has it")
	}
	if diff := cmp.Diff(map[string]string{"n1": ReasonCannotAllocate}, f.filter(t, b)); diff != "" {
		t.Errorf("b with a's allocation written (-want +got):\n%s", diff)
	}
	f.a.CloseSession()

	// A cycle's reservation it does not commit is given back when it ends.
	if err := f.claims.Update(claim("a")); err != nil { // a deallocated
		t.Fatal(err)
	}
	f.reserve(t, b, "n1")
	f.a.CloseSession()
	if diff := cmp.Diff(map[string]string{"n1": ""}, f.filter(t, podWith("c", "c"))); diff != "" {
		t.Errorf("c after b's uncommitted reservation (-want +got):\n%s", diff)
	}
}

func TestPreFilterSaysWhatIsMissing(t *testing.T) {
	noClass := claim("no-class")
	noClass.Spec.Devices.Requests[0].Exactly.DeviceClassName = "tpu"
	deleting := claim("deleting")
	deleting.DeletionTimestamp = &metav1.Time{}
	deleting.Finalizers = []string{resourceapi.Finalizer}
	foreign := claim("foreign")
	full := claim("full")
	full.Status.Allocation = &resourceapi.AllocationResult{}
	for i := 0; i < resourceapi.ResourceClaimReservedForMaxSize; i++ {
		full.Status.ReservedFor = append(full.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: fmt.Sprint(i), UID: types.UID(fmt.Sprint(i))})
	}
	f := newFixture(t, 1, []string{"n1"}, noClass, deleting, foreign, full)

	fromTemplate := podWith("t")
	fromTemplate.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("one-gpu")}}
	notOwned := podWith("n")
	notOwned.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("one-gpu")}}
	notOwned.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("foreign")}}
	noneNeeded := podWith("none")
	noneNeeded.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("one-gpu")}}
	noneNeeded.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu"}}

	cases := map[string]struct {
		pod  *corev1.Pod
		want string
	}{
		"missing claim": {podWith("p", "nope"), `resourceclaim "nope" of pod claim "c0" does not exist`},
		"missing class": {podWith("p", "no-class"), `resourceclaim "no-class", request gpu: device class tpu does not exist`},
		"being deleted": {podWith("p", "deleting"), `resourceclaim "deleting" is being deleted`},
		"template claim not made yet": {fromTemplate,
			`waiting for the ResourceClaim of pod claim "gpu" to be made from ResourceClaimTemplate "one-gpu" (by kube-controller-manager's ResourceClaim controller)`},
		"made for another pod": {notOwned, "ResourceClaim ns/foreign was not created for Pod ns/n (Pod is not owner)"},
		"in use by as many as it may have": {podWith("p", "full"),
			`resourceclaim "full" is in use by as many consumers as it may have (256)`},
		"the template made no claim": {noneNeeded, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := f.a.PreFilter(tc.pod); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("PreFilter() = %q, want %q", got, tc.want)
			}
		})
	}
}
