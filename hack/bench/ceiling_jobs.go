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

package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/pods"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/perf"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// ceilingNamespace is the namespace of the jobs workloads' ceiling run.
const ceilingNamespace = "ceiling"

// ceilingWorkers is how many requests the ceiling run has in flight at once in each of its two
// stages (the manager's default job workers).
const ceilingWorkers = 16

// benchJob is the i-th job of a jobs workload: one task of replicas pods that run for 1 s, all of
// which must be placed together.
func benchJob(i int, ns string, replicas int32) *batchv1alpha1.Job {
	job := wrappers.MakeJob(fmt.Sprintf("job-%d", i), ns).Task("main", replicas).RunFor(time.Second).Obj()
	job.Spec.MinAvailable = replicas
	return job
}

// jobsCeiling is the jobs workload's ceiling: the writes its jobs cost, made by the benchmark
// itself with nothing to decide, as fast as the API server takes them. For each job: its create,
// its PodGroup's create, the PodGroup's status (Inqueue), the job's status (Pending), its pods'
// creates and binds; then, once KWOK has run its pods, the job's status (Completed), an event and
// the PodGroup's delete. These are the writes the manager makes at the least (its PodGroup and
// job statuses coalesce to these under load), and KWOK runs the pods as in the manager's run.
//
// It reports the time from the first create to the last pod created and to the last job seen
// Completed, and then deletes its jobs, PodGroups and pods, so that the manager's run starts with
// none (its namespace and events stay).
func jobsCeiling(ctx context.Context, f *framework.Framework, nodes []string, jobs int, replicas int32) (ceilingRun, error) {
	if err := f.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ceilingNamespace}}); err != nil {
		return ceilingRun{}, err
	}
	made := make([]*batchv1alpha1.Job, jobs)
	groups := make([]*schedulingv1beta1.PodGroup, jobs)
	index := make(map[string]int, jobs)
	for i := range made {
		index[fmt.Sprintf("job-%d", i)] = i
	}
	// finished hands over the jobs whose pods have all succeeded, once each.
	finished := make(chan int, jobs)
	var mu sync.Mutex
	succeeded := map[string]map[string]bool{}
	closed := false
	var lastPod time.Time
	w, err := watchJobs(ctx, f, ceilingNamespace, func(pod *corev1.Pod) {
		if pod.Status.Phase != corev1.PodSucceeded {
			return
		}
		job := pod.Labels[batchv1alpha1.JobNameKey]
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		if succeeded[job] == nil {
			succeeded[job] = map[string]bool{}
		}
		if succeeded[job][pod.Name] {
			return
		}
		succeeded[job][pod.Name] = true
		if len(succeeded[job]) == int(replicas) {
			finished <- index[job]
		}
	})
	if err != nil {
		return ceilingRun{}, err
	}
	defer w.stop()

	// An end worker that fails stops the wait for every job to complete.
	waitCtx, stopWaiting := context.WithCancel(ctx)
	defer stopWaiting()
	start := time.Now()
	var ends sync.WaitGroup
	var endErr error
	var endOnce sync.Once
	for range ceilingWorkers {
		ends.Add(1)
		go func() {
			defer ends.Done()
			for i := range finished {
				mu.Lock()
				job, pg := made[i], groups[i]
				mu.Unlock()
				if err := endJob(ctx, f, job, pg, replicas); err != nil {
					endOnce.Do(func() { endErr = err })
					stopWaiting()
				}
			}
		}()
	}
	err = perf.Parallel(jobs, ceilingWorkers, func(i int) error {
		return startJob(ctx, f, i, nodes, replicas, func(job *batchv1alpha1.Job, pg *schedulingv1beta1.PodGroup) {
			mu.Lock()
			made[i], groups[i] = job, pg
			mu.Unlock()
		}, func() {
			mu.Lock()
			lastPod = time.Now()
			mu.Unlock()
		})
	})
	if err == nil {
		err = w.waitCompleted(waitCtx, jobs, 10*time.Minute)
	}
	mu.Lock()
	closed = true
	close(finished)
	mu.Unlock()
	ends.Wait()
	if err = errors.Join(err, endErr); err != nil {
		return ceilingRun{}, fmt.Errorf("the ceiling run: %w", err)
	}
	last, _ := w.figures(nil)
	return ceilingRun{podsMade: lastPod.Sub(start), completed: last.Sub(start)}, clearCeiling(ctx, f)
}

// ceilingRun is what a ceiling run measured, from its first create.
type ceilingRun struct {
	// podsMade is the time to the last pod created; completed, to the last job seen Completed.
	podsMade, completed time.Duration
}

