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
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/lifecycle"
	"github.com/caldera-sh/caldera/internal/job/naming"
	jobplugins "github.com/caldera-sh/caldera/internal/job/plugins"
	jobpods "github.com/caldera-sh/caldera/internal/job/pods"
	"github.com/caldera-sh/caldera/internal/job/validation"
)

// jobRun is one reconcile of one job: what it observed and what it decided.
type jobRun struct {
	r   *JobReconciler
	job *batchv1alpha1.Job
	key types.NamespacedName
	// before is the job's phase as read at the start of the reconcile.
	before batchv1alpha1.JobPhase

	spec     *batchv1alpha1.JobSpec
	plugins  []jobplugins.Plugin
	extra    []batchv1alpha1.LifecyclePolicy
	pods     []*corev1.Pod
	podGroup *schedulingv1beta1.PodGroup

	podChanges   []podChange
	groupChanges []groupChange
	// podChangeEnd and groupChangeEnd are, per change, the index after its last request: a
	// change is handled once every request before that index is.
	podChangeEnd, groupChangeEnd []int
	// handledRequests is how many of the reconcile's requests were carried out, in order.
	handledRequests int
	// commands are the Commands carried out, now or before (their UIDs are in
	// status.handledCommands): they are deleted once the status is written.
	commands []*busv1alpha1.Command

	// create are the pods the last decision asks for.
	create []lifecycle.PodSlot
	// stalled is bad input that stops the job until it changes.
	stalled *stalledError
	// evalErr is a lifecycle-policy evaluation error of this reconcile.
	evalErr error
	// requeueAfter is when a delayed action falls due.
	requeueAfter time.Duration
	events       []jobEvent
}

type jobEvent struct {
	kind, reason, message string
}

// stalledError is bad user input: the reason is a condition reason, the message says what to fix.
type stalledError struct {
	reason, message string
	// recheck is true for bad input no watch of the job tells the end of (a name taken by an
	// object the job does not own): the job is looked at again after nameTakenRecheck.
	recheck bool
}

func (e *stalledError) Error() string { return e.reason + ": " + e.message }

func (rc *jobRun) stall(reason, format string, args ...any) {
	rc.stalled = &stalledError{reason: reason, message: fmt.Sprintf(format, args...)}
	rc.event(corev1.EventTypeWarning, reason, rc.stalled.message)
}

func (rc *jobRun) event(kind, reason, message string) {
	rc.events = append(rc.events, jobEvent{kind: kind, reason: reason, message: message})
}

