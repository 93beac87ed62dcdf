package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// The floor server answers the load run's requests as a gateway with no
// code of its own would: a bare net/http handler, with no router,
// middleware, request log, metrics, token check or JSON-RPC parsing. Per
// request it does only what any gateway on net/http must do to give the
// same answer:
//
//   - without Authorization: write the gateway's 401, byte for byte;
//   - with it: the revocation and staff look-ups in one call, as the
//     gateway makes it (POST rpc/mcp_auth_lookup over one pooled net/http
//     transport); for a tool call the tool's one read (get_assignment's);
//     then the gateway's answer, byte for byte.
//
// The answers are recorded from the gateway itself at start-up (-record),
// one per scenario, and told apart by the request body. Its CPU per
// request next to the gateway's, under the same load, splits the gateway's
// figure into what is net/http, the kernel's loopback TCP and the Go
// scheduler (the floor) and what is the gateway's own work
// (docs/performance.md, "The floor").

// recordedAnswer is one answer of the gateway, replayed by the floor.
type recordedAnswer struct {
	status int
	header http.Header
	body   []byte
	tool   bool // a tools/call: the floor also does the tool's read
}

// floorServer is the handler; answers are keyed by request body.
type floorServer struct {
	answers  map[string]*recordedAnswer
	noAuth   *recordedAnswer
	upstream string // the fake backend's base URL
	client   *http.Client
}

// floorCommand is `loadtest floor`: record the gateway's answers, then
// serve until SIGTERM/SIGINT (or -max-time).
func floorCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to serve on (loopback only)")
	record := fs.String("record", "", "the gateway's base URL, whose answers are recorded (required)")
	token := fs.String("token", "", "the mcp_ token the load run sends (required)")
	upstream := fs.String("upstream", "", "the fake backend's base URL (SUPABASE_URL; required)")
	protocol := fs.String("protocol-version", "2025-06-18", "MCP-Protocol-Version of the recorded requests, as the load run sends it")
	maxTime := fs.Duration("max-time", time.Hour, "stop serving after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *record == "" || *token == "" || *upstream == "" {
		return errors.New("-record, -token and -upstream are required")
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil || (host != "127.0.0.1" && host != "localhost" && host != "::1") {
		return errors.New("-listen must be a loopback address")
	}
	f := &floorServer{
		answers:  map[string]*recordedAnswer{},
		upstream: strings.TrimRight(*upstream, "/"),
		client:   newFloorClient(),
	}
	if err := f.record(ctx, *record, *token, *protocol); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "loadtest floor: serving on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, *maxTime)
	defer cancel()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// record sends every read scenario to the gateway once and keeps its answer,
// within recordTimeout.
func (f *floorServer) record(ctx context.Context, gateway, token, protocol string) error {
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	for _, sc := range Scenarios(IDs{Class: 1, Submission: 3, HelpRequest: 1, Assignment: 1}, protocol) {
		if sc.Write {
			continue // the floor replays reads; a proposal stores a row
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(gateway, "/")+"/functions/v1/mcp-server", bytes.NewReader(sc.Body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if protocol != "" {
			req.Header.Set("MCP-Protocol-Version", protocol)
		}
		if !sc.NoAuth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("recording %s: %w", sc.Name, err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("recording %s: %w", sc.Name, err)
		}
		h := resp.Header.Clone()
		delete(h, "Date") // net/http writes its own, as for the gateway
		a := &recordedAnswer{status: resp.StatusCode, header: h, body: body, tool: sc.Tool}
		if sc.NoAuth {
			f.noAuth = a
			continue
		}
		f.answers[string(sc.Body)] = a
	}
	return nil
}

// newFloorClient is the upstream client, tuned as the gateway's
// (gateway/cmd/gateway newUpstreamTransport): a pool large enough that
// every concurrent look-up keeps its connection, and no redirects.
func newFloorClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        512,
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// recordTimeout bounds the recording of the gateway's answers.
const recordTimeout = 30 * time.Second

// floorLookup is the gateway's service-role look-up for the load run's
// token (path and body), and floorToolRead the tool's read, as the fake
// backend serves them.
const (
	floorLookup     = "/rest/v1/rpc/mcp_auth_lookup"
	floorLookupBody = `{"p_token_id":"22222222-3333-4444-8555-666666666666","p_user_id":"` + fakeUser + `"}`
	floorToolRead   = "/rest/v1/assignments?select=*&id=eq.1&class_id=eq.1"
)

func (f *floorServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	a := f.noAuth
	if r.Header.Get("Authorization") != "" {
		a = f.answers[string(body)]
		if a == nil {
			http.Error(w, "not a recorded request", http.StatusBadRequest)
			return
		}
		if err := f.lookUps(r.Context(), a.tool); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
	}
	h := w.Header()
	for k, v := range a.header {
		h[k] = v
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// lookUps does the upstream reads of an authenticated request: the
// look-up, then, for a tool call, the tool's read.
func (f *floorServer) lookUps(ctx context.Context, tool bool) error {
	if err := f.send(ctx, http.MethodPost, floorLookup, floorLookupBody, "application/json"); err != nil {
		return err
	}
	if !tool {
		return nil
	}
	return f.send(ctx, http.MethodGet, floorToolRead, "", "application/vnd.pgrst.object+json")
}

// send makes one request of the upstream with the service role's headers,
// as the gateway's PostgREST client does, and reads the answer to its end,
// which puts the connection back in the pool.
func (f *floorServer) send(ctx context.Context, method, path, body, accept string) error {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, f.upstream+path, rd)
	if err != nil {
		return err
	}
	req.Header["Accept"] = []string{accept}
	if body != "" {
		req.Header["Content-Type"] = []string{"application/json"}
	}
	req.Header["Apikey"] = []string{"fake-service-role-key"}
	req.Header["Authorization"] = []string{"Bearer fake-service-role-key"}
	resp, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upstream %s: %s", path, resp.Status)
	}
	return nil
}
