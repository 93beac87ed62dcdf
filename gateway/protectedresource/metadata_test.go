package protectedresource

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"
)

func newMeta(t *testing.T) *Metadata {
	t.Helper()
	m, err := New(Options{
		ResourceURL:         "https://project.example/functions/v1/mcp-server",
		AuthorizationServer: "https://project.example/auth/v1",
		Scopes:              []string{"mcp:read"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDocumentAtEveryPath(t *testing.T) {
	m := newMeta(t)
	e := echo.New()
	for _, p := range Paths("/functions/v1/mcp-server") {
		e.Any(p, m.Serve)
	}
	want := `{"resource":"https://project.example/functions/v1/mcp-server","authorization_servers":["https://project.example/auth/v1"],"scopes_supported":["mcp:read"],"bearer_methods_supported":["header"],"resource_name":"Pawtograder MCP server"}`
	for _, p := range []string{
		"/.well-known/oauth-protected-resource",
		"/.well-known/oauth-protected-resource/functions/v1/mcp-server",
		"/functions/v1/mcp-server/.well-known/oauth-protected-resource",
	} {
		req := httptest.NewRequest(http.MethodGet, p, nil)
		// A forged Host or X-Forwarded-Host must not change the document.
		req.Host = "evil.example"
		req.Header.Set("X-Forwarded-Host", "evil.example")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", p, rec.Code)
		}
		if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
			t.Errorf("%s: body (-want +got):\n%s", p, diff)
		}
		if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "*" {
			t.Errorf("%s: CORS origin %q", p, got)
		}
		if got := rec.Header().Get("Content-Type"); got != "application/json" {
			t.Errorf("%s: content type %q", p, got)
		}
	}
	req := httptest.NewRequest(http.MethodOptions, "/.well-known/oauth-protected-resource", nil)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", rec.Code, rec.Header())
	}
	req = httptest.NewRequest(http.MethodPost, "/.well-known/oauth-protected-resource", nil)
	rec = httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
}

func TestChallenge(t *testing.T) {
	const base = `Bearer resource_metadata="https://project.example/functions/v1/mcp-server/.well-known/oauth-protected-resource", scope="mcp:read"`
	m := newMeta(t)
	if got, want := m.Challenge(false), base; got != want {
		t.Errorf("no token: got %s, want %s", got, want)
	}
	if got, want := m.Challenge(true), base+`, error="invalid_token"`; got != want {
		t.Errorf("refused token: got %s, want %s", got, want)
	}
	var none *Metadata
	if none.Challenge(true) != "" {
		t.Error("nil metadata must produce no challenge")
	}
}

// TestScopesBaseline checks that the document and the challenges name only
// the scopes a client needs for ordinary use: offline_access is the
// authorization server's to list (MCP authorization, "Refresh tokens"),
// even when configured here.
func TestScopesBaseline(t *testing.T) {
	for _, tc := range []struct {
		name      string
		scopes    []string
		doc       string
		challenge string
	}{
		{"offline_access left out", []string{"mcp:read", "offline_access"}, `"scopes_supported":["mcp:read"]`, `, scope="mcp:read"`},
		{"two scopes", []string{"mcp:read", "mcp:write"}, `"scopes_supported":["mcp:read","mcp:write"]`, `, scope="mcp:read mcp:write"`},
		{"none", nil, `"scopes_supported":[]`, ``},
		{"only offline_access", []string{"offline_access"}, `"scopes_supported":[]`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Options{ResourceURL: "https://a.example/mcp", AuthorizationServer: "https://a.example/auth/v1", Scopes: tc.scopes})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"resource":"https://a.example/mcp","authorization_servers":["https://a.example/auth/v1"],` + tc.doc + `,"bearer_methods_supported":["header"],"resource_name":"Pawtograder MCP server"}`
			if diff := cmp.Diff(want, string(m.document)); diff != "" {
				t.Errorf("document (-want +got):\n%s", diff)
			}
			if got, want := m.Challenge(false), `Bearer resource_metadata="https://a.example/mcp/.well-known/oauth-protected-resource"`+tc.challenge; got != want {
				t.Errorf("challenge = %s, want %s", got, want)
			}
		})
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{
		{ResourceURL: "", AuthorizationServer: "https://a/auth/v1"},
		{ResourceURL: "/relative", AuthorizationServer: "https://a/auth/v1"},
		{ResourceURL: "https://a/mcp?x=1", AuthorizationServer: "https://a/auth/v1"},
		{ResourceURL: "https://a/mcp", AuthorizationServer: ""},
		{ResourceURL: `https://a/m"cp`, AuthorizationServer: "https://a/auth/v1"},
		{ResourceURL: "https://a/mcp", AuthorizationServer: "https://a/auth/v1", Scopes: []string{"mcp read"}},
		{ResourceURL: "https://a/mcp", AuthorizationServer: "https://a/auth/v1", Scopes: []string{`mcp"read`}},
		{ResourceURL: "https://a/mcp", AuthorizationServer: "https://a/auth/v1", Scopes: []string{""}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}
