package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Scenario is one kind of request the load run repeats.
type Scenario struct {
	Name string
	Body []byte
	// Tool marks a tools/call whose result must not be the text "null" (a
	// row hidden by RLS would make the run measure the wrong thing).
	Tool bool
	// NoAuth sends no Authorization header; the answer must then be
	// Status (the gateway's cheapest path: refused before any work).
	NoAuth bool
	Status int
	// Write marks a write tool's proposal: each one stores a pending
	// action, of which the gateway lets one person keep at most
	// GATEWAY_WRITE_MAX_PENDING (1 to 1000) for ten minutes, so a row of
	// it needs -max-requests below that bound. The floor does not replay
	// it: it measures reads.
	Write bool
}

// IDs are the seeded rows the tool calls read (supabase/fixtures/SEED.md).
type IDs struct {
	Class, Submission, HelpRequest, Assignment int
}

// defaultScenarios are run when -scenarios is empty; the others
// (unauthenticated, get_assignment, reply_to_help_request) are chosen by
// name, as scripts/bench does against the fake backend.
var defaultScenarios = []string{"initialize", "tools/list", "get_submission", "get_help_request", "search_discussion_threads"}

// Scenarios returns the load run's requests by name, in run order;
// initialize asks for protocol revision version.
func Scenarios(ids IDs, version string) []Scenario {
	call := func(tool, args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
	}
	c := strconv.Itoa(ids.Class)
	return []Scenario{
		{Name: "initialize", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"loadtest","version":"1"}}}`)},
		{Name: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)},
		{Name: "get_submission", Tool: true, Body: call("get_submission",
			`{"submission_id":`+strconv.Itoa(ids.Submission)+`,"class_id":`+c+`,"include_files":true,"include_test_output":true}`)},
		{Name: "get_help_request", Tool: true, Body: call("get_help_request",
			`{"help_request_id":`+strconv.Itoa(ids.HelpRequest)+`,"class_id":`+c+`}`)},
		{Name: "search_discussion_threads", Tool: true, Body: call("search_discussion_threads",
			`{"class_id":`+c+`,"limit":20}`)},
		{Name: "get_assignment", Tool: true, Body: call("get_assignment",
			`{"assignment_id":`+strconv.Itoa(ids.Assignment)+`,"class_id":`+c+`}`)},
		// A proposal (docs/writes.md): the gateway checks the caller is
		// staff, reads the request and stores the pending action; nothing
		// is written to the chat until someone approves it.
		{Name: "reply_to_help_request", Tool: true, Write: true, Body: call("reply_to_help_request",
			`{"class_id":`+c+`,"help_request_id":`+strconv.Itoa(ids.HelpRequest)+`,"message":"loadtest proposal"}`)},
		{Name: "unauthenticated", NoAuth: true, Status: http.StatusUnauthorized,
			Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)},
	}
}

// CheckRPC reports a JSON-RPC failure in a 200 body: an error member, no
// result, or (for tool calls) a result flagged isError.
func CheckRPC(body []byte) error {
	var env struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("invalid JSON-RPC body: %w", err)
	}
	switch {
	case env.Error != nil:
		return fmt.Errorf("JSON-RPC error %d: %s", env.Error.Code, env.Error.Message)
	case env.Result == nil:
		return errors.New("JSON-RPC response without result")
	case env.Result.IsError:
		return errors.New("tool result with isError")
	}
	return nil
}

// toolText returns result.content[0].text of a tools/call response.
func toolText(body []byte) (string, error) {
	var env struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return "", err
	}
	if len(env.Result.Content) == 0 {
		return "", errors.New("no content")
	}
	return env.Result.Content[0].Text, nil
}

// Target is where and as whom the load run sends requests.
type Target struct {
	Endpoint string // …/functions/v1/mcp-server
	Token    string
	// Client sends every request; newLoadClient gives the load run's.
	Client *http.Client
	// ProtocolVersion, when set, is sent as MCP-Protocol-Version, as
	// clients do after initialization (2025-06-18 and later).
	ProtocolVersion string
}

// newLoadClient is the load run's client for up to conns workers: one
// kept-alive connection per worker, so a row measures requests and not
// connection set-up. net/http keeps 2 idle connections per host by
// default, and the other workers' connections would be closed and dialled
// again on every request. It also dials at most conns: a worker's next
// request can start before its answered connection is back in the pool,
// and would otherwise dial an extra one, which net/http may abandon (and
// close) once a pooled connection comes free. Answers are read as the
// gateway sends them (no Accept-Encoding), and no proxy is consulted.
func newLoadClient(conns int, timeout time.Duration) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxConnsPerHost:     conns,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
		Timeout: timeout,
	}
}

// request is the POST for sc, with its headers; the load loop sends shallow
// copies of it, so the URL and headers are built once per worker.
func (t Target) request(ctx context.Context, sc Scenario) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.Endpoint, nil)
	if err != nil {
		return nil, err
	}
	if !sc.NoAuth {
		req.Header.Set("Authorization", "Bearer "+t.Token)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if t.ProtocolVersion != "" {
		req.Header.Set("MCP-Protocol-Version", t.ProtocolVersion)
	}
	return req, nil
}

// send sends a copy of base with sc's body and reads the whole answer into
// buf (so the connection goes back to the pool), returning its status. The
// Header map is shared with base: net/http only reads it.
func (t Target) send(base *http.Request, sc Scenario, buf *bytes.Buffer) (int, error) {
	req := new(http.Request)
	*req = *base
	req.Body = io.NopCloser(bytes.NewReader(sc.Body))
	req.ContentLength = int64(len(sc.Body))
	resp, err := t.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return resp.StatusCode, err
	}
	return resp.StatusCode, nil
}

// post sends one request and returns the body, with an error for a non-200
// answer or a JSON-RPC failure. buf is reused between calls.
func (t Target) post(ctx context.Context, sc Scenario, buf *bytes.Buffer) error {
	req, err := t.request(ctx, sc)
	if err != nil {
		return err
	}
	status, err := t.send(req, sc, buf)
	if err != nil {
		return err
	}
	return checkAnswer(sc, status, buf.Bytes())
}

// checkAnswer judges one answer: the scenario's status, and for a 200 a
// JSON-RPC result.
func checkAnswer(sc Scenario, status int, body []byte) error {
	want := cmp.Or(sc.Status, http.StatusOK)
	if status != want {
		return fmt.Errorf("HTTP %d (want %d): %.200s", status, want, body)
	}
	if want != http.StatusOK {
		return nil
	}
	return CheckRPC(body)
}

// checkAnswerQuick is checkAnswer without decoding the JSON, for the load
// loop, whose CPU is taken from the same cores as the gateway's: the
// gateway writes "result" or "error" as the third member and a failed tool
// call as "isError":true. Preflight decodes fully.
func checkAnswerQuick(sc Scenario, status int, body []byte) error {
	want := cmp.Or(sc.Status, http.StatusOK)
	switch {
	case status != want:
		return fmt.Errorf("HTTP %d (want %d): %.200s", status, want, body)
	case want != http.StatusOK:
		return nil
	case !bytes.Contains(body[:min(len(body), 64)], []byte(`"result":`)):
		return fmt.Errorf("not a JSON-RPC result: %.200s", body)
	case sc.Tool && bytes.Contains(body, []byte(`"isError":true`)):
		return errors.New("tool result with isError")
	}
	return nil
}

// Preflight sends one request of the scenario and explains a failure, so
// a misconfigured run stops before measuring errors.
func (t Target) Preflight(ctx context.Context, sc Scenario) error {
	var buf bytes.Buffer
	if err := t.post(ctx, sc, &buf); err != nil {
		return fmt.Errorf("%s: %w", sc.Name, err)
	}
	if sc.Tool {
		text, err := toolText(buf.Bytes())
		if err != nil {
			return fmt.Errorf("%s: %w", sc.Name, err)
		}
		if text == "null" || text == "[]" {
			return fmt.Errorf("%s: the tool returned %s: the row is not visible to the token's user", sc.Name, text)
		}
	}
	return nil
}

// LoadResult is one scenario at one concurrency.
type LoadResult struct {
	Scenario    string
	Concurrency int
	Elapsed     time.Duration
	Requests    int // completed, including failures
	Errors      int
	FirstError  string
	Latency     Summary

	// Gateway-side figures; negative when unknown.
	CPUPerRequest      float64 // gateway CPU seconds per request
	UpstreamPerRequest float64 // upstream requests per request
	UpstreamSecPerReq  float64 // upstream wall seconds per request (summed over concurrent branches)
	PeakRSS            float64 // bytes, sampled during the run
	ClientCPUPerReq    float64 // this process's CPU seconds per request
}

// RPS is completed requests per second.
func (r LoadResult) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// LoadOptions bounds one scenario run.
type LoadOptions struct {
	Concurrency int
	Duration    time.Duration // wall-clock bound
	MaxRequests int           // count bound across workers
}

// RunLoad sends sc from opts.Concurrency closed-loop workers (each sends
// its next request when the previous answers) until the duration or the
// request count is reached, and measures the gateway around the run.
func RunLoad(ctx context.Context, t Target, p *Probe, sc Scenario, opts LoadOptions) (LoadResult, error) {
	res := LoadResult{Scenario: sc.Name, Concurrency: opts.Concurrency}
	before, err := p.Snapshot(ctx)
	if err != nil {
		return res, err
	}
	clientBefore := selfCPU()
	sampler := p.sampleRSS(ctx, 200*time.Millisecond)

	runCtx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	var (
		issued atomic.Int64
		ta     tally
		wg     sync.WaitGroup
	)
	start := time.Now()
	for range opts.Concurrency {
		wg.Go(func() { loadWorker(runCtx, t, sc, &issued, int64(opts.MaxRequests), &ta) })
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.PeakRSS = sampler.Stop()
	clientAfter := selfCPU()
	after, err := p.Snapshot(ctx)
	if err != nil {
		return res, err
	}
	res.Requests = len(ta.all)
	res.Errors = ta.errCount
	res.FirstError = ta.firstErr
	res.Latency = Summarize(ta.all)
	res.setPerRequest(before, after, clientBefore, clientAfter)
	return res, nil
}

// tally gathers the workers' latencies and errors.
type tally struct {
	mu       sync.Mutex
	all      []time.Duration
	errCount int
	firstErr string
}

func (ta *tally) add(lat []time.Duration, errs int, first string) {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	ta.all = append(ta.all, lat...)
	ta.errCount += errs
	ta.firstErr = cmp.Or(ta.firstErr, first)
}

// loadWorker sends sc in a closed loop (the next request when the previous
// answers) until ctx ends or issued passes limit, and adds what it saw to
// ta.
func loadWorker(ctx context.Context, t Target, sc Scenario, issued *atomic.Int64, limit int64, ta *tally) {
	base, err := t.request(ctx, sc)
	if err != nil {
		ta.add(nil, 1, err.Error())
		return
	}
	lat := make([]time.Duration, 0, 1024)
	var buf bytes.Buffer
	var errs int
	var first string
	for ctx.Err() == nil && issued.Add(1) <= limit {
		t0 := time.Now()
		status, err := t.send(base, sc, &buf)
		if err == nil {
			err = checkAnswerQuick(sc, status, buf.Bytes())
		}
		d := time.Since(t0)
		if err != nil && ctx.Err() != nil {
			break // cut off by the deadline: not a gateway failure
		}
		lat = append(lat, d)
		if err != nil {
			errs++
			first = cmp.Or(first, err.Error())
		}
	}
	ta.add(lat, errs, first)
}

// setPerRequest divides the counters' growth over the run by its
// requests: the gateway's CPU, its upstream calls and their time, and the
// load generator's own CPU; -1 where a counter is missing.
func (res *LoadResult) setPerRequest(before, after Snapshot, clientBefore, clientAfter float64) {
	per := func(a, b float64) float64 {
		if a < 0 || b < 0 || res.Requests == 0 {
			return -1
		}
		return (b - a) / float64(res.Requests)
	}
	res.CPUPerRequest = per(before.CPUSeconds, after.CPUSeconds)
	res.UpstreamPerRequest = per(before.UpstreamRequests, after.UpstreamRequests)
	res.UpstreamSecPerReq = per(before.UpstreamSeconds, after.UpstreamSeconds)
	if res.UpstreamPerRequest > 0 && res.UpstreamSecPerReq == 0 {
		res.UpstreamSecPerReq = -1 // calls counted but their durations not recorded
	}
	res.ClientCPUPerReq = per(clientBefore, clientAfter)
}

// drain discards a body so its connection can be reused.
func drain(r io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r, 1<<20))
	_ = r.Close()
}
