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

// Package memlimit works out the Go runtime's soft memory limit from the container's memory
// limit. A manager that fills its caches (a burst of 100000 pods decoded at once) grows its heap
// to twice what it keeps before the collector runs; under a container limit, that peak is an
// OOM kill. With a soft limit below the container's, the collector runs sooner as the heap
// nears it, and the peak stays under the limit at the cost of some CPU.
package memlimit

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// Fraction is the share of the container's memory limit the Go heap may use: the rest is for
// what the runtime does not count (stacks, the binary, buffers the kernel charges).
const Fraction = 0.9

// cgroupFiles are where the container's memory limit is read: cgroup v2, then v1.
var cgroupFiles = []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"}

// unlimited is what cgroup v1 reports for no limit (the largest page-aligned int64), or more.
const unlimited = int64(1) << 62

// FromCgroup returns the soft memory limit for a container whose root file system is root
// (os.DirFS("/") in the manager): Fraction of its cgroup's memory limit. ok is false when the
// container has no memory limit or none can be read; the runtime's default (none) then stays.
func FromCgroup(root fs.FS) (limit int64, source string, ok bool, err error) {
	for _, name := range cgroupFiles {
		data, readErr := fs.ReadFile(root, name)
		if readErr != nil {
			continue
		}
		text := strings.TrimSpace(string(data))
		if text == "max" {
			return 0, "/" + name, false, nil
		}
		n, parseErr := strconv.ParseInt(text, 10, 64)
		if parseErr != nil || n <= 0 {
			return 0, "/" + name, false, fmt.Errorf("reading the memory limit from /%s: %q is not a number of bytes", name, text)
		}
		if n >= unlimited {
			return 0, "/" + name, false, nil
		}
		return int64(float64(n) * Fraction), "/" + name, true, nil
	}
	return 0, "", false, nil
}