// run is the sequence of phases of one reconcile.
func (rc *jobRun) run(ctx context.Context) (ctrl.Result, error) {
	if rc.job.Status.State.Phase == "" {
		rc.job.Status.State = batchv1alpha1.JobState{
			Phase:              batchv1alpha1.Pending,
			LastTransitionTime: metav1.NewTime(rc.r.Clock.Now()),
		}
	}
	if rc.validate(); rc.stalled != nil {
		return ctrl.Result{}, nil
	}
	if err := rc.gather(ctx); err != nil {
		return ctrl.Result{}, err
	}
	if rc.stalled != nil {
		return ctrl.Result{}, nil
	}
	if !rc.r.expectations.Satisfied(rc.key) {
		// Pods we created or deleted have not all reached the cache; their events bring us back.
		// The plugins' objects follow the spec alone, so a scaled job's hosts are current at once.
		if rc.hasChildren() {
			if err := rc.ensurePluginObjects(ctx); err != nil {
				return ctrl.Result{}, err
			}
		}
		return ctrl.Result{RequeueAfter: 5 * cacheCatchUp}, nil
	}
	if !rc.r.changes.caughtUp(rc.key, rc.job.UID, rc.pods, naming.PodGroupName(rc.job.Name, rc.job.UID), rc.podGroup) {
		// The cache holds a pod or PodGroup change the handlers have not recorded yet: deciding
		// now could miss its event. Recording it enqueues the job; the requeue is a safety net.
		return ctrl.Result{RequeueAfter: cacheCatchUp}, nil
	}
	reqs, err := rc.requests(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := rc.decide(ctx, reqs); err != nil {
		return ctrl.Result{}, err
	}
	if err := rc.children(ctx); err != nil {
		return ctrl.Result{}, err
	}
	if rc.evalErr != nil {
		return ctrl.Result{}, rc.evalErr
	}
	if d, ok := lifecycle.TTL(rc.job); ok && d.Action == batchv1alpha1.TTLActionDeleteChildren {
		// The ChildrenDeleted condition is due when the TTL passes.
		if wait := d.Expiry.Sub(rc.r.Clock.Now()); wait > 0 && (rc.requeueAfter == 0 || rc.requeueAfter > wait) {
			rc.requeueAfter = wait
		}
	}
	if rc.job.Status.State.Phase == batchv1alpha1.Running && rc.usesElapsed() {
		// A condition on elapsed can come true with nothing else changing.
		if rc.requeueAfter == 0 || rc.requeueAfter > elapsedRecheck {
			rc.requeueAfter = elapsedRecheck
		}
	}
	return ctrl.Result{RequeueAfter: rc.requeueAfter}, nil
}

// nameTakenRecheck is how often a job stalled on a plugin object's name taken by an object the
// job does not own looks again: that object is not watched.
const nameTakenRecheck = 30 * time.Second

// elapsedRecheck is how often a running job whose policies read elapsed is looked at again.
const elapsedRecheck = 10 * time.Second

// usesElapsed reports whether a when expression of the job mentions elapsed.
func (rc *jobRun) usesElapsed() bool {
	uses := func(ps []batchv1alpha1.LifecyclePolicy) bool {
		return slices.ContainsFunc(ps, func(p batchv1alpha1.LifecyclePolicy) bool {
			return strings.Contains(p.When, "elapsed")
		})
	}
	if uses(rc.job.Spec.Policies) || uses(rc.extra) {
		return true
	}
	return slices.ContainsFunc(rc.job.Spec.Tasks, func(t batchv1alpha1.TaskSpec) bool { return uses(t.Policies) })
}

// validate checks what only a change of the job can fix: its effective spec, its plugins and
// the CEL expressions of its policies. Nothing is created or touched while one fails.
func (rc *jobRun) validate() {
	job := rc.job
	spec, err := lifecycle.EffectiveSpec(&job.Spec, rc.r.SchedulerNames[0])
	if err != nil {
		rc.stall(batchv1alpha1.InvalidSpecReason, "%v", err)
		return
	}
	rc.spec = spec
	if ferr := validation.DependsOnCycle(&job.Spec); ferr != nil {
		rc.stall(batchv1alpha1.InvalidSpecReason, "%v", ferr)
		return
	}
	if rc.r.Policies != nil {
		extra, errs := rc.r.Policies.Check(job)
		if len(errs) > 0 {
			rc.stall(batchv1alpha1.InvalidPolicyReason, "%v", errs.ToAggregate())
			return
		}
		rc.extra = extra
	}
	plugins, warnings, err := jobplugins.ForJob(job)
	if job.Status.ObservedGeneration != job.Generation {
		// Arguments ignored as Volcano ignores them: said once for each generation of the spec.
		for _, w := range warnings {
			rc.event(corev1.EventTypeWarning, pluginArgumentIgnoredReason, w)
		}
	}
	if err != nil {
		rc.stall(batchv1alpha1.PluginErrorReason, "%v", err)
		return
	}
	rc.plugins = plugins
}

// pluginArgumentIgnoredReason is the reason of the event about a plugin argument that is not
// one of the plugin's flags, ignored as Volcano ignores it.
const pluginArgumentIgnoredReason = "PluginArgumentIgnored"

// gather reads the job's pods and PodGroup, and checks what the job waits on: its queue (before
// it is admitted) and the claims it names.
func (rc *jobRun) gather(ctx context.Context) error {
	job := rc.job
	pods := &corev1.PodList{}
	if err := rc.r.Client.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingFields{podOwnerKey: string(job.UID)}); err != nil {
		return fmt.Errorf("listing the job's pods: %w", err)
	}
	rc.pods = make([]*corev1.Pod, 0, len(pods.Items))
	for i := range pods.Items {
		rc.pods = append(rc.pods, &pods.Items[i])
	}

	pg := &schedulingv1beta1.PodGroup{}
	err := rc.r.Client.Get(ctx, types.NamespacedName{Namespace: job.Namespace, Name: naming.PodGroupName(job.Name, job.UID)}, pg)
	switch {
	case err == nil:
		if metav1.IsControlledBy(pg, job) {
			rc.podGroup = pg
		}
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("reading the job's PodGroup: %w", err)
	}

	phase := job.Status.State.Phase
	if rc.podGroup == nil && phase == batchv1alpha1.Pending {
		if err := rc.checkQueue(ctx); err != nil || rc.stalled != nil {
			return err
		}
	}
	for i, v := range job.Spec.Volumes {
		if v.VolumeClaimName == "" {
			continue
		}
		err := rc.r.Client.Get(ctx, types.NamespacedName{Namespace: job.Namespace, Name: v.VolumeClaimName}, &corev1.PersistentVolumeClaim{})
		if apierrors.IsNotFound(err) {
			rc.stall(batchv1alpha1.PVCNotFoundReason,
				"spec.volumes[%d].volumeClaimName: PersistentVolumeClaim %s/%s does not exist: create it, or set volumeClaim instead to have the job create one",
				i, job.Namespace, v.VolumeClaimName)
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading claim %s: %w", v.VolumeClaimName, err)
		}
	}
	return nil
}

