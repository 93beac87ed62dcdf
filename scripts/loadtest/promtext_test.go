package main

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const page = `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 12
process_resident_memory_bytes 2.4576e+07
process_cpu_seconds_total 1.25
gateway_upstream_requests_total{endpoint="submissions",status="2xx",upstream="postgrest"} 40
gateway_upstream_requests_total{endpoint="auth",status="2xx",upstream="auth"} 2
gateway_upstream_requests_total{endpoint="submissions",status="5xx",upstream="postgrest"} 1 1700000000000
gateway_upstream_request_duration_seconds_bucket{endpoint="submissions",upstream="postgrest",le="+Inf"} 41
gateway_upstream_request_duration_seconds_sum{endpoint="submissions",upstream="postgrest"} 0.5

weird{a="x\"y\\z\nw", b = "has } brace , comma"} NaN
`

func TestParseMetrics(t *testing.T) {
	m, err := ParseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	sum := func(name string, match map[string]string) float64 {
		v, _ := m.Sum(name, match)
		return v
	}
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"gauge", sum("go_goroutines", nil), 12},
		{"exponent", sum("process_resident_memory_bytes", nil), 24576000},
		{"sum over labels", sum("gateway_upstream_requests_total", nil), 43},
		{"filtered", sum("gateway_upstream_requests_total", map[string]string{"upstream": "postgrest"}), 41},
		{"filtered two labels", sum("gateway_upstream_requests_total", map[string]string{"upstream": "postgrest", "status": "2xx"}), 40},
		{"+Inf label value is only a label", sum("gateway_upstream_request_duration_seconds_bucket", map[string]string{"le": "+Inf"}), 41},
		{"histogram sum", sum("gateway_upstream_request_duration_seconds_sum", nil), 0.5},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if _, found := m.Sum("absent", nil); found {
		t.Error("Sum found an absent metric")
	}
	var weird Sample
	for _, s := range m {
		if s.Name == "weird" {
			weird = s
		}
	}
	if diff := cmp.Diff(map[string]string{"a": "x\"y\\z\nw", "b": "has } brace , comma"}, weird.Labels); diff != "" {
		t.Errorf("escaped labels (-want +got):\n%s", diff)
	}
	if !math.IsNaN(weird.Value) {
		t.Errorf("weird = %v, want NaN", weird.Value)
	}
}

func TestParseMetricsErrors(t *testing.T) {
	for _, in := range []string{
		"no_value\n",
		"bad_value abc\n",
		`unterminated{a="x} 1` + "\n",
		`no_quote{a=x} 1` + "\n",
		"too many fields 1 2 3\n",
	} {
		if _, err := ParseMetrics(strings.NewReader(in)); err == nil {
			t.Errorf("ParseMetrics(%q) succeeded", in)
		}
	}
}
