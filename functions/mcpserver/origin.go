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
	switch allow {
	case "":
	case corsAllowOrigin:
		h["Access-Control-Allow-Origin"] = corsAllowOriginValue
	default:
		h.Set("Access-Control-Allow-Origin", allow)
	}
	h["Access-Control-Allow-Headers"] = corsAllowHeadersValue
	h["Access-Control-Allow-Methods"] = corsAllowMethodsValue
	h["Access-Control-Expose-Headers"] = corsExposeHeadersValue
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
