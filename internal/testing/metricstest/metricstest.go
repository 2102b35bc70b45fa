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

// Package metricstest reads Prometheus metrics for tests, from collectors or from a /metrics
// endpoint, as one flat map: "name{label="value",...}" (labels sorted) -> value, a histogram
// giving its _count and _sum.
package metricstest

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Gather registers the collectors on a new pedantic registry and returns their series.
func Gather(collectors ...prometheus.Collector) (map[string]float64, error) {
	reg := prometheus.NewPedanticRegistry()
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering: %w", err)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		return nil, fmt.Errorf("gathering: %w", err)
	}
	return Flatten(families), nil
}

// Scrape reads the Prometheus text endpoint at url (plain HTTP, no token).
func Scrape(ctx context.Context, url string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", url, err)
	}
	list := make([]*dto.MetricFamily, 0, len(families))
	for _, f := range families {
		list = append(list, f)
	}
	return Flatten(list), nil
}

// Flatten turns metric families into series.
func Flatten(families []*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := labelString(m.GetLabel())
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[f.GetName()+labels] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[f.GetName()+labels] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[f.GetName()+"_count"+labels] = float64(m.GetHistogram().GetSampleCount())
				out[f.GetName()+"_sum"+labels] = m.GetHistogram().GetSampleSum()
			case dto.MetricType_UNTYPED:
				out[f.GetName()+labels] = m.GetUntyped().GetValue()
			}
		}
	}
	return out
}

// labelString is `{a="1",b="2"}` with the pairs sorted, or "" without labels.
func labelString(pairs []*dto.LabelPair) string {
	if len(pairs) == 0 {
		return ""
	}
	parts := make([]string, 0, len(pairs))
	for _, p := range pairs {
		parts = append(parts, p.GetName()+`="`+p.GetValue()+`"`)
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}
