package main

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// page is shaped like the gateway's /metrics (client_golang's text output):
// typed families, a histogram, a sample with a timestamp, escaped label
// values, and families without # TYPE lines.
const page = `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 12
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 2.4576e+07
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 1.25
# HELP gateway_upstream_requests_total Upstream requests.
# TYPE gateway_upstream_requests_total counter
gateway_upstream_requests_total{endpoint="submissions",status="2xx",upstream="postgrest"} 40
gateway_upstream_requests_total{endpoint="auth",status="2xx",upstream="auth"} 2
gateway_upstream_requests_total{endpoint="submissions",status="5xx",upstream="postgrest"} 1 1700000000000
# TYPE gateway_upstream_request_duration_seconds histogram
gateway_upstream_request_duration_seconds_bucket{endpoint="submissions",upstream="postgrest",le="0.1"} 30
gateway_upstream_request_duration_seconds_bucket{endpoint="submissions",upstream="postgrest",le="+Inf"} 41
gateway_upstream_request_duration_seconds_sum{endpoint="submissions",upstream="postgrest"} 0.5
gateway_upstream_request_duration_seconds_count{endpoint="submissions",upstream="postgrest"} 41
gateway_upstream_request_duration_seconds_bucket{endpoint="auth",upstream="auth",le="0.1"} 2
gateway_upstream_request_duration_seconds_bucket{endpoint="auth",upstream="auth",le="+Inf"} 2
gateway_upstream_request_duration_seconds_sum{endpoint="auth",upstream="auth"} 0.25
gateway_upstream_request_duration_seconds_count{endpoint="auth",upstream="auth"} 2
untyped_sum{a="1"} 3

weird{a="x\"y\\z\nw",b="has } brace , comma"} NaN
`

func TestParseMetricsSums(t *testing.T) {
	m, err := ParseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		metric string
		match  map[string]string
		want   float64
	}{
		{"gauge", "go_goroutines", nil, 12},
		{"exponent", "process_resident_memory_bytes", nil, 24576000},
		{"counter", "process_cpu_seconds_total", nil, 1.25},
		{"sum over labels, timestamp ignored", "gateway_upstream_requests_total", nil, 43},
		{"filtered", "gateway_upstream_requests_total", map[string]string{"upstream": "postgrest"}, 41},
		{"filtered two labels", "gateway_upstream_requests_total", map[string]string{"upstream": "postgrest", "status": "2xx"}, 40},
		{"histogram _sum over labels", "gateway_upstream_request_duration_seconds_sum", nil, 0.75},
		{"histogram _sum filtered", "gateway_upstream_request_duration_seconds_sum", map[string]string{"upstream": "auth"}, 0.25},
		{"histogram _count", "gateway_upstream_request_duration_seconds_count", nil, 43},
		{"+Inf bucket by its le label", "gateway_upstream_request_duration_seconds_bucket", map[string]string{"le": "+Inf"}, 43},
		{"untyped family named _sum", "untyped_sum", nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := m.Sum(tt.metric, tt.match)
			if !found || got != tt.want {
				t.Errorf("Sum(%s, %v) = %v, %v; want %v, true", tt.metric, tt.match, got, found, tt.want)
			}
		})
	}
	if _, found := m.Sum("absent", nil); found {
		t.Error("Sum found an absent metric")
	}
	if _, found := m.Sum("gateway_upstream_requests_total", map[string]string{"upstream": "github"}); found {
		t.Error("Sum matched a label value no sample has")
	}
}

func TestParseMetricsEscapedLabels(t *testing.T) {
	m, err := ParseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var weird []Sample
	for _, s := range m {
		if s.Name == "weird" {
			weird = append(weird, s)
		}
	}
	if len(weird) != 1 {
		t.Fatalf("got %d samples named weird, want 1", len(weird))
	}
	if diff := cmp.Diff(map[string]string{"a": "x\"y\\z\nw", "b": "has } brace , comma"}, weird[0].Labels); diff != "" {
		t.Errorf("escaped labels (-want +got):\n%s", diff)
	}
	if !math.IsNaN(weird[0].Value) {
		t.Errorf("weird = %v, want NaN", weird[0].Value)
	}
}

func TestParseMetricsErrors(t *testing.T) {
	for _, in := range []string{
		"no_value\n",
		"bad_value abc\n",
		`unterminated{a="x} 1` + "\n",
		`no_quote{a=x} 1` + "\n",
		"too many fields 1 2 3\n",
		"# TYPE h histogram\nh_bucket{le=\"abc\"} 1\n",
	} {
		if _, err := ParseMetrics(strings.NewReader(in)); err == nil {
			t.Errorf("ParseMetrics(%q) succeeded", in)
		}
	}
}
