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

package scheduler

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestRefusedForGood(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	cases := map[string]struct {
		err  error
		want bool
	}{
		"gone":             {apierrors.NewNotFound(pods, "p"), true},
		"already assigned": {apierrors.NewConflict(pods, "p", fmt.Errorf("pod p is already assigned to node %q", "n1")), true},
		"gated (Invalid)": {apierrors.NewInvalid(schema.GroupKind{Kind: "Binding"}, "p",
			field.ErrorList{field.Forbidden(field.NewPath("spec", "schedulingGates"), "pod has scheduling gates")}), true},
		"gated (other status)": {apierrors.NewInternalError(errors.New("pod p has non-empty .spec.schedulingGates")), true},
		"timeout":              {apierrors.NewTimeoutError("slow", 1), false},
		"throttled":            {apierrors.NewTooManyRequests("busy", 1), false},
		"server error":         {apierrors.NewInternalError(errors.New("etcd unavailable")), false},
		"network":              {errors.New("connection refused"), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := refusedForGood(tc.err); got != tc.want {
				t.Errorf("refusedForGood(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