// checkQueue stalls a job that is not yet admitted when its queue does not take it.
func (rc *jobRun) checkQueue(ctx context.Context) error {
	queues := &schedulingv1beta1.QueueList{}
	if err := rc.r.Client.List(ctx, queues); err != nil {
		return fmt.Errorf("listing queues: %w", err)
	}
	name := effectiveQueue(rc.job.Spec.Queue)
	var queue *schedulingv1beta1.Queue
	for i := range queues.Items {
		if queues.Items[i].Name == name {
			queue = &queues.Items[i]
		}
	}
	if ferr := validation.QueueAdmission(&rc.job.Spec, queue, queues.Items); ferr != nil {
		reason := batchv1alpha1.QueueNotOpenReason
		if queue == nil {
			reason = batchv1alpha1.QueueNotFoundReason
		}
		rc.stall(reason, "%v", ferr)
	}
	return nil
}

// request is one thing that happened, with the Command it comes from, if any.
type request struct {
	lifecycle.Request
	command *busv1alpha1.Command
}

// requests are what happened since the last reconcile, in order: Commands targeting the job
// (those already carried out, by their UID in status.handledCommands, are only deleted), the
// changes of its pods and PodGroup, the pods that vanished while no controller ran (on the
// job's first reconcile since the controller started), and a final sync.
func (rc *jobRun) requests(ctx context.Context) ([]request, error) {
	var reqs []request
	cmds := &busv1alpha1.CommandList{}
	if err := rc.r.Client.List(ctx, cmds, client.InNamespace(rc.job.Namespace), client.MatchingFields{commandTargetKey: string(rc.job.UID)}); err != nil {
		return nil, fmt.Errorf("listing commands: %w", err)
	}
	slices.SortFunc(cmds.Items, func(a, b busv1alpha1.Command) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return compareStrings(a.Name, b.Name)
	})
	for i := range cmds.Items {
		cmd := &cmds.Items[i]
		if lifecycle.CommandHandled(rc.job.Status.HandledCommands, string(cmd.UID)) {
			rc.commands = append(rc.commands, cmd)
			continue
		}
		rc.event(corev1.EventTypeNormal, lifecycle.ReasonCommandIssued, fmt.Sprintf("Command %s asks for %s", cmd.Name, cmd.Action))
		reqs = append(reqs, request{Request: lifecycle.CommandRequest(busv1alpha1.Action(cmd.Action)), command: cmd})
	}

	rc.podChanges, rc.groupChanges = rc.r.changes.take(rc.key)
	for _, c := range rc.podChanges {
		for _, req := range lifecycle.PodRequests(rc.spec, c.old, c.cur, rc.pods) {
			reqs = append(reqs, request{Request: req})
		}
		rc.podChangeEnd = append(rc.podChangeEnd, len(reqs))
	}
	for _, c := range rc.groupChanges {
		if req, ok := lifecycle.PodGroupRequest(c.old, c.cur); ok {
			reqs = append(reqs, request{Request: req})
		}
		rc.groupChangeEnd = append(rc.groupChangeEnd, len(reqs))
	}
	if rc.r.started.first(rc.key) {
		for _, pod := range lifecycle.VanishedPods(rc.job, rc.spec, rc.pods) {
			ctrl.LoggerFrom(ctx).Info("Pod vanished while no controller ran", "pod", pod.Name)
			for _, req := range lifecycle.PodRequests(rc.spec, pod, nil, rc.pods) {
				reqs = append(reqs, request{Request: req})
			}
		}
	}
	return append(reqs, request{Request: lifecycle.Request{Event: busv1alpha1.OutOfSyncEvent}}), nil
}

