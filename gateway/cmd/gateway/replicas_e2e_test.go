package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// Three gateway processes of this build behind HAProxy from Debian, as
// Pawtograder's chart runs them behind Kong: round robin, no affinity, no
// retries, health checks on /readyz. Every flow that spans requests runs
// through the balancer, so consecutive requests of one flow reach
// different replicas; HAProxy names the replica that answered in
// X-Replica, so the tests can tell that they did.

// replicaSet is the balancer and its replicas.
type replicaSet struct {
	lb       string   // the balancer's base URL, the gateways' public URL
	replicas []string // each replica's own base URL
	children []*exec.Cmd
	proxy    *gatewaytest.FaultProxy // in front of the stack, for every replica
	admin    string                  // HAProxy's runtime API socket
	stderr   *syncBuffer             // HAProxy's own messages, written while it runs
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// haproxyConfig is the balancer: round robin per request, no stickiness,
// retries 0 and no redispatch (a request sent to a replica that is gone
// fails with HAProxy's 503 rather than being tried elsewhere), and
// /readyz checked every 300 ms, as a readiness probe takes a replica out:
// three failed checks in a row (fall 3) take it out and two passed ones
// bring it back, and a check may take up to 2 s (timeout check), so one
// slow answer on a loaded machine does not take a healthy replica out of
// the rotation, while a killed or drained one is out within about a
// second. admin is the runtime API's socket, through which a test takes a
// replica out of the rotation for a moment.
func haproxyConfig(front, admin string, backends []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
	maxconn 512
	stats socket %s level admin
defaults
	mode http
	timeout connect 2s
	timeout client 2m
	timeout server 2m
	timeout check 2s
	retries 0
frontend gateway
	bind %s
	default_backend replicas
backend replicas
	balance roundrobin
	option httpchk GET /readyz
	http-check expect status 200
	default-server inter 300ms fall 3 rise 2
	http-response set-header X-Replica %%s
`, admin, front)
	for i, addr := range backends {
		fmt.Fprintf(&b, "\tserver r%d %s check\n", i+1, addr)
	}
	return b.String()
}

// startReplicas starts the three gateways with vars and HAProxy in front.
// A missing haproxy fails the test, as a missing chromium or PostgreSQL
// does: scripts/install-deps installs Debian's.
func startReplicas(t *testing.T, vars map[string]string) *replicaSet {
	t.Helper()
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		// Debian installs it in /usr/sbin, which is not on users' PATH.
		haproxy = "/usr/sbin/haproxy"
		if _, err := os.Stat(haproxy); err != nil {
			t.Fatal("haproxy is required for the replica tests (scripts/install-deps installs Debian's haproxy)")
		}
	}
	front := freeAddr(t)
	rs := &replicaSet{lb: "http://" + front, proxy: gatewaytest.NewFaultProxy(t, env.URL)}
	// Browsers reach Auth directly; the replicas' own calls go through the
	// fault proxy, which holds chosen answers.
	all := map[string]string{"SUPABASE_URL": rs.proxy.URL, "GATEWAY_OAUTH_ISSUER": env.AuthURL,
		"GATEWAY_PUBLIC_URL": rs.lb, "EDGE_FUNCTIONS_URL": rs.lb}
	for k, v := range vars {
		all[k] = v
	}
	var backends []string
	for range 3 {
		base, child := startChildGateway(t, all)
		rs.replicas = append(rs.replicas, base)
		rs.children = append(rs.children, child)
		backends = append(backends, strings.TrimPrefix(base, "http://"))
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "haproxy.cfg")
	rs.admin = filepath.Join(dir, "admin.sock")
	if err := os.WriteFile(cfg, []byte(haproxyConfig(front, rs.admin, backends)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(haproxy, "-db", "-f", cfg)
	rs.stderr = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, rs.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	rs.waitBalanced(t)
	return rs
}

// waitBalanced returns once HAProxy has seen every replica pass its
// check: three requests in a row are answered by three replicas.
func (rs *replicaSet) waitBalanced(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		seen := map[string]bool{}
		for range 3 {
			if resp, err := http.Get(rs.lb + "/healthz"); err == nil {
				resp.Body.Close()
				seen[resp.Header.Get("X-Replica")] = true
			}
		}
		if len(seen) == 3 && !seen[""] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy did not balance over the three replicas: %v\n%s", seen, rs.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// replicaRecorder is an HTTP transport that notes which replica answered
// each JSON-RPC method.
type replicaRecorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	seen []string // "method@replica"
}

func (r *replicaRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	method := req.Header.Get("Mcp-Method")
	if method == "" && req.Body != nil && req.GetBody != nil {
		if b, err := req.GetBody(); err == nil {
			var m struct{ Method string }
			_ = json.NewDecoder(b).Decode(&m)
			method = m.Method
		}
	}
	resp, err := r.base.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		r.seen = append(r.seen, method+"@"+resp.Header.Get("X-Replica"))
		r.mu.Unlock()
	}
	return resp, err
}

// replicasOf returns the replicas that answered method, in order.
func (r *replicaRecorder) replicasOf(method string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.seen {
		if m, rep, _ := strings.Cut(s, "@"); m == method {
			out = append(out, rep)
		}
	}
	return out
}

type grantTokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	clientID     string
}

// jtiOf is an mcp_ token's token_id (its jti).
func jtiOf(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(strings.TrimPrefix(token, "mcp_"), ".")
	if len(parts) != 3 {
		t.Fatalf("not an mcp_ token: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Jti string }
	if err := json.Unmarshal(payload, &c); err != nil || c.Jti == "" {
		t.Fatalf("no jti in %s", payload)
	}
	return c.Jti
}

// replicaVerifier is the PKCE verifier of the flows connectThrough runs.
const replicaVerifier = "replicas-code-verifier-0123456789abcdefghijklmnopqrstuvwxyz"

// connectThrough runs the OAuth flow through base: registration, the
// browser's authorize, sign-in, callback and consent (one cookie jar, as
// a browser keeps), and the code's redemption by a client that keeps no
// cookies.
func connectThrough(t *testing.T, base string) grantTokens {
	t.Helper()
	b, clientID := startConnecting(t, base)
	return finishConnecting(t, base, b, clientID)
}

// startConnecting registers a client and signs Alice in, up to the
// consent page: the pending authorization lives in the browser's sealed
// cookie, so any replica can continue it.
func startConnecting(t *testing.T, base string) (*browser, string) {
	t.Helper()
	sum := sha256.Sum256([]byte(replicaVerifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	clientID := register(t, base)
	b := newBrowser(t)
	status, loc, body := b.signInAs(base, clientID, challenge, gatewaytest.Alice)
	if status != http.StatusSeeOther || loc != base+"/functions/v1/mcp-server/oauth/consent" {
		t.Fatalf("callback: %d %s %s", status, loc, body)
	}
	return b, clientID
}

// finishConnecting approves on the consent page and redeems the code.
func finishConnecting(t *testing.T, base string, b *browser, clientID string) grantTokens {
	t.Helper()
	_, _, page := b.do("GET", base+"/functions/v1/mcp-server/oauth/consent", nil)
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("consent page: %s", page)
	}
	status, loc, _ := b.do("POST", base+"/functions/v1/mcp-server/oauth/consent", url.Values{"csrf_token": {m[1]}, "decision": {"approve"}})
	back, _ := url.Parse(loc)
	if status != http.StatusSeeOther || back.Query().Get("code") == "" {
		t.Fatalf("approve: %d %s", status, loc)
	}
	r := formPost(t, base+"/functions/v1/mcp-server/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
		"redirect_uri": {e2eRedirect}, "client_id": {clientID}, "code_verifier": {replicaVerifier}})
	var tk grantTokens
	if err := json.Unmarshal([]byte(r.body), &tk); r.status != http.StatusOK || err != nil || tk.RefreshToken == "" {
		t.Fatalf("token: %d %s", r.status, r.body)
	}
	tk.clientID = clientID
	return tk
}

// replicaTTL is the replicas' access-token lifetime: short, so the
// TypeScript SDK's refresh happens within the test.
const replicaTTL = 6 * time.Second

// TestReplicasBehindBalancer runs every flow that spans requests through
// three replicas behind HAProxy, then kills one (SIGKILL) and drains
// another (SIGTERM) in the middle of flows. The replicas share one stack,
// so the test's wall time is mostly the browser's.
func TestReplicasBehindBalancer(t *testing.T) {
	requireStandIn(t)
	env.RequireLocal(t) // signs in at the local stack's stand-in provider
	node := oauthNode(t)
	vars := writeVars()
	vars["GATEWAY_OAUTH_ACCESS_TOKEN_TTL"] = replicaTTL.String()
	rs := startReplicas(t, vars)
	endpoint := rs.lb + "/functions/v1/mcp-server"

	t.Run("mcp-remote", func(t *testing.T) { replicaMCPRemote(t, node, endpoint) })
	t.Run("TypeScript SDK", func(t *testing.T) { replicaSDK(t, node, rs) })
	t.Run("double refresh and revocation", func(t *testing.T) { replicaRefreshRevoke(t, rs) })
	t.Run("write approved through the others", func(t *testing.T) { replicaWrite(t, rs) })
	t.Run("input_required resumed elsewhere", func(t *testing.T) { replicaInputRequired(t, node, rs) })
	t.Run("views", func(t *testing.T) { replicaViews(t, rs) })
	t.Run("kill and drain", func(t *testing.T) { replicaKillDrain(t, rs) })
}

// replicaMCPRemote: mcp-remote connects with the URL alone, Chromium signs
// in and approves, and the tool call works.
func replicaMCPRemote(t *testing.T, node, endpoint string) {
	port := portForChild(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "oauth.mjs", "mcp-remote", endpoint, "alice.instructor@example.edu", strconv.Itoa(port))
	cmd.Dir = oauthClientDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("oauth.mjs mcp-remote: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var r struct {
		Tools  int
		First  string
		Opened int
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if r.Tools == 0 || r.First != assignmentJSON || r.Opened != 1 {
		t.Errorf("mcp-remote: %d tools, opened the browser %d times, result %s", r.Tools, r.Opened, r.First)
	}
}

// replicaSDK: the TypeScript SDK registers, signs in through Chromium,
// calls a tool, refreshes after its access token expired, and after the
// grant is revoked through mcp-tokens its next call fails and its refresh
// is refused.
func replicaSDK(t *testing.T, node string, rs *replicaSet) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "oauth.mjs", "sdk", rs.lb+"/functions/v1/mcp-server", "alice.instructor@example.edu", strconv.Itoa(int(replicaTTL/time.Millisecond)))
	cmd.Dir = oauthClientDir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	// Read on failure while the process still runs: the exec package
	// copies into it from its own goroutine until Wait.
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	dec := json.NewDecoder(stdout)
	var r struct {
		Step, Error   string
		First, Second string
		Refreshed     bool
	}
	if err := dec.Decode(&r); err != nil || r.Step == "failed" {
		t.Fatalf("oauth.mjs sdk: %v %s\nstderr:\n%s", err, r.Error, stderr.String())
	}
	if r.First != assignmentJSON || r.Second != assignmentJSON || !r.Refreshed {
		t.Errorf("SDK: refreshed %v, results:\nfirst  %s\nsecond %s", r.Refreshed, r.First, r.Second)
	}
	id := listGrant(t, rs.lb, "SDK E2E Client — connected with OAuth")
	if del := call(t, "DELETE", rs.lb+"/functions/v1/mcp-tokens", "Bearer "+env.SessionToken(t, gatewaytest.Alice), `{"token_id":"`+id+`"}`); del.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", del.status, del.body)
	}
	if _, err := io.WriteString(stdin, "revoked\n"); err != nil {
		t.Fatal(err)
	}
	var after struct{ Error string }
	if err := dec.Decode(&after); err != nil || after.Error != "authorization required again" {
		t.Errorf("the call after revocation: %v %q\nstderr:\n%s", err, after.Error, stderr.String())
	}
}

// refreshAnswer is one token-endpoint answer and the replica that gave it.
type refreshAnswer struct {
	status  int
	replica string
	body    string
	tokens  grantTokens
	err     error
}

func refreshOnce(base string, tk grantTokens) refreshAnswer {
	resp, err := http.PostForm(base+"/functions/v1/mcp-server/oauth/token",
		url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}, "client_id": {tk.clientID}})
	if err != nil {
		return refreshAnswer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	a := refreshAnswer{status: resp.StatusCode, replica: resp.Header.Get("X-Replica"), body: string(b), err: err}
	if a.status == http.StatusOK {
		a.err = json.Unmarshal(b, &a.tokens)
	}
	return a
}

// replicaRefreshRevoke: one refresh token presented twice at once (a host
// retrying) reaches two replicas; both answers are decided one after the
// other by the database, at least one succeeds, and the grant stays live
// on every replica. Revoked through mcp-tokens, its access token is
// refused by every replica on the very next request, and its refresh
// tokens by the balancer.
func replicaRefreshRevoke(t *testing.T, rs *replicaSet) {
	tk := connectThrough(t, rs.lb)
	var answers [2]refreshAnswer
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i] = refreshOnce(rs.lb, tk) })
	}
	wg.Wait()
	var live []grantTokens
	for i, a := range answers {
		switch {
		case a.err != nil:
			t.Fatalf("refresh %d: %v", i, a.err)
		case a.status == http.StatusOK:
			live = append(live, a.tokens)
		case a.status != http.StatusBadRequest || a.body != `{"error":"invalid_grant","error_description":"The refresh token is invalid, expired or revoked"}`:
			t.Errorf("refresh %d on %s: %d %s", i, a.replica, a.status, a.body)
		}
	}
	t.Logf("double refresh answered by %s (%d) and %s (%d)", answers[0].replica, answers[0].status, answers[1].replica, answers[1].status)
	if len(live) == 0 {
		t.Fatal("neither of two concurrent refreshes succeeded")
	}
	access := live[len(live)-1].AccessToken
	for _, r := range rs.replicas {
		if a := call(t, "POST", r+"/functions/v1/mcp-server", "Bearer "+access, getAssignment); a.status != http.StatusOK || a.body != assignmentText {
			t.Errorf("%s after the double refresh: %d %s", r, a.status, a.body)
		}
	}
	id := jtiOf(t, access)
	if del := call(t, "DELETE", rs.lb+"/functions/v1/mcp-tokens", "Bearer "+env.SessionToken(t, gatewaytest.Alice), `{"token_id":"`+id+`"}`); del.status != http.StatusOK {
		t.Fatalf("revoke through mcp-tokens: %d %s", del.status, del.body)
	}
	for _, r := range rs.replicas {
		a := call(t, "POST", r+"/functions/v1/mcp-server", "Bearer "+access, getAssignment)
		if a.status != http.StatusUnauthorized || !strings.Contains(a.body, "API token has been revoked") {
			t.Errorf("%s after the revocation: %d %s", r, a.status, a.body)
		}
	}
	for _, l := range live {
		if a := refreshOnce(rs.lb, grantTokens{RefreshToken: l.RefreshToken, clientID: tk.clientID}); a.status != http.StatusBadRequest {
			t.Errorf("refresh after the revocation on %s: %d %s", a.replica, a.status, a.body)
		}
	}
}

// replicaWrite: a write proposed through replica 1, its link opened and
// signed in to on replica 2, approved on replica 3: written once.
func replicaWrite(t *testing.T, rs *replicaSet) {
	token := createWriteToken(t, rs.lb, env.SessionToken(t, gatewaytest.Alice))
	message := fmt.Sprintf("Proposed on one replica, approved on the others (%d).", time.Now().UnixNano())
	forgetMessage(t, message)
	link, id := proposeReply(t, rs.replicas[0]+"/functions/v1/mcp-server", token, message)
	if !strings.HasPrefix(link, rs.lb+"/") {
		t.Fatalf("approval link %s is not on the public URL %s", link, rs.lb)
	}
	b, page := signInToApprove(t, strings.Replace(link, rs.lb, rs.replicas[1], 1), gatewaytest.Alice)
	csrf := csrfInput.FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("no review page:\n%s", page)
	}
	decided := fetch(t, b, http.MethodPost, strings.Replace(link, rs.lb, rs.replicas[2], 1), url.Values{"csrf_token": {csrf[1]}, "decision": {"approve"}})
	if got := h1(decided); got != "Approved and written" {
		t.Errorf("decision on replica 3: %q\n%s", got, decided)
	}
	if state, rowID := storedAction(t, id); state != "approved" || rowID == "" || messagesWith(t, message) != 1 {
		t.Errorf("action %s row %q, %d messages; want approved with the one message", state, rowID, messagesWith(t, message))
	}
}

// replicaInputRequired: go-sdk at 2026-07-28 through the balancer gets the
// approval link as an input_required result from one replica; Chromium
// approves; the SDK's retry with the sealed requestState is answered by
// another replica, which reports the action approved.
func replicaInputRequired(t *testing.T, node string, rs *replicaSet) {
	token := createWriteToken(t, rs.lb, env.SessionToken(t, gatewaytest.Alice))
	message := fmt.Sprintf("Resumed on another replica (%d).", time.Now().UnixNano())
	forgetMessage(t, message)
	var seen personSeen
	var out string // the replica taken out of the rotation for the retry
	defer func() {
		if out != "" {
			if err := rs.setServer("enable", out); err != nil {
				t.Error(err)
			}
			rs.waitBalanced(t)
		}
	}()
	rec := &replicaRecorder{base: http.DefaultTransport}
	client := mcp.NewClient(&mcp.Implementation{Name: "gateway-replicas-e2e", Version: "1.0.0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if err := runWrites(node, &seen, "person", req.Params.URL, "alice.instructor@example.edu", "approve"); err != nil {
				return nil, err
			}
			// Round robin alone cannot promise the retry another replica
			// (the browser's and the client's own requests move it on), so
			// the replica that answered the first call leaves the rotation
			// until the retry has been answered.
			first := rec.replicasOf("tools/call")
			if len(first) != 1 {
				return nil, fmt.Errorf("tools/call answered by %v before the retry", first)
			}
			if err := rs.setServer("disable", first[0]); err != nil {
				return nil, err
			}
			out = first[0]
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   rs.lb + "/functions/v1/mcp-server",
		HTTPClient: &http.Client{Transport: bearerTransport{base: rec, bearer: "Bearer " + token}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("negotiated %q, want 2026-07-28", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "reply_to_help_request",
		Arguments: map[string]any{"class_id": 1, "help_request_id": 1, "message": message}})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	calls := rec.replicasOf("tools/call")
	if len(calls) != 2 || calls[0] == calls[1] || calls[0] == "" {
		t.Errorf("tools/call and its retry answered by %v, want two different replicas", calls)
	}
	if seen.Decided == nil || seen.Decided.Heading != "Approved and written" {
		t.Errorf("approval page: %+v", seen)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	id, _ := sc["action_id"].(string)
	if state, rowID := storedAction(t, id); res.IsError || sc["state"] != "approved" || state != "approved" || sc["written_row_id"] != rowID {
		t.Errorf("retry's result: isError %v %v; stored %q row %q", res.IsError, sc, state, rowID)
	}
	if n := messagesWith(t, message); n != 1 {
		t.Errorf("%d rows hold the message, want 1", n)
	}
}

// setServer sends "<action> server replicas/<name>" (disable or enable)
// to HAProxy's runtime API; disabling takes the replica out of the
// rotation at once, whatever its checks say.
func (rs *replicaSet) setServer(action, name string) error {
	conn, err := net.DialTimeout("unix", rs.admin, 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(conn, "%s server replicas/%s\n", action, name); err != nil {
		return err
	}
	answer, err := io.ReadAll(conn)
	if err != nil {
		return err
	}
	if msg := strings.TrimSpace(string(answer)); msg != "" {
		return fmt.Errorf("haproxy: %s server %s: %s", action, name, msg)
	}
	return nil
}

// replicaViews: the views a tools/list from replica 1 points at are read
// from replicas 2 and 3, identically.
func replicaViews(t *testing.T, rs *replicaSet) {
	token := createMCPToken(t, rs.lb, env.SessionToken(t, gatewaytest.Alice))
	list := rpc(t, rs.replicas[0]+"/functions/v1/mcp-server", token, "tools/list", map[string]any{})
	raw, _ := json.Marshal(list)
	for _, uri := range viewURIs {
		if !strings.Contains(string(raw), `"resourceUri":"`+uri+`"`) {
			t.Errorf("tools/list on replica 1 does not point at %s", uri)
		}
		var texts []string
		for _, r := range rs.replicas[1:] {
			m := rpc(t, r+"/functions/v1/mcp-server", token, "resources/read", map[string]any{"uri": uri})
			c, _ := lookup(m, []any{"result", "contents", 0}).(map[string]any)
			text, _ := c["text"].(string)
			if c["uri"] != uri || c["mimeType"] != "text/html;profile=mcp-app" || !strings.Contains(text, "<html") {
				t.Errorf("%s on %s: %v", uri, r, m)
			}
			texts = append(texts, text)
		}
		if len(texts) == 2 && texts[0] != texts[1] {
			t.Errorf("%s differs between replicas 2 and 3", uri)
		}
	}
}

// lbFailure reports whether an answer is HAProxy's own refusal: a 502 or
// 503 page of its own, which a client shows as a failed request.
func lbFailure(status int, body string) bool {
	return (status == http.StatusServiceUnavailable && strings.Contains(body, "No server is available to handle this request")) ||
		(status == http.StatusBadGateway && strings.Contains(body, "502 Bad Gateway"))
}

// replicaKillDrain: an approval is in flight on replica 1 when it is
// drained (SIGTERM) and replica 2 is killed (SIGKILL), with a person
// half-way through connecting a client and an event stream open on each.
// The approval completes; the drained replica's stream ends cleanly and
// the killed one's breaks off; requests sent meanwhile are answered by a
// replica or refused by the balancer with its own error page, never
// half-answered; once the balancer's checks have taken both out, the
// person finishes connecting, the client refreshes, calls a tool and
// reconnects its stream, and the approval link shows the one write.
func replicaKillDrain(t *testing.T, rs *replicaSet) {
	token := createWriteToken(t, rs.lb, env.SessionToken(t, gatewaytest.Alice))
	message := fmt.Sprintf("Approved on a draining replica (%d).", time.Now().UnixNano())
	forgetMessage(t, message)
	link, id := proposeReply(t, rs.lb+"/functions/v1/mcp-server", token, message)
	b, page := signInToApprove(t, link, gatewaytest.Alice)
	csrf := csrfInput.FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("no review page:\n%s", page)
	}
	// Mid-flow: a person half-way through connecting a client (signed in,
	// at the consent page), an event stream open on each of the two
	// replicas about to go, and an approval in flight on replica 1.
	connecting, clientID := startConnecting(t, rs.lb)
	drainedStream := openStream(t, rs.replicas[0], token)
	killedStream := openStream(t, rs.replicas[1], token)
	d := &drainSetup{proxy: rs.proxy, browser: b, csrf: csrf[1], link: strings.Replace(link, rs.lb, rs.replicas[0], 1)}
	decided := d.approveSlowly(t, 2*time.Second)

	sent := time.Now()
	if err := rs.children[0].Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := rs.children[1].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Requests right after: each is served, or refused by the balancer.
	served, refused := 0, 0
	for range 12 {
		resp, err := http.Get(rs.lb + "/functions/v1/mcp-server/oauth/.well-known/oauth-authorization-server")
		if err != nil {
			t.Fatalf("the balancer did not answer: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK && strings.HasPrefix(string(body), `{"issuer":"`):
			served++
		case lbFailure(resp.StatusCode, string(body)):
			refused++
		default:
			t.Errorf("during the kill and the drain: %d %s", resp.StatusCode, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("12 requests during the kill and drain: %d served, %d refused by the balancer", served, refused)

	// The drained replica's stream ends cleanly, so the client reconnects;
	// the killed one's breaks off, which the client sees as an error.
	for _, s := range []struct {
		name  string
		ended <-chan error
		clean bool
	}{{"drained", drainedStream, true}, {"killed", killedStream, false}} {
		select {
		case err := <-s.ended:
			if (err == nil) != s.clean {
				t.Errorf("the %s replica's event stream ended with %v", s.name, err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("the %s replica's event stream was still open 5 s later", s.name)
		}
	}
	r := <-decided
	if r.err != nil || r.status != http.StatusOK || r.heading != "Approved and written" {
		t.Errorf("the approval in flight on the draining replica: %d %q %v", r.status, r.heading, r.err)
	}
	if code, took := waitExit(t, rs.children[0], sent, 10*time.Second); code != 0 {
		t.Errorf("the drained replica exited %d after %v, want 0", code, took)
	}
	if state, rowID := storedAction(t, id); state != "approved" || rowID == "" || messagesWith(t, message) != 1 {
		t.Errorf("action %s row %q, %d messages; want approved with the one message", state, rowID, messagesWith(t, message))
	}

	// The balancer's checks take both out (three failed checks 300 ms
	// apart, each given up to 2 s); the last replica serves every flow.
	deadline := time.Now().Add(20 * time.Second)
	for streak := 0; streak < 6; {
		resp, err := http.Get(rs.lb + "/healthz")
		if err == nil && resp.StatusCode == http.StatusOK && resp.Header.Get("X-Replica") == "r3" {
			streak++
		} else {
			streak = 0
		}
		if err == nil {
			resp.Body.Close()
		}
		if time.Now().After(deadline) {
			t.Fatal("the balancer still sends requests to the killed or drained replica")
		}
	}
	tk := finishConnecting(t, rs.lb, connecting, clientID)
	reopened := openStream(t, rs.lb, token)
	select {
	case err := <-reopened:
		t.Errorf("the reconnected event stream ended at once: %v", err)
	default:
	}
	if a := refreshOnce(rs.lb, tk); a.status != http.StatusOK {
		t.Errorf("refresh on the last replica: %d %s", a.status, a.body)
	}
	if a := call(t, "POST", rs.lb+"/functions/v1/mcp-server", "Bearer "+tk.AccessToken, getAssignment); a.status != http.StatusOK || a.body != assignmentText {
		t.Errorf("tool call on the last replica: %d %s", a.status, a.body)
	}
	_, again := signInToApprove(t, link, gatewaytest.Alice)
	if got := h1(again); got != "Already approved" {
		t.Errorf("the approval link on the last replica: %q", got)
	}
	if n := messagesWith(t, message); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}
