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

package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
	"github.com/caldera-sh/caldera/internal/job/naming"
	jobspec "github.com/caldera-sh/caldera/internal/job/spec"
)

// whyInput is what `vcctl job why` read about one job; explainJob turns it into words.
type whyInput struct {
	// job is the job asked about.
	job *batchv1alpha1.Job
	// podGroup is the job's PodGroup, nil when there is none (yet).
	podGroup *schedulingv1beta1.PodGroup
	// queue is the job's queue, nil when it does not exist.
	queue *schedulingv1beta1.Queue
	// pods are the job's pods.
	pods []corev1.Pod
	// events are the events about the job, its PodGroup and its pods (others are ignored).
	events []corev1.Event
	// now is the time ages and the SLA deadline are measured from.
	now time.Time
	// name is how the user runs vcctl ("kubectl vc" as a plugin); the commands suggested next
	// use it. Empty means vcctl.
	name string
}

// finding is one thing that explains the job's state, and what to do about it ("" when
// nothing is to be done, or nothing better than waiting).
type finding struct{ what, next string }

// explainJob says in plain words why a job is not running or not finished, from the
// conditions, statuses and events that the controllers and the scheduler wrote: a headline,
// then one finding per line ("- ..."), each followed by what to do next ("  next: ..."), most
// decisive first. A job that runs or completed as asked says "nothing is wrong".
func explainJob(in whyInput) []string {
	job := in.job
	queueName := effectiveQueueName(job.Spec.Queue)
	phase := string(job.Status.State.Phase)
	if phase == "" {
		phase = string(batchv1alpha1.Pending)
	}
	head := fmt.Sprintf("job %s/%s is %s (queue %s", job.Namespace, job.Name, phase, queueName)
	if pg := in.podGroup; pg != nil {
		head += fmt.Sprintf(", PodGroup %s %s", pg.Name, orNone(string(pg.Status.Phase)))
	}
	head += ")"
	lines := []string{head}
	for _, f := range findings(in, queueName) {
		lines = append(lines, "- "+f.what)
		if f.next != "" {
			next := f.next
			if in.name != "" && in.name != "vcctl" {
				next = strings.ReplaceAll(next, "vcctl ", in.name+" ")
			}
			lines = append(lines, "  next: "+next)
		}
	}
	return lines
}

// findings are explainJob's findings in order.
func findings(in whyInput, queueName string) []finding {
	job := in.job
	ref := fmt.Sprintf("-N %s -n %s", job.Name, job.Namespace)
	if job.DeletionTimestamp != nil {
		return []finding{{what: fmt.Sprintf("the job is being deleted (for %s); its pods and PodGroup go with it",
			age(in.now, job.DeletionTimestamp.Time))}}
	}
	switch job.Status.State.Phase {
	case batchv1alpha1.Completed:
		return []finding{{what: fmt.Sprintf("nothing is wrong: the job completed (%d pods succeeded)", job.Status.Succeeded)}}
	case batchv1alpha1.Aborted, batchv1alpha1.Aborting:
		if suspendedBySpec(job) {
			return []finding{{what: "the job is suspended: spec.suspend is true, so its pods are deleted and none are made",
				next: "set spec.suspend to false (in Git, if the job is kept there) to run it again"}}
		}
		return []finding{{what: "the job was aborted (" + orDefault(job.Status.State.Message, "an AbortJob Command") + ")",
			next: "vcctl job resume " + ref}}
	}

	var out []finding
	pods := podsByTask(in.pods)
	queueStalled, stalled, unsatisfiable := false, false, false
	if c := apimeta.FindStatusCondition(job.Status.Conditions, batchv1alpha1.StalledCondition); c != nil && c.Status == metav1.ConditionTrue {
		stalled = true
		out = append(out, finding{what: fmt.Sprintf("the job is stalled (%s): %s", c.Reason, oneLine(c.Message)),
			next: stalledNext(c.Reason, queueName, ref)})
		queueStalled = c.Reason == batchv1alpha1.QueueNotOpenReason || c.Reason == batchv1alpha1.QueueNotFoundReason
		unsatisfiable = c.Reason == batchv1alpha1.UnsatisfiableReason
		if job.Status.State.Phase == batchv1alpha1.Failed || job.Status.State.Phase == batchv1alpha1.Terminated {
			return append(out, podProblems(in.pods)...)
		}
	}
	if c := apimeta.FindStatusCondition(job.Status.Conditions, batchv1alpha1.ReadyCondition); c != nil &&
		c.Reason == batchv1alpha1.ReconcileErrorReason {
		out = append(out, finding{what: "the job controller fails to reconcile the job, and retries: " + oneLine(c.Message),
			next: "see the job's events (vcctl job view " + ref + ") and the manager's log"})
	}

	problems := podProblems(in.pods)
	if job.Status.State.Phase == batchv1alpha1.Running && len(out) == 0 && len(problems) == 0 && !anyPending(in.pods) {
		return []finding{{what: fmt.Sprintf("nothing is wrong: the job is running (%d running, %d succeeded, minAvailable %d)",
			job.Status.Running, job.Status.Succeeded, job.Status.MinAvailable)}}
	}

	queue := queueFindings(in.queue, queueName, queueStalled)
	if job.Status.State.Phase == batchv1alpha1.Running && !anyPending(in.pods) && in.queue != nil {
		// A running job wants nothing more from its queue: its share is beside the point.
		queue = queue[:len(queue)-1]
	}
	out = append(out, queue...)
	if in.podGroup != nil || !stalled {
		// A stalled job gets no PodGroup until it is fixed: its absence is no news then.
		out = append(out, podGroupFindings(in, queueName, unsatisfiable)...)
	}
	out = append(out, dependsOnFindings(job, in.pods, pods)...)
	out = append(out, gangFindings(in, pods)...)
	out = append(out, scheduledFindings(in.pods, in.events)...)
	out = append(out, problems...)
	for _, f := range warningEvents(in.events, job.UID, in.now) {
		if !saidAlready(out, f.said) {
			out = append(out, f.finding)
		}
	}
	if len(out) == 0 {
		out = append(out, finding{what: "nothing recorded explains it yet: the controllers and the scheduler have not written a reason",
			next: "check again in a few seconds; vcctl job view " + ref + " shows the job's conditions and events"})
	}
	return out
}