// deleteCommands deletes the Commands carried out, now that the status recording them (in
// status.handledCommands) is written. A Command deleted already, or replaced by another of the
// same name, is left alone.
func (rc *jobRun) deleteCommands(ctx context.Context) error {
	var errs []error
	for _, cmd := range rc.commands {
		if !lifecycle.CommandHandled(rc.job.Status.HandledCommands, string(cmd.UID)) {
			continue
		}
		err := rc.r.Client.Delete(ctx, cmd, client.Preconditions{UID: &cmd.UID})
		if err == nil {
			ctrl.LoggerFrom(ctx).Info("Command carried out and deleted", "command", cmd.Name, "action", cmd.Action)
		}
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("deleting command %s, carried out: %w", cmd.Name, err))
		}
	}
	return errors.Join(errs...)
}

// unhandledChanges are the pod and PodGroup changes whose requests were not all carried out.
func (rc *jobRun) unhandledChanges() ([]podChange, []groupChange) {
	var pods []podChange
	var groups []groupChange
	for i, c := range rc.podChanges {
		if rc.podChangeEnd[i] > rc.handledRequests {
			pods = append(pods, c)
		}
	}
	for i, c := range rc.groupChanges {
		if rc.groupChangeEnd[i] > rc.handledRequests {
			groups = append(groups, c)
		}
	}
	return pods, groups
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// decide resolves each request to a decision and carries it out; a decision with a timeout
// waits among the job's delayed actions until it is due or cancelled. The spec's own asks
// (suspend, resume, a changed template) come first.
func (rc *jobRun) decide(ctx context.Context, reqs []request) error {
	if d, ok := lifecycle.SpecAction(rc.job, rc.spec, rc.recordedHash()); ok {
		if err := rc.execute(ctx, d); err != nil {
			return err
		}
	}
	delays := rc.r.delays.get(rc.key)
	for _, req := range reqs {
		d, err := rc.resolve(ctx, req.Request)
		switch {
		case err != nil:
			// Reported in Ready; the request counts as handled so it is not retried alone.
		case d.Delay > 0 && !d.Stale:
			delays = delays.Add(lifecycle.NewDelayedAction(rc.job, req.Request, d, rc.r.Clock))
		default:
			if err := rc.execute(ctx, d); err != nil {
				rc.r.delays.set(rc.key, delays)
				return err
			}
			delays = cancelled(delays, d)
		}
		// Carried out: the changes of the requests after a failure are put back, and a
		// Command is recorded, to be deleted once the status is written.
		rc.handledRequests++
		if req.command != nil {
			rc.job.Status.HandledCommands = lifecycle.RecordCommand(rc.job.Status.HandledCommands, string(req.command.UID))
			rc.commands = append(rc.commands, req.command)
		}
	}

	// Delayed actions: drop those whose situation passed, run those that are due.
	var waiting lifecycle.Delays
	now := rc.r.Clock.Now()
	for _, a := range delays {
		if !a.Holds(rc.job, rc.pods) {
			continue
		}
		if wait := a.Due.Sub(now); wait > 0 {
			waiting = append(waiting, a)
			if rc.requeueAfter == 0 || wait < rc.requeueAfter {
				rc.requeueAfter = wait
			}
			continue
		}
		if err := rc.execute(ctx, a.Decision); err != nil {
			rc.r.delays.set(rc.key, append(waiting, a))
			return err
		}
		waiting = cancelled(waiting, a.Decision)
	}
	rc.r.delays.set(rc.key, waiting)
	return nil
}

// resolve decides on one request and logs, once, the event observed and the policy matched.
func (rc *jobRun) resolve(ctx context.Context, req lifecycle.Request) (lifecycle.Decision, error) {
	log := ctrl.LoggerFrom(ctx)
	if !lifecycle.IsInternal(req.Event) || req.Action != "" {
		log.Info("Event observed", "event", req.Event, "task", req.TaskName, "pod", req.PodName, "command", req.Action)
	}
	var when lifecycle.WhenFunc
	if rc.r.Policies != nil {
		when = rc.r.Policies.When(rc.job, rc.pods, req)
	}
	d, err := lifecycle.ResolvePolicy(rc.job, req, rc.extra, when)
	if err != nil {
		rc.evalErr = err
		rc.event(corev1.EventTypeWarning, batchv1alpha1.PolicyEvaluationFailedReason, err.Error())
		log.Info("Policy evaluation failed", "event", req.Event, "error", err.Error())
		return d, err
	}
	if d.Policy != "" || d.Action != busv1alpha1.SyncJobAction {
		log.Info("Policy matched", "event", d.Event, "policy", d.Policy, "action", d.Action, "delay", d.Delay, "reason", d.Reason)
	}
	return d, nil
}

// cancelled drops the delayed actions that executing d cancels.
func cancelled(ds lifecycle.Delays, d lifecycle.Decision) lifecycle.Delays {
	return slices.DeleteFunc(slices.Clone(ds), func(a lifecycle.DelayedAction) bool { return a.CancelledBy(d) })
}

// recordedHash is the template hash the job's live pods of its current run were made from.
func (rc *jobRun) recordedHash() string {
	version := strconv.Itoa(int(rc.job.Status.Version))
	for _, p := range rc.pods {
		if p.DeletionTimestamp == nil && p.Annotations[batchv1alpha1.JobVersion] == version {
			if h := p.Annotations[batchv1alpha1.TemplateHashKey]; h != "" {
				return h
			}
		}
	}
	return ""
}

// canCreatePods reports whether the job's pods may be created now: its PodGroup is admitted by
// the scheduler, or the job's pods go to a scheduler this manager does not serve.
func (rc *jobRun) canCreatePods() bool {
	if !slices.Contains(rc.r.SchedulerNames, rc.spec.SchedulerName) {
		return true
	}
	return rc.podGroup != nil && lifecycle.PodGroupAdmits(rc.podGroup.Status.Phase)
}

// execute carries out one decision: it deletes the pods the transition kills, moves the status,
// and remembers the pods to create.
func (rc *jobRun) execute(ctx context.Context, d lifecycle.Decision) error {
	res, err := lifecycle.Execute(lifecycle.Snapshot{
		Job: rc.job, Spec: rc.spec, Pods: rc.pods, CanCreatePods: rc.canCreatePods(),
	}, d, rc.r.Clock)
	if errors.Is(err, lifecycle.ErrNoTarget) {
		rc.event(corev1.EventTypeWarning, "ActionWithoutTarget", err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("executing %s: %w", d.Action, err)
	}
	if !lifecycle.IsInternal(d.Event) && d.Action != busv1alpha1.SyncJobAction || d.Event == busv1alpha1.CommandIssuedEvent {
		rc.event(corev1.EventTypeNormal, "ExecuteAction", fmt.Sprintf("%s on %s (%s)", d.Action, d.Event, d.Reason))
		ctrl.LoggerFrom(ctx).Info("Action taken", "action", d.Action, "event", d.Event, "target", d.Target,
			"deletePods", len(res.Delete), "phase", res.Status.State.Phase, "version", res.Status.Version)
	}
	if err := rc.deletePods(ctx, res.Delete); err != nil {
		return err
	}
	status := res.Status
	status.Conditions = rc.job.Status.Conditions
	status.ObservedGeneration = rc.job.Status.ObservedGeneration
	status.ControlledResources = rc.job.Status.ControlledResources
	status.HandledCommands = rc.job.Status.HandledCommands
	rc.job.Status = status
	if res.Transitioned {
		rc.event(corev1.EventTypeNormal, string(status.State.Phase), phaseMessage(status.State))
	}
	if res.DeletePodGroup {
		if err := rc.releaseJob(ctx); err != nil {
			return err
		}
	}
	rc.create = res.Create
	return nil
}

func phaseMessage(s batchv1alpha1.JobState) string {
	if s.Message != "" {
		return fmt.Sprintf("job is %s: %s", s.Phase, s.Message)
	}
	return fmt.Sprintf("job is %s", s.Phase)
}

// deletePods deletes pods the controller decided to remove. Each is recorded as an expected
// deletion first, so its events read as ours (out of sync), not as an eviction.
func (rc *jobRun) deletePods(ctx context.Context, pods []*corev1.Pod) error {
	if len(pods) == 0 {
		return nil
	}
	uids := make([]types.UID, len(pods))
	for i, p := range pods {
		uids[i] = p.UID
	}
	rc.r.expectations.ExpectDeletions(rc.key, uids...)
	now := metav1.NewTime(rc.r.Clock.Now())
	errs := parallel(len(pods), func(i int) error {
		p := pods[i]
		err := rc.r.Client.Delete(ctx, p, client.Preconditions{UID: &p.UID})
		if apierrors.IsNotFound(err) {
			rc.r.expectations.DeletionObserved(rc.key, p.UID)
			return nil
		}
		if err != nil {
			rc.r.expectations.DeletionObserved(rc.key, p.UID)
			return fmt.Errorf("deleting pod %s: %w", p.Name, err)
		}
		return nil
	})
	for _, p := range pods {
		// Count them as terminating for the rest of this reconcile.
		if p.DeletionTimestamp == nil {
			p.DeletionTimestamp = &now
		}
	}
	return errors.Join(errs...)
}

// releaseJob deletes the PodGroup and the plugins' objects after a whole-job kill; the next
// run makes new ones.
func (rc *jobRun) releaseJob(ctx context.Context) error {
	job := rc.job
	if rc.podGroup != nil {
		if err := rc.r.Client.Delete(ctx, rc.podGroup); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting the PodGroup: %w", err)
		}
		rc.podGroup = nil
	}
	if len(job.Spec.Plugins) == 0 && !hasPluginRecords(job) {
		// No plugin ever made objects for this job: nothing to look up (a Secret or ConfigMap
		// the cache does not hold would be read from the API server).
		return nil
	}
	for _, o := range pluginObjects(job) {
		if err := rc.deleteOwned(ctx, o); err != nil {
			return err
		}
	}
	for k := range job.Status.ControlledResources {
		if isPluginRecord(k) {
			delete(job.Status.ControlledResources, k)
		}
	}
	return nil
}

// isPluginRecord reports whether a status.controlledResources key records a plugin's objects.
func isPluginRecord(key string) bool {
	return len(key) > len("plugin-") && key[:len("plugin-")] == "plugin-"
}

// hasPluginRecords reports whether status.controlledResources records objects a plugin made.
func hasPluginRecords(job *batchv1alpha1.Job) bool {
	for k := range job.Status.ControlledResources {
		if isPluginRecord(k) {
			return true
		}
	}
	return false
}

// pluginObjects are the keys of the objects the job plugins make for a job.
func pluginObjects(job *batchv1alpha1.Job) []client.Object {
	return []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: naming.SvcConfigMapName(job.Name)}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: naming.ServiceName(job.Name)}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: naming.RayHeadServiceName(job.Name)}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: naming.SSHSecretName(job.Name)}},
		networkPolicy(job.Namespace, naming.NetworkPolicyName(job.Name)),
	}
}

