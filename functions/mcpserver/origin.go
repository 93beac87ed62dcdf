package mcpserver

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// originPolicy decides which browser origins may call the server (the
// streamable HTTP transport's DNS-rebinding protection: servers MUST
// validate Origin). A nil policy allows every origin, as the original does.
type originPolicy struct {
	allowed map[string]bool // lower-cased origins, without a trailing slash
}

// newOriginPolicy builds the policy for Options.AllowedOrigins: nil (allow
// all) for an empty list or one holding "*".
func newOriginPolicy(list []string) (*originPolicy, error) {
	if len(list) == 0 {
		return nil, nil
	}
	p := &originPolicy{allowed: make(map[string]bool, len(list))}
	for _, o := range list {
		o = strings.TrimSuffix(strings.TrimSpace(o), "/")
		switch {
		case o == "*":
			return nil, nil
		case o == "" || strings.ContainsAny(o, "\r\n\t ,"):
			return nil, errors.New("mcpserver: AllowedOrigins entries must be origins such as https://app.example.edu")
		}
		p.allowed[strings.ToLower(o)] = true
	}
	return p, nil
}

// check returns the origin to echo in Access-Control-Allow-Origin and
// whether the request may proceed. A request without Origin (every
// non-browser client) always proceeds.
func (p *originPolicy) check(origin string) (allowOrigin string, ok bool) {
	if p == nil {
		return corsAllowOrigin, true
	}
	if origin == "" {
		return "", true
	}
	if !p.allowed[strings.ToLower(strings.TrimSuffix(origin, "/"))] {
		return "", false
	}
	return origin, true
}

// msgOriginRefusedPrefix starts the 403 answer's message; the refused
// Origin follows (JSON-escaped), as the TypeScript SDK's DNS-rebinding
// protection words it.
const msgOriginRefusedPrefix = "Invalid Origin header: "

// setCORSFor sets the CORS headers for a request from origin and reports
// whether the origin is allowed. With an allow-list, the matching origin is
// echoed (none for a request without Origin) and Vary: Origin is added.
func (s *Server) setCORSFor(c echo.Context) bool {
	h := c.Response().Header()
	origin := headerJS(c.Request().Header, "Origin")
	allow, ok := s.origins.check(origin)
	if allow != "" {
		h.Set("Access-Control-Allow-Origin", allow)
	}
	h.Set("Access-Control-Allow-Headers", s.corsAllowHeadersFor(c.Request()))
	h.Set("Access-Control-Allow-Methods", corsAllowMethods)
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	if s.origins != nil {
		h.Add("Vary", "Origin")
	}
	return ok
}

// refuseOrigin answers a request from an origin outside the allow-list:
// 403 with the transport envelope, before authentication.
func (s *Server) refuseOrigin(c echo.Context) error {
	s.requestLogger(c).Info("mcp-server: origin refused", "origin", headerJS(c.Request().Header, "Origin"))
	return writeJSON(c, http.StatusForbidden, envelope(codeServerError, msgOriginRefusedPrefix+headerJS(c.Request().Header, "Origin")))
}

// corsAllowHeadersFor is the Access-Control-Allow-Headers value for r:
// corsAllowHeadersModern for a preflight whose Access-Control-Request-Headers
// names mcp-method or mcp-name (a browser client about to send a
// 2026-07-28 request; allowed even with PinProtocol2024, so that such a
// client reaches the server and falls back to initialize instead of failing
// the preflight) and for a request at 2026-07-28 (its MCP-Protocol-Version
// header, unless pinned); the original's list, with mcp-protocol-version,
// otherwise. No Vary is needed: browsers read this header only on
// preflights, whose answers HTTP caches do not store.
func (s *Server) corsAllowHeadersFor(r *http.Request) string {
	if r.Method == http.MethodOptions {
		if requestsModernHeaders(headerJS(r.Header, "Access-Control-Request-Headers")) {
			return corsAllowHeadersModern
		}
		return corsAllowHeaders
	}
	if !s.pinProtocol && headerJS(r.Header, headerProtocolVersion) == versionModern {
		return corsAllowHeadersModern
	}
	return corsAllowHeaders
}

// requestsModernHeaders reports whether an Access-Control-Request-Headers
// value (comma-separated field names, any case) names Mcp-Method or
// Mcp-Name.
func requestsModernHeaders(list string) bool {
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		if strings.EqualFold(name, headerMcpMethod) || strings.EqualFold(name, headerMcpName) {
			return true
		}
	}
	return false
}
