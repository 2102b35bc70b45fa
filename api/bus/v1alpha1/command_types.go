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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=commands,scope=Namespaced
// +kubebuilder:printcolumn:name="ACTION",type=string,JSONPath=`.action`
// +kubebuilder:printcolumn:name="TARGET",type=string,JSONPath=`.target.name`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`

// Command asks a controller to take an action on its target once. The controller
// deletes the Command first and then acts, so a Command runs at most once.
// +kubebuilder:validation:XValidation:rule="has(self.action) && size(self.action) > 0",message="action is required: one of AbortJob, ResumeJob, RestartJob, TerminateJob, CompleteJob for a Job, or OpenQueue, CloseQueue for a Queue",fieldPath=".action",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="has(self.target)",message="target is required: the Job or Queue to act on (apiVersion, kind, name, uid)",fieldPath=".target",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="!has(self.target) || (self.target.apiVersion == 'batch.volcano.sh/v1alpha1' && self.target.kind == 'Job') || (self.target.apiVersion == 'scheduling.volcano.sh/v1beta1' && self.target.kind == 'Queue')",message="target must be a batch.volcano.sh/v1alpha1 Job or a scheduling.volcano.sh/v1beta1 Queue",fieldPath=".target",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.target) || !has(self.action) || self.action in (self.target.kind == 'Queue' ? ['OpenQueue', 'CloseQueue'] : ['AbortJob', 'ResumeJob', 'RestartJob', 'TerminateJob', 'CompleteJob'])",message="action does not apply to the target's kind: a Job takes AbortJob, ResumeJob, RestartJob, TerminateJob or CompleteJob; a Queue takes OpenQueue or CloseQueue",fieldPath=".action",reason=FieldValueInvalid
type Command struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// action is the action to take on the target, for example AbortJob or ResumeJob.
	// +kubebuilder:validation:Enum=AbortJob;ResumeJob;RestartJob;TerminateJob;CompleteJob;OpenQueue;CloseQueue
	// +optional
	Action string `json:"action,omitempty"`

	// target is the object the action applies to.
	// +optional
	TargetObject *metav1.OwnerReference `json:"target,omitempty"`

	// reason is a unique, one-word, CamelCase reason for this command.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Reason string `json:"reason,omitempty"`

	// message is a human-readable message about this command.
	// +kubebuilder:validation:MaxLength=32768
	// +optional
	Message string `json:"message,omitempty"`
}

// +kubebuilder:object:root=true

// CommandList is a list of Commands.
type CommandList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of Commands.
	Items []Command `json:"items"`
}

func init() {
	register(&Command{}, &CommandList{})
}
