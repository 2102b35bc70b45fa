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

package framework

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

func TestFailures(t *testing.T) {
	var long []string
	for i := range 14 {
		long = append(long, fmt.Sprintf("line %d", i))
	}
	passed := types.SpecReport{ContainerHierarchyTexts: []string{"Caldera"}, LeafNodeText: "runs", State: types.SpecStatePassed}
	failed := types.SpecReport{
		ContainerHierarchyTexts: []string{"Caldera installed"}, LeafNodeText: "runs a job", State: types.SpecStateFailed,
		Failure: types.Failure{
			Message:         "Expected success, got: queue q can not be deleted\n",
			Location:        types.CodeLocation{FileName: "/e2e/install_test.go", LineNumber: 73},
			FailureNodeType: types.NodeTypeCleanupAfterEach,
		},
	}
	timedOut := types.SpecReport{
		LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateTimedout,
		Failure: types.Failure{Message: strings.Join(long, "\n"), Location: types.CodeLocation{FileName: "/e2e/suite_test.go", LineNumber: 9},
			FailureNodeType: types.NodeTypeBeforeSuite},
	}
	for name, tc := range map[string]struct {
		specs types.SpecReports
		want  string
	}{
		"nothing failed": {specs: types.SpecReports{passed}},
		"a failed cleanup and a timed-out BeforeSuite, the long message cut": {
			specs: types.SpecReports{passed, failed, timedOut},
			want: "\nFailures, with their messages:\n" +
				"FAILED: Caldera installed runs a job [DeferCleanup (Each)]\n  at /e2e/install_test.go:73\n" +
				"  | Expected success, got: queue q can not be deleted\n" +
				"FAILED: BeforeSuite [BeforeSuite]\n  at /e2e/suite_test.go:9\n" +
				"  | line 0\n  | line 1\n  | line 2\n  | line 3\n  | line 4\n  | line 5\n  | line 6\n  | line 7\n  | line 8\n  | line 9\n  | line 10\n  | line 11\n" +
				"  | (2 more lines)\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Failures(ginkgo.Report{SpecReports: tc.specs})); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
