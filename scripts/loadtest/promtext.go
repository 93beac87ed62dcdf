package main

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sample is one series of a metrics page at the moment it was read.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Metrics is a parsed /metrics page.
type Metrics []Sample

// metricsAccept asks promhttp for the text format, the one ParseMetrics
// reads.
const metricsAccept = "text/plain;version=0.0.4"

// ParseMetrics reads a page in the Prometheus text format with expfmt's
// parser and flattens it into series as Prometheus stores them: a histogram
// becomes its _bucket, _sum and _count series and a summary its quantiles,
// _sum and _count, so a figure such as
// gateway_upstream_request_duration_seconds_sum is found by the name on
// the page whether or not the family is declared with # TYPE.
func ParseMetrics(r io.Reader) (Metrics, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	vec, err := expfmt.ExtractSamples(&expfmt.DecodeOptions{Timestamp: model.Now()}, slices.Collect(maps.Values(fams))...)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	out := make(Metrics, 0, len(vec))
	for _, s := range vec {
		labels := make(map[string]string, len(s.Metric))
		for k, v := range s.Metric {
			if k != model.MetricNameLabel {
				labels[string(k)] = string(v)
			}
		}
		out = append(out, Sample{Name: string(s.Metric[model.MetricNameLabel]), Labels: labels, Value: float64(s.Value)})
	}
	return out, nil
}

// Sum adds the values of every sample called name whose labels include
// all of match. found is false when no sample matched.
func (m Metrics) Sum(name string, match map[string]string) (sum float64, found bool) {
	for _, s := range m {
		if s.Name != name {
			continue
		}
		ok := true
		for k, v := range match {
			if s.Labels[k] != v {
				ok = false
				break
			}
		}
		if ok {
			sum += s.Value
			found = true
		}
	}
	return sum, found
}
