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
	"k8s.io/apimachinery/pkg/runtime"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=jobflows,shortName=jf
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.state.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="READY",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].status`

// JobFlow runs Jobs made from JobTemplates in the order a DAG of dependencies gives: each flow
// becomes the Job <jobflow>-<flow>, created once the jobs it depends on have completed. It is
// Volcano's flow.volcano.sh/v1alpha1 JobFlow, field for field, plus kstatus conditions and a CEL
// condition on edges.
// +kubebuilder:validation:XValidation:rule="!has(self.spec.flows) || self.spec.flows.all(f, size(self.metadata.name) + size(f.name) + 1 <= 63)",message="job names <jobflow>-<flow> must be at most 63 characters (the name of a Job): shorten metadata.name or the flow names",fieldPath=".spec.flows",reason=FieldValueInvalid
type JobFlow struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the flows and what happens to their jobs at the end.
	// +optional
	Spec JobFlowSpec `json:"spec,omitempty"`

	// status is the jobs of the flow, the flow's phase and its conditions.
	// +optional
	Status JobFlowStatus `json:"status,omitempty"`
}

// JobFlowSpec is the desired state of a JobFlow.
// +kubebuilder:validation:XValidation:rule="!has(self.flows) || self.flows.all(f, !has(f.dependsOn) || !has(f.dependsOn.targets) || (!(f.name in f.dependsOn.targets) && sets.contains(self.flows.map(g, g.name), f.dependsOn.targets)))",message="dependsOn.targets must name other flows of this JobFlow: a flow names itself or a name that is not in spec.flows; fix its targets",fieldPath=".flows",reason=FieldValueInvalid
type JobFlowSpec struct {
	// flows are the nodes of the DAG: each names a JobTemplate and the flows it depends on.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Flows []Flow `json:"flows,omitempty"`

	// jobRetainPolicy is what happens to the jobs once the flow has succeeded: retain keeps
	// them, delete deletes them. Jobs of a failed flow are kept, to be inspected.
	// +kubebuilder:default=retain
	// +optional
	JobRetainPolicy RetainPolicy `json:"jobRetainPolicy,omitempty"`
}

// Flow is one job of a JobFlow and its dependencies.
type Flow struct {
	// name is the JobTemplate the job is made from, in the JobFlow's namespace; the job is
	// named <jobflow>-<name>.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=62
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="must be the name of a JobTemplate: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +required
	Name string `json:"name"`

	// dependsOn names the flows whose jobs must complete (or pass a probe, or make a when
	// condition true) before this flow's job is created. Without it the job is created at once.
	// +optional
	DependsOn *DependsOn `json:"dependsOn,omitempty"`

	// patch changes the template's job spec for this flow only.
	// +optional
	Patch *Patch `json:"patch,omitempty"`
}

// DependsOn is the edges into a flow.
// +kubebuilder:validation:XValidation:rule="!has(self.probe) || (has(self.targets) && size(self.targets) > 0)",message="probe needs targets: a probe is checked on the jobs of the target flows",fieldPath=".probe",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="!has(self.when) || (has(self.targets) && size(self.targets) > 0)",message="when needs targets: the condition is checked once the target flows' jobs have finished",fieldPath=".when",reason=FieldValueRequired
type DependsOn struct {
	// targets are the flows this flow waits for. Without a probe or a when condition, every
	// target's job must be Completed.
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=62
	// +optional
	Targets []string `json:"targets,omitempty"`

	// probe lets the flow start before its targets complete: once every check holds on every
	// target's job.
	// +optional
	Probe *Probe `json:"probe,omitempty"`

	// when is a CEL expression that must return bool, checked once every target's job has
	// completed (or passed the probe): the job is created when it is true; when it is false
	// once every target has completed, the flow and the flows that depend on it are skipped.
	// The variable jobs maps each flow name whose job exists to that Job (metadata, spec and
	// status as stored; a job not yet created, or deleted, is absent), for example
	// jobs.train.status.state.phase == 'Completed' && jobs.train.status.succeeded >= 2.
	// Caldera only; Volcano has no such field.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	When string `json:"when,omitempty"`
}

// Probe is the checks that let a flow start before its targets complete.
type Probe struct {
	// httpGetList is Volcano's HTTP probe on a task of the target job. Caldera does not probe
	// pods over the network and refuses it; use taskStatusList or dependsOn.when.
	// +kubebuilder:validation:XValidation:rule="size(self) == 0",message="httpGetList is not supported by Caldera: the controller does not probe pods over the network; use taskStatusList (a task reaching a phase) or dependsOn.when"
	// +listType=atomic
	// +optional
	HttpGetList []HttpGet `json:"httpGetList,omitempty"` //nolint:revive // Volcano's name.

	// tcpSocketList is Volcano's TCP probe on a task of the target job. Caldera does not probe
	// pods over the network and refuses it; use taskStatusList or dependsOn.when.
	// +kubebuilder:validation:XValidation:rule="size(self) == 0",message="tcpSocketList is not supported by Caldera: the controller does not probe pods over the network; use taskStatusList (a task reaching a phase) or dependsOn.when"
	// +listType=atomic
	// +optional
	TcpSocketList []TcpSocket `json:"tcpSocketList,omitempty"` //nolint:revive // Volcano's name.

	// taskStatusList holds when, on every target's job, each named task has at least one pod
	// in the named phase.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	TaskStatusList []TaskStatus `json:"taskStatusList,omitempty"`
}

// HttpGet is Volcano's HTTP probe, refused by Caldera (see Probe.httpGetList).
type HttpGet struct { //nolint:revive // Volcano's name.
	// taskName is the task whose pods are probed.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	TaskName string `json:"taskName,omitempty"`

	// path is the HTTP path to GET.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Path string `json:"path,omitempty"`

	// port is the port to probe.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Port int `json:"port,omitempty"`

	// httpHeader is a header to send.
	// +optional
	HTTPHeader corev1.HTTPHeader `json:"httpHeader,omitempty"`
}

// TcpSocket is Volcano's TCP probe, refused by Caldera (see Probe.tcpSocketList).
type TcpSocket struct { //nolint:revive // Volcano's name.
	// taskName is the task whose pods are probed.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	TaskName string `json:"taskName,omitempty"`

	// port is the port to probe.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=65535
	// +required
	Port int `json:"port"`
}

// TaskStatus is a check that a task of the target job has a pod in a phase.
// +kubebuilder:validation:XValidation:rule="has(self.taskName) && size(self.taskName) > 0",message="taskName is required: name the task of the target job to check",fieldPath=".taskName",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="has(self.phase)",message="phase is required: one of Pending, Running, Succeeded, Failed, Unknown",fieldPath=".phase",reason=FieldValueRequired
type TaskStatus struct {
	// taskName is the task of the target job.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	TaskName string `json:"taskName,omitempty"`

	// phase is the pod phase one of the task's pods must be in.
	// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed;Unknown
	// +optional
	Phase string `json:"phase,omitempty"`
}

// Patch changes a template's job spec for one flow.
type Patch struct {
	// jobSpec is merged onto the template's spec as a strategic merge patch: maps and objects
	// merge, tasks merge by name (and containers by name within them), other lists are
	// replaced. It is kept as written (no schema defaults are filled in, so it changes only
	// what it names); the merged spec is checked by the Job's schema when the job is created.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	JobSpec *runtime.RawExtension `json:"jobSpec,omitempty"`
}

// RetainPolicy is what happens to a JobFlow's jobs once it has succeeded.
// +kubebuilder:validation:Enum=retain;delete
type RetainPolicy string

const (
	// Retain keeps the jobs.
	Retain RetainPolicy = "retain"
	// Delete deletes the jobs once the flow has succeeded.
	Delete RetainPolicy = "delete"
)

// Phase is a JobFlow's phase, as Volcano's.
type Phase string

const (
	// Succeed means every job completed (or was skipped by a when condition).
	Succeed Phase = "Succeed"
	// Terminating means the JobFlow is being deleted.
	Terminating Phase = "Terminating"
	// Failed means a job failed, was terminated or aborted; no further job is created.
	Failed Phase = "Failed"
	// Running means a job has left Pending and none has failed.
	Running Phase = "Running"
	// Pending means no job has started yet.
	Pending Phase = "Pending"
)

// JobFlowStatus is the observed state of a JobFlow.
type JobFlowStatus struct {
	// pendingJobs are the flow's jobs in phase Pending.
	// +listType=atomic
	// +optional
	PendingJobs []string `json:"pendingJobs,omitempty"`

	// runningJobs are the flow's jobs in phase Running.
	// +listType=atomic
	// +optional
	RunningJobs []string `json:"runningJobs,omitempty"`

	// failedJobs are the flow's jobs in phase Failed.
	// +listType=atomic
	// +optional
	FailedJobs []string `json:"failedJobs,omitempty"`

	// completedJobs are the flow's jobs in phase Completed.
	// +listType=atomic
	// +optional
	CompletedJobs []string `json:"completedJobs,omitempty"`

	// terminatedJobs are the flow's jobs in phase Terminated.
	// +listType=atomic
	// +optional
	TerminatedJobs []string `json:"terminatedJobs,omitempty"`

	// unKnowJobs are the flow's jobs in any other phase (Volcano's spelling).
	// +listType=atomic
	// +optional
	UnKnowJobs []string `json:"unKnowJobs,omitempty"`

	// skippedJobs are the jobs not created because a when condition on their flow (or on a
	// flow they depend on) was false. Caldera only.
	// +listType=atomic
	// +optional
	SkippedJobs []string `json:"skippedJobs,omitempty"`

	// jobStatusList is each job's phase, times and the history of its phases.
	// +listType=map
	// +listMapKey=name
	// +optional
	JobStatusList []JobStatus `json:"jobStatusList,omitempty"`

	// jobConditions maps each job's name to its phase, creation time, running duration and
	// pod counts per task. Volcano calls this map conditions; Caldera keeps that name for the
	// standard conditions below, which Flux, Argo CD and kstatus read.
	// +optional
	JobConditions map[string]Condition `json:"jobConditions,omitempty"`

	// state is the flow's phase.
	// +optional
	State State `json:"state,omitempty"`

	// observedGeneration is the spec generation the controller last took up in full.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are the flow's standard conditions: Ready, Reconciling and Stalled (kstatus).
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// JobStatus is one job of a flow.
type JobStatus struct {
	// name is the job's name.
	// +required
	Name string `json:"name"`

	// state is the job's phase.
	// +optional
	State batchv1alpha1.JobPhase `json:"state,omitempty"`

	// startTimestamp is when the job was created.
	// +optional
	StartTimestamp metav1.Time `json:"startTimestamp,omitempty"`

	// endTimestamp is when the job last changed phase (creation plus its running duration).
	// +optional
	EndTimestamp metav1.Time `json:"endTimestamp,omitempty"`

	// restartCount is the job's status.retryCount.
	// +kubebuilder:validation:Minimum=0
	// +optional
	RestartCount int32 `json:"restartCount,omitempty"`

	// runningHistories are the phases the job went through, oldest first.
	// +listType=atomic
	// +optional
	RunningHistories []JobRunningHistory `json:"runningHistories,omitempty"`
}

// JobRunningHistory is one phase a job went through.
type JobRunningHistory struct {
	// startTimestamp is when the controller saw the job enter the phase.
	// +optional
	StartTimestamp metav1.Time `json:"startTimestamp,omitempty"`

	// endTimestamp is when the controller saw the job leave the phase.
	// +optional
	EndTimestamp metav1.Time `json:"endTimestamp,omitempty"`

	// state is the phase.
	// +optional
	State batchv1alpha1.JobPhase `json:"state,omitempty"`
}

// State is a JobFlow's phase.
type State struct {
	// phase is Pending, Running, Succeed, Failed or Terminating.
	// +kubebuilder:validation:Enum=Succeed;Terminating;Failed;Running;Pending
	// +optional
	Phase Phase `json:"phase,omitempty"`
}

// Condition is one job of a flow, as Volcano's status.conditions values.
type Condition struct {
	// phase is the job's phase.
	// +optional
	Phase batchv1alpha1.JobPhase `json:"phase,omitempty"`

	// createTime is when the job was created.
	// +optional
	CreateTimestamp metav1.Time `json:"createTime,omitempty"`

	// runningDuration is the job's status.runningDuration.
	// +optional
	RunningDuration *metav1.Duration `json:"runningDuration,omitempty"`

	// taskStatusCount is the job's pods per task and phase.
	// +optional
	TaskStatusCount map[string]batchv1alpha1.TaskState `json:"taskStatusCount,omitempty"`
}

// +kubebuilder:object:root=true

// JobFlowList is a list of JobFlows.
type JobFlowList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of JobFlows.
	Items []JobFlow `json:"items"`
}

func init() {
	register(&JobFlow{}, &JobFlowList{})
}

// GetConditions returns the flow's conditions.
func (in *JobFlow) GetConditions() []metav1.Condition {
	return in.Status.Conditions
}

// SetConditions sets the flow's conditions.
func (in *JobFlow) SetConditions(conditions []metav1.Condition) {
	in.Status.Conditions = conditions
}