// deleteOwned deletes o when it exists and the job controls it.
func (rc *jobRun) deleteOwned(ctx context.Context, o client.Object) error {
	return deleteControlled(ctx, rc.r.Client, rc.r.APIReader, rc.job, o)
}

// deleteControlled deletes the object of o's key when it exists and job controls it; reader reads
// what the cache does not hold (see getOwned).
func deleteControlled(ctx context.Context, c client.Client, reader client.Reader, job *batchv1alpha1.Job, o client.Object) error {
	if err := getOwned(ctx, c, reader, o); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !metav1.IsControlledBy(o, job) || !o.GetDeletionTimestamp().IsZero() {
		return nil
	}
	if err := c.Delete(ctx, o, client.Preconditions{UID: ptrUID(o.GetUID())}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %T %s: %w", o, o.GetName(), err)
	}
	return nil
}

func ptrUID(u types.UID) *types.UID { return &u }

// hasChildren reports whether the job is in a phase whose PodGroup, claims, plugin objects and
// pods follow its spec: Pending or Running.
func (rc *jobRun) hasChildren() bool {
	phase := rc.job.Status.State.Phase
	return phase == batchv1alpha1.Pending || phase == batchv1alpha1.Running
}

// children makes the job's PodGroup, claims, plugin objects and pods match a job that runs.
func (rc *jobRun) children(ctx context.Context) error {
	if !rc.hasChildren() {
		return nil
	}
	if err := rc.ensureClaims(ctx); err != nil {
		return err
	}
	if err := rc.ensurePodGroup(ctx); err != nil {
		return err
	}
	// The plugins' objects follow the spec whether or not the PodGroup admits pods yet, as in
	// Volcano: a scaled job's hosts ConfigMap is current before its new pods start.
	if err := rc.ensurePluginObjects(ctx); err != nil {
		return err
	}
	if !rc.canCreatePods() {
		return nil
	}
	return rc.createPods(ctx)
}

