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

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronJobScheduledTimestampAnnotation is the annotation on a Job made by a CronJob that holds the
// time the run was scheduled for, RFC 3339 in the CronJob's timeZone (UTC when it has none).
const CronJobScheduledTimestampAnnotation = "volcano.sh/cronjob-scheduled-timestamp"

// Reasons of a CronJob's conditions (Ready, Reconciling and Stalled, as for a Job).
const (
	// CronJobScheduledReason: the schedule is in force; the message says when the next run is.
	CronJobScheduledReason = "Scheduled"
	// CronJobSuspendedReason: spec.suspend stops new runs.
	CronJobSuspendedReason = "Suspended"
	// InvalidScheduleReason: spec.schedule is not a cron expression the controller can run.
	InvalidScheduleReason = "InvalidSchedule"
	// InvalidTimeZoneReason: spec.timeZone is not a time zone of the IANA database.
	InvalidTimeZoneReason = "InvalidTimeZone"
	// InvalidJobTemplateReason: the API server refused the run made from spec.jobTemplate.
	InvalidJobTemplateReason = "InvalidJobTemplate"
)

// ConcurrencyPolicy is what a CronJob does when a run is due while an earlier one is active.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

const (
	// AllowConcurrent starts the new run beside the active ones.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent skips the new run while one is active; it starts when the active run
	// ends, if its schedule time is still within startingDeadlineSeconds.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the active runs and starts the new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=cronjobs,shortName=cronvcjob;cronvj
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="SCHEDULE",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="TIMEZONE",type=string,JSONPath=`.spec.timeZone`
// +kubebuilder:printcolumn:name="SUSPEND",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="LAST SCHEDULE",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="READY",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].status`

// CronJob runs a Job on a cron schedule. It is Volcano's batch.volcano.sh/v1alpha1 CronJob,
// field for field, with the semantics of the Kubernetes CronJob controller: at most one run per
// schedule time, named <cronjob>-<schedule time in minutes since the epoch>.
// +kubebuilder:validation:XValidation:rule="!has(self.metadata.name) || size(self.metadata.name) <= 52",message="metadata.name must be at most 52 characters: the runs are named <name>-<minutes since the epoch>, at most 63; choose a shorter name"
type CronJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the schedule and the template of the runs.
	// +required
	Spec CronJobSpec `json:"spec,omitempty"`

	// status is the observed state of the CronJob, written by the controller.
	// +optional
	Status CronJobStatus `json:"status,omitempty"`
}

// CronJobSpec is the schedule of a CronJob and the Job it runs.
type CronJobSpec struct {
	// schedule is a standard cron expression (five fields: minute, hour, day of month, month,
	// day of week), or a descriptor such as @hourly, @daily or @every 2h. The time zone goes in
	// timeZone, never in the schedule (no TZ= or CRON_TZ=).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ')",message="schedule should not contain TZ or CRON_TZ: set the time zone in spec.timeZone"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[[:space:]]*(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|@every[[:space:]]+[^[:space:]]+|[0-9A-Za-z*?/,-]+([[:space:]]+[0-9A-Za-z*?/,-]+){4})[[:space:]]*$')",message="schedule is not a valid cron expression: give five fields (minute hour day-of-month month day-of-week, for example '*/5 * * * *') or a descriptor such as @hourly"
	// +required
	Schedule string `json:"schedule"`

	// timeZone is the IANA time zone the schedule is read in, for example Europe/Paris. Unset
	// means UTC. A name the controller's time zone database does not know makes the CronJob
	// Stalled (reason InvalidTimeZone).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z._0-9+-]{1,14}(/[A-Za-z._0-9+-]{1,14})*$') && !self.matches('(^|/)([.]{1,2}(/|$)|-)')",message="unknown timeZone: give an IANA time zone name such as Europe/Paris or UTC"
	// +kubebuilder:validation:XValidation:rule="self.lowerAscii() != 'local'",message="timeZone can't be Local: give an IANA time zone name such as Europe/Paris or UTC"
	// +optional
	TimeZone *string `json:"timeZone,omitempty"`

	// startingDeadlineSeconds is how late a run may start after its schedule time: runs missed
	// by more (the controller was down, or Forbid held them) are skipped. Unset means no
	// deadline; then, when more than 100 schedule times were missed, only the latest runs and a
	// TooManyMissedTimes warning is recorded.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// concurrencyPolicy is what to do when a run is due while an earlier one is active: Allow
	// (start it too), Forbid (skip it until the active run ends) or Replace (delete the active
	// runs, then start it).
	// +kubebuilder:default=Allow
	// +optional
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// suspend stops new runs while true; active runs go on. Runs missed while suspended are
	// subject to startingDeadlineSeconds when it is set back to false.
	// +kubebuilder:default=false
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// jobTemplate is the Job each run creates: its labels and annotations are copied to the run,
	// and its spec is the run's spec.
	// +required
	JobTemplate JobTemplateSpec `json:"jobTemplate"`

	// successfulJobsHistoryLimit is how many Completed runs are kept; older ones are deleted,
	// oldest first.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +optional
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// failedJobsHistoryLimit is how many Failed (or Terminated) runs are kept; older ones are
	// deleted, oldest first.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// JobTemplateSpec is the Job a CronJob creates at each schedule time.
// +kubebuilder:validation:XValidation:rule="!has(self.metadata) || !has(self.metadata.name)",message="jobTemplate.metadata.name is not used: each run is named <cronjob>-<schedule time in minutes>; remove it",fieldPath=".metadata.name"
// +kubebuilder:validation:XValidation:rule="!has(self.metadata) || !has(self.metadata.namespace)",message="jobTemplate.metadata.namespace is not used: runs are made in the CronJob's namespace; remove it",fieldPath=".metadata.namespace"
type JobTemplateSpec struct {
	// metadata holds the labels, annotations and finalizers copied to each run.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the spec of each run.
	// +optional
	Spec JobSpec `json:"spec,omitempty"`
}

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	// active are the runs that have not finished (neither Completed, Failed nor Terminated).
	// +listType=atomic
	// +optional
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// lastScheduleTime is the schedule time of the latest run started.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// lastSuccessfulTime is when the latest run completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`

	// observedGeneration is the spec generation the controller last took up in full. Caldera
	// only.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are the CronJob's standard conditions: Ready, Reconciling and Stalled
	// (kstatus), read by Flux, Argo CD and kubectl wait. Caldera only.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true

// CronJobList is a list of CronJobs.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of CronJobs.
	Items []CronJob `json:"items"`
}

func init() {
	register(&CronJob{}, &CronJobList{})
}

// GetConditions returns the CronJob's conditions.
func (in *CronJob) GetConditions() []metav1.Condition {
	return in.Status.Conditions
}

// SetConditions sets the CronJob's conditions.
func (in *CronJob) SetConditions(conditions []metav1.Condition) {
	in.Status.Conditions = conditions
}
