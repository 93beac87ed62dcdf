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
	"net/http"
	"net/url"
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
	// Scopes advertised in scopes_supported.
	Scopes []string
	// Name is the human-readable resource_name.
	Name string
}

// Metadata serves the document and builds challenges.
type Metadata struct {
	opts        Options
	document    []byte
	metadataURL string
}

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
	scopes := make([]any, len(opts.Scopes))
	for i, s := range opts.Scopes {
		scopes[i] = s
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
	return &Metadata{
		opts:     opts,
		document: doc,
		// Advertise the copy under the function's own path: behind
		// Supabase's API gateway only /functions/v1/ reaches the gateway.
		metadataURL: strings.TrimRight(opts.ResourceURL, "/") + WellKnownPath,
	}, nil
}

// URL is the metadata URL advertised in challenges.
func (m *Metadata) URL() string { return m.metadataURL }

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

// Challenge returns the WWW-Authenticate value for a 401. tokenPresented
// adds error="invalid_token" (RFC 6750 §3.1): a token was sent and refused.
func (m *Metadata) Challenge(tokenPresented bool) string {
	if m == nil {
		return ""
	}
	v := `Bearer resource_metadata="` + m.metadataURL + `"`
	if tokenPresented {
		v += `, error="invalid_token"`
	}
	return v
}