// effectiveQueueName is the queue a job names, the default queue when it names none.
func effectiveQueueName(queue string) string {
	if queue == "" {
		return schedulingv1beta1.DefaultQueue
	}
	return queue
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// suspendedBySpec reports whether spec.suspend holds the job.
func suspendedBySpec(job *batchv1alpha1.Job) bool {
	return (job.Spec.Suspend != nil && *job.Spec.Suspend) || job.Status.State.Reason == batchv1alpha1.JobSuspendedReason
}

// stalledNext is what to do about a Stalled condition with reason.
func stalledNext(reason, queue, ref string) string {
	switch reason {
	case batchv1alpha1.QueueNotOpenReason:
		return "open the queue (vcctl queue operate -n " + queue + " -a open), or submit the job to an open queue"
	case batchv1alpha1.QueueNotFoundReason:
		return "create the queue (vcctl queue create -n " + queue + "), or submit the job to an existing queue"
	case batchv1alpha1.JobFailedReason, batchv1alpha1.JobTerminatedReason:
		return "the job will not run again: read its pods' logs (kubectl logs), fix the cause, and run it again"
	case batchv1alpha1.UnsatisfiableReason:
		return unsatisfiableNext
	default:
		return "fix the job's spec as the message says; the controller tries again when the spec changes"
	}
}

// queueFindings say what about the queue holds the job: missing, not open (unless the job's
// Stalled condition said so already), and its share.
func queueFindings(q *schedulingv1beta1.Queue, name string, said bool) []finding {
	if q == nil {
		if said {
			return nil
		}
		return []finding{{what: "queue " + name + " does not exist, so the job's PodGroup is never admitted",
			next: "create it (vcctl queue create -n " + name + ") or submit the job to an existing queue"}}
	}
	var out []finding
	if st := q.Status.State; !said && st != "" && st != schedulingv1beta1.QueueStateOpen {
		out = append(out, finding{what: fmt.Sprintf("queue %s is %s: it admits no new PodGroups and places no new pods", name, st),
			next: "vcctl queue operate -n " + name + " -a open, or submit the job to an open queue"})
	}
	share := fmt.Sprintf("queue %s: weight %d, deserved %s, allocated %s, capability %s", name, q.Spec.Weight,
		orNone(formatResources(q.Spec.Deserved)), orNone(formatResources(q.Status.Allocated)), orDefault(formatResources(q.Spec.Capability), "unlimited"))
	return append(out, finding{what: share})
}

// unsatisfiableNext is what to do about a gang the scheduler calls Unsatisfiable.
const unsatisfiableNext = "waiting will not help: lower the PodGroup's minResources (the tasks' requests), " +
	"or raise the queue's spec.capability or add nodes, as the message says; the job waits again by itself once the gang can fit"

// podGroupFindings say whether the PodGroup is admitted and why not, from its Unschedulable
// condition, and the SLA waiting time. said is true when the job's Stalled condition already
// gave the PodGroup's Unsatisfiable message.
func podGroupFindings(in whyInput, queueName string, said bool) []finding {
	pg := in.podGroup
	if pg == nil {
		return []finding{{what: "the job has no PodGroup yet: the job controller makes it first",
			next: "if this lasts, check that Caldera's manager runs and read the job's events (vcctl job view)"}}
	}
	var out []finding
	var unschedulable *schedulingv1beta1.PodGroupCondition
	for i := range pg.Status.Conditions {
		c := &pg.Status.Conditions[i]
		if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
			unschedulable = c
		}
	}
	switch {
	case unschedulable != nil && unschedulable.Reason == schedulingv1beta1.UnsatisfiableReason:
		what := fmt.Sprintf("the scheduler says the gang can never fit (PodGroup %s, Unsatisfiable)", orNone(string(pg.Status.Phase)))
		if said {
			// The job's Stalled condition carries the same message.
			out = append(out, finding{what: what + ": see above"})
			break
		}
		out = append(out, finding{what: what + ": " + oneLine(unschedulable.Message), next: unsatisfiableNext})
	case pg.Status.Phase == "" || pg.Status.Phase == schedulingv1beta1.PodGroupPending:
		what := "the PodGroup is not admitted to queue " + queueName + " (Pending)"
		next := "the message above says what holds it; the scheduler tries again every cycle"
		if unschedulable != nil {
			what += ": " + oneLine(unschedulable.Message)
		} else {
			what += ": the scheduler has not written why"
			next = "check that a scheduler serves schedulerName " + orDefault(in.job.Spec.SchedulerName, "volcano") +
				" (Caldera's scheduler runs in the manager)"
		}
		out = append(out, finding{what: what, next: next})
	default:
		if unschedulable != nil {
			out = append(out, finding{what: "the scheduler cannot place the gang: " + oneLine(unschedulable.Message)})
		}
	}
	if f, ok := slaFinding(in, pg); ok {
		out = append(out, f)
	}
	return out
}

