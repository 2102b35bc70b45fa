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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestFormatTable(t *testing.T) {
	cases := []struct {
		name   string
		header []string
		rows   [][]string
		want   string
	}{
		{
			name:   "header only",
			header: []string{"Name", "Weight"},
			want:   "Name   Weight\n",
		},
		{
			name:   "columns as wide as their widest cell plus three spaces, last column unpadded",
			header: []string{"Name", "Phase", "Min"},
			rows:   [][]string{{"a-long-name", "Running", "1"}, {"b", "", "10"}},
			want: "" +
				"Name          Phase     Min\n" +
				"a-long-name   Running   1\n" +
				"b                       10\n",
		},
		{
			name:   "short rows padded with empty cells, no trailing spaces",
			header: []string{"A", "B", "C"},
			rows:   [][]string{{"x"}},
			want:   "A   B   C\nx\n",
		},
		{
			name:   "width counts runes",
			header: []string{"Name", "X"},
			rows:   [][]string{{"héllo", "1"}},
			want:   "Name    X\nhéllo   1\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, formatTable(tc.header, tc.rows)); diff != "" {
				t.Errorf("formatTable (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAge(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		t    time.Time
		want string
	}{
		{"zero", time.Time{}, "<unknown>"},
		{"seconds", now.Add(-45 * time.Second), "45s"},
		{"minutes and seconds", now.Add(-3*time.Minute - 20*time.Second), "3m20s"},
		{"days", now.Add(-5 * 24 * time.Hour), "5d"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, age(now, tc.t)); diff != "" {
				t.Errorf("age (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatResourcesAndMap(t *testing.T) {
	rl := corev1.ResourceList{
		corev1.ResourceMemory: resource.MustParse("100Mi"),
		corev1.ResourceCPU:    resource.MustParse("1000m"),
		"nvidia.com/gpu":      resource.MustParse("2"),
	}
	if diff := cmp.Diff("cpu=1,memory=100Mi,nvidia.com/gpu=2", formatResources(rl)); diff != "" {
		t.Errorf("formatResources (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("", formatResources(nil)); diff != "" {
		t.Errorf("formatResources(nil) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("a=1,b=2", formatMap(map[string]string{"b": "2", "a": "1"})); diff != "" {
		t.Errorf("formatMap (-want +got):\n%s", diff)
	}
}
