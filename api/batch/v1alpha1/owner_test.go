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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestJobControllerOf(t *testing.T) {
	owned := func(apiVersion, kind string, controller bool) *metav1.ObjectMeta {
		return &metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: "j", UID: "u", Controller: &controller}}}
	}
	for _, tc := range []struct {
		name string
		o    *metav1.ObjectMeta
		want bool
	}{
		{name: "no owner", o: &metav1.ObjectMeta{}},
		{name: "a Volcano job", o: owned("batch.volcano.sh/v1alpha1", "Job", true), want: true},
		{name: "a Volcano job that owns but does not control", o: owned("batch.volcano.sh/v1alpha1", "Job", false)},
		{name: "a Kubernetes job", o: owned("batch/v1", "Job", true)},
		{name: "another kind of the group", o: owned("batch.volcano.sh/v1alpha1", "CronJob", true)},
		{name: "an unreadable API version", o: owned("a/b/c", "Job", true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := JobControllerOf(tc.o) != nil; got != tc.want {
				t.Errorf("JobControllerOf() != nil is %v, want %v", got, tc.want)
			}
		})
	}
}
