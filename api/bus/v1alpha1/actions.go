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

package v1alpha1

// Event is what happened to a job, a task or a pod; lifecycle policies match on it.
type Event string

const (
	// AnyEvent matches every event.
	AnyEvent Event = "*"
	// PodFailedEvent is raised when a pod of the job reaches phase Failed.
	PodFailedEvent Event = "PodFailed"
	// PodEvictedEvent is raised when a pod of the job is deleted by anyone but the job controller
	// (preemption, drain, a user).
	PodEvictedEvent Event = "PodEvicted"
	// PodPendingEvent is raised when a pod of the job is pending; a policy on it needs a timeout.
	PodPendingEvent Event = "PodPending"
	// PodRunningEvent is raised when a pod of the job starts running. Internal.
	PodRunningEvent Event = "PodRunning"
	// JobUnknownEvent is raised when the job's PodGroup goes to phase Unknown: part of the gang
	// runs and the rest cannot be scheduled.
	JobUnknownEvent Event = "Unknown"
	// TaskCompletedEvent is raised when every replica of a task has succeeded.
	TaskCompletedEvent Event = "TaskCompleted"
	// TaskFailedEvent is raised when a task's container restarts exceed its maxRetry.
	TaskFailedEvent Event = "TaskFailed"
	// JobUpdatedEvent is accepted in policies for compatibility and never raised.
	JobUpdatedEvent Event = "JobUpdated"
	// OutOfSyncEvent is raised when the job or one of its children changed. Internal.
	OutOfSyncEvent Event = "OutOfSync"
	// CommandIssuedEvent is raised when a Command targets the job. Internal.
	CommandIssuedEvent Event = "CommandIssued"
)

// Action is what the controller does to a job or a queue.
type Action string

const (
	// AbortJobAction deletes the job's running and pending pods and holds the job in Aborted;
	// ResumeJob starts it again.
	AbortJobAction Action = "AbortJob"
	// RestartJobAction deletes every pod of the job and runs it again at a new version.
	RestartJobAction Action = "RestartJob"
	// RestartTaskAction deletes the pods of one task so they are created again.
	RestartTaskAction Action = "RestartTask"
	// RestartPodAction deletes one pod so it is created again.
	RestartPodAction Action = "RestartPod"
	// RestartPartitionAction deletes the pods of one partition of a task so they are created again.
	RestartPartitionAction Action = "RestartPartition"
	// TerminateJobAction deletes the job's running and pending pods and ends the job as Terminated.
	TerminateJobAction Action = "TerminateJob"
	// CompleteJobAction deletes the job's running and pending pods and ends the job as Completed.
	CompleteJobAction Action = "CompleteJob"
	// ResumeJobAction resumes an aborted job.
	ResumeJobAction Action = "ResumeJob"
	// SyncJobAction brings the job's pods and status in line with its spec. Internal.
	SyncJobAction Action = "SyncJob"
	// EnqueueJobAction is reserved by Volcano and never used. Internal.
	EnqueueJobAction Action = "EnqueueJob"
	// SyncQueueAction brings a queue's status in line. Internal.
	SyncQueueAction Action = "SyncQueue"
	// OpenQueueAction opens a queue.
	OpenQueueAction Action = "OpenQueue"
	// CloseQueueAction closes a queue: it admits nothing new and is Closed once empty.
	CloseQueueAction Action = "CloseQueue"
)
