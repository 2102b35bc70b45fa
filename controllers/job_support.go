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

package controllers

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
)

// Policies is the CEL side of lifecycle policies.
type Policies interface {
	// Check compiles every when expression of the job (spec.policies, tasks[*].policies and the
	// caldera.sh/policies annotation) and decodes the annotation. It returns the annotation's
	// policies, and an error per bad policy, naming it.
	Check(job *batchv1alpha1.Job) ([]batchv1alpha1.LifecyclePolicy, field.ErrorList)
	// When returns the evaluator of when expressions for one request about the job.
	When(job *batchv1alpha1.Job, pods []*corev1.Pod, req lifecycle.Request) lifecycle.WhenFunc
}

// podJob returns the pod and the key of its job, when o is a pod controlled by a Job.
func podJob(o client.Object) (*corev1.Pod, types.NamespacedName, bool) {
	pod, ok := o.(*corev1.Pod)
	if !ok {
		return nil, types.NamespacedName{}, false
	}
	ref := batchv1alpha1.JobControllerOf(pod)
	if ref == nil {
		return pod, types.NamespacedName{}, false
	}
	return pod, types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name}, true
}

// isJobRef reports whether a Command target is a batch.volcano.sh Job.
func isJobRef(t *metav1.OwnerReference) bool {
	return t != nil && t.Kind == "Job" && t.APIVersion == batchv1alpha1.GroupVersion.String()
}

// effectiveQueue is the queue of a job: spec.queue, or default.
func effectiveQueue(q string) string {
	if q == "" {
		return schedulingv1beta1.DefaultQueue
	}
	return q
}

// delayStore keeps each job's delayed actions (policies with a timeout). They are derived
// again from the pods' own timestamps after a restart, so losing them costs nothing.
type delayStore struct {
	mu   sync.Mutex
	jobs map[types.NamespacedName]lifecycle.Delays
}

func newDelayStore() *delayStore {
	return &delayStore{jobs: map[types.NamespacedName]lifecycle.Delays{}}
}

func (s *delayStore) get(key types.NamespacedName) lifecycle.Delays {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[key]
}

func (s *delayStore) set(key types.NamespacedName, ds lifecycle.Delays) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(ds) == 0 {
		delete(s.jobs, key)
		return
	}
	s.jobs[key] = ds
}

func (s *delayStore) forget(key types.NamespacedName) { s.set(key, nil) }

// writtenStatuses remembers the status each job's last write set (phase, version, retry count),
// so that a reconcile that reads an older copy from the cache waits for the cache instead of
// deciding on a status it has already moved past: it could restart a job twice, or create pods
// of a run that has ended. The controller is the only writer of a job's status; should someone
// else write it, the guard gives way after writtenStatusTTL.
type writtenStatuses struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	jobs  map[types.NamespacedName]writtenStatus
}

type writtenStatus struct {
	phase   batchv1alpha1.JobPhase
	version int32
	retry   int32
	at      time.Time
}

// writtenStatusTTL bounds how long a reconcile waits for the cache to show its own write.
const writtenStatusTTL = 10 * time.Second

func newWrittenStatuses(clk clock.PassiveClock) *writtenStatuses {
	return &writtenStatuses{clock: clk, jobs: map[types.NamespacedName]writtenStatus{}}
}

func (w *writtenStatuses) record(job *batchv1alpha1.Job) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.jobs[client.ObjectKeyFromObject(job)] = writtenStatus{
		phase: job.Status.State.Phase, version: job.Status.Version, retry: job.Status.RetryCount, at: w.clock.Now(),
	}
}

// stale reports whether the cached job does not yet show the status last written.
func (w *writtenStatuses) stale(job *batchv1alpha1.Job) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := client.ObjectKeyFromObject(job)
	e, ok := w.jobs[key]
	if !ok {
		return false
	}
	s := job.Status
	if (s.State.Phase == e.phase && s.Version == e.version && s.RetryCount == e.retry) || w.clock.Since(e.at) >= writtenStatusTTL {
		delete(w.jobs, key)
		return false
	}
	return true
}

func (w *writtenStatuses) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.jobs, key)
}
