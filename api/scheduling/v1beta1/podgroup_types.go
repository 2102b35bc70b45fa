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

package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodGroupPhase is the phase of a PodGroup.
type PodGroupPhase string

const (
	// PodGroupPending means accepted, but the scheduler cannot yet admit or place the gang.
	PodGroupPending PodGroupPhase = "Pending"
	// PodGroupRunning means at least minMember pods are placed.
	PodGroupRunning PodGroupPhase = "Running"
	// PodGroupUnknown means part of the gang runs and the rest cannot be placed.
	PodGroupUnknown PodGroupPhase = "Unknown"
	// PodGroupInqueue means admitted by its queue; the job controller may create the pods.
	PodGroupInqueue PodGroupPhase = "Inqueue"
	// PodGroupCompleted means every placed pod has finished.
	PodGroupCompleted PodGroupPhase = "Completed"
)

// PodGroupConditionType is the type of a PodGroup condition.
type PodGroupConditionType string

const (
	// PodGroupUnschedulableType means the gang cannot be placed; the message says why.
	PodGroupUnschedulableType PodGroupConditionType = "Unschedulable"
	// PodGroupScheduled means the gang is placed.
	PodGroupScheduled PodGroupConditionType = "Scheduled"
)

// Reasons of PodGroup conditions.
const (
	// PodFailedReason means a pod of the group failed.
	PodFailedReason = "PodFailed"
	// PodDeletedReason means a pod of the group was deleted.
	PodDeletedReason = "PodDeleted"
	// NotEnoughResourcesReason means there are not enough resources to place the gang.
	NotEnoughResourcesReason = "NotEnoughResources"
	// NotEnoughPodsReason means fewer pods exist than spec.minMember.
	NotEnoughPodsReason = "NotEnoughTasks"
	// PriorityClassNotFoundReason means the PodGroup's spec.priorityClassName names no
	// PriorityClass.
	PriorityClassNotFoundReason = "PriorityClassNotFound"
	// NotEnoughPodsOfTaskReason means fewer pods of a task exist than spec.minTaskMember.
	NotEnoughPodsOfTaskReason = "NotEnoughPodsOfTask"
	// QueueNotFoundReason means the PodGroup's queue does not exist.
	QueueNotFoundReason = "QueueNotFound"
	// QueueNotOpenReason means the PodGroup waits to be admitted and its queue is closed or
	// closing.
	QueueNotOpenReason = "QueueNotOpen"
	// UnsatisfiableReason means spec.minResources exceed what the queue can ever hold (its
	// capability) or what the cluster's Ready nodes offer in total: waiting will not place the
	// gang; the message says which resource and what to change.
	UnsatisfiableReason = "Unsatisfiable"
)

