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
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// WaitingForQueueReason is the reason of the PodScheduled=False condition of a pending pod that
// waits only for its queue: the queue is closed or missing, its share or capability is used up,
// or its PodGroup is not yet admitted (Inqueue). Cluster autoscalers act only on the reason
// Unschedulable (corev1.PodReasonUnschedulable), so such a pod never makes them add nodes.
const WaitingForQueueReason = "WaitingForQueue"

// podScheduled is a PodScheduled=False condition decided for a pending pod.
type podScheduled struct {
	reason, message string
}

// podScheduledDecisions decides the PodScheduled=False condition of the pending pods of a job the
// cycle worked on, from what the session learned about it (d, may be nil):
//   - when no node fitted some of its pods (fit errors recorded), every pending pod gets reason
//     Unschedulable: a pod no node fitted with kube-scheduler's "0/N nodes are available: ..."
//     message, the other pending pods of the gang a message naming the pod that did not fit (the
//     proportion plugin caps a queue's share at what the nodes offer, so a pod larger than the
//     cluster also shows as a used-up share: the fit errors say what new nodes would fix);
//   - otherwise, when the job waits for its queue (queueHeld: the PodGroup is not admitted, the
//     queue is closed or missing, or its share is used up), every pending pod gets reason
//     WaitingForQueue with a message naming the queue and why;
//   - otherwise nothing is decided (the pods are left alone).
//
// Pods held by scheduling gates are never decided: the API server gives them SchedulingGated.
func podScheduledDecisions(j *api.JobInfo, d *framework.JobDiagnosis, queueHeld bool) map[api.TaskID]podScheduled {
	var pending []*api.TaskInfo
	for _, t := range j.Tasks {
		if t.Status == api.Pending {
			pending = append(pending, t)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	out := make(map[api.TaskID]podScheduled, len(pending))
	if d != nil && len(d.TaskFit) > 0 {
		first, firstErr := d.FirstFailedTask, d.TaskFit[d.FirstFailedTask]
		for _, t := range pending {
			if fe, ok := d.TaskFit[t.UID]; ok {
				out[t.UID] = podScheduled{reason: corev1.PodReasonUnschedulable, message: fe.Error()}
			} else if firstErr != nil {
				out[t.UID] = podScheduled{reason: corev1.PodReasonUnschedulable, message: gangUnfitMessage(j, first, firstErr)}
			}
		}
		return out
	}
	if !queueHeld {
		return nil
	}
	msg := queueWaitMessage(j, d)
	for _, t := range pending {
		out[t.UID] = podScheduled{reason: WaitingForQueueReason, message: msg}
	}
	return out
}

// gangUnfitMessage says why a gang member that was not itself refused by every node stays
// pending: the gang is placed whole and another of its pods fits no node.
func gangUnfitMessage(j *api.JobInfo, first api.TaskID, fe *api.FitErrors) string {
	name := string(first)
	if t := j.Tasks[first]; t != nil {
		name = t.Name
	}
	return fmt.Sprintf("pod group %s/%s is placed whole and its pod %s fits no node: %s", j.Namespace, j.Name, name, fe.Error())
}

// queueWaitMessage says which queue a job waits for and why, e.g. "waiting for queue q: queue q
// is Closed and places no new pods; ...".
func queueWaitMessage(j *api.JobInfo, d *framework.JobDiagnosis) string {
	var why []string
	if d != nil {
		why = append(why, d.Reasons...)
		why = append(why, d.ShareReasons...)
	}
	if len(why) == 0 {
		why = append(why, fmt.Sprintf("the PodGroup is waiting to be admitted to queue %s", j.Queue))
	}
	return fmt.Sprintf("waiting for queue %s: %s", j.Queue, strings.Join(why, "; "))
}

// queueHeld reports whether a job the cycle worked on waits for its queue: its PodGroup is not
// admitted, its queue is missing or closed, or the queue's share was found used up.
func queueHeld(ssn *framework.Session, j *api.JobInfo) bool {
	if j.Phase == schedulingv1beta1.PodGroupPending {
		return true
	}
	if q := ssn.Queues[j.Queue]; q == nil || !q.IsOpen() {
		return true
	}
	d := ssn.PeekDiagnosis(j.UID)
	return d != nil && len(d.ShareReasons) > 0
}

// storedPodScheduled reports whether a pod already carries PodScheduled=False with c's reason and
// message.
func storedPodScheduled(pod *corev1.Pod, c podScheduled) bool {
	if pod == nil {
		return false
	}
	for _, pc := range pod.Status.Conditions {
		if pc.Type == corev1.PodScheduled {
			return pc.Status == corev1.ConditionFalse && pc.Reason == c.reason && pc.Message == c.message
		}
	}
	return false
}

// podScheduledCondition returns the condition to write on a pod: the transition time is kept when
// the pod is already PodScheduled=False, else it is now.
func podScheduledCondition(pod *corev1.Pod, c podScheduled, now time.Time) corev1.PodCondition {
	cond := corev1.PodCondition{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: c.reason, Message: c.message,
		LastTransitionTime: metav1.NewTime(now),
	}
	if pod != nil {
		for _, pc := range pod.Status.Conditions {
			if pc.Type == corev1.PodScheduled && pc.Status == corev1.ConditionFalse && !pc.LastTransitionTime.IsZero() {
				cond.LastTransitionTime = pc.LastTransitionTime
			}
		}
	}
	return cond
}

// podConditions decides the PodScheduled conditions of the pending pods of a job the cycle
// visited and hands those that changed to the status workers; for a job it did not work on it only
// forgets the pods that are gone or no longer pending.
func (s *Scheduler) podConditions(ssn *framework.Session, j *api.JobInfo) {
	var decided map[api.TaskID]podScheduled
	if ssn.WasAttempted(j.UID) && j.Schedulable() {
		view := committedView(ssn, j)
		decided = podScheduledDecisions(view, ssn.PeekDiagnosis(j.UID), queueHeld(ssn, view))
	}
	// Lone pods get their FailedScheduling event from lonePodStatus, in the gang's words.
	s.statuses.wantPodConditions(j, decided, ssn.Now, !j.PodOnly)
}

// podWrite is a PodScheduled condition to write on a pod, over the resourceVersion it was decided
// from: if the pod changed since (bound, for one), the write is dropped.
type podWrite struct {
	job             api.JobID
	uid             types.UID
	resourceVersion string
	cond            corev1.PodCondition
	wanted          time.Time
	// event, when set, is the pod a FailedScheduling event goes to once an Unschedulable
	// condition is written, as kube-scheduler records one with the condition.
	event *corev1.Pod
}

// wantPodConditions hands over the PodScheduled conditions decided for a job's pods. It remembers,
// per pod, the condition last handed over, so a condition is written once per change; a pod that
// already carries it is not written. The memory of the job's pods that are gone or no longer
// pending is dropped. With events, each Unschedulable condition written is also a FailedScheduling
// event on the pod.
func (w *statusWriter) wantPodConditions(j *api.JobInfo, decided map[api.TaskID]podScheduled, now time.Time, events bool) {
	var add []statusKey
	w.mu.Lock()
	mem := w.podMemory[j.UID]
	for uid := range mem {
		if t, ok := j.Tasks[uid]; !ok || t.Status != api.Pending {
			delete(mem, uid)
		}
	}
	for uid, c := range decided {
		t := j.Tasks[uid]
		if t == nil || t.Pod == nil {
			continue
		}
		if mem == nil {
			mem = map[types.UID]podScheduled{}
			w.podMemory[j.UID] = mem
		}
		if prev, ok := mem[uid]; ok && prev == c {
			continue
		}
		mem[uid] = c
		if storedPodScheduled(t.Pod, c) {
			continue
		}
		k := statusKey{pod: true, namespace: t.Namespace, name: t.Name}
		write := podWrite{job: j.UID, uid: uid, resourceVersion: t.Pod.ResourceVersion,
			cond: podScheduledCondition(t.Pod, c, now), wanted: now}
		if events && write.cond.Status == corev1.ConditionFalse {
			write.event = t.Pod
		}
		w.pods[k] = write
		add = append(add, k)
	}
	if len(mem) == 0 {
		delete(w.podMemory, j.UID)
	}
	w.mu.Unlock()
	for _, k := range add {
		w.queue.Add(k)
	}
}

// forgetJobPods drops the memory of a job's pods (the job is gone).
func (w *statusWriter) forgetJobPods(id api.JobID) {
	w.mu.Lock()
	delete(w.podMemory, id)
	w.mu.Unlock()
}

// writePod patches a pod's PodScheduled condition through the status subresource. The patch
// carries the resourceVersion the condition was decided over: a pod changed since (bound,
// deleted) is not written, and its memory is dropped so the next cycle decides again.
func (w *statusWriter) writePod(ctx context.Context, k statusKey) error {
	w.mu.Lock()
	want, ok := w.pods[k]
	delete(w.pods, k)
	w.mu.Unlock()
	if !ok {
		return nil
	}
	body, err := podConditionPatch(want.resourceVersion, want.cond)
	if err != nil {
		return err
	}
	_, err = w.s.kube.CoreV1().Pods(k.namespace).Patch(ctx, k.name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
	switch {
	case err == nil:
		if want.event != nil {
			w.s.recorder.Eventf(want.event, nil, corev1.EventTypeWarning, "FailedScheduling", "Scheduling", "%s", want.cond.Message)
		}
		return nil
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		w.mu.Lock()
		if mem := w.podMemory[want.job]; mem != nil {
			delete(mem, want.uid)
		}
		w.mu.Unlock()
		return nil
	default:
		w.mu.Lock()
		if _, newer := w.pods[k]; !newer {
			w.pods[k] = want
		}
		w.mu.Unlock()
		return err
	}
}

// podConditionPatch is the strategic merge patch setting one pod condition (conditions merge by
// type), with the resourceVersion as precondition.
func podConditionPatch(resourceVersion string, cond corev1.PodCondition) ([]byte, error) {
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": resourceVersion},
		"status":   map[string]any{"conditions": []corev1.PodCondition{cond}},
	})
}
