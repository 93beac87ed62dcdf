package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
)

// MergeRepeats combines repeated runs of one scenario at one concurrency:
// each figure is the median over the repeats, errors and requests are
// summed, and RPSMin/RPSMax keep the spread of throughput.
func MergeRepeats(rs []LoadResult) Merged {
	m := Merged{Repeats: len(rs)}
	if len(rs) == 0 {
		return m
	}
	m.Scenario, m.Concurrency = rs[0].Scenario, rs[0].Concurrency
	col := func(f func(LoadResult) float64) float64 {
		xs := make([]float64, 0, len(rs))
		for _, r := range rs {
			if v := f(r); v >= 0 {
				xs = append(xs, v)
			}
		}
		if len(xs) == 0 {
			return -1
		}
		return Median(xs)
	}
	m.RPS = col(LoadResult.RPS)
	m.RPSMin, m.RPSMax = rs[0].RPS(), rs[0].RPS()
	for _, r := range rs {
		m.Requests += r.Requests
		m.Errors += r.Errors
		if m.FirstError == "" {
			m.FirstError = r.FirstError
		}
		m.RPSMin, m.RPSMax = min(m.RPSMin, r.RPS()), max(m.RPSMax, r.RPS())
	}
	ms := func(f func(LoadResult) float64) float64 { return col(f) * 1000 }
	m.P50ms = ms(func(r LoadResult) float64 { return r.Latency.P50.Seconds() })
	m.P95ms = ms(func(r LoadResult) float64 { return r.Latency.P95.Seconds() })
	m.P99ms = ms(func(r LoadResult) float64 { return r.Latency.P99.Seconds() })
	m.CPUms = msOrNA(col(func(r LoadResult) float64 { return r.CPUPerRequest }))
	m.UpstreamPerCall = col(func(r LoadResult) float64 { return r.UpstreamPerRequest })
	m.UpstreamMs = msOrNA(col(func(r LoadResult) float64 { return r.UpstreamSecPerReq }))
	m.ClientCPUms = msOrNA(col(func(r LoadResult) float64 { return r.ClientCPUPerReq }))
	m.PeakRSS = -1
	for _, r := range rs {
		m.PeakRSS = max(m.PeakRSS, r.PeakRSS)
	}
	return m
}

func msOrNA(s float64) float64 {
	if s < 0 {
		return -1
	}
	return s * 1000
}

// Merged is one row of the load table. Negative figures are unknown.
type Merged struct {
	Scenario             string
	Concurrency, Repeats int
	Requests, Errors     int
	FirstError           string
	RPS, RPSMin, RPSMax  float64
	P50ms, P95ms, P99ms  float64
	CPUms                float64 // gateway CPU ms per request
	UpstreamPerCall      float64
	UpstreamMs           float64 // upstream wall ms per request, summed over branches
	ClientCPUms          float64 // load generator CPU ms per request
	PeakRSS              float64 // bytes, highest over the repeats
}

// num formats v with the given precision, or "n/a" when negative.
func num(v float64, prec int) string {
	if v < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// WriteLoadTable writes the load run as a Markdown table, followed by the
// first error of every row that had errors.
func WriteLoadTable(w io.Writer, rows []Merged) {
	fmt.Fprintln(w, "| Request | Conc. | Requests | Req/s (min–max) | p50 ms | p95 ms | p99 ms | Errors | Gateway CPU ms/req | Upstream req/call | Upstream ms/call | Client CPU ms/req | Peak RSS MiB |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range rows {
		rps := num(r.RPS, 0)
		if r.Repeats > 1 {
			rps += fmt.Sprintf(" (%.0f–%.0f)", r.RPSMin, r.RPSMax)
		}
		peak := -1.0
		if r.PeakRSS >= 0 {
			peak = mib(r.PeakRSS)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |\n",
			r.Scenario, r.Concurrency, r.Requests, rps, num(r.P50ms, 2), num(r.P95ms, 2), num(r.P99ms, 2),
			r.Errors, num(r.CPUms, 3), num(r.UpstreamPerCall, 2), num(r.UpstreamMs, 2), num(r.ClientCPUms, 3), num(peak, 1))
	}
	for _, r := range rows {
		if r.Errors > 0 {
			fmt.Fprintf(w, "\n- %s at concurrency %d: %d errors; first: %s", r.Scenario, r.Concurrency, r.Errors, oneLine(r.FirstError))
		}
	}
	fmt.Fprintln(w)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// WriteStreamTable writes the stream run as a Markdown table and verdict.
func WriteStreamTable(w io.Writer, r StreamResult) {
	fmt.Fprintln(w, "| Phase | Goroutines | RSS MiB | Go heap+stack in use MiB | SSE streams open | Upstream conns |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|")
	mibOrNA := func(b float64) string {
		if b < 0 {
			return "n/a"
		}
		return num(mib(b), 1)
	}
	row := func(name string, s Snapshot) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", name, num(s.Goroutines, 0), mibOrNA(s.RSS), mibOrNA(s.GoInUse), num(s.StreamsOpen, 0), num(s.OutgoingConns, 0))
	}
	row("baseline", r.Baseline)
	row(fmt.Sprintf("%d open", r.Opened), r.Open)
	after := fmt.Sprintf("after close (+%.1f s)", r.SettleTime.Seconds())
	if r.Nudges > 0 {
		after = fmt.Sprintf("after close (+%.1f s, %d pings)", r.SettleTime.Seconds(), r.Nudges)
	}
	row(after, r.After)
	fmt.Fprintln(w)
	if r.Opened > 0 {
		fmt.Fprintf(w, "Opened %d of %d streams in %.2f s; per open stream: %.2f goroutines, %.1f KiB RSS.\n",
			r.Opened, r.Requested, r.OpenTime.Seconds(),
			(r.Open.Goroutines-r.Baseline.Goroutines)/float64(r.Opened),
			(r.Open.RSS-r.Baseline.RSS)/1024/float64(r.Opened))
	}
	fmt.Fprintf(w, "Tolerance after close: goroutines ≤ %.0f, RSS ≤ %.1f MiB.\n", r.GoroutineLimit, mib(r.RSSLimit))
	for _, n := range r.Notes {
		fmt.Fprintf(w, "Note: %s.\n", n)
	}
	if r.Passed() {
		fmt.Fprintln(w, "Result: PASS")
		return
	}
	fmt.Fprintln(w, "Result: FAIL")
	for _, p := range r.Problems {
		fmt.Fprintf(w, "- %s\n", p)
	}
}

// WriteMachine writes the host description the figures belong to.
func WriteMachine(w io.Writer, m Machine) {
	fmt.Fprintf(w, "Machine: %d logical CPUs (%s), %.1f GiB memory, %s/%s, %s.\n",
		m.CPUs, m.Model, float64(m.MemTotal)/(1<<30), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