func (rc *jobRun) setControlled(key, value string) {
	if rc.job.Status.ControlledResources == nil {
		rc.job.Status.ControlledResources = map[string]string{}
	}
	rc.job.Status.ControlledResources[key] = value
}

// ensureClaims creates the claims the job's volumes ask it to make.
func (rc *jobRun) ensureClaims(ctx context.Context) error {
	for _, claim := range jobpods.BuildClaims(rc.job) {
		err := rc.r.Client.Create(ctx, claim)
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating claim %s: %w", claim.Name, err)
		}
		rc.setControlled(naming.VolumeResourceKey(claim.Name), claim.Name)
	}
	return nil
}

// ensurePodGroup creates the job's PodGroup, or brings its spec in line with the job's.
func (rc *jobRun) ensurePodGroup(ctx context.Context) error {
	priorities, err := rc.priorities(ctx)
	if err != nil {
		return err
	}
	desired := jobpods.BuildPodGroup(rc.job, rc.spec.MinAvailable, priorities)
	if rc.podGroup == nil {
		if err := rc.r.Client.Create(ctx, desired); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return nil // the cache lags; the next reconcile reads it
			}
			return fmt.Errorf("creating the PodGroup: %w", err)
		}
		rc.podGroup = desired
		return nil
	}
	updated, changed := jobpods.UpdatePodGroup(rc.podGroup, desired)
	if !changed {
		return nil
	}
	// A merge patch of what changed: the scheduler writes the PodGroup's status all the time, and
	// an update would conflict with it and wait a retry. Owner references are a list a merge
	// patch replaces whole, so adopting one still checks the resourceVersion.
	var patch client.Patch = client.MergeFrom(rc.podGroup)
	if len(updated.OwnerReferences) != len(rc.podGroup.OwnerReferences) {
		patch = client.MergeFromWithOptions(rc.podGroup, client.MergeFromWithOptimisticLock{})
	}
	if err := rc.r.Client.Patch(ctx, updated, patch); err != nil {
		return fmt.Errorf("updating the PodGroup: %w", err)
	}
	rc.podGroup = updated
	return nil
}

