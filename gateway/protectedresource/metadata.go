// Package protectedresource publishes the gateway's OAuth 2.0 Protected
// Resource Metadata (RFC 9728) and builds the WWW-Authenticate challenges
// that point MCP clients at it, so a client that knows only the MCP endpoint
// URL can discover its authorization server: the gateway's own
// (gateway/oauthserver) or Supabase Auth, as GATEWAY_OAUTH_SERVER says.
//
// Every URL comes from configuration. Host and X-Forwarded-* headers are
// never read: a forged header must not be able to send a client's OAuth
// flow to an attacker's authorization server.
package protectedresource

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// WellKnownPath is RFC 9728's well-known path segment.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Options configures the metadata.
type Options struct {
	// ResourceURL is the canonical public URL of the MCP endpoint, e.g.
	// https://xyz.supabase.co/functions/v1/mcp-server.
	ResourceURL string
	// AuthorizationServer is the issuer URL of the authorization server:
	// the gateway's own (…/functions/v1/mcp-server/oauth) or Supabase
	// Auth's, per GATEWAY_OAUTH_SERVER.
	AuthorizationServer string
	// Scopes are the baseline a client should request for ordinary use,
	// advertised in scopes_supported and in the scope attribute of
	// challenges (MCP authorization, "Scope Selection Strategy"). Each must
	// be an RFC 6749 scope-token. offline_access is left out of both: a
	// refresh token is not a requirement of the resource, and the
	// authorization server's metadata is where a client finds it.
	Scopes []string
	// Name is the human-readable resource_name.
	Name string
}

// Metadata serves the document and builds challenges.
type Metadata struct {
	opts        Options
	document    []byte
	metadataURL string
	scopes      []string // Options.Scopes without offline_access
	challenge   string   // the challenge without an error code
}

// offlineAccess is the OpenID Connect scope that asks for a refresh token.
const offlineAccess = "offline_access"

// New validates opts and renders the document once.
func New(opts Options) (*Metadata, error) {
	ru, err := url.Parse(opts.ResourceURL)
	if err != nil || (ru.Scheme != "https" && ru.Scheme != "http") || ru.Host == "" || ru.RawQuery != "" || ru.Fragment != "" {
		return nil, errors.New("protectedresource: ResourceURL must be an absolute http(s) URL without query or fragment")
	}
	if au, err := url.Parse(opts.AuthorizationServer); err != nil || au.Host == "" {
		return nil, errors.New("protectedresource: AuthorizationServer must be an absolute URL")
	}
	if opts.Name == "" {
		opts.Name = "Pawtograder MCP server"
	}
	var baseline []string
	scopes := make([]any, 0, len(opts.Scopes))
	for _, s := range opts.Scopes {
		if !validScopeToken(s) {
			return nil, fmt.Errorf("protectedresource: scope %q is not an RFC 6749 scope-token", s)
		}
		if s != offlineAccess {
			baseline = append(baseline, s)
			scopes = append(scopes, s)
		}
	}
	doc, err := jsjson.Marshal(jsjson.NewObject(5).
		Set("resource", opts.ResourceURL).
		Set("authorization_servers", []any{opts.AuthorizationServer}).
		Set("scopes_supported", scopes).
		Set("bearer_methods_supported", []any{"header"}).
		Set("resource_name", opts.Name))
	if err != nil {
		return nil, err
	}
	// Advertise the copy under the function's own path: behind Supabase's
	// API gateway only /functions/v1/ reaches the gateway.
	metadataURL := strings.TrimRight(opts.ResourceURL, "/") + WellKnownPath
	if strings.ContainsAny(metadataURL, "\"\\") {
		return nil, errors.New(`protectedresource: ResourceURL must not contain '"' or '\'`)
	}
	challenge := `Bearer resource_metadata="` + metadataURL + `"`
	if len(baseline) > 0 {
		challenge += `, scope="` + strings.Join(baseline, " ") + `"`
	}
	return &Metadata{opts: opts, document: doc, metadataURL: metadataURL, scopes: baseline, challenge: challenge}, nil
}

// URL is the metadata URL advertised in challenges.
func (m *Metadata) URL() string { return m.metadataURL }

// Scopes returns the baseline scopes the document and the challenges name
// (Options.Scopes without offline_access), for a server that builds its
// own challenges.
func (m *Metadata) Scopes() []string { return slices.Clone(m.scopes) }

// validScopeToken reports whether v is an RFC 6749 §3.3 scope-token, which
// may be written inside a quoted challenge attribute as it is.
func validScopeToken(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Paths returns the request paths the document is served at, given the
// path of the MCP endpoint below the public base (e.g.
// /functions/v1/mcp-server): the bare well-known path, the RFC 9728
// path-suffixed form, and the copy under the endpoint's own path.
func Paths(endpointPath string) []string {
	endpointPath = "/" + strings.Trim(endpointPath, "/")
	return []string{WellKnownPath, WellKnownPath + endpointPath, endpointPath + WellKnownPath}
}

// Serve answers GET (and OPTIONS for browser preflights) with the document.
func (m *Metadata) Serve(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "authorization, mcp-protocol-version, content-type")
	switch c.Request().Method {
	case http.MethodOptions:
		return c.NoContent(http.StatusNoContent)
	case http.MethodGet, http.MethodHead:
		h.Set("Cache-Control", "public, max-age=3600")
		return c.Blob(http.StatusOK, "application/json", m.document)
	default:
		h.Set("Allow", "GET, OPTIONS")
		return c.JSON(http.StatusMethodNotAllowed, map[string]string{"error": "Method not allowed"})
	}
}

// Challenge returns the WWW-Authenticate value for a 401: the metadata URL
// and the baseline scopes. tokenPresented adds error="invalid_token"
// (RFC 6750 §3.1): a token was sent and refused.
func (m *Metadata) Challenge(tokenPresented bool) string {
	if m == nil {
		return ""
	}
	if tokenPresented {
		return m.challenge + `, error="invalid_token"`
	}
	return m.challenge
}
