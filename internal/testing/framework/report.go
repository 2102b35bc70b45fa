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
	"os"
	"strings"

	"github.com/onsi/ginkgo/v2"
)

// failureMessageLines is how many lines of each failure's message ReportFailures prints.
const failureMessageLines = 12

// ReportFailures prints, once a suite has run, each spec that failed with where and why, a few
// lines each, right before Ginkgo's summary. That summary names only where, and a CI log is read
// from its end. Every suite registers it:
//
//	var _ = ReportAfterSuite("failures, with their messages", framework.ReportFailures)
func ReportFailures(r ginkgo.Report) {
	if s := Failures(r); s != "" {
		fmt.Fprint(os.Stdout, s)
	}
}

// Failures is what ReportFailures prints: "" when no spec failed.
func Failures(r ginkgo.Report) string {
	var b strings.Builder
	for _, s := range r.SpecReports {
		if !s.Failed() {
			continue
		}
		name := s.FullText()
		if name == "" {
			name = s.LeafNodeType.String()
		}
		fmt.Fprintf(&b, "FAILED: %s [%s]\n  at %s\n", name, s.Failure.FailureNodeType, s.Failure.Location)
		lines := strings.Split(strings.TrimSpace(s.Failure.Message), "\n")
		if len(lines) > failureMessageLines {
			lines = append(lines[:failureMessageLines], fmt.Sprintf("(%d more lines)", len(lines)-failureMessageLines))
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "  | %s\n", l)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nFailures, with their messages:\n" + b.String()
}