// priorities maps the PriorityClasses the job names to their values, for minResources.
func (rc *jobRun) priorities(ctx context.Context) (map[string]int32, error) {
	named := rc.job.Spec.PriorityClassName != ""
	for _, t := range rc.job.Spec.Tasks {
		named = named || t.Template.Spec.PriorityClassName != ""
	}
	if !named {
		return nil, nil
	}
	list := &schedulingv1.PriorityClassList{}
	if err := rc.r.Client.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing priority classes: %w", err)
	}
	out := make(map[string]int32, len(list.Items))
	for _, pc := range list.Items {
		out[pc.Name] = pc.Value
	}
	return out, nil
}

// createPods creates the pods the last decision asks for, in slow-start batches (1, 2, 4, ...)
// so a pod template the API server rejects costs one call, not one per replica.
func (rc *jobRun) createPods(ctx context.Context) error {
	if len(rc.create) == 0 {
		return nil
	}
	hash := lifecycle.TemplateHash(rc.spec)
	opts := jobpods.PodOptions{DefaultSchedulerName: rc.spec.SchedulerName, Plugins: rc.plugins}
	pods := make([]*corev1.Pod, 0, len(rc.create))
	for _, slot := range rc.create {
		pod, err := jobpods.BuildPod(rc.job, slot.Task, slot.Index, opts)
		if err != nil {
			rc.stall(batchv1alpha1.PodTemplateInvalidReason, "%v", err)
			return nil
		}
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[batchv1alpha1.TemplateHashKey] = hash
		pods = append(pods, pod)
	}
	for start, batch := 0, 1; start < len(pods); start, batch = start+batch, batch*2 {
		end := min(start+batch, len(pods))
		chunk := pods[start:end]
		names := make([]string, len(chunk))
		for i, p := range chunk {
			names[i] = p.Name
		}
		rc.r.expectations.ExpectCreations(rc.key, names...)
		var mu sync.Mutex
		var invalid error
		var invalidPod *corev1.Pod
		errs := parallel(len(chunk), func(i int) error {
			p := chunk[i]
			err := rc.r.Client.Create(ctx, p)
			if err == nil {
				defaultJobMetrics.podCreated(nil)
				return nil
			}
			rc.r.expectations.CreationObserved(rc.key, p.Name)
			if apierrors.IsAlreadyExists(err) {
				return nil
			}
			defaultJobMetrics.podCreated(err)
			if apierrors.IsInvalid(err) {
				mu.Lock()
				invalid, invalidPod = err, p
				mu.Unlock()
				return nil
			}
			return fmt.Errorf("creating pod %s: %w", p.Name, err)
		})
		if invalid != nil {
			var status *metav1.Status
			if se, ok := invalid.(apierrors.APIStatus); ok {
				st := se.Status()
				status = &st
			}
			msg := jobpods.RefusalMessage(rc.job, invalidPod.Annotations[batchv1alpha1.TaskSpecKey], status, invalid.Error())
			rc.stall(batchv1alpha1.PodTemplateInvalidReason, "the API server rejects the job's pods: %s; fix the task's pod template", msg)
			return nil
		}
		if err := errors.Join(errs...); err != nil {
			rc.event(corev1.EventTypeWarning, "FailedCreate", err.Error())
			return err
		}
	}
	return nil
}

