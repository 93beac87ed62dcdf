package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// Real OAuth clients against the wired gateway (GATEWAY_OAUTH_SERVER=
// gateway) and the local stack, each starting from nothing but the server
// URL: the official TypeScript SDK's OAuth client provider, and mcp-remote
// as Claude Desktop runs it. Headless Debian Chromium, driven by
// playwright-core, is the person: it signs in at the stand-in provider as
// a staff persona and clicks Approve (testdata/oauthclient/oauth.mjs).
// A missing node, npm or chromium fails these tests: they are the proof
// that OAuth-only hosts can connect.

var oauthClientDir = filepath.Join("testdata", "oauthclient")

// oauthNode installs the pinned client packages and returns node's path.
func oauthNode(t *testing.T) string {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Fatal("node and npm are required for the real-client OAuth tests (scripts/install-deps installs Debian's nodejs and npm)")
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("headless Chromium is required for the real-client OAuth tests (scripts/install-deps installs Debian's chromium): %v", err)
	}
	oauthNPM.Do(func() {
		if _, err := os.Stat(filepath.Join(oauthClientDir, "node_modules", "playwright-core")); err == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
		cmd.Dir = oauthClientDir
		if out, err := cmd.CombinedOutput(); err != nil {
			oauthNPMErr = string(out) + err.Error()
		}
	})
	if oauthNPMErr != "" {
		t.Fatalf("npm ci in %s: %s", oauthClientDir, oauthNPMErr)
	}
	return node
}

var (
	oauthNPM    sync.Once
	oauthNPMErr string
)

// consentSeen is what the browser saw on the consent page.
type consentSeen struct {
	Heading, Account, CSP, CacheControl, FrameOptions, ReturnedTo, FramedURL, FramedText string
	// In a 375-pixel-wide window; HostLines counts the lines the return
	// address's host name is laid out on, RegistrableLeft and Right are the
	// edges of its registrable domain (and port) in the window.
	ScrollWidth, ApproveHeight, ApproveWidth, HostLines int
	HostText                                            string
	RegistrableLeft, RegistrableRight, ViewportWidth    int
	SubdomainElided, AddressScrolls                     bool
	AddressFontPx                                       float64
}

// checkPhoneLayout: in the phone-sized window nothing is wider than the
// screen, the host is on one line, and its registrable domain is wholly
// in view without scrolling.
func checkPhoneLayout(t *testing.T, s consentSeen) {
	t.Helper()
	if s.ViewportWidth != 375 || s.ScrollWidth > s.ViewportWidth {
		t.Errorf("the consent page is %d px wide in a %d px window", s.ScrollWidth, s.ViewportWidth)
	}
	if s.HostLines != 1 {
		t.Errorf("at 375 px the return address's host %q spans %d lines, want 1", s.HostText, s.HostLines)
	}
	if s.RegistrableLeft < 0 || s.RegistrableRight > s.ViewportWidth || s.RegistrableRight <= s.RegistrableLeft || s.AddressScrolls {
		t.Errorf("the registrable domain of %q is laid out at %d–%d px of %d (address scrolls: %v)", s.HostText, s.RegistrableLeft, s.RegistrableRight, s.ViewportWidth, s.AddressScrolls)
	}
}

func checkConsentSeen(t *testing.T, s consentSeen, client, returnedTo string) {
	t.Helper()
	if s.Heading != "Allow "+client+" to use Pawtograder as you?" || s.Account != "alice.instructor@example.edu" {
		t.Errorf("consent page: heading %q account %q", s.Heading, s.Account)
	}
	if !strings.Contains(s.CSP, "frame-ancestors 'none'") || s.CacheControl != "no-store" || s.FrameOptions != "DENY" {
		t.Errorf("consent headers: CSP %q Cache-Control %q X-Frame-Options %q", s.CSP, s.CacheControl, s.FrameOptions)
	}
	if !strings.HasPrefix(s.ReturnedTo, returnedTo) {
		t.Errorf("Approve returned to %q, want %q", s.ReturnedTo, returnedTo)
	}
	// Chromium refused to render the framed consent page.
	if !strings.HasPrefix(s.FramedURL, "chrome-error://") || strings.Contains(s.FramedText, "Approve") || strings.Contains(s.FramedText, "expired") {
		t.Errorf("framed consent page rendered: url %q text %q", s.FramedURL, s.FramedText)
	}
	checkPhoneLayout(t, s)
	t.Logf("consent page framed by another page: frame at %q with text %q", s.FramedURL, s.FramedText)
}

// oauthGateway starts a gateway in the gateway mode with a short access
// token lifetime, so the SDK's refresh is exercised for real.
func oauthGateway(t *testing.T, ttl time.Duration) string {
	return startGateway(t, oauthVars(map[string]string{"MCP_JWT_SECRET": e2eSecret, "GATEWAY_OAUTH_ACCESS_TOKEN_TTL": ttl.String()}))
}

