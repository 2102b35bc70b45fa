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

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=jobtemplates,shortName=jt
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// JobTemplate is the spec of a Job that JobFlows create jobs from. It is Volcano's
// flow.volcano.sh/v1alpha1 JobTemplate, field for field, plus kstatus conditions.
type JobTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the spec of the jobs made from this template, checked as a Job's spec is.
	// +optional
	Spec batchv1alpha1.JobSpec `json:"spec,omitempty"`

	// status lists the jobs made from this template.
	// +optional
	Status JobTemplateStatus `json:"status,omitempty"`
}

// JobTemplateStatus is the observed state of a JobTemplate.
type JobTemplateStatus struct {
	// jobDependsOnList are the jobs made from this template, by name.
	// +listType=atomic
	// +optional
	JobDependsOnList []string `json:"jobDependsOnList,omitempty"`

	// observedGeneration is the spec generation the controller last took up.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are the template's standard conditions: Ready (kstatus).
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true

// JobTemplateList is a list of JobTemplates.
type JobTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of JobTemplates.
	Items []JobTemplate `json:"items"`
}

func init() {
	register(&JobTemplate{}, &JobTemplateList{})
}