// ensurePluginObjects creates or updates the Services, ConfigMaps, NetworkPolicies and Secrets
// the job's plugins ask for.
func (rc *jobRun) ensurePluginObjects(ctx context.Context) error {
	if len(rc.plugins) == 0 {
		return nil
	}
	existing := jobplugins.Existing{Secrets: map[string]*corev1.Secret{}}
	secret := &corev1.Secret{}
	err := rc.r.Client.Get(ctx, types.NamespacedName{Namespace: rc.job.Namespace, Name: naming.SSHSecretName(rc.job.Name)}, secret)
	switch {
	case err == nil:
		existing.Secrets[secret.Name] = secret
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("reading the ssh secret: %w", err)
	}
	objs, err := jobplugins.DesiredObjects(rc.plugins, rc.job, existing)
	if err != nil {
		rc.stall(batchv1alpha1.PluginErrorReason, "%v", err)
		return nil
	}
	var all []client.Object
	for _, o := range objs.ConfigMaps {
		all = append(all, o)
	}
	for _, o := range objs.Services {
		all = append(all, o)
	}
	for _, o := range objs.NetworkPolicies {
		all = append(all, o)
	}
	for _, o := range objs.Secrets {
		all = append(all, o)
	}
	for _, o := range all {
		err := applyOwned(ctx, rc.r.Client, rc.r.APIReader, o)
		var taken *nameTakenError
		if errors.As(err, &taken) {
			rc.stall(batchv1alpha1.NameTakenReason, "%v", taken)
			rc.stalled.recheck = true
			rc.requeueAfter = nameTakenRecheck
			return nil
		}
		if err != nil {
			return err
		}
	}
	for _, p := range rc.plugins {
		rc.setControlled(naming.PluginResourceKey(p.Name()), p.Name())
	}
	return nil
}

// parallel runs f for 0..n-1 on up to 16 goroutines and returns the errors.
func parallel(n int, f func(i int) error) []error {
	const workers = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return slices.DeleteFunc(errs, func(e error) bool { return e == nil })
}
