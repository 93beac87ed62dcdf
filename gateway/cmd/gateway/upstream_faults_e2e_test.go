package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// Fault kinds an upstream call can meet.
const (
	faultReset     = "connection reset"
	faultTimeout   = "timeout"
	faultStatus    = "bad status"
	faultTruncated = "truncated body"
)

// faultProxy forwards to the local stack, except that requests matching
// method and path suffix meet the fault.
type faultProxy struct {
	proxy        *httputil.ReverseProxy
	method, path string
	kind         string
	hits         atomic.Int32
}

func (f *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.kind == "" || (f.method != "" && r.Method != f.method) || !strings.HasSuffix(r.URL.Path, f.path) {
		f.proxy.ServeHTTP(w, r)
		return
	}
	f.hits.Add(1)
	switch f.kind {
	case faultReset:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		_ = conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
		_ = conn.Close()
	case faultTimeout:
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	case faultStatus:
		// A load balancer's page that names internal addresses.
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, `<html>502: upstream http://10.1.2.3:3000/rest/v1 for 11111111-2222-4333-8444-555555555555 failed</html>`)
	case faultTruncated:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{\"id\":\"11111111-2222")
		_ = conn.Close()
	}
}

// leaks are what no answer may carry: URLs, IP addresses, host:port pairs,
// UUIDs (user and token ids) and upstream paths.
var leaks = regexp.MustCompile(`(?i)https?://|\b\d{1,3}(\.\d{1,3}){3}\b|[a-z0-9.-]+:\d{2,5}\b|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|rest/v1|auth/v1|eq\.`)

// TestUpstreamFailuresAreSanitised forces every kind of transport failure
// on every upstream call either function makes before answering, and
// checks that no answer names an internal URL, host, port or id (issue 15
// item 6; docs/compatibility.md A6): callers see only `fetch failed`,
// `request timed out`, `{"status":N}` or a fixed message.
func TestUpstreamFailuresAreSanitised(t *testing.T) {
	env.RequireLocal(t)
	target, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	session := env.SessionToken(t, gatewaytest.Alice)
	clean := startGateway(t, nil)
	apiToken := createMCPToken(t, clean, session)

	type flow struct {
		name, method, path, auth, body string
		hdr                            map[string]string
	}
	listTokens := flow{"mcp-tokens GET", "GET", "/functions/v1/mcp-tokens", "Bearer " + session, "", nil}
	createToken := flow{"mcp-tokens POST", "POST", "/functions/v1/mcp-tokens", "Bearer " + session, `{"name":"faults"}`, nil}
	revokeToken := func(t *testing.T) flow {
		tok := createMCPToken(t, clean, session)
		var claims struct {
			Jti string `json:"jti"`
		}
		parts := strings.Split(strings.TrimPrefix(tok, "mcp_"), ".")
		payload, _ := base64URLDecode(parts[1])
		_ = json.Unmarshal(payload, &claims)
		return flow{"mcp-tokens DELETE", "DELETE", "/functions/v1/mcp-tokens", "Bearer " + session, `{"token_id":"` + claims.Jti + `"}`, nil}
	}
	serverPOST := flow{"mcp-server POST", "POST", "/functions/v1/mcp-server", "Bearer " + apiToken, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil}
	serverGET := flow{"mcp-server GET", "GET", "/functions/v1/mcp-server", "Bearer " + apiToken, "", map[string]string{"Accept": "text/event-stream"}}
	oauthPOST := flow{"mcp-server POST (Supabase token)", "POST", "/functions/v1/mcp-server", "Bearer " + session, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil}

	calls := []struct {
		name, method, path string
		flows              func(t *testing.T) []flow
	}{
		{"Auth user look-up", "GET", "/auth/v1/user", func(*testing.T) []flow { return []flow{listTokens, createToken, oauthPOST} }},
		{"Auth JWKS", "GET", "/auth/v1/.well-known/jwks.json", func(*testing.T) []flow { return []flow{oauthPOST} }},
		{"role look-up", "GET", "/rest/v1/user_roles", func(*testing.T) []flow { return []flow{listTokens, createToken, oauthPOST} }},
		{"token look-up", "POST", "/rest/v1/rpc/mcp_auth_lookup", func(*testing.T) []flow { return []flow{serverPOST, serverGET} }},
		{"token list", "GET", "/rest/v1/api_tokens", func(t *testing.T) []flow { return []flow{listTokens, revokeToken(t)} }},
		{"token insert", "POST", "/rest/v1/api_tokens", func(*testing.T) []flow { return []flow{createToken} }},
		{"token revoke", "PATCH", "/rest/v1/api_tokens", func(t *testing.T) []flow { return []flow{revokeToken(t)} }},
	}
	for _, call := range calls {
		for _, kind := range []string{faultReset, faultTimeout, faultStatus, faultTruncated} {
			t.Run(call.name+"/"+kind, func(t *testing.T) {
				fp := &faultProxy{proxy: httputil.NewSingleHostReverseProxy(target), method: call.method, path: call.path}
				front := httptestServer(t, fp)
				gw := startGateway(t, map[string]string{
					"SUPABASE_URL":             front,
					"GATEWAY_OAUTH_ISSUER":     env.AuthURL,
					"GATEWAY_UPSTREAM_TIMEOUT": "400ms",
				})
				flows := call.flows(t)
				fp.kind = kind
				failed := 0
				for _, f := range flows {
					status, body := send(t, gw, f.method, f.path, f.auth, f.body, f.hdr)
					if status >= 200 && status < 300 {
						continue
					}
					failed++
					t.Logf("%s: %d %s", f.name, status, body)
					if m := leaks.FindString(body); m != "" {
						t.Errorf("%s: %d %s\n  leaks %q", f.name, status, body, m)
					}
				}
				if fp.hits.Load() == 0 || failed == 0 {
					t.Fatalf("the fault was never met (hits %d, failed answers %d)", fp.hits.Load(), failed)
				}
			})
		}
	}

	// Connection refused: every upstream unreachable.
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		dead := "http://" + ln.Addr().String()
		ln.Close()
		gw := startGateway(t, map[string]string{"SUPABASE_URL": dead, "GATEWAY_OAUTH_ISSUER": env.AuthURL})
		for _, f := range []flow{listTokens, createToken, serverPOST, serverGET, oauthPOST} {
			status, body := send(t, gw, f.method, f.path, f.auth, f.body, f.hdr)
			if status < 500 || leaks.MatchString(body) {
				t.Errorf("%s: %d %s", f.name, status, body)
			}
		}
	})
}

func send(t *testing.T, gw, method, path, auth, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, gw+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") == "text/event-stream" {
		return resp.StatusCode, "" // a stream that opened; its body never ends
	}
	// 1 MiB: a view's resources/read answer is a whole HTML document.
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func base64URLDecode(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
