package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Probe observes the gateway process: its CPU time and memory from /proc
// when the pid is known, and its Prometheus metrics when a URL is given.
type Probe struct {
	PID        int    // 0: not known; CPU and memory then come from metrics
	MetricsURL string // "" when metrics are not served
	Client     *http.Client
}

// Snapshot is the gateway's state at one moment. Fields a source could not
// provide are negative.
type Snapshot struct {
	CPUSeconds       float64 // user+system CPU of the gateway process
	RSS              float64 // resident bytes
	PeakRSS          float64 // VmHWM in bytes (process lifetime); -1 from metrics
	Goroutines       float64
	StreamsOpen      float64
	UpstreamRequests float64 // sum of gateway_upstream_requests_total
	UpstreamSeconds  float64 // sum of gateway_upstream_request_duration_seconds_sum
	ToolCalls        float64 // sum of gateway_mcp_tool_calls_total
	GoInUse          float64 // go_memstats_heap_inuse_bytes + go_memstats_stack_inuse_bytes
	// OutgoingConns is the gateway's established connections to its
	// upstreams (pooled, idle or busy), from /proc; -1 without a pid. Each
	// costs two goroutines (read and write loops) until the pool's idle
	// timeout closes it.
	OutgoingConns float64
}

// Metrics fetches and parses the metrics page.
func (p *Probe) Metrics(ctx context.Context) (Metrics, error) {
	if p.MetricsURL == "" {
		return nil, fmt.Errorf("no metrics URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.MetricsURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", metricsAccept)
	resp, err := p.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("metrics: %s", resp.Status)
	}
	return ParseMetrics(resp.Body)
}

// Snapshot reads /proc and the metrics page. It fails only when neither
// source answers.
func (p *Probe) Snapshot(ctx context.Context) (Snapshot, error) {
	s := Snapshot{CPUSeconds: -1, RSS: -1, PeakRSS: -1, Goroutines: -1, StreamsOpen: -1,
		UpstreamRequests: -1, UpstreamSeconds: -1, ToolCalls: -1, GoInUse: -1, OutgoingConns: -1}
	var errs []error
	if p.PID > 0 {
		if cpu, err := ProcCPU(p.PID); err == nil {
			s.CPUSeconds = cpu
		} else {
			errs = append(errs, err)
		}
		if mem, err := ProcMemory(p.PID); err == nil {
			s.RSS, s.PeakRSS = float64(mem.RSS), float64(mem.Peak)
		} else {
			errs = append(errs, err)
		}
		if n, err := ProcOutgoingConns(p.PID); err == nil {
			s.OutgoingConns = float64(n)
		}
	}
	if p.MetricsURL != "" {
		m, err := p.Metrics(ctx)
		if err != nil {
			errs = append(errs, err)
		} else {
			set := func(dst *float64, name string) {
				if v, ok := m.Sum(name, nil); ok {
					*dst = v
				}
			}
			if s.CPUSeconds < 0 {
				set(&s.CPUSeconds, "process_cpu_seconds_total")
			}
			if s.RSS < 0 {
				set(&s.RSS, "process_resident_memory_bytes")
			}
			set(&s.Goroutines, "go_goroutines")
			set(&s.StreamsOpen, "gateway_sse_streams_open")
			set(&s.UpstreamRequests, "gateway_upstream_requests_total")
			set(&s.UpstreamSeconds, "gateway_upstream_request_duration_seconds_sum")
			set(&s.ToolCalls, "gateway_mcp_tool_calls_total")
			heap, ok1 := m.Sum("go_memstats_heap_inuse_bytes", nil)
			stack, ok2 := m.Sum("go_memstats_stack_inuse_bytes", nil)
			if ok1 && ok2 {
				s.GoInUse = heap + stack
			}
		}
	}
	if len(errs) > 0 && s.CPUSeconds < 0 && s.Goroutines < 0 {
		return s, fmt.Errorf("probing the gateway: %v", errs)
	}
	return s, nil
}

// rssSampler polls the resident size every interval until stopped and
// keeps the maximum: a per-phase peak, which VmHWM (lifetime) is not.
type rssSampler struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	peak float64
}

func (p *Probe) sampleRSS(ctx context.Context, every time.Duration) *rssSampler {
	r := &rssSampler{stop: make(chan struct{}), done: make(chan struct{}), peak: -1}
	go func() {
		defer close(r.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			var rss float64 = -1
			if p.PID > 0 {
				if m, err := ProcMemory(p.PID); err == nil {
					rss = float64(m.RSS)
				}
			} else if m, err := p.Metrics(ctx); err == nil {
				if v, ok := m.Sum("process_resident_memory_bytes", nil); ok {
					rss = v
				}
			}
			r.mu.Lock()
			r.peak = max(r.peak, rss)
			r.mu.Unlock()
			select {
			case <-r.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return r
}

// Stop ends sampling and returns the peak (-1 when nothing was read).
func (r *rssSampler) Stop() float64 {
	close(r.stop)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.peak
}
