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
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// noResources is what a list prints when nothing matched, as Volcano's does.
const noResources = "No resources found\n"

// columnGap is the number of spaces between two columns.
const columnGap = 3

// formatTable lays out a header and rows as left-aligned columns, each as wide as its widest
// cell plus columnGap spaces; the last column is not padded, so lines carry no trailing spaces.
// A row shorter than the header is padded with empty cells.
func formatTable(header []string, rows [][]string) string {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, row := range rows {
		for i := 0; i < len(row) && i < len(widths); i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(row[i]))
		}
	}
	var b strings.Builder
	writeRow := func(row []string) {
		var line strings.Builder
		for i := range widths {
			cell := ""
			if i < len(row) {
				cell = row[i]
			}
			line.WriteString(cell)
			if i < len(widths)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+columnGap))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	writeRow(header)
	for _, row := range rows {
		writeRow(row)
	}
	return b.String()
}

// writePadded writes one line of cells, each left-aligned and padded with spaces to its width
// as fmt's %-<width>s does (Volcano's way: the last cell is padded too, and a cell wider than
// its column is written whole, running into the next).
func writePadded(b *strings.Builder, widths []int, cells []string) {
	for i, cell := range cells {
		b.WriteString(cell)
		if i < len(widths) {
			b.WriteString(strings.Repeat(" ", max(0, widths[i]-len(cell))))
		}
	}
	b.WriteByte('\n')
}

// age is how long ago t was, in kubectl's short form ("45s", "3m20s", "5d"); "<unknown>" for
// a zero time.
func age(now time.Time, t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// orNone returns s, or "<none>" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// formatMap renders a string map as k=v pairs sorted by key, joined by commas.
func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

// formatResources renders a resource list as name=quantity pairs sorted by name, the form the
// -R and -L flags take.
func formatResources(rl corev1.ResourceList) string {
	names := make([]string, 0, len(rl))
	for name := range rl {
		names = append(names, string(name))
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, name := range names {
		q := rl[corev1.ResourceName(name)]
		parts = append(parts, name+"="+q.String())
	}
	return strings.Join(parts, ",")
}
