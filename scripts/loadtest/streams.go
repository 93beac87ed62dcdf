package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// StreamOptions configure the stream run.
type StreamOptions struct {
	Streams      int           // event streams held open at once
	Hold         time.Duration // how long they stay open once all are up
	OpenParallel int           // streams being opened at any moment
	Settle       time.Duration // how long the gateway may take to return to baseline
	// GoroutineSlack is how many goroutines above baseline still count as
	// "back to baseline" (timers, the metrics scrape's connection). Two
	// goroutines per upstream connection the gateway opened meanwhile
	// (its pool keeps them until their idle timeout) are allowed on top
	// when the pid is known.
	GoroutineSlack float64
	// RSSSlack (bytes) and RSSGrowthFraction set the RSS tolerance after
	// close: baseline + max(RSSSlack, RSSGrowthFraction × growth while
	// open). Go returns freed memory to the kernel gradually, so RSS
	// lags the heap; a leak keeps all of the growth.
	RSSSlack          float64
	RSSGrowthFraction float64
	// NudgeRequests is how many padded ping requests (NudgeBytes each) are
	// sent per poll after close. An idle Go process does not collect
	// garbage (until its two-minute forced GC), so without some traffic
	// the memory of closed streams stays resident; a live gateway always
	// has traffic. 0 sends none.
	NudgeRequests int
	NudgeBytes    int
}

// StreamResult is the outcome of the stream run.
type StreamResult struct {
	Requested, Opened int
	Failed            int
	FirstError        string
	OpenTime          time.Duration // to open them all
	SettleTime        time.Duration // from close until within tolerance (or the limit)
	Nudges            int           // padded pings sent after close

	Baseline, Open, After Snapshot
	GoroutineLimit        float64
	RSSLimit              float64
	Problems              []string // empty when the run passed
	Notes                 []string // observations that do not fail the run
}

// Passed reports whether every stream opened and the gateway returned to
// baseline.
func (r StreamResult) Passed() bool { return len(r.Problems) == 0 }

// openStream starts one GET event stream and returns once headers arrive;
// the body is read in the background until ctx ends.
func (t Target) openStream(ctx context.Context, wg *sync.WaitGroup) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.Endpoint, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+t.Token)
	req.Header.Set("Accept", "text/event-stream")
	if t.ProtocolVersion != "" {
		req.Header.Set("MCP-Protocol-Version", t.ProtocolVersion)
	}
	resp, err := t.Client.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var b strings.Builder
		buf := make([]byte, 200)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		drain(resp.Body)
		return fmt.Errorf("HTTP %d (%s): %s", resp.StatusCode, resp.Header.Get("Content-Type"), b.String())
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		drain(resp.Body) // returns when ctx is cancelled
	}()
	return nil
}

