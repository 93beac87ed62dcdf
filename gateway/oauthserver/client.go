package oauthserver

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/hiddentext"
)

// Client is a registered public client, from a signed client_id (Dynamic
// Client Registration) or a fetched Client ID Metadata Document.
type Client struct {
	ID           string
	Name         string
	RedirectURIs []string
	// ApplicationType is "web" or "native" (OpenID Connect Registration).
	ApplicationType string
	// Metadata says the id is a metadata document URL.
	Metadata bool
}

// Limits on client metadata: generous for real clients, small enough that
// a signed client_id stays a sensible URL parameter.
const (
	maxRedirectURIs   = 4
	maxRedirectURILen = 256
	maxClientNameLen  = 100
	dcrPrefix         = "mcpc_"
)

// HasRedirect reports whether uri is registered, compared exactly (OAuth
// 2.1 §4.1.1: no prefix or pattern matching).
func (c *Client) HasRedirect(uri string) bool {
	for _, r := range c.RedirectURIs {
		if r == uri {
			return true
		}
	}
	return false
}

// DisplayName is the client's name, or its redirect host when it has none.
// Whoever registers a client or serves its metadata document sets the name,
// so the characters in it that draw as nothing or reorder text are shown
// as markers such as [U+202E] (hiddentext.Mark), as on the approval page.
func (c *Client) DisplayName() string {
	if c.Name != "" {
		return hiddentext.Mark(c.Name)
	}
	if len(c.RedirectURIs) > 0 {
		if u, err := url.Parse(c.RedirectURIs[0]); err == nil {
			return asciiHost(u.Host)
		}
	}
	return "An MCP client"
}

// checkRedirectURI enforces the redirect URI rules: an absolute https URL,
// or http on a loopback address with any port (RFC 8252 §7.3); no
// fragment (RFC 6749 §3.1.2), no user info, and an internationalized host
// only if it is valid IDNA (the consent page shows its ASCII form). The
// messages are fixed: they never quote the URI. Everything else — custom
// schemes, plain http elsewhere, javascript: and data: — is refused.
func checkRedirectURI(raw string) string {
	if raw == "" || len(raw) > maxRedirectURILen || !utf8.ValidString(raw) {
		return "redirect URIs must be non-empty URLs of at most 256 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "A redirect URI is not an absolute URL"
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "A redirect URI must not contain a fragment"
	}
	if u.User != nil {
		return "A redirect URI must not contain user information"
	}
	if h := u.Hostname(); !isASCII(h) {
		if _, err := idna.Lookup.ToASCII(h); err != nil {
			return "A redirect URI's host is not a valid internationalized domain name"
		}
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return ""
		}
		return "A redirect URI uses http on a host that is not a loopback address"
	}
	return "A redirect URI must use https (or http on a loopback address)"
}

// isLoopbackHost: "localhost" (RFC 8252 §8.3 discourages it, but
// mcp-remote and most desktop clients use it) or a loopback IP literal.
func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// dcrPayload is what a registered client_id carries, signed.
type dcrPayload struct {
	Name     string   `json:"n,omitempty"`
	Redirect []string `json:"r"`
	AppType  string   `json:"a,omitempty"`
	Issued   int64    `json:"t"`
	// Nonce makes every registration a distinct client, even two with
	// the same metadata in the same second.
	Nonce string `json:"j"`
}

// encodeClientID signs a registration into a client_id:
// "mcpc_" + base64url(JSON) + "." + base64url(HMAC).
func (s *Server) encodeClientID(p dcrPayload) (string, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	body := b64.EncodeToString(raw)
	return dcrPrefix + body + "." + s.keys.client.Sign(body), nil
}

// decodeClientID verifies a signed client_id; ok is false for anything
// forged, altered or malformed.
func (s *Server) decodeClientID(id string) (*Client, bool) {
	rest, found := strings.CutPrefix(id, dcrPrefix)
	if !found || len(id) > 8192 {
		return nil, false
	}
	body, sig, found := strings.Cut(rest, ".")
	if !found || !s.keys.client.Verify(body, sig) {
		return nil, false
	}
	raw, err := b64.DecodeString(body)
	if err != nil {
		return nil, false
	}
	var p dcrPayload
	if err := json.Unmarshal(raw, &p); err != nil || len(p.Redirect) == 0 {
		return nil, false
	}
	app := p.AppType
	if app == "" {
		app = "web"
	}
	return &Client{ID: id, Name: p.Name, RedirectURIs: p.Redirect, ApplicationType: app}, true
}

var errUnknownClient = oauthErr(http.StatusUnauthorized, codeInvalidClient, "Unknown client: register the client first, or use a client ID metadata document URL")

// resolveClient finds the client a client_id names: a signed registration,
// or a metadata document URL (fetched, SSRF-checked and cached). A
// document that cannot be fetched or is invalid is invalid_client.
func (s *Server) resolveClient(ctx context.Context, id string) (*Client, error) {
	if id == "" {
		return nil, oauthErr(http.StatusBadRequest, codeInvalidRequest, "client_id is required")
	}
	if strings.HasPrefix(id, dcrPrefix) {
		if c, ok := s.decodeClientID(id); ok {
			return c, nil
		}
		return nil, errUnknownClient
	}
	if strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://") {
		ctx, cancel := context.WithTimeout(ctx, s.opts.CIMDTimeout+time.Second)
		defer cancel()
		return s.cimd.get(ctx, id)
	}
	return nil, errUnknownClient
}