// startJob makes the i-th job and everything the manager would make for it up to its pods bound;
// it hands the job and its PodGroup, as written, to keep before it makes the pods, and calls
// created after each pod is created.
func startJob(ctx context.Context, f *framework.Framework, i int, nodes []string, replicas int32,
	keep func(*batchv1alpha1.Job, *schedulingv1beta1.PodGroup), created func()) error {
	job := benchJob(i, ceilingNamespace, replicas)
	if err := f.Client.Create(ctx, job); err != nil {
		return err
	}
	pg := pods.BuildPodGroup(job, replicas, nil)
	if err := f.Client.Create(ctx, pg); err != nil {
		return err
	}
	admitted := pg.DeepCopy()
	admitted.Status.Phase = schedulingv1beta1.PodGroupInqueue
	if err := f.Client.Status().Patch(ctx, admitted, client.MergeFrom(pg)); err != nil {
		return err
	}
	now := metav1.Now()
	pending := job.DeepCopy()
	pending.Status = batchv1alpha1.JobStatus{
		State:              batchv1alpha1.JobState{Phase: batchv1alpha1.Pending, LastTransitionTime: now},
		MinAvailable:       replicas,
		ObservedGeneration: job.Generation,
		Health:             batchv1alpha1.HealthProgressing,
		Conditions: []metav1.Condition{
			{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Progressing", Message: "waiting for the pods to be placed", LastTransitionTime: now, ObservedGeneration: job.Generation},
			{Type: "Reconciling", Status: metav1.ConditionTrue, Reason: "Progressing", Message: "waiting for the pods to be placed", LastTransitionTime: now, ObservedGeneration: job.Generation},
		},
	}
	if err := f.Client.Status().Patch(ctx, pending, client.MergeFrom(job)); err != nil {
		return err
	}
	keep(pending, admitted)
	for r := range int(replicas) {
		pod, err := pods.BuildPod(pending, "main", r, pods.PodOptions{DefaultSchedulerName: "volcano"})
		if err != nil {
			return err
		}
		if err := f.Client.Create(ctx, pod); err != nil {
			return err
		}
		created()
		node := nodes[(i*int(replicas)+r)%len(nodes)]
		binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
		if err := f.Client.SubResource("binding").Create(ctx, pod, binding); err != nil {
			return err
		}
	}
	return nil
}

// endJob writes what the manager writes once a job's pods have all succeeded.
func endJob(ctx context.Context, f *framework.Framework, job *batchv1alpha1.Job, pg *schedulingv1beta1.PodGroup, replicas int32) error {
	now := metav1.Now()
	done := job.DeepCopy()
	done.Status.State = batchv1alpha1.JobState{Phase: batchv1alpha1.Completed, LastTransitionTime: now}
	done.Status.Succeeded = replicas
	done.Status.Health = batchv1alpha1.HealthSucceeded
	done.Status.RunningDuration = &metav1.Duration{Duration: now.Sub(job.Status.State.LastTransitionTime.Time)}
	done.Status.TaskStatusCount = map[string]batchv1alpha1.TaskState{"main": {Phase: map[corev1.PodPhase]int32{corev1.PodSucceeded: replicas}}}
	done.Status.Conditions = []metav1.Condition{
		{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Succeeded", Message: "every pod succeeded", LastTransitionTime: now, ObservedGeneration: job.Generation},
	}
	if err := f.Client.Status().Patch(ctx, done, client.MergeFrom(job)); err != nil {
		return err
	}
	event := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: job.Namespace, GenerateName: job.Name + "."},
		InvolvedObject: corev1.ObjectReference{APIVersion: batchv1alpha1.GroupVersion.String(), Kind: "Job", Namespace: job.Namespace, Name: job.Name, UID: job.UID},
		Reason:         string(batchv1alpha1.Completed), Message: "job is Completed", Type: corev1.EventTypeNormal,
		Source: corev1.EventSource{Component: "bench"}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if err := f.Client.Create(ctx, event); err != nil {
		return err
	}
	return client.IgnoreNotFound(f.Client.Delete(ctx, pg))
}

// clearCeiling deletes the ceiling run's jobs, PodGroups and pods and waits until they are gone.
func clearCeiling(ctx context.Context, f *framework.Framework) error {
	in := client.InNamespace(ceilingNamespace)
	for _, o := range []client.Object{&corev1.Pod{}, &batchv1alpha1.Job{}, &schedulingv1beta1.PodGroup{}} {
		if err := f.Client.DeleteAllOf(ctx, o, in, client.GracePeriodSeconds(0)); err != nil {
			return fmt.Errorf("clearing the ceiling run: %w", err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, l := range []client.ObjectList{&corev1.PodList{}, &batchv1alpha1.JobList{}} {
			if err := f.Client.List(ctx, l, in, client.Limit(1)); err != nil {
				return false, err
			}
			if meta.LenList(l) > 0 {
				return false, nil
			}
		}
		return true, nil
	})
}