// listGrant finds the live grant named name in Alice's mcp-tokens list and
// returns its token_id.
func listGrant(t *testing.T, gw, name string) string {
	t.Helper()
	r := call(t, "GET", gw+"/functions/v1/mcp-tokens", "Bearer "+env.SessionToken(t, gatewaytest.Alice), "")
	var listed struct {
		Tokens []struct {
			TokenID   string   `json:"token_id"`
			Name      string   `json:"name"`
			Scopes    []string `json:"scopes"`
			RevokedAt *string  `json:"revoked_at"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(r.body), &listed); r.status != 200 || err != nil {
		t.Fatalf("mcp-tokens list: %d %s", r.status, r.body)
	}
	for _, tok := range listed.Tokens {
		if tok.Name == name && tok.RevokedAt == nil {
			return tok.TokenID
		}
	}
	t.Fatalf("mcp-tokens does not list a live grant %q: %s", name, r.body)
	return ""
}

// TestOAuthTypeScriptSDK: the SDK discovers the gateway's authorization
// server, registers, runs PKCE through Chromium, calls a tool, refreshes
// after the access token expires; the grant is then revoked through
// mcp-tokens and the very next call fails.
func TestOAuthTypeScriptSDK(t *testing.T) {
	env.RequireLocal(t) // signs in at the local stack's stand-in provider
	node := oauthNode(t)
	const ttl = 3 * time.Second
	gw := oauthGateway(t, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "oauth.mjs", "sdk", gw+"/functions/v1/mcp-server", "alice.instructor@example.edu", strconv.Itoa(int(ttl/time.Millisecond)))
	cmd.Dir = oauthClientDir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	next := func() map[string]json.RawMessage {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("oauth.mjs ended early: %v\nstderr:\n%s", lines.Err(), stderr.String())
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("oauth.mjs: %v: %s", err, lines.Text())
		}
		if string(m["step"]) == `"failed"` {
			t.Fatalf("oauth.mjs failed: %s\nstderr:\n%s", m["error"], stderr.String())
		}
		return m
	}

	got := next()
	var r struct {
		Seen                consentSeen
		Callback            map[string]string
		Client              struct{ Name, IDPrefix string }
		AuthorizationParams map[string]string
		First, Second       string
		Refreshed           bool
		TokenSaves          int
		AccessPrefix, Scope string
	}
	raw, _ := json.Marshal(got)
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	checkConsentSeen(t, r.Seen, "SDK E2E Client", "http://127.0.0.1:")
	// The SDK asks for the protected resource's scopes_supported: the
	// baseline, mcp:read (MCP authorization, scope selection strategy).
	want := map[string]string{"response_type": "code", "code_challenge_method": "S256", "resource": gw + "/functions/v1/mcp-server", "scope": "mcp:read"}
	for k, v := range want {
		if r.AuthorizationParams[k] != v {
			t.Errorf("authorization request %s = %q, want %q (all: %v)", k, r.AuthorizationParams[k], v, r.AuthorizationParams)
		}
	}
	if r.Callback["iss"] != gw+"/functions/v1/mcp-server/oauth" || r.Callback["state"] != "sdk-state-1" {
		t.Errorf("authorization response: %v", r.Callback)
	}
	if r.Client.IDPrefix != "mcpc_" || r.Client.Name != "SDK E2E Client" {
		t.Errorf("registered client: %+v", r.Client)
	}
	if r.First != assignmentJSON || r.Second != assignmentJSON {
		t.Errorf("tool results under RLS:\nfirst  %s\nsecond %s", r.First, r.Second)
	}
	if !r.Refreshed || r.TokenSaves != 2 || r.AccessPrefix != "mcp_" || r.Scope != "mcp:read" {
		t.Errorf("refresh after expiry: refreshed %v, saves %d, prefix %q, scope %q", r.Refreshed, r.TokenSaves, r.AccessPrefix, r.Scope)
	}

	// The grant is an ordinary token of Alice's: listed and revocable.
	id := listGrant(t, gw, "SDK E2E Client — connected with OAuth")
	if del := call(t, "DELETE", gw+"/functions/v1/mcp-tokens", "Bearer "+env.SessionToken(t, gatewaytest.Alice), `{"token_id":"`+id+`"}`); del.status != 200 {
		t.Fatalf("revoke: %d %s", del.status, del.body)
	}
	if _, err := io.WriteString(stdin, "revoked\n"); err != nil {
		t.Fatal(err)
	}
	after := next()
	// The call got 401, the refresh token was refused (the grant is
	// revoked), and the SDK fell back to asking the person again, which
	// the script refuses: nothing works without a new Approve.
	if string(after["error"]) != `"authorization required again"` {
		t.Errorf("the call after revocation: %s", after["error"])
	}
}

// assignmentJSON is get_assignment's text for assignment 1 (seeded).
const assignmentJSON = "{\n  \"id\": 1,\n  \"title\": \"Hello World\",\n  \"slug\": \"hw1-hello-world\",\n  \"description\": \"Warm-up: print a greeting.\",\n  \"handout_url\": \"https://example.edu/cs3500/hw1\",\n  \"due_date\": \"2026-01-20T04:59:00+00:00\",\n  \"release_date\": \"2026-01-05T14:00:00+00:00\",\n  \"total_points\": 100,\n  \"has_autograder\": true,\n  \"class_id\": 1\n}"

// TestOAuthMCPRemote: mcp-remote (what Claude Desktop users run) connects
// with the URL alone; its "open the browser" step goes through the open
// package's xdg-open to $BROWSER, a script that hands the URL to
// Chromium.
func TestOAuthMCPRemote(t *testing.T) {
	env.RequireLocal(t) // signs in at the local stack's stand-in provider
	node := oauthNode(t)
	gw := oauthGateway(t, time.Hour)
	port := portForChild(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "oauth.mjs", "mcp-remote", gw+"/functions/v1/mcp-server", "alice.instructor@example.edu", strconv.Itoa(port))
	cmd.Dir = oauthClientDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("oauth.mjs mcp-remote: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var r struct {
		Seen   consentSeen
		Tools  int
		First  string
		Opened int
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	checkConsentSeen(t, r.Seen, "MCP CLI Proxy", "http://127.0.0.1:"+strconv.Itoa(port)+"/oauth/callback")
	if r.Tools != len(negotiatedCatalogue) || r.First != assignmentJSON || r.Opened != 1 {
		t.Errorf("mcp-remote: %d tools, opened the browser %d times, result %s", r.Tools, r.Opened, r.First)
	}
	listGrant(t, gw, "MCP CLI Proxy — connected with OAuth")
}

// TestOAuthConsentLongHost: a client registered with a long return
// address, including look-alike names with a Cyrillic "а", shown on the
// consent page in Chromium at 375 px: the host stays on one line in its
// ASCII form, its registrable domain is wholly in view (the type is
// smaller for a long one), and a subdomain too long for the line loses
// its start to an ellipsis. With -update-screenshots the first case's
// picture replaces docs/images/consent-375-long-host.png.
func TestOAuthConsentLongHost(t *testing.T) {
	env.RequireLocal(t) // signs in at the local stack's stand-in provider
	node := oauthNode(t)
	gw := startGateway(t, oauthVars(nil))
	cases := []struct {
		redirect, host string
		elided         bool
		fontPx         float64
	}{
		{"https://connect.p\u0430wtograder-course-assistant.org/oauth/callback", "connect.xn--pwtograder-course-assistant-iuv.org", true, 12.8},
		{"https://accounts.sign-in.p\u0430wtograder-assistant-connector.org/cb", "accounts.sign-in.xn--pwtograder-assistant-connector-f5x.org", true, 10.88},
		{"https://claude.ai/api/mcp/auth_callback", "claude.ai", false, 16},
	}
	for i, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			r := call(t, "POST", gw+"/functions/v1/mcp-server/oauth/register", "", `{"client_name":"Course Assistant","redirect_uris":["`+tc.redirect+`"]}`)
			var reg struct {
				ClientID string `json:"client_id"`
			}
			if err := json.Unmarshal([]byte(r.body), &reg); r.status != 201 || err != nil {
				t.Fatalf("register: %d %s", r.status, r.body)
			}
			sum := sha256.Sum256([]byte("consent-layout-verifier-0123456789abcdefghijklmnop"))
			q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {tc.redirect}, "state": {"st"},
				"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
				"resource": {gw + "/functions/v1/mcp-server"}, "scope": {"mcp:read"}}
			shot := filepath.Join(t.TempDir(), "consent.png")
			if *updateScreenshots && i == 0 {
				var err error
				if shot, err = filepath.Abs(filepath.Join("..", "..", "..", "docs", "images", "consent-375-long-host.png")); err != nil {
					t.Fatal(err)
				}
			}
			var got struct {
				Step string
				Seen consentSeen
			}
			if err := runNodeJSON(node, oauthClientDir, &got, "oauth.mjs", "consent", gw+"/functions/v1/mcp-server/oauth/authorize?"+q.Encode(), "alice.instructor@example.edu", shot); err != nil || got.Step != "consent" {
				t.Fatalf("oauth.mjs consent: step %q: %v", got.Step, err)
			}
			s := got.Seen
			if s.Heading != "Allow Course Assistant to use Pawtograder as you?" || s.HostText != tc.host {
				t.Errorf("consent page: heading %q host %q, want host %q", s.Heading, s.HostText, tc.host)
			}
			checkPhoneLayout(t, s)
			if s.SubdomainElided != tc.elided || s.AddressFontPx != tc.fontPx {
				t.Errorf("subdomain elided %v at %v px, want %v at %v px", s.SubdomainElided, s.AddressFontPx, tc.elided, tc.fontPx)
			}
			if _, err := os.Stat(shot); err != nil {
				t.Error(err)
			}
		})
	}
}
