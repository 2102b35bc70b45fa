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

/*
Package celpolicy is the condition language of lifecycle policies: the when of a
LifecyclePolicy, a CEL expression that must return bool. A policy fires when its event (or exit
code) matches, if it names one, and its when is true; a policy with when and no event is checked
on every change of the job.

The package compiles, checks and evaluates these expressions (Engine, Expression), builds their
variables from a Job and its pods (JobInput, Input), decodes and validates the caldera.sh/policies
annotation (Engine.DecodePolicies) and checks every when of a job with its path
(Engine.ValidateJob). It makes no API calls and reads no clock of its own.

# Variables

Every variable is typed: a misspelt field, a comparison of an int with a string or an expression
that does not return bool is an error when the policy is applied, not when it runs.

	job            caldera.Job                the job
	  name         string
	  namespace    string
	  labels       map(string, string)
	  annotations  map(string, string)
	  phase        string                     status.state.phase: Pending, Running, Restarting, ...
	  retryCount   int                        status.retryCount
	  version      int                        status.version
	  minAvailable int                        spec.minAvailable, or the sum over tasks of their
	                                          minAvailable (replicas when unset)
	  pending, running, succeeded, failed, terminating, unknown
	               int                        the job's pods by state
	tasks          map(string, caldera.Task)  every task of spec.tasks, by name
	task           caldera.Task               the task the event is about
	  name         string
	  replicas     int
	  minAvailable int                        minAvailable, or replicas when unset
	  pending, running, succeeded, failed, terminating, unknown
	               int                        the task's pods by state
	  restarts     int                        container restarts of the task's pending and running
	                                          pods: the figure the task's maxRetry is compared with
	pod            caldera.Pod                the pod the event is about
	  name         string
	  index        int                        the volcano.sh/task-index of the pod; -1 when unknown
	  phase        string                     Pending, Running, Succeeded, Failed or Unknown
	  reason       string                     status.reason, for example Evicted
	  message      string                     status.message
	  node         string                     spec.nodeName
	  exitCode     int                        the exit code of the first container (in status
	                                          order) that has terminated; when none has, that of the
	                                          first init container that failed; else 0
	  containers   list(caldera.Container)    status.containerStatuses
	  initContainers list(caldera.Container)  status.initContainerStatuses
	  conditions   list(caldera.PodCondition) status.conditions
	caldera.Container
	  name         string
	  state        string                     waiting, running, terminated, or '' when unknown
	  reason       string                     why the container is in its state: OOMKilled, Error,
	                                          Completed when terminated; CrashLoopBackOff,
	                                          ImagePullBackOff when waiting; '' when running
	  exitCode     int                        the exit code when terminated, else 0
	  restartCount int
	  lastReason   string                     the reason of the previous termination, before the
	                                          last restart ('' when none)
	  lastExitCode int                        the exit code of the previous termination (0 when none)
	caldera.PodCondition
	  type, status, reason, message   string  for example type DisruptionTarget, status 'True'
	event          string                     the event being handled: PodFailed, PodEvicted,
	                                          PodPending, Unknown, TaskCompleted, TaskFailed, or the
	                                          name of the internal event under which the job is
	                                          checked on a change
	elapsed        duration                   how long the job has been running, measured with the
	                                          controller's clock; 0 before it starts

Pods count as terminating while they are being deleted and have not finished; every other pod
counts under its phase (see PodCounts).

# When there is no task or pod

An event about the whole job has no task and no pod. The variables task and pod are then empty
values, never missing: strings are empty, numbers 0 (pod.index -1), lists and maps empty. Test for
them with

	pod.name != ''        or  has(pod.name)
	task.name != ''       or  has(task.name)

has(x.f) is true when the field is not empty (not an empty string, 0 or an empty list). A task read through
tasks must exist: tasks.worker fails at run time when the job has no task worker, and a job
whose policies read a task it does not have is rejected when it is validated. To allow for a
missing task, test it first: 'worker' in tasks && tasks.worker.failed > 0, or use
tasks[?'worker'].hasValue().

# Examples

Restart only the pod when it was killed for memory (exit code 137, or a container OOMKilled), and
not when it was evicted for a disruption:

	policies:
	- event: PodFailed
	  action: RestartPod
	  when: pod.exitCode == 137 || pod.containers.exists(c, c.reason == 'OOMKilled')
	- event: PodFailed
	  action: RestartJob
	  when: pod.conditions.exists(c, c.type == 'DisruptionTarget' && c.status == 'True')

Complete the job once two workers have succeeded (both spellings work):

	policies:
	- action: CompleteJob
	  when: tasks.worker.succeeded >= 2
	- action: CompleteJob
	  when: tasks['worker'].succeeded >= 2

Fail fast when the ps task fails:

	policies:
	- event: PodFailed
	  action: TerminateJob
	  when: task.name == 'ps'
	- action: TerminateJob
	  when: task.name == 'ps' && event == 'PodFailed'

Abort a job that has run longer than six hours:

	policies:
	- action: AbortJob
	  when: elapsed > duration('6h')

Other useful forms: job.labels['team'] == 'ml', job.retryCount < 2,
tasks.all(t, tasks[t].failed == 0), pod.containers.exists(c, c.lastReason == 'OOMKilled'),
pod.containers.exists(c, c.reason == 'ImagePullBackOff').

# Evaluation order

For an event about a task, the policies are consulted in this order: the task's own policies
(spec.tasks[i].policies), then spec.policies, then the policies of the caldera.sh/policies
annotation, each list in its own order. The first policy whose event or exit code matches (or that
names neither) and whose when holds decides; the others are not evaluated. Engine.Policies returns
the policies in that order with their paths.

# The caldera.sh/policies annotation

A manifest meant to stay valid for Volcano carries its CEL policies in the caldera.sh/policies
annotation: a YAML list of LifecyclePolicy with the schema of spec.policies. Volcano ignores it;
Caldera consults it after spec.policies. It is decoded strictly (unknown fields, duplicate keys
and wrong types are errors) and validated with the CRD's rules for spec.policies; each of its
policies must name an action. Quote an expression that starts with ! or holds ": " or " #",
which YAML would read otherwise: when: "!has(pod.name)".

	metadata:
	  annotations:
	    caldera.sh/policies: |
	      - event: PodFailed
	        action: RestartPod
	        when: pod.exitCode == 137
	      - action: AbortJob
	        when: elapsed > duration('6h')

# Limits

An expression is at most 4096 characters long and nests at most four macros (all, exists,
exists_one, map, filter); only CEL's standard functions and optional values are available, and
expressions cannot create objects.

Its cost is bounded before it runs. When it is applied, its worst-case cost is estimated from
bounds on the variables (64 labels, annotations, tasks and containers, 32 pod conditions, 256 KiB
annotation values, 4096-character messages, ...) and it is rejected when the estimate is above
100,000 (DefaultMaxEstimatedCost; a cost unit is roughly one simple operation, some tens of
nanoseconds). When it runs on values within those bounds, that estimate holds. When a value it
reads is larger, the cost is estimated again from the actual sizes, and if that estimate is above
the run-time limit of 100,000 (DefaultCostLimit) the expression is not run and fails with an error
that names the large value. A heavy or hostile expression is thus stopped by the cost limit,
never by a timeout, and never after it has spent its budget.

# Errors

Compile errors (*CompileError) say which expression failed, why (Reason) and where (line and
column), for example

	invalid CEL expression "tasks.worker.succeded >= 2": line 1, column 13: unknown field 'succeded' (did you mean 'succeeded'?)

ValidateJob and DecodePolicies return them as field errors with the path of the when, such as
spec.tasks[1].policies[0].when or metadata.annotations[caldera.sh/policies][2].when. Run-time
errors (*EvalError) name the expression and the cause; errors.Is(err, ErrCostLimitExceeded) tells
a cost-limit stop.
*/
package policy