// slaFinding reports the SLA waiting time of the PodGroup (or the job) and its deadline.
func slaFinding(in whyInput, pg *schedulingv1beta1.PodGroup) (finding, bool) {
	var value string
	for _, annotations := range []map[string]string{pg.Annotations, in.job.Annotations} {
		for _, key := range []string{schedulingv1beta1.JobWaitingTime, schedulingv1beta1.LegacyJobWaitingTime} {
			if v, ok := annotations[key]; ok && value == "" {
				value = v
			}
		}
	}
	if value == "" {
		return finding{}, false
	}
	wait, err := time.ParseDuration(value)
	if err != nil || wait <= 0 {
		return finding{what: fmt.Sprintf("the SLA waiting time %q is not a positive duration, so the sla plugin ignores it", value),
			next: "annotate a duration such as 30m or 2h"}, true
	}
	created := pg.CreationTimestamp.Time
	if created.IsZero() {
		created = in.job.CreationTimestamp.Time
	}
	deadline := created.Add(wait)
	if in.now.Before(deadline) {
		return finding{what: fmt.Sprintf("SLA waiting time %s: waited %s; at %s (in %s) the sla plugin admits it ahead of other jobs, "+
			"if its scheduler configuration enables sla", wait, age(in.now, created), deadline.UTC().Format(time.RFC3339),
			duration.HumanDuration(deadline.Sub(in.now)))}, true
	}
	return finding{what: fmt.Sprintf("SLA waiting time %s passed %s ago: the sla plugin admits it and keeps what it is given "+
		"until the gang is whole, if its scheduler configuration enables sla", wait, age(in.now, deadline))}, true
}

// podsByTask groups a job's pods by task name.
func podsByTask(pods []corev1.Pod) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for i := range pods {
		task, _ := naming.PodTaskName(&pods[i])
		out[task] = append(out[task], &pods[i])
	}
	return out
}