// PodGroupCondition is one condition of a PodGroup, in Volcano's shape.
type PodGroupCondition struct {
	// type is Unschedulable or Scheduled.
	// +kubebuilder:validation:MaxLength=316
	// +optional
	Type PodGroupConditionType `json:"type,omitempty"`

	// status is True, False or Unknown.
	// +optional
	Status corev1.ConditionStatus `json:"status,omitempty"`

	// transitionID identifies the scheduling cycle that set the condition.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	TransitionID string `json:"transitionID,omitempty"`

	// lastTransitionTime is when the condition last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`

	// reason is a one-word, CamelCase reason for the condition.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Reason string `json:"reason,omitempty"`

	// message says, for a person, why the condition holds.
	// +kubebuilder:validation:MaxLength=32768
	// +optional
	Message string `json:"message,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=podgroups,shortName=pg;podgroup-v1beta1
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="STATUS",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="MINMEMBER",type=integer,JSONPath=`.spec.minMember`
// +kubebuilder:printcolumn:name="RUNNINGS",type=integer,JSONPath=`.status.running`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="QUEUE",type=string,priority=1,JSONPath=`.spec.queue`

// PodGroup is a gang of pods scheduled all or nothing. Pods join it with the annotation
// scheduling.k8s.io/group-name.
type PodGroup struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the gang's requirements.
	// +optional
	Spec PodGroupSpec `json:"spec,omitempty"`

	// status is the gang's observed state, written by the scheduler.
	// +optional
	Status PodGroupStatus `json:"status,omitempty"`
}

// PodGroupSpec is the requirements of a gang.
type PodGroupSpec struct {
	// minMember is the number of pods that must be placed together; if they cannot all be
	// placed, none is.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinMember int32 `json:"minMember,omitempty"`

	// minTaskMember is, per task name, the number of that task's pods that must be placed together.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, self[k] >= 0)",message="minTaskMember values must not be negative"
	// +optional
	MinTaskMember map[string]int32 `json:"minTaskMember,omitempty"`

	// queue is the queue the gang is admitted and accounted in.
	// +kubebuilder:default=default
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || !format.dns1123Subdomain().validate(self).hasValue()",message="must be the name of a Queue: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +optional
	Queue string `json:"queue,omitempty"`

	// priorityClassName is the gang's priority.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || !format.dns1123Subdomain().validate(self).hasValue()",message="must be the name of a PriorityClass: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// minResources is what the gang needs to start: the queue and the cluster must be able to
	// hold it before the gang is admitted (Inqueue).
	// +optional
	MinResources *corev1.ResourceList `json:"minResources,omitempty"`

	// networkTopology constrains how far the gang may spread across the network topology.
	// +optional
	NetworkTopology *NetworkTopologySpec `json:"networkTopology,omitempty"`

	// subGroupPolicy splits the gang into sub-gangs.
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	// +optional
	SubGroupPolicy []SubGroupPolicySpec `json:"subGroupPolicy,omitempty"`
}

// NetworkTopologyMode is how strictly a network topology constraint is held: hard or soft.
// +kubebuilder:validation:Enum=hard;soft
type NetworkTopologyMode string

// NetworkTopologySpec constrains a gang to a part of the network topology.
// +kubebuilder:validation:XValidation:rule="!(has(self.highestTierAllowed) && has(self.highestTierName))",message="must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously: keep one of them"
type NetworkTopologySpec struct {
	// mode is hard (the constraint must hold) or soft (it holds when possible).
	// +kubebuilder:default=hard
	// +optional
	Mode NetworkTopologyMode `json:"mode,omitempty"`

	// highestTierAllowed is the highest network tier the gang may span.
	// +kubebuilder:validation:Minimum=0
	// +optional
	HighestTierAllowed *int32 `json:"highestTierAllowed,omitempty"`

	// highestTierName is the name of the highest network tier the gang may span.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	HighestTierName string `json:"highestTierName,omitempty"`
}

// SubGroupPolicySpec is one sub-gang of a PodGroup.
type SubGroupPolicySpec struct {
	// name is the sub-gang's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// networkTopology constrains each sub-gang to a part of the network topology.
	// +optional
	NetworkTopology *NetworkTopologySpec `json:"networkTopology,omitempty"`

	// subGroupSize is the number of pods in each sub-gang.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	SubGroupSize *int32 `json:"subGroupSize,omitempty"`

	// minSubGroups is the number of sub-gangs that must be placed together.
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinSubGroups *int32 `json:"minSubGroups,omitempty"`

	// labelSelector selects the pods of this sub-gang.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// matchLabelKeys are the label keys whose values split the selected pods into sub-gangs.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=317
	// +listType=atomic
	// +optional
	MatchLabelKeys []string `json:"matchLabelKeys,omitempty"`
}

// PodGroupStatus is the observed state of a gang.
type PodGroupStatus struct {
	// phase is Pending, Inqueue, Running, Unknown or Completed.
	// +kubebuilder:validation:Enum=Pending;Inqueue;Running;Unknown;Completed
	// +optional
	Phase PodGroupPhase `json:"phase,omitempty"`

	// conditions say whether the gang is scheduled and, if not, why.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	Conditions []PodGroupCondition `json:"conditions,omitempty"`

	// running is the number of running pods.
	// +optional
	Running int32 `json:"running,omitempty"`

	// succeeded is the number of succeeded pods.
	// +optional
	Succeeded int32 `json:"succeeded,omitempty"`

	// failed is the number of failed pods.
	// +optional
	Failed int32 `json:"failed,omitempty"`
}

// +kubebuilder:object:root=true

// PodGroupList is a list of PodGroups.
type PodGroupList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of PodGroups.
	Items []PodGroup `json:"items"`
}

func init() {
	register(&PodGroup{}, &PodGroupList{})
}
