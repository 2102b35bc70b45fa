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

// Labels and annotations on the jobs a JobFlow creates, as Volcano's: the value is
// <namespace>.<name>. The labels are set only when the value is a valid label value (at most
// 63 characters); the annotations always.
const (
	// CreatedByJobTemplate names the JobTemplate a job was made from.
	CreatedByJobTemplate = "volcano.sh/createdByJobTemplate"
	// CreatedByJobFlow names the JobFlow that created a job.
	CreatedByJobFlow = "volcano.sh/createdByJobFlow"
)

// Condition types and reasons of JobFlows and JobTemplates. Ready, Reconciling and Stalled
// follow kstatus.
const (
	// ReadyCondition is True when the flow has succeeded (for a template: once it was read).
	ReadyCondition = "Ready"
	// ReconcilingCondition is True while the flow is pending or running.
	ReconcilingCondition = "Reconciling"
	// StalledCondition is True when the flow has failed or its spec cannot be carried out.
	StalledCondition = "Stalled"

	// FlowPendingReason: no job of the flow has started.
	FlowPendingReason = "FlowPending"
	// FlowRunningReason: jobs are running or waiting for their dependencies.
	FlowRunningReason = "FlowRunning"
	// FlowSucceededReason: every job completed (or was skipped).
	FlowSucceededReason = "FlowSucceeded"
	// FlowFailedReason: a job failed, was terminated or aborted.
	FlowFailedReason = "FlowFailed"
	// FlowTerminatingReason: the JobFlow is being deleted.
	FlowTerminatingReason = "FlowTerminating"
	// DependencyCycleReason: spec.flows has a cycle; the message names its flows.
	DependencyCycleReason = "DependencyCycle"
	// UnknownTargetReason: a flow depends on a name that is not a flow of the JobFlow.
	UnknownTargetReason = "UnknownTarget"
	// TemplateNotFoundReason: a flow names a JobTemplate that does not exist.
	TemplateNotFoundReason = "TemplateNotFound"
	// InvalidWhenReason: a dependsOn.when expression does not compile or evaluate.
	InvalidWhenReason = "InvalidWhen"
	// InvalidPatchReason: a flow's patch cannot be merged onto its template's spec.
	InvalidPatchReason = "InvalidPatch"
	// JobRefusedReason: the API server refused the job made from a template and its patch.
	JobRefusedReason = "JobRefused"
	// ReconcileErrorReason: the last reconcile failed and is retried; the message is the error.
	ReconcileErrorReason = "ReconcileError"
	// TemplateReadyReason: the template was read; jobs can be made from it.
	TemplateReadyReason = "TemplateReady"
)