// dependsOnFindings name the tasks whose pods are not made because a task they depend on is
// not ready.
func dependsOnFindings(job *batchv1alpha1.Job, pods []corev1.Pod, byTask map[string][]*corev1.Pod) []finding {
	all := make([]*corev1.Pod, 0, len(pods))
	for i := range pods {
		all = append(all, &pods[i])
	}
	var out []finding
	for i := range job.Spec.Tasks {
		t, task := &job.Spec.Tasks[i], naming.TaskName(job.Spec.Tasks, i)
		if t.DependsOn == nil || len(t.DependsOn.Name) == 0 || len(byTask[task]) > 0 ||
			lifecycle.DependenciesMet(&job.Spec, task, all) {
			continue
		}
		var deps []string
		for _, name := range t.DependsOn.Name {
			want := int32(0)
			if j := naming.TaskIndex(job.Spec.Tasks, name); j >= 0 {
				want = jobspec.TaskMinAvailable(&job.Spec.Tasks[j])
			}
			deps = append(deps, fmt.Sprintf("%s (%d of %d pods ready)", name, readyPods(byTask[name]), want))
		}
		how := "all of"
		if t.DependsOn.Iteration == batchv1alpha1.IterationAny {
			how = "any of"
		}
		out = append(out, finding{
			what: fmt.Sprintf("task %s waits for %s %s (dependsOn): its pods are made once they are ready", task, how, strings.Join(deps, ", ")),
			next: "nothing to do while those tasks start; if they do not, the lines about their pods say why",
		})
	}
	return out
}

// readyPods counts the pods that run with every container ready, or succeeded.
func readyPods(pods []*corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded {
			n++
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.ContainersReady && c.Status == corev1.ConditionTrue && p.Status.Phase == corev1.PodRunning {
				n++
			}
		}
	}
	return n
}

// gangFindings count, per task, the pods that exist and are bound against what the gang
// needs, when the job's gang is short.
func gangFindings(in whyInput, byTask map[string][]*corev1.Pod) []finding {
	job := in.job
	minMember := jobspec.JobMinAvailable(&job.Spec)
	var minTask map[string]int32
	if in.podGroup != nil {
		minMember = in.podGroup.Spec.MinMember
		minTask = in.podGroup.Spec.MinTaskMember
	}
	bound := 0
	for i := range in.pods {
		if in.pods[i].Spec.NodeName != "" && in.pods[i].DeletionTimestamp == nil {
			bound++
		}
	}
	// Before admission the job controller makes no pods: their absence explains nothing.
	if int32(bound) >= minMember || in.podGroup == nil || in.podGroup.Status.Phase == "" ||
		in.podGroup.Status.Phase == schedulingv1beta1.PodGroupPending {
		return nil
	}
	out := []finding{{what: fmt.Sprintf("the gang is short: %d of %d pods (minAvailable) are bound to nodes", bound, minMember)}}
	for i := range job.Spec.Tasks {
		t, task := &job.Spec.Tasks[i], naming.TaskName(job.Spec.Tasks, i)
		need, ok := minTask[task]
		if !ok {
			need = jobspec.TaskMinAvailable(t)
		}
		exist, taskBound := 0, 0
		for _, p := range byTask[task] {
			if p.DeletionTimestamp != nil {
				continue
			}
			exist++
			if p.Spec.NodeName != "" {
				taskBound++
			}
		}
		if int32(taskBound) >= need && int32(exist) >= t.Replicas {
			continue
		}
		what := fmt.Sprintf("task %s: %d of %d pods exist, %d bound, %d needed (minTaskMember)", task, exist, t.Replicas, taskBound, need)
		next := ""
		if int32(exist) < need && (t.DependsOn == nil || len(byTask[task]) > 0) {
			next = "the job controller has not made all its pods: its events (vcctl job view) say why"
		}
		out = append(out, finding{what: what, next: next})
	}
	return out
}

// scheduledFindings group the pending pods by their PodScheduled=False reason and message
// (kube-scheduler's "0/N nodes are available: ..." for Unschedulable, the queue for
// WaitingForQueue); a pending pod without the condition falls back to its latest
// FailedScheduling event.
func scheduledFindings(pods []corev1.Pod, events []corev1.Event) []finding {
	type key struct{ reason, message string }
	groups := map[key][]string{}
	var order []key
	latest := latestEvents(events, "FailedScheduling")
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending || p.DeletionTimestamp != nil {
			continue
		}
		var k key
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				k = key{c.Reason, oneLine(c.Message)}
			}
		}
		if k.reason == "" {
			e, ok := latest[p.UID]
			if !ok {
				continue
			}
			k = key{"FailedScheduling", oneLine(e.Message)}
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p.Name)
	}
	out := make([]finding, 0, len(order))
	for _, k := range order {
		names := groups[k]
		sort.Strings(names)
		who := fmt.Sprintf("%d pod(s) (%s)", len(names), listNames(names, 3))
		switch k.reason {
		case "WaitingForQueue":
			out = append(out, finding{what: who + " wait for their queue: " + k.message,
				next: "no autoscaler adds nodes for them; the queue lines above say what to change"})
		case "SchedulingGated":
			out = append(out, finding{what: who + " are held by scheduling gates: " + k.message,
				next: "whoever added the gates removes them; the gang waits whole until then"})
		default:
			out = append(out, finding{what: who + " are " + k.reason + ": " + k.message,
				next: "free or add nodes that fit (an autoscaler adds them for Unschedulable pods), or lower the pods' requests"})
		}
	}
	return out
}

