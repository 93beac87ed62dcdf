package mcpserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
)

// originPolicy decides which browser origins may call the server (the
// streamable HTTP transport's DNS-rebinding protection: servers MUST
// validate Origin and answer 403 to an invalid one). There are three
// modes:
//
//   - all ("*" in AllowedOrigins): every origin, Access-Control-Allow-Origin
//     "*", exactly as the original;
//   - list (AllowedOrigins without "*"): only the listed origins;
//   - default (AllowedOrigins empty): the origins in TrustedOrigins (the
//     gateway's and the project's own), and a page on a loopback origin
//     calling the server over a loopback connection (a local tool such as
//     the MCP Inspector against a local gateway).
//
// In every mode a request without Origin (every non-browser client)
// proceeds; in the default mode it is answered exactly as the original
// answers it (Access-Control-Allow-Origin: *, no Vary).
type originPolicy struct {
	all      bool
	list     bool
	allowed  map[string]bool // lower-cased origins, without a trailing slash
	loopback bool            // default mode: loopback pages over loopback
}

// newOriginPolicy builds the policy for Options.AllowedOrigins and
// Options.TrustedOrigins.
func newOriginPolicy(list, trusted []string) (*originPolicy, error) {
	p := &originPolicy{allowed: make(map[string]bool, len(list)+len(trusted))}
	add := func(o string) error {
		o = strings.TrimSuffix(strings.TrimSpace(o), "/")
		if o == "" || strings.ContainsAny(o, "\r\n\t ,") {
			return errors.New("mcpserver: AllowedOrigins and TrustedOrigins entries must be origins such as https://app.example.edu")
		}
		p.allowed[strings.ToLower(o)] = true
		return nil
	}
	if len(list) == 0 {
		p.loopback = true
		for _, o := range trusted {
			if err := add(o); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	p.list = true
	for _, o := range list {
		if strings.TrimSpace(o) == "*" {
			return &originPolicy{all: true}, nil
		}
		if err := add(o); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// OriginOf returns the origin (scheme://host[:port]) of an absolute URL,
// or "" when u is not one. main uses it to list the gateway's own origins.
func OriginOf(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme == "" || pu.Host == "" {
		return ""
	}
	return strings.ToLower(pu.Scheme + "://" + pu.Host)
}

// check returns the value for Access-Control-Allow-Origin ("" for none),
// whether to add Vary: Origin, and whether the request may proceed.
// overLoopback says the request reached the server on a loopback address.
func (p *originPolicy) check(origin string, overLoopback bool) (allowOrigin string, vary, ok bool) {
	switch {
	case p.all:
		return corsAllowOrigin, false, true
	case origin == "" && p.list:
		return "", true, true
	case origin == "":
		return corsAllowOrigin, false, true // the original's answer
	case p.allowed[strings.ToLower(strings.TrimSuffix(origin, "/"))],
		p.loopback && overLoopback && isLoopbackOrigin(origin):
		return origin, true, true
	}
	return "", true, false
}

// isLoopbackOrigin reports whether origin is http(s) on localhost or a
// loopback address.
func isLoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// reachedOverLoopback reports whether the request arrived on a loopback
// address of this process (the connection's local address, never the Host
// header, which a DNS-rebinding page controls).
func reachedOverLoopback(ctx context.Context) bool {
	addr, _ := ctx.Value(http.LocalAddrContextKey).(net.Addr)
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// msgOriginRefusedPrefix starts the 403 answer's message; the refused
// Origin follows (JSON-escaped), as the TypeScript SDK's DNS-rebinding
// protection words it.
const msgOriginRefusedPrefix = "Invalid Origin header: "

// setCORSFor sets the CORS headers for a request from origin and reports
// whether the origin is allowed. An allowed browser origin is echoed with
// Vary: Origin; see originPolicy for requests without Origin.
func (s *Server) setCORSFor(c echo.Context) bool {
	h := c.Response().Header()
	origin := headerJS(c.Request().Header, "Origin")
	allow, vary, ok := s.origins.check(origin, reachedOverLoopback(c.Request().Context()))
	switch allow {
	case "":
	case corsAllowOrigin:
		h["Access-Control-Allow-Origin"] = corsAllowOriginValue
	default:
		h.Set("Access-Control-Allow-Origin", allow)
	}
	h["Access-Control-Allow-Headers"] = s.corsAllowHeadersFor(c.Request())
	h["Access-Control-Allow-Methods"] = corsAllowMethodsValue
	h["Access-Control-Expose-Headers"] = corsExposeHeadersValue
	if vary {
		h.Add("Vary", "Origin")
	}
	return ok
}

// refuseOrigin answers a request from an origin outside the allow-list:
// 403 with the transport envelope, before authentication.
func (s *Server) refuseOrigin(c echo.Context) error {
	s.requestLogger(c).Info("mcp-server: origin refused", "origin", headerJS(c.Request().Header, "Origin"))
	return writeJSON(c, http.StatusForbidden, jsonrpc.Envelope(jsonrpc.CodeServerError, msgOriginRefusedPrefix+headerJS(c.Request().Header, "Origin")))
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
func (s *Server) corsAllowHeadersFor(r *http.Request) []string {
	if r.Method == http.MethodOptions {
		if requestsModernHeaders(headerJS(r.Header, "Access-Control-Request-Headers")) {
			return corsAllowHeadersModernValue
		}
		return corsAllowHeadersValue
	}
	if !s.pinProtocol && revision.Stateless(headerJS(r.Header, protocolVersionKey)) {
		return corsAllowHeadersModernValue
	}
	return corsAllowHeadersValue
}

// requestsModernHeaders reports whether an Access-Control-Request-Headers
// value (comma-separated field names, any case) names Mcp-Method or
// Mcp-Name.
func requestsModernHeaders(list string) bool {
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		if strings.EqualFold(name, revision.HeaderMcpMethod) || strings.EqualFold(name, revision.HeaderMcpName) {
			return true
		}
	}
	return false
}
