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

// Package lifecycle is the job lifecycle as pure functions: what happened, what to do about it,
// and what the job becomes. The job controller gathers the job, its pods and its PodGroup, calls
// these functions and applies what they return; it decides nothing itself. Nothing here talks
// to the API server or reads the clock except through a clock.PassiveClock it is given.
//
// # A reconcile, step by step
//
//  1. EffectiveSpec: the spec with the defaults computed at reconcile time (task names
//     default<i>, minAvailable, maxRetry, schedulerName, implied plugins), never written back.
//  2. Requests: PodRequests for each change of a pod, PodGroupRequest for a PodGroup phase
//     change, CommandRequest for a Command, and SpecAction for what the spec asks for
//     (spec.suspend, a pod template change).
//  3. ResolvePolicy turns a request into a Decision. A decision with a Delay becomes a
//     DelayedAction, kept in the job's Delays until it is due (Delays.Due), cancelled when its
//     situation is over (Delays.Prune) or when another action of its scope is taken
//     (Delays.Executed).
//  4. Execute applies a decision to the observed job: the pods to delete and create, whether the
//     PodGroup goes, and the new status. SetConditions then sets the kstatus conditions, and
//     SetSchedulingConditions adds what the scheduler says of the gang in the PodGroup's
//     Unschedulable condition (Stalled, reason Unsatisfiable, for a gang that can never fit).
//
// # Policy resolution
//
// First match wins, in this order (ResolvePolicy):
//
//  1. an explicit action (a Command);
//  2. internal events (OutOfSync, CommandIssued, PodRunning) and stale requests (another job of
//     the same name, or a pod of an earlier run: its job version is below status.version) match
//     no policy by event or exit code;
//  3. the policies of the request's task, in order; then spec.policies; then the policies of the
//     caldera.sh/policies annotation. A policy matches by event (the event or *; PodPending
//     only with a timeout), else by exit code, else, when it names neither, by its when
//     condition alone; such a policy is consulted for every request, internal ones included.
//     A policy with when matches only if when also holds; an error evaluating it is returned;
//  4. SyncJob.
//
// A policy's timeout delays its action. The delayed action is dropped when the pod that raised
// a PodPending delay leaves Pending, when a pod that raised a PodFailed or PodEvicted delay runs
// again, when the job starts another run (version), or when another non-internal action of the
// same scope (job; the same task, pod or partition) is executed.
//
// # Transition table
//
// KillJob deletes the job's pods but those retained (Soft keeps Succeeded and Failed pods, None
// keeps nothing; a kill after which the job fails for good is always Soft, so the failed pods'
// logs stay), deletes the PodGroup and releases the plugins' objects. KillTarget deletes the
// pods of one task, pod or partition and keeps the PodGroup. SyncJob deletes pods marked out of
// sync and surplus pods (ScaleDown), and creates the missing ones when the PodGroup admits them
// and their dependsOn is met (MissingPods). V is a new status.version, R retryCount+1.
//
//	phase        RestartJob           RestartTask/Pod/Partition  AbortJob / TerminateJob / CompleteJob     ResumeJob                SyncJob, others
//	Pending      KillJob(None) V R    KillTarget R               KillJob(Soft) V -> Aborting /            SyncJob                  SyncJob; Pending status
//	             -> Restarting        -> Restarting              Terminating / Completing
//	Running      as Pending           as Pending                 as Pending                               SyncJob                  SyncJob; Running status
//	Restarting   KillJob(None) V      KillTarget;                as Pending                               SyncJob; Restarting      SyncJob; Restarting status
//	             (SyncJob when no     Restarting status                                                   status
//	             live pod); Restarting
//	             status
//	Aborting     KillJob(Soft); -> Aborted when no pod is pending, running or terminating                 KillJob(Soft) V          as RestartJob
//	                                                                                                      -> Restarting
//	Aborted      KillJob(Soft); stays                                                                     KillJob(Soft) V          as RestartJob
//	                                                                                                      -> Restarting
//	Completing   any action: KillJob(Soft); -> Completed when no pod is pending, running or terminating
//	Terminating  any action: KillJob(Soft); -> Terminated when no pod is pending, running or terminating
//	Completed, Terminated, Failed: any action: KillJob(Soft); stays
//
// The status functions, on the counts after the step (a pod being deleted counts as
// terminating):
//
//   - Pending: Running once minAvailable <= running + succeeded + failed.
//   - Running: with no replicas it stays. Completed once succeeded >= minSuccess. When every
//     pod has finished (succeeded + failed = Σreplicas): Failed if minAvailable >= Σ task
//     minAvailable and a task with pods has fewer succeeded pods than its minAvailable; else
//     Failed if succeeded < minSuccess; else Completed if succeeded >= minAvailable, else
//     Failed. Otherwise back to Pending when pending > Σreplicas - minAvailable (the gang no
//     longer holds).
//   - Restarting: Failed once retryCount >= maxRetry; else Pending once Σreplicas - terminating
//     >= minAvailable.
//
// A job that reaches Completed or Failed by a status function has its pending and running pods
// deleted in the same step (Soft), which Volcano does at the next event.
//
// # Counting
//
// spec.maxRetry counts runs, as in Volcano: a restarting job with retryCount >= maxRetry fails,
// so maxRetry 3 allows two restarts. A task's maxRetry is a container-restart budget: once the
// restarts of the containers of its pending and running pods add up to it, the task raises
// TaskFailed (-1: never). dependsOn holds a task's pods until the tasks it names have
// minAvailable pods running with every container ready, or succeeded (any: one task; all:
// every one).
//
// # Beyond Volcano
//
// Where Volcano's behaviour fights GitOps or loses work, this package differs, each time on
// purpose:
//
//   - ResumeJob does not count as a retry, so suspending and resuming never fails a job.
//   - A restart caused by an eviction does not count as a retry: a PodEvicted request (any
//     deletion the controller did not make: preemption, drain, a user), or a PodFailed request
//     for a pod stopped by a disruption (DisruptionTarget, kubelet eviction). The decision has
//     KeepRetryCount, and the new status.state.message says the restart was not counted.
//   - spec.suspend true aborts the job (reason JobSuspended); false resumes a job it held
//     (SpecAction). A job aborted by a policy or a Command stays aborted until a Command
//     resumes it.
//   - A change of a pod template, the volumes or the plugins restarts the job at a new
//     status.version without counting a retry (SpecAction, TemplateHash); replicas and
//     minAvailable change in place.
//   - AbortJob, TerminateJob and CompleteJob are honoured while Restarting instead of being
//     turned into another kill.
//   - status.version only goes up when a run ends or begins (a kill that changes the phase, a
//     restart), not at every event a finished job receives.
//   - A request that is not about a pod is never stale (Volcano compares its missing version,
//     0, with status.version, so an Unknown policy only fires in a job's first run).
//   - A pod seen for the first time raises the events of its phase, so a controller that
//     restarts does not lose a PodFailed; an eviction raises one PodEvicted, not two.
//   - The exit code a policy matches is the one the CEL variable pod.exitCode holds (the first
//     container to terminate, in status order, else the first init container that failed), not
//     only the first container's.
//   - A pending pod's PodPending delay runs from the pod's creation, so a controller restart does
//     not restart it.
//   - A dependency's succeeded pods count as ready.
package lifecycle
