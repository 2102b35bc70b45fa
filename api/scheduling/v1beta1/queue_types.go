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

// QueueState is the state of a queue.
type QueueState string

const (
	// QueueStateOpen means the queue admits new jobs.
	QueueStateOpen QueueState = "Open"
	// QueueStateClosed means the queue admits nothing new and holds no PodGroups.
	QueueStateClosed QueueState = "Closed"
	// QueueStateClosing means the queue admits nothing new and still holds PodGroups.
	QueueStateClosing QueueState = "Closing"
	// QueueStateUnknown means the queue's state is not known.
	QueueStateUnknown QueueState = "Unknown"
)

const (
	// DefaultQueue is the queue of jobs and PodGroups that name none.
	DefaultQueue = "default"
	// RootQueue is the root of the queue hierarchy.
	RootQueue = "root"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=queues,scope=Cluster,shortName=q;queue-v1beta1
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="STATE",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="WEIGHT",type=integer,JSONPath=`.spec.weight`
// +kubebuilder:printcolumn:name="PARENT",type=string,JSONPath=`.spec.parent`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.parent) || self.spec.parent != self.metadata.name",message="queue cannot use itself as parent: name another queue, or leave spec.parent empty for root",fieldPath=".spec.parent"

// Queue is a cluster-wide share of resources that PodGroups are admitted into and scheduled
// from, by weight, with a hard capability and a guarantee.
type Queue struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the queue's share and limits.
	// +optional
	Spec QueueSpec `json:"spec,omitempty"`

	// status is the queue's observed state.
	// +optional
	Status QueueStatus `json:"status,omitempty"`
}

// QueueSpec is a queue's share and limits.
// +kubebuilder:validation:XValidation:rule="!has(self.deserved) || !has(self.capability) || self.deserved.all(k, !(k in self.capability) || (type(self.deserved[k]) == int ? quantity('0').add(int(self.deserved[k])) : quantity(self.deserved[k])).compareTo((type(self.capability[k]) == int ? quantity('0').add(int(self.capability[k])) : quantity(self.capability[k]))) <= 0)",message="deserved must be <= capability for every resource named in both: lower spec.deserved or raise spec.capability",fieldPath=".deserved",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.guarantee) || !has(self.guarantee.resource) || !has(self.deserved) || self.guarantee.resource.all(k, !(k in self.deserved) || (type(self.guarantee.resource[k]) == int ? quantity('0').add(int(self.guarantee.resource[k])) : quantity(self.guarantee.resource[k])).compareTo((type(self.deserved[k]) == int ? quantity('0').add(int(self.deserved[k])) : quantity(self.deserved[k]))) <= 0)",message="deserved must be >= guarantee for every resource named in both: raise spec.deserved or lower spec.guarantee.resource",fieldPath=".deserved",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.guarantee) || !has(self.guarantee.resource) || !has(self.capability) || self.guarantee.resource.all(k, !(k in self.capability) || (type(self.guarantee.resource[k]) == int ? quantity('0').add(int(self.guarantee.resource[k])) : quantity(self.guarantee.resource[k])).compareTo((type(self.capability[k]) == int ? quantity('0').add(int(self.capability[k])) : quantity(self.capability[k]))) <= 0)",message="guarantee must be <= capability for every resource named in both: lower spec.guarantee.resource or raise spec.capability",fieldPath=".guarantee",reason=FieldValueInvalid
type QueueSpec struct {
	// weight is the queue's share of the cluster relative to other queues, 1 to 65535.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Weight int32 `json:"weight,omitempty"`

	// capability is the most the queue may use, per resource; a resource not named is not capped.
	// At most 8 resources.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:validation:MaxProperties=8
	// +kubebuilder:validation:XValidation:rule="self.all(k, type(self[k]) == int ? int(self[k]) >= 0 : !self[k].startsWith('-'))",message="quantities must not be negative: give each resource 0 or more"
	// +optional
	Capability corev1.ResourceList `json:"capability,omitempty"`

	// reclaimable says whether other queues may reclaim what this queue uses beyond its
	// deserved share. Unset means true.
	// +kubebuilder:default=true
	// +optional
	Reclaimable *bool `json:"reclaimable,omitempty"`

	// extendClusters are clusters the queue's jobs may be forwarded to.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	ExtendClusters []Cluster `json:"extendClusters,omitempty"`

	// guarantee is what is reserved for the queue whatever others use.
	// +optional
	Guarantee Guarantee `json:"guarantee,omitempty"`

	// affinity places the queue's pods on node groups.
	// +optional
	Affinity *Affinity `json:"affinity,omitempty"`

	// type is the queue's type, free text kept for compatibility.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Type string `json:"type,omitempty"`

	// parent is the queue's parent in the queue hierarchy; unset means root.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || !format.dns1123Subdomain().validate(self).hasValue()",message="must be the name of a Queue: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +optional
	Parent string `json:"parent,omitempty"`

	// deserved is the queue's deserved share, per resource, used by the capacity plugin. At most
	// 8 resources; each must lie between guarantee and capability.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:validation:MaxProperties=8
	// +kubebuilder:validation:XValidation:rule="self.all(k, type(self[k]) == int ? int(self[k]) >= 0 : !self[k].startsWith('-'))",message="quantities must not be negative: give each resource 0 or more"
	// +optional
	Deserved corev1.ResourceList `json:"deserved,omitempty"`

	// priority orders queues: a higher priority queue is served first.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Priority int32 `json:"priority,omitempty"`

	// dequeueStrategy is how jobs leave the queue: fifo (the head blocks those behind it) or
	// traverse (a job that does not fit is passed over).
	// +kubebuilder:validation:Enum=fifo;traverse
	// +kubebuilder:default=traverse
	// +optional
	DequeueStrategy DequeueStrategy `json:"dequeueStrategy,omitempty"`
}