// listNames joins up to n names and says how many more there are.
func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// latestEvents returns, per involved object, its latest event with reason.
func latestEvents(events []corev1.Event, reason string) map[types.UID]*corev1.Event {
	out := map[types.UID]*corev1.Event{}
	for i := range events {
		e := &events[i]
		if e.Reason != reason {
			continue
		}
		if prev, ok := out[e.InvolvedObject.UID]; !ok || eventTime(prev).Before(eventTime(e)) {
			out[e.InvolvedObject.UID] = e
		}
	}
	return out
}

// anyPending reports whether a pod of the job is pending.
func anyPending(pods []corev1.Pod) bool {
	for i := range pods {
		if pods[i].Status.Phase == corev1.PodPending && pods[i].DeletionTimestamp == nil {
			return true
		}
	}
	return false
}

// waitingProblems are the container waiting reasons that need the user.
var waitingProblems = map[string]bool{
	"CrashLoopBackOff": true, "ImagePullBackOff": true, "ErrImagePull": true, "InvalidImageName": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true,
}

// podProblems are the pods that failed, or whose containers restart or cannot start.
func podProblems(pods []corev1.Pod) []finding {
	var out []finding
	for i := range pods {
		p := &pods[i]
		logs := fmt.Sprintf("kubectl logs -n %s %s", p.Namespace, p.Name)
		if p.Status.Phase == corev1.PodFailed {
			why := orDefault(p.Status.Reason, "")
			if t := terminated(p); t != "" {
				why = strings.TrimPrefix(why+", "+t, ", ")
			}
			out = append(out, finding{what: fmt.Sprintf("pod %s failed (%s)", p.Name, orDefault(why, "no reason recorded")),
				next: logs + "; the job's policies decide whether it restarts"})
			continue
		}
		for _, c := range p.Status.ContainerStatuses {
			switch {
			case c.State.Waiting != nil && waitingProblems[c.State.Waiting.Reason]:
				out = append(out, finding{what: fmt.Sprintf("pod %s: container %s is %s (restarted %d times): %s", p.Name, c.Name,
					c.State.Waiting.Reason, c.RestartCount, orDefault(oneLine(c.State.Waiting.Message), "no message")),
					next: logs + " -c " + c.Name + " --previous, or fix the image or configuration"})
			case c.RestartCount > 0:
				out = append(out, finding{what: fmt.Sprintf("pod %s: container %s restarted %d times", p.Name, c.Name, c.RestartCount),
					next: logs + " -c " + c.Name + " --previous"})
			}
		}
	}
	return out
}

// terminated describes how a failed pod's first terminated container ended.
func terminated(p *corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil && t.ExitCode != 0 {
			return fmt.Sprintf("container %s exited with code %d%s", c.Name, t.ExitCode, prefixed(": ", orDefault(t.Reason, "")))
		}
	}
	return ""
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// saidAlready reports whether a finding already says message (an event repeating a condition).
func saidAlready(out []finding, message string) bool {
	for _, f := range out {
		if strings.Contains(f.what, message) {
			return true
		}
	}
	return false
}

// eventFinding is a finding from an event, with the event's message on one line.
type eventFinding struct {
	finding
	said string
}

// warningEvents are the job's own Warning events (the controller's: failed creates, policy
// errors), the latest per reason, newest first, at most 3.
func warningEvents(events []corev1.Event, job types.UID, now time.Time) []eventFinding {
	latest := map[string]*corev1.Event{}
	for i := range events {
		e := &events[i]
		if e.InvolvedObject.UID != job || e.Type != corev1.EventTypeWarning {
			continue
		}
		if prev, ok := latest[e.Reason]; !ok || eventTime(prev).Before(eventTime(e)) {
			latest[e.Reason] = e
		}
	}
	list := make([]*corev1.Event, 0, len(latest))
	for _, e := range latest {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return eventTime(list[j]).Before(eventTime(list[i])) })
	var out []eventFinding
	for i, e := range list {
		if i == 3 {
			break
		}
		msg := oneLine(e.Message)
		out = append(out, eventFinding{finding{what: fmt.Sprintf("the job's event %s (%s ago): %s", e.Reason, age(now, eventTime(e)), msg)}, msg})
	}
	return out
}