// RunStreams opens opts.Streams event streams, holds them, closes them and
// checks that goroutines and RSS return near their baseline.
func RunStreams(ctx context.Context, t Target, p *Probe, opts StreamOptions) (StreamResult, error) {
	res := StreamResult{Requested: opts.Streams}
	// Warm up: the first streams allocate once-only structures that should
	// count as baseline, not as growth.
	if err := warmStreams(ctx, t, min(10, opts.Streams)); err != nil {
		return res, fmt.Errorf("warm-up stream: %w", err)
	}
	time.Sleep(time.Second)
	var err error
	if res.Baseline, err = p.Snapshot(ctx); err != nil {
		return res, err
	}
	if res.Baseline.Goroutines < 0 {
		return res, fmt.Errorf("the stream run needs go_goroutines from the gateway's metrics (-metrics)")
	}

	streamCtx, closeAll := context.WithCancel(ctx)
	defer closeAll()
	var (
		readers sync.WaitGroup
		mu      sync.Mutex
		openers sync.WaitGroup
		sem     = make(chan struct{}, max(1, opts.OpenParallel))
	)
	start := time.Now()
	for range opts.Streams {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		openers.Add(1)
		go func() {
			defer openers.Done()
			defer func() { <-sem }()
			err := t.openStream(streamCtx, &readers)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.Failed++
				if res.FirstError == "" {
					res.FirstError = err.Error()
				}
				return
			}
			res.Opened++
		}()
	}
	openers.Wait()
	res.OpenTime = time.Since(start)

	// Wait (bounded) until the gateway counts them, then hold.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		s, err := p.Snapshot(ctx)
		if err == nil && (s.StreamsOpen < 0 || s.StreamsOpen >= res.Baseline.StreamsOpen+float64(res.Opened)) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	sampler := p.sampleRSS(ctx, 200*time.Millisecond)
	select {
	case <-time.After(opts.Hold):
	case <-ctx.Done():
	}
	if res.Open, err = p.Snapshot(ctx); err != nil {
		sampler.Stop()
		return res, err
	}
	if peak := sampler.Stop(); peak > res.Open.RSS {
		res.Open.RSS = peak
	}

	closeAll()
	readers.Wait()
	closed := time.Now()
	growth := max(0, res.Open.RSS-res.Baseline.RSS)
	res.GoroutineLimit = res.Baseline.Goroutines + opts.GoroutineSlack
	res.RSSLimit = res.Baseline.RSS + max(opts.RSSSlack, opts.RSSGrowthFraction*growth)
	limit := func(s Snapshot) float64 {
		if s.OutgoingConns < 0 || res.Baseline.OutgoingConns < 0 {
			return res.GoroutineLimit
		}
		return res.GoroutineLimit + 2*max(0, s.OutgoingConns-res.Baseline.OutgoingConns)
	}
	settled := func(s Snapshot) bool {
		return s.Goroutines <= limit(s) && (s.RSS < 0 || s.RSS <= res.RSSLimit) && s.StreamsOpen <= res.Baseline.StreamsOpen
	}
	nudge := nudgeBody(opts.NudgeBytes)
	for {
		s, err := p.Snapshot(ctx)
		if err != nil {
			return res, err
		}
		res.After = s
		if settled(s) || time.Since(closed) >= opts.Settle || ctx.Err() != nil {
			break
		}
		for range opts.NudgeRequests {
			if err := t.nudge(ctx, nudge); err != nil {
				return res, fmt.Errorf("nudge request: %w", err)
			}
			res.Nudges++
		}
		time.Sleep(250 * time.Millisecond)
	}
	res.SettleTime = time.Since(closed)
	res.GoroutineLimit = limit(res.After)

	if res.Failed > 0 {
		res.Problems = append(res.Problems, fmt.Sprintf("%d of %d streams failed to open (first: %s)", res.Failed, res.Requested, res.FirstError))
	}
	switch {
	case res.Open.StreamsOpen < 0:
	case res.Opened > 0 && res.Open.StreamsOpen == res.Baseline.StreamsOpen:
		res.Notes = append(res.Notes, "gateway_sse_streams_open did not move while streams were open (not recorded by this build?)")
	case res.Open.StreamsOpen < res.Baseline.StreamsOpen+float64(res.Opened):
		res.Problems = append(res.Problems, fmt.Sprintf("gateway_sse_streams_open was %.0f with %d streams open", res.Open.StreamsOpen, res.Opened))
	}
	if res.After.Goroutines > res.GoroutineLimit {
		res.Problems = append(res.Problems, fmt.Sprintf("goroutines %.0f after close, limit %.0f (baseline %.0f)", res.After.Goroutines, res.GoroutineLimit, res.Baseline.Goroutines))
	}
	if res.After.RSS >= 0 && res.After.RSS > res.RSSLimit {
		res.Problems = append(res.Problems, fmt.Sprintf("RSS %.1f MiB after close, limit %.1f MiB (baseline %.1f MiB)", mib(res.After.RSS), mib(res.RSSLimit), mib(res.Baseline.RSS)))
	}
	if res.After.StreamsOpen > res.Baseline.StreamsOpen {
		res.Problems = append(res.Problems, fmt.Sprintf("gateway_sse_streams_open still %.0f after close", res.After.StreamsOpen))
	}
	return res, nil
}

// warmStreams opens and closes n streams.
func warmStreams(ctx context.Context, t Target, n int) error {
	c, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var err error
	for range n {
		if err = t.openStream(c, &wg); err != nil {
			break
		}
	}
	cancel()
	wg.Wait()
	return err
}

func mib(b float64) float64 { return b / (1 << 20) }

// nudgeBody is a ping whose params carry n bytes of padding: reading and
// decoding it allocates about 2n bytes in the gateway.
func nudgeBody(n int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", n) + `"}}`)
}

// nudge sends one padded ping.
func (t Target) nudge(ctx context.Context, body []byte) error {
	return t.post(ctx, Scenario{Body: body}, &bytes.Buffer{})
}
