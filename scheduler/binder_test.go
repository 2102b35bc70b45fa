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

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/cache"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

func TestRefusedForGood(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	cases := map[string]struct {
		err  error
		want bool
	}{
		"gone":             {apierrors.NewNotFound(pods, "p"), true},
		"already assigned": {apierrors.NewConflict(pods, "p", fmt.Errorf("pod p is already assigned to node %q", "n1")), true},
		"gated (Invalid)": {apierrors.NewInvalid(schema.GroupKind{Kind: "Binding"}, "p",
			field.ErrorList{field.Forbidden(field.NewPath("spec", "schedulingGates"), "pod has scheduling gates")}), true},
		"gated (other status)": {apierrors.NewInternalError(errors.New("pod p has non-empty .spec.schedulingGates")), true},
		"timeout":              {apierrors.NewTimeoutError("slow", 1), false},
		"throttled":            {apierrors.NewTooManyRequests("busy", 1), false},
		"server error":         {apierrors.NewInternalError(errors.New("etcd unavailable")), false},
		"network":              {errors.New("connection refused"), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := refusedForGood(tc.err); got != tc.want {
				t.Errorf("refusedForGood(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// evictionFixture is a scheduler on a fake API server holding pods, which its cache holds too,
// with a node n1 for them.
func evictionFixture(t *testing.T, pods ...*corev1.Pod) (*Scheduler, *fake.Clientset, *events.FakeRecorder, *snapshot.Snapshot) {
	t.Helper()
	objs := make([]runtime.Object, len(pods))
	for i, p := range pods {
		objs[i] = p
	}
	kube := fake.NewClientset(objs...)
	recorder := events.NewFakeRecorder(10)
	c := cache.New([]string{st.SchedulerName}, "default")
	c.AddNode(st.MakeNode("n1", "4", "8Gi").Obj())
	for _, p := range pods {
		c.AddPod(p)
	}
	s := &Scheduler{
		log: logr.Discard(), clock: clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		cache: c, kube: kube, recorder: recorder, podQueue: newFIFO[podWork](),
	}
	return s, kube, recorder, snapshot.New()
}

// actionsOf names the requests made of a fake API server: verb resource[/subresource].
func actionsOf(kube *fake.Clientset) []string {
	var out []string
	for _, a := range kube.Actions() {
		name := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			name += "/" + a.GetSubresource()
		}
		out = append(out, name)
	}
	return out
}

// drain returns the events recorded so far.
func drain(r *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func disruptionTarget(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			return string(c.Status) + " " + c.Reason + ": " + c.Message
		}
	}
	return ""
}

func TestEvict(t *testing.T) {
	const reason = "preempted by job ns/urgent of higher priority (1000) in queue default"
	pods := schema.GroupResource{Resource: "pods"}
	budgetRefusal := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	budgetRefusal.ErrStatus.Details.Causes = append(budgetRefusal.ErrStatus.Details.Causes, metav1.StatusCause{
		Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget ns/keep needs 2 healthy pods and has 2 currently"})
	twoBudgets := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500,
		Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}}
	type result struct {
		Actions   []string
		Condition string
		Events    []string
		Task      string
	}
	cases := map[string]struct {
		gone     bool
		evictErr error
		want     result
	}{
		"evicted through the Eviction API after the DisruptionTarget condition": {
			want: result{
				Actions:   []string{"patch pods/status", "create pods/eviction"},
				Condition: "True PreemptionByScheduler: " + reason,
				Events:    []string{"Normal Preempted " + reason},
				Task:      "Releasing",
			},
		},
		"refused by a disruption budget: forgotten, the condition set back, an event": {
			evictErr: budgetRefusal,
			want: result{
				Actions: []string{"patch pods/status", "create pods/eviction", "patch pods/status"},
				Condition: "False EvictionRefused: Cannot evict pod as it would violate the pod's disruption budget. " +
					"The disruption budget ns/keep needs 2 healthy pods and has 2 currently",
				Events: []string{"Warning EvictionRefused Cannot evict pod as it would violate the pod's disruption budget. " +
					"The disruption budget ns/keep needs 2 healthy pods and has 2 currently (it was to be evicted: " + reason + ")"},
				Task: "Running",
			},
		},
		"covered by two budgets: refused likewise": {
			evictErr: twoBudgets,
			want: result{
				Actions:   []string{"patch pods/status", "create pods/eviction", "patch pods/status"},
				Condition: "False EvictionRefused: " + twoBudgets.Error(),
				Events:    []string{"Warning EvictionRefused " + twoBudgets.Error() + " (it was to be evicted: " + reason + ")"},
				Task:      "Running",
			},
		},
		"other failure: forgotten": {
			evictErr: apierrors.NewInternalError(errors.New("etcd unavailable")),
			want: result{
				Actions:   []string{"patch pods/status", "create pods/eviction"},
				Condition: "True PreemptionByScheduler: " + reason,
				Task:      "Running",
			},
		},
		"gone before the eviction: done": {
			evictErr: apierrors.NewNotFound(pods, "victim"),
			want: result{
				Actions:   []string{"patch pods/status", "create pods/eviction"},
				Condition: "True PreemptionByScheduler: " + reason,
				Task:      "Releasing",
			},
		},
		"gone before the condition: done": {
			gone: true,
			want: result{Actions: []string{"patch pods/status"}, Task: "Releasing"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			victim := st.MakePod("ns", "victim").Req("1", "1Gi").Node("n1").Phase(corev1.PodRunning).Obj()
			s, kube, recorder, snap := evictionFixture(t, victim)
			if tc.gone {
				if err := kube.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("pods"), "ns", "victim"); err != nil {
					t.Fatal(err)
				}
			}
			kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "eviction" {
					return false, nil, nil
				}
				return true, nil, tc.evictErr
			})
			task := &api.TaskInfo{UID: victim.UID, Namespace: "ns", Name: "victim", Pod: victim}
			s.Evict(task, reason)
			w, _ := s.podQueue.pop()
			kube.ClearActions()
			s.evict(context.Background(), w)

			got := result{Actions: actionsOf(kube), Events: drain(recorder)}
			if stored, err := kube.CoreV1().Pods("ns").Get(context.Background(), "victim", metav1.GetOptions{}); err == nil {
				got.Condition = disruptionTarget(stored)
			}
			s.cache.UpdateSnapshot(snap)
			got.Task = snap.Jobs[api.PodJobID("ns", "victim")].Tasks[victim.UID].Status.String()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("evict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNominate(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	type result struct {
		Queued    bool
		Actions   []string
		Nominated string
	}
	cases := map[string]struct {
		nominated string
		bound     bool
		patchErr  error
		want      result
	}{
		"written on the pod": {
			want: result{Queued: true, Actions: []string{"patch pods/status"}, Nominated: "n1"},
		},
		"the pod says so already: nothing to write": {
			nominated: "n1",
			want:      result{Nominated: "n1"},
		},
		"another node named before: written": {
			nominated: "n2",
			want:      result{Queued: true, Actions: []string{"patch pods/status"}, Nominated: "n1"},
		},
		"the pod changed since: read again and written": {
			patchErr: apierrors.NewConflict(pods, "p", errors.New("the object has been modified")),
			want:     result{Queued: true, Actions: []string{"patch pods/status", "get pods", "patch pods/status"}, Nominated: "n1"},
		},
		"bound since: not written": {
			bound:    true,
			patchErr: apierrors.NewConflict(pods, "p", errors.New("the object has been modified")),
			want:     result{Queued: true, Actions: []string{"patch pods/status", "get pods"}},
		},
		"gone: ignored": {
			patchErr: apierrors.NewNotFound(pods, "p"),
			want:     result{Queued: true, Actions: []string{"patch pods/status"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := st.MakePod("ns", "p").Req("1", "1Gi").Obj()
			p.ResourceVersion = "1"
			p.Status.NominatedNodeName = tc.nominated
			stored := p.DeepCopy()
			if tc.bound {
				stored.Spec.NodeName = "n3"
			}
			s, kube, _, _ := evictionFixture(t, stored)
			if tc.patchErr != nil {
				failed := false
				kube.PrependReactor("patch", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
					if failed {
						return false, nil, nil
					}
					failed = true
					return true, nil, tc.patchErr
				})
			}
			s.Nominate(&api.TaskInfo{UID: p.UID, Namespace: "ns", Name: "p", Pod: p}, "n1")
			got := result{}
			s.podQueue.close()
			if w, ok := s.podQueue.pop(); ok {
				got.Queued = true
				s.nominate(context.Background(), w)
			}
			got.Actions = actionsOf(kube)
			cur, err := kube.CoreV1().Pods("ns").Get(context.Background(), "p", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got.Nominated = cur.Status.NominatedNodeName
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("nominate (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefusedByBudget(t *testing.T) {
	pdbs := schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}
	cases := map[string]struct {
		err  error
		want bool
	}{
		"no disruption to spare":             {apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0), true},
		"budget in a state that allows none": {apierrors.NewForbidden(pdbs, "keep", errors.New("pdb disruptions allowed is negative")), true},
		"two budgets": {&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}}, true},
		"no permission": {apierrors.NewForbidden(schema.GroupResource{Resource: "pods/eviction"}, "p", errors.New("RBAC")), false},
		"server error":  {apierrors.NewInternalError(errors.New("etcd unavailable")), false},
		"timeout":       {apierrors.NewTimeoutError("slow", 1), false},
		"network":       {errors.New("connection refused"), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := refusedByBudget(tc.err); got != tc.want {
				t.Errorf("refusedByBudget(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
