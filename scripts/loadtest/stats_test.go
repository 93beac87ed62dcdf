package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(i + 1)
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample", []time.Duration{ms(7)}, 99, ms(7)},
		{"p50 of 1..100", hundred, 50, ms(50)},
		{"p95 of 1..100", hundred, 95, ms(95)},
		{"p99 of 1..100", hundred, 99, ms(99)},
		{"p100 is the max", hundred, 100, ms(100)},
		{"tiny p is the min", hundred, 0.001, ms(1)},
		{"p50 of four rounds up the rank", []time.Duration{ms(1), ms(2), ms(3), ms(4)}, 50, ms(2)},
		{"p99 of ten is the max", []time.Duration{ms(1), ms(2), ms(3), ms(4), ms(5), ms(6), ms(7), ms(8), ms(9), ms(10)}, 99, ms(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	samples := []time.Duration{ms(5), ms(1), ms(4), ms(2), ms(3)}
	got := Summarize(samples)
	want := Summary{Count: 5, P50: ms(3), P95: ms(5), P99: ms(5), Max: ms(5)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summarize (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Summary{}, Summarize(nil)); diff != "" {
		t.Errorf("Summarize(nil) (-want +got):\n%s", diff)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.in...)
		if got := Median(in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if diff := cmp.Diff(tt.in, in); diff != "" {
			t.Errorf("Median changed its input:\n%s", diff)
		}
	}
}
