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

package memlimit

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestFromCgroup(t *testing.T) {
	type result struct {
		Limit  int64
		Source string
		OK     bool
		Err    bool
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  result
	}{
		{"cgroup v2 with a 2Gi limit", map[string]string{"sys/fs/cgroup/memory.max": "2147483648\n"},
			result{Limit: 1932735283, Source: "/sys/fs/cgroup/memory.max", OK: true}},
		{"cgroup v2 without a limit", map[string]string{"sys/fs/cgroup/memory.max": "max\n"},
			result{Source: "/sys/fs/cgroup/memory.max"}},
		{"cgroup v1 with a 1Gi limit", map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824\n"},
			result{Limit: 966367641, Source: "/sys/fs/cgroup/memory/memory.limit_in_bytes", OK: true}},
		{"cgroup v1 without a limit", map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"},
			result{Source: "/sys/fs/cgroup/memory/memory.limit_in_bytes"}},
		{"v2 is read before v1", map[string]string{"sys/fs/cgroup/memory.max": "1000", "sys/fs/cgroup/memory/memory.limit_in_bytes": "2000"},
			result{Limit: 900, Source: "/sys/fs/cgroup/memory.max", OK: true}},
		{"not in a cgroup", map[string]string{}, result{}},
		{"garbage", map[string]string{"sys/fs/cgroup/memory.max": "lots"}, result{Source: "/sys/fs/cgroup/memory.max", Err: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := fstest.MapFS{}
			for name, data := range tc.files {
				root[name] = &fstest.MapFile{Data: []byte(data)}
			}
			limit, source, ok, err := FromCgroup(root)
			got := result{Limit: limit, Source: source, OK: ok, Err: err != nil}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FromCgroup (-want +got):\n%s", diff)
			}
		})
	}
}