// DequeueStrategy is how jobs leave a queue.
type DequeueStrategy string

const (
	// DequeueFIFO means the head job blocks those behind it.
	DequeueFIFO DequeueStrategy = "fifo"
	// DequeueTraverse means a job that does not fit is passed over.
	DequeueTraverse DequeueStrategy = "traverse"
)

// Guarantee is what is reserved for a queue.
type Guarantee struct {
	// resource is the reserved amount per resource. At most 8 resources.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:validation:MaxProperties=8
	// +kubebuilder:validation:XValidation:rule="self.all(k, type(self[k]) == int ? int(self[k]) >= 0 : !self[k].startsWith('-'))",message="quantities must not be negative: give each resource 0 or more"
	// +optional
	Resource corev1.ResourceList `json:"resource,omitempty"`
}

// Cluster is a cluster a queue's jobs may be forwarded to.
type Cluster struct {
	// name is the cluster's name.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`

	// weight is the cluster's share.
	// +optional
	Weight int32 `json:"weight,omitempty"`

	// capacity is the cluster's capacity.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
}

// Affinity places a queue's pods on node groups (node label volcano.sh/nodegroup-name).
type Affinity struct {
	// nodeGroupAffinity names node groups the queue's pods go to.
	// +optional
	NodeGroupAffinity *NodeGroupAffinity `json:"nodeGroupAffinity,omitempty"`

	// nodeGroupAntiAffinity names node groups the queue's pods avoid.
	// +optional
	NodeGroupAntiAffinity *NodeGroupAntiAffinity `json:"nodeGroupAntiAffinity,omitempty"`
}

// NodeGroupAffinity names node groups a queue's pods go to.
type NodeGroupAffinity struct {
	// requiredDuringSchedulingIgnoredDuringExecution are node groups the pods must go to.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=atomic
	// +optional
	RequiredDuringSchedulingIgnoredDuringExecution []string `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`

	// preferredDuringSchedulingIgnoredDuringExecution are node groups the pods prefer.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=atomic
	// +optional
	PreferredDuringSchedulingIgnoredDuringExecution []string `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// NodeGroupAntiAffinity names node groups a queue's pods avoid.
type NodeGroupAntiAffinity struct {
	// requiredDuringSchedulingIgnoredDuringExecution are node groups the pods must avoid.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=atomic
	// +optional
	RequiredDuringSchedulingIgnoredDuringExecution []string `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`

	// preferredDuringSchedulingIgnoredDuringExecution are node groups the pods prefer to avoid.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=atomic
	// +optional
	PreferredDuringSchedulingIgnoredDuringExecution []string `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// Reservation is what is held back for a queue.
type Reservation struct {
	// nodes are the nodes locked for the queue.
	// +kubebuilder:validation:MaxItems=10000
	// +listType=atomic
	// +optional
	Nodes []string `json:"nodes,omitempty"`

	// resource is the idle resource on the locked nodes.
	// +optional
	Resource corev1.ResourceList `json:"resource,omitempty"`
}

// QueueStatus is the observed state of a queue.
type QueueStatus struct {
	// state is Open, Closed, Closing or Unknown.
	// +kubebuilder:validation:Enum=Open;Closed;Closing;Unknown
	// +optional
	State QueueState `json:"state,omitempty"`

	// unknown is the number of the queue's PodGroups in phase Unknown.
	// +optional
	Unknown int32 `json:"unknown,omitempty"`

	// pending is the number of the queue's PodGroups in phase Pending.
	// +optional
	Pending int32 `json:"pending,omitempty"`

	// running is the number of the queue's PodGroups in phase Running.
	// +optional
	Running int32 `json:"running,omitempty"`

	// inqueue is the number of the queue's PodGroups in phase Inqueue.
	// +optional
	Inqueue int32 `json:"inqueue,omitempty"`

	// completed is the number of the queue's PodGroups in phase Completed.
	// +optional
	Completed int32 `json:"completed,omitempty"`

	// reservation is what is held back for the queue.
	// +optional
	Reservation Reservation `json:"reservation,omitempty"`

	// allocated is what the queue's pods use now.
	// +optional
	Allocated corev1.ResourceList `json:"allocated,omitempty"`
}

// +kubebuilder:object:root=true

// QueueList is a list of Queues.
type QueueList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of Queues.
	Items []Queue `json:"items"`
}

func init() {
	register(&Queue{}, &QueueList{})
}
