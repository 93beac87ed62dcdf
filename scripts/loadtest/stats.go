package main

import (
	"slices"
	"time"
)

// Summary condenses the latencies of one run.
type Summary struct {
	Count         int
	P50, P95, P99 time.Duration
	Max           time.Duration
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of sorted by the
// nearest-rank method: the smallest sample with at least p % of the
// samples at or below it. It returns 0 for no samples.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(p / 100 * float64(n))
	if float64(rank) < p/100*float64(n) {
		rank++ // ceil
	}
	rank = max(rank, 1)
	return sorted[min(rank, n)-1]
}

// Summarize sorts samples in place and returns their percentiles.
func Summarize(samples []time.Duration) Summary {
	slices.Sort(samples)
	s := Summary{Count: len(samples)}
	if len(samples) == 0 {
		return s
	}
	s.P50 = Percentile(samples, 50)
	s.P95 = Percentile(samples, 95)
	s.P99 = Percentile(samples, 99)
	s.Max = samples[len(samples)-1]
	return s
}

// Median returns the median of xs (the mean of the middle two for an even
// count), leaving xs unchanged; 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
