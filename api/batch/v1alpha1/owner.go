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

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// JobControllerOf returns the controller reference of o when a Job of this API controls it (as
// it does the pods and the PodGroup it makes), or nil.
func JobControllerOf(o metav1.Object) *metav1.OwnerReference {
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != "Job" || ref.APIVersion != GroupVersion.String() {
		return nil
	}
	return ref
}
