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

// Labels and annotations the controller puts on a job's pods, as Volcano does.
const (
	// JobNameKey holds the job's name (label and annotation).
	JobNameKey = "volcano.sh/job-name"
	// JobNamespaceKey holds the job's namespace (label).
	JobNamespaceKey = "volcano.sh/job-namespace"
	// QueueNameKey holds the job's queue (label and annotation).
	QueueNameKey = "volcano.sh/queue-name"
	// TaskSpecKey holds the task's name (label and annotation).
	TaskSpecKey = "volcano.sh/task-spec"
	// TaskIndex holds the pod's index within its task (label and annotation).
	TaskIndex = "volcano.sh/task-index"
	// JobVersion holds status.version of the run that made the pod (annotation).
	JobVersion = "volcano.sh/job-version"
	// JobRetryCountKey holds status.retryCount when the pod was made (annotation).
	JobRetryCountKey = "volcano.sh/job-retry-count"
	// TemplateUID holds <job>-<task> (annotation).
	TemplateUID = "volcano.sh/template-uid"
	// NumaPolicyKey holds the task's topologyPolicy (annotation).
	NumaPolicyKey = "volcano.sh/numa-topology-policy"
	// PartitionIDKey holds the pod's partition, index / partitionSize (label).
	PartitionIDKey = "volcano.sh/partition-id"
	// JobTypeKey is a label users set to name the kind of job, shown by vcctl.
	JobTypeKey = "volcano.sh/job-type"
	// OutOfSyncKey marks a pod the controller is deleting, so its events are ignored.
	OutOfSyncKey = "volcano.sh/controller-out-of-sync"

	// PreemptableKey marks a job's pods as preemptable; copied from the job's labels and annotations.
	PreemptableKey = "volcano.sh/preemptable"
	// CooldownTimeKey is the cooldown before a pod may be preempted; copied from the job.
	CooldownTimeKey = "volcano.sh/cooldown-time"
	// RevocableZoneKey names a revocable zone; copied from the job's annotations.
	RevocableZoneKey = "volcano.sh/revocable-zone"
	// JDBMinAvailableKey is a disruption budget; copied from the job's annotations.
	JDBMinAvailableKey = "volcano.sh/jdb-min-available"
	// JDBMaxUnavailableKey is a disruption budget; copied from the job's annotations.
	JDBMaxUnavailableKey = "volcano.sh/jdb-max-unavailable"

	// TemplateHashKey holds the hash of the pod templates, volumes and plugins a pod was made
	// from (annotation); a job whose live pods carry another hash than its spec restarts.
	TemplateHashKey = "caldera.sh/template-hash"

	// TTLActionAnnotation says what ttlSecondsAfterFinished deletes when it passes: "Delete", the
	// Job and with it everything it made (Volcano's behaviour, the default for a job no GitOps
	// tool manages), or "DeleteChildren", the job's pods, PodGroup, plugin objects and the claims
	// it made, keeping the Job as the record (the default for a job Flux, Argo CD or Helm
	// manages, which would re-create a deleted Job and run it again).
	TTLActionAnnotation = "caldera.sh/ttl-action"
	// TTLActionDelete and TTLActionDeleteChildren are the values of TTLActionAnnotation.
	TTLActionDelete         = "Delete"
	TTLActionDeleteChildren = "DeleteChildren"

	// PoliciesAnnotation carries extra lifecycle policies (a YAML list of LifecyclePolicy) on a
	// manifest meant to stay valid for Volcano; they are consulted after spec.policies.
	PoliciesAnnotation = "caldera.sh/policies"
)

// Condition types and reasons of a Job. Ready, Reconciling and Stalled follow kstatus.
const (
	// ReadyCondition is True when the job has Completed, False otherwise.
	ReadyCondition = "Ready"
	// ReconcilingCondition is True while the job is pending, running or changing phase.
	ReconcilingCondition = "Reconciling"
	// StalledCondition is True when the job has ended without success (Failed, Terminated,
	// Aborted) or cannot progress until its spec changes.
	StalledCondition = "Stalled"
	// SuspendedCondition is True while spec.suspend holds the job.
	SuspendedCondition = "Suspended"
	// ChildrenDeletedCondition is True once ttlSecondsAfterFinished has passed for a job kept as
	// the record (TTLActionDeleteChildren): its pods, PodGroup, plugin objects and the claims it
	// made are deleted.
	ChildrenDeletedCondition = "ChildrenDeleted"
	// TTLExpiredReason: ttlSecondsAfterFinished has passed.
	TTLExpiredReason = "TTLExpired"

	// JobCompletedReason: the job completed.
	JobCompletedReason = "JobCompleted"
	// JobFailedReason: the job failed.
	JobFailedReason = "JobFailed"
	// JobTerminatedReason: the job was terminated.
	JobTerminatedReason = "JobTerminated"
	// JobAbortedReason: the job was aborted.
	JobAbortedReason = "JobAborted"
	// JobSuspendedReason: spec.suspend holds the job.
	JobSuspendedReason = "JobSuspended"
	// JobPendingReason: the job waits for its gang to be scheduled.
	JobPendingReason = "JobPending"
	// JobRunningReason: the job runs.
	JobRunningReason = "JobRunning"
	// ProgressingReason: the job is changing phase (restarting, completing, ...).
	ProgressingReason = "Progressing"
	// InvalidSpecReason: the spec cannot be run as written (for example a dependsOn cycle).
	InvalidSpecReason = "InvalidSpec"
	// InvalidPolicyReason: a lifecycle policy does not compile or type-check.
	InvalidPolicyReason = "InvalidPolicy"
	// PolicyEvaluationFailedReason: a lifecycle policy failed at run time.
	PolicyEvaluationFailedReason = "PolicyEvaluationFailed"
	// QueueNotFoundReason: the job's queue does not exist.
	QueueNotFoundReason = "QueueNotFound"
	// QueueNotOpenReason: the job's queue is closed or closing.
	QueueNotOpenReason = "QueueNotOpen"
	// UnsatisfiableReason: the job's gang can never be placed as it stands (its PodGroup's
	// Unschedulable reason is Unsatisfiable): its minResources exceed its queue's capability or
	// what the cluster's Ready nodes offer. It clears when the PodGroup's reason changes.
	UnsatisfiableReason = "Unsatisfiable"
	// PVCNotFoundReason: a volume names a PersistentVolumeClaim that does not exist.
	PVCNotFoundReason = "PVCNotFound"
	// PodTemplateInvalidReason: the API server rejected a pod of the job.
	PodTemplateInvalidReason = "PodTemplateInvalid"
	// PluginErrorReason: a job plugin failed or is unknown.
	PluginErrorReason = "PluginError"
	// NameTakenReason: an object a job plugin makes (Service, ConfigMap, Secret,
	// NetworkPolicy) has a name already taken by an object the job does not own.
	NameTakenReason = "NameTaken"
	// ReconcileErrorReason: the last reconcile failed and is retried; the message is the error.
	ReconcileErrorReason = "ReconcileError"
)
