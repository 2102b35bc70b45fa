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

package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"
)

func TestFormatVersion(t *testing.T) {
	cases := []struct {
		name string
		info versionInfo
		want string
	}{
		{
			name: "release build",
			info: versionInfo{apiVersion: "v1alpha1", version: "v0.3.0", commit: "abc123", buildTime: "2026-03-01T12:00:00Z",
				goVersion: "go1.26.8", platform: "linux/amd64"},
			want: "" +
				"API Version:  v1alpha1\n" +
				"Version:      v0.3.0\n" +
				"Git SHA:      abc123\n" +
				"Built At:     2026-03-01T12:00:00Z\n" +
				"Go Version:   go1.26.8\n" +
				"Go OS/Arch:   linux/amd64\n",
		},
		{
			name: "development build",
			info: versionInfo{apiVersion: "v1alpha1", version: "(devel)", goVersion: "go1.26.8", platform: "darwin/arm64"},
			want: "" +
				"API Version:  v1alpha1\n" +
				"Version:      <unknown>\n" +
				"Git SHA:      <unknown>\n" +
				"Built At:     <unknown>\n" +
				"Go Version:   go1.26.8\n" +
				"Go OS/Arch:   darwin/arm64\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, formatVersion(tc.info)); diff != "" {
				t.Errorf("formatVersion (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAPIError(t *testing.T) {
	jobs := schema.GroupResource{Group: "batch.volcano.sh", Resource: "jobs"}
	cases := []struct {
		name     string
		err      error
		notFound string
		want     string
	}{
		{name: "no error"},
		{
			name:     "not found, with advice",
			err:      apierrors.NewNotFound(jobs, "x"),
			notFound: "job default/x not found: check -N/--name and -n/--namespace",
			want:     "job default/x not found: check -N/--name and -n/--namespace",
		},
		{
			name: "not found, without advice",
			err:  apierrors.NewNotFound(jobs, "x"),
			want: `reading job default/x: jobs.batch.volcano.sh "x" not found`,
		},
		{
			name: "API not served",
			err:  &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "batch.volcano.sh", Kind: "Job"}, SearchedVersions: []string{"v1alpha1"}},
			want: `reading job default/x: the cluster does not serve this API (no matches for kind "Job" in version "batch.volcano.sh/v1alpha1"): ` +
				"install Caldera's CRDs (config/crd) or point -k/--kubeconfig at a cluster running Caldera",
		},
		{
			name: "forbidden",
			err:  apierrors.NewForbidden(jobs, "x", errors.New("no")),
			want: "reading job default/x: forbidden (Forbidden): ask for RBAC permission, or use a kubeconfig (-k) that has it",
		},
		{
			name: "unauthorized",
			err:  apierrors.NewUnauthorized("expired"),
			want: "reading job default/x: the API server did not accept the credentials: refresh the kubeconfig (-k/--kubeconfig)",
		},
		{
			name: "invalid, with the fields named",
			err: apierrors.NewInvalid(schema.GroupKind{Group: "batch.volcano.sh", Kind: "Job"}, "x", fieldpath.ErrorList{
				fieldpath.Invalid(fieldpath.NewPath("spec", "minAvailable"), 5, "must not be greater than the sum of replicas"),
				fieldpath.Required(fieldpath.NewPath("spec", "tasks"), "add a task"),
			}),
			want: "reading job default/x: the API server refused it: spec.minAvailable: Invalid value: 5: must not be greater than the sum of replicas; " +
				"spec.tasks: Required value: add a task",
		},
		{
			name: "anything else is wrapped",
			err:  fmt.Errorf("connection refused"),
			want: "reading job default/x: connection refused",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := apiError("reading job default/x", tc.err, tc.notFound)
			if diff := cmp.Diff(tc.want, errText(got)); diff != "" {
				t.Errorf("apiError (-want +got):\n%s", diff)
			}
		})
	}
}
