package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// The benchmarks below are the performance guard of docs/performance.md:
// whole requests through the gateway as `gateway serve` wires it (router,
// middleware, request log at info, metrics, mcp-server, authentication,
// per-user client), with the upstream replaced by an httptest server that
// answers instantly with canned bodies, so the figures are the gateway's
// own cost. They assert nothing about time; allocs/op is the stable
// figure to compare in review. Run them with
//
//	go test -run '^$' -bench Gateway -benchmem ./gateway/cmd/gateway
//
// (TestMain starts no database when -run selects no test).

const benchUser = "10000000-0000-4000-8000-000000000001"

// Canned upstream answers, shaped like the local stack's for the seed.
var (
	benchRoles      = []byte(`[{"class_id":1,"role":"instructor"}]`)
	benchLookup     = []byte(`{"revoked": false, "staff": true}`)
	benchAssignment = []byte(`{"id":1,"title":"Assignment 1: Hello World","slug":"hw1","description":"Write a program that prints hello, world.","handout_url":"https://example.edu/hw1","due_date":"2026-09-15T23:59:00+00:00","release_date":"2026-09-01T00:00:00+00:00","total_points":100,"has_autograder":true,"class_id":1}`)
)

// benchUpstream answers the PostgREST requests of the benchmarked paths.
func benchUpstream(tb testing.TB) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		switch r.URL.Path {
		case "/rest/v1/revoked_token_ids":
			_, _ = w.Write([]byte(`[]`))
		case "/rest/v1/user_roles":
			_, _ = w.Write(benchRoles)
		case "/rest/v1/rpc/mcp_auth_lookup":
			_, _ = w.Write(benchLookup)
		case "/rest/v1/assignments":
			_, _ = w.Write(benchAssignment)
		case "/rest/v1/api_tokens":
			w.WriteHeader(http.StatusNoContent)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"code":"PGRST205","message":"not in the benchmark"}`))
		}
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// benchJWK is a fresh ES256 private JWK for JWT_SECRET.
func benchJWK(tb testing.TB) string {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	pub, _ := k.PublicKey.Bytes()
	d, _ := k.Bytes()
	enc := base64.RawURLEncoding.EncodeToString
	return `{"kid":"bench","kty":"EC","crv":"P-256","x":"` + enc(pub[1:33]) + `","y":"` + enc(pub[33:]) + `","d":"` + enc(d) + `"}`
}

// benchGateway returns the gateway's handler wired from a configuration
// pointing at a fake upstream, and an mcp_ token for benchUser.
func benchGateway(b *testing.B) (http.Handler, string) {
	h, token, _ := benchGatewayWith(b, benchUpstream(b), nil)
	return h, token
}

// benchGatewayWith is benchGateway over up with extra settings; closeAll
// closes what the gateway holds (as at shutdown), once.
func benchGatewayWith(b *testing.B, up *httptest.Server, extra map[string]string) (_ http.Handler, token string, closeAll func()) {
	b.Helper()
	vars := map[string]string{
		"SUPABASE_URL":              up.URL,
		"SUPABASE_ANON_KEY":         "bench-anon-key",
		"SUPABASE_SERVICE_ROLE_KEY": "bench-service-role-key",
		"MCP_JWT_SECRET":            e2eSecret,
		"JWT_SECRET":                benchJWK(b),
		"GATEWAY_PUBLIC_URL":        "https://gateway.example.edu",
		"EDGE_FUNCTIONS_URL":        "https://gateway.example.edu",
		// The fake Auth is on loopback, which a public gateway must not
		// advertise (config refuses it); the benchmark needs no OAuth.
		"GATEWAY_OAUTH_SERVER": "off",
		// One token makes every call: the per-connection limit would
		// refuse most of them.
		"GATEWAY_TOOL_CALLS_PER_MINUTE": "0",
	}
	for k, v := range extra {
		vars[k] = v
	}
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		b.Fatal(err)
	}
	// The production logger (JSON, info) writing to nowhere: the request
	// log line is part of what is measured.
	srv, _, cleanup, err := newServer(cfg, newLogger(cfg, io.Discard))
	if err != nil {
		b.Fatal(err)
	}
	closeAll = sync.OnceFunc(cleanup)
	b.Cleanup(closeAll)
	token, err = mcpauth.MintAPIToken(e2eSecret, benchUser, []string{"mcp:read"}, "11111111-2222-4333-8444-555555555555", 30, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	return srv.Handler(), token, closeAll
}

// benchRequest is one request kind and the status it must get.
type benchRequest struct {
	name   string
	auth   bool
	body   string
	status int
}

var benchRequests = []benchRequest{
	{"unauthenticated_401", false, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, http.StatusUnauthorized},
	{"initialize", true, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`, http.StatusOK},
	{"tools_list", true, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, http.StatusOK},
	{"get_assignment", true, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`, http.StatusOK},
}

// discardWriter is a ResponseWriter that keeps only the status and the
// first bytes of the body, so the benchmark measures the gateway rather
// than a recorder's buffer growth.
type discardWriter struct {
	h      http.Header
	status int
	head   bytes.Buffer
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.head.Len() < 256 {
		w.head.Write(p[:min(len(p), 256)])
	}
	return len(p), nil
}

// rewindReader is a request body that can be read again.
type rewindReader struct {
	data []byte
	off  int
}

func (r *rewindReader) Read(p []byte) (int, error) {
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	n := copy(p, r.data[r.off:])
	r.off += n
	return n, nil
}

// BenchmarkGateway serves whole POSTs to /functions/v1/mcp-server: a
// request without a token (401, no upstream call), and authenticated
// initialize, tools/list and get_assignment (the revocation and staff
// look-ups, plus one PostgREST read for the tool).
func BenchmarkGateway(b *testing.B) {
	h, token := benchGateway(b)
	for _, br := range benchRequests {
		b.Run(br.name, func(b *testing.B) {
			body := &rewindReader{data: []byte(br.body)}
			r := httptest.NewRequest(http.MethodPost, "/functions/v1/mcp-server", body)
			r.RemoteAddr = "127.0.0.1:40000"
			r.ContentLength = int64(len(br.body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			if br.auth {
				r.Header.Set("Authorization", "Bearer "+token)
			}
			w := &discardWriter{h: http.Header{}}
			serve := func() {
				// The gateway sets X-Request-Id on the request when the
				// client sent none; remove it so every iteration generates
				// one, as for a real client.
				delete(r.Header, "X-Request-Id")
				body.off = 0
				clear(w.h)
				w.status = 0
				w.head.Reset()
				h.ServeHTTP(w, r)
			}
			// One checked request first: a wrong status would measure the
			// wrong path.
			serve()
			if w.status != br.status || (br.status == http.StatusOK && strings.Contains(w.head.String(), `"error"`)) {
				b.Fatalf("%s: status %d, body %q; want %d", br.name, w.status, w.head.String(), br.status)
			}
			b.ReportAllocs()
			for b.Loop() {
				serve()
			}
		})
	}
}
