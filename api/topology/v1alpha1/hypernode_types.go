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

// MemberType is the kind of a HyperNode's member.
// +kubebuilder:validation:Enum=Node;HyperNode
type MemberType string

const (
	// MemberTypeNode means the member is a node.
	MemberTypeNode MemberType = "Node"
	// MemberTypeHyperNode means the member is another HyperNode, of a lower tier.
	MemberTypeHyperNode MemberType = "HyperNode"
)

const (
	// ConditionReady is True when every member selector of the HyperNode could be read.
	ConditionReady = "Ready"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=hypernodes,scope=Cluster,shortName=hn
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Tier",type=string,JSONPath=`.spec.tier`
// +kubebuilder:printcolumn:name="TierName",type=string,JSONPath=`.spec.tierName`
// +kubebuilder:printcolumn:name="NodeCount",type=integer,JSONPath=`.status.nodeCount`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// HyperNode is a network domain: nodes, or lower-tier HyperNodes, that are close to each other
// (an NVLink domain, a rack, a block of racks). Jobs with a networkTopology are placed within
// one HyperNode of a tier they allow.
type HyperNode struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the HyperNode's tier and members.
	// +optional
	Spec HyperNodeSpec `json:"spec"`

	// status is what the controller observed: how many nodes the HyperNode holds.
	// +optional
	Status HyperNodeStatus `json:"status,omitempty"`
}

// HyperNodeSpec is a HyperNode's tier and members.
// +kubebuilder:validation:XValidation:rule="!has(self.members) || self.members.all(m, m.type == 'Node' || !has(m.selector.labelMatch))",message="spec.members[*].selector.labelMatch selects nodes by their labels: use it only in members of type Node, or name HyperNodes with exactMatch or regexMatch",fieldPath=".members",reason=FieldValueInvalid
type HyperNodeSpec struct {
	// tier is the HyperNode's level: 1 for the closest domains (whose members are nodes),
	// higher for domains made of lower-tier HyperNodes.
	// +kubebuilder:validation:Minimum=0
	// +required
	Tier int `json:"tier,omitempty"`

	// tierName names the tier (for example rack or block); a job's
	// networkTopology.highestTierName refers to it.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	TierName string `json:"tierName,omitempty"`

	// members are the nodes or HyperNodes the HyperNode is made of, each chosen by a selector.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1024
	// +listType=atomic
	// +optional
	Members []MemberSpec `json:"members,omitempty"`
}

// MemberSpec is one member selector of a HyperNode.
type MemberSpec struct {
	// type is what the selector chooses: Node or HyperNode.
	// +required
	Type MemberType `json:"type,omitempty"`

	// selector chooses the members by exact name, by a regular expression on the name, or (for
	// nodes) by labels.
	// +optional
	Selector MemberSelector `json:"selector,omitempty"`
}

// MemberSelector chooses members in exactly one way.
// +kubebuilder:validation:XValidation:rule="has(self.exactMatch) || has(self.regexMatch) || has(self.labelMatch)",message="Either ExactMatch or RegexMatch or LabelMatch must be specified"
// +kubebuilder:validation:XValidation:rule="(has(self.exactMatch) ? 1 : 0) + (has(self.regexMatch) ? 1 : 0) + (has(self.labelMatch) ? 1 : 0) <= 1",message="Only one of ExactMatch, RegexMatch, or LabelMatch can be specified"
type MemberSelector struct {
	// exactMatch chooses the member of this name.
	// +optional
	ExactMatch *ExactMatch `json:"exactMatch,omitempty"`

	// regexMatch chooses the members whose names match a regular expression.
	// +optional
	RegexMatch *RegexMatch `json:"regexMatch,omitempty"`

	// labelMatch chooses the nodes whose labels match (members of type Node only).
	// +optional
	LabelMatch *metav1.LabelSelector `json:"labelMatch,omitempty"`
}

// ExactMatch chooses a member by name.
type ExactMatch struct {
	// name is the member's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +required
	Name string `json:"name"`
}

// RegexMatch chooses members by a regular expression on their names (RE2 syntax, as Go reads it).
type RegexMatch struct {
	// pattern is the regular expression member names must match.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +required
	Pattern string `json:"pattern"`
}

// HyperNodeStatus is what the controller observed of a HyperNode.
type HyperNodeStatus struct {
	// conditions are the HyperNode's Ready condition: False, naming the field, when a member
	// selector cannot be read.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// nodeCount is how many nodes the HyperNode holds, through its member HyperNodes too.
	// +kubebuilder:validation:Minimum=0
	// +optional
	NodeCount int64 `json:"nodeCount,omitempty"`
}

// +kubebuilder:object:root=true

// HyperNodeList is a list of HyperNodes.
type HyperNodeList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the HyperNodes.
	Items []HyperNode `json:"items"`
}
