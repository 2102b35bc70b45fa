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

package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/scheduler/api"
)

func task(ns, name, class string) *api.TaskInfo {
	return &api.TaskInfo{Namespace: ns, Name: name, Pod: &corev1.Pod{Spec: corev1.PodSpec{PriorityClassName: class}}}
}

func TestEvictable(t *testing.T) {
	candidates := []*api.TaskInfo{
		task("kube-system", "dns", ""),
		task("team", "node-agent", "system-node-critical"),
		task("team", "controller", "system-cluster-critical"),
		task("team", "batch", "low"),
		task("team", "plain", ""),
	}
	var got []string
	for _, v := range Evictable(candidates) {
		got = append(got, v.Name)
	}
	if diff := cmp.Diff([]string{"batch", "plain"}, got); diff != "" {
		t.Errorf("victims mismatch (-want +got):\n%s", diff)
	}
}
