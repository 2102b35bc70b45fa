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

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// requestCounts are the requests an API server served, by "verb resource[/subresource]", from its
// metric apiserver_request_total.
type requestCounts map[string]float64

// apiRequests reads the API server's request counts.
func apiRequests(ctx context.Context, kube kubernetes.Interface) (requestCounts, error) {
	body, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parsing the API server's metrics: %w", err)
	}
	counts := requestCounts{}
	family := families["apiserver_request_total"]
	if family == nil {
		return counts, nil
	}
	for _, m := range family.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		key := labels["verb"] + " " + labels["resource"]
		if sub := labels["subresource"]; sub != "" {
			key += "/" + sub
		}
		counts[key] += m.GetCounter().GetValue()
	}
	return counts, nil
}

// minus is what c counted beyond earlier.
func (c requestCounts) minus(earlier requestCounts) requestCounts {
	d := requestCounts{}
	for k, v := range c {
		if n := v - earlier[k]; n > 0 {
			d[k] = n
		}
	}
	return d
}

// top lists the n most frequent requests, most frequent first: "PATCH pods/status 10000, ...".
func (c requestCounts) top(n int) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c[a] != c[b] {
			if c[a] > c[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + strconv.FormatFloat(c[k], 'f', 0, 64)
	}
	return strings.Join(parts, ", ")
}

// cpuTime is the CPU time a running process has used, user and system, from /proc/<pid>/stat.
func cpuTime(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses and may hold spaces: utime and
	// stime are the 14th and 15th fields of the line, the 12th and 13th after the name.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		t, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("unreadable /proc/%d/stat: %w", pid, err)
		}
		ticks += t
	}
	// Linux reports these in USER_HZ, 100 per second on every architecture Go runs on.
	return time.Duration(ticks) * time.Second / 100, nil
}

// cycleTotals reads from the manager's metrics how many scheduling cycles it ran and how long they
// took in all.
func cycleTotals(ctx context.Context, dir string) (uint64, time.Duration, error) {
	families, err := scrape(ctx, dir, "metrics.txt")
	if err != nil {
		return 0, 0, err
	}
	h, err := cycleHistogram(families)
	if err != nil {
		return 0, 0, err
	}
	return h.GetSampleCount(), time.Duration(h.GetSampleSum() * float64(time.Millisecond)), nil
}
