package config

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// advertisedHosts refuses an OAuth set-up whose metadata or sign-in
// redirect would send clients to a host they cannot reach. Inside Docker
// the gateway reaches Supabase as http://kong:8000, and every URL it
// derives from that is useless to a browser or to claude.ai; nothing would
// say so until a user's connection failed. Refused:
//
//   - a single-label host (kong, auth, mcp-gateway): a Compose service or
//     Kubernetes short name, never a name on the internet;
//   - a loopback, private, link-local or unspecified address (or
//     localhost) while the public URL itself is not one: a local
//     development stack may use such addresses throughout.
//
// It checks the URLs OAuth clients receive: the public URL (the resource
// and, in gateway mode, the authorization server's issuer are built from
// it) and the Supabase Auth URL they are sent to (the sign-in redirect in
// gateway mode, the advertised authorization server in supabase mode).
func (p *parser) advertisedHosts(c *Config) {
	if !c.MCPServerEnabled || c.PublicURL == nil || c.OAuthServer.Mode == OAuthServerOff || !p.parsed("GATEWAY_PUBLIC_URL") {
		return
	}
	// The supabase mode is the default without GATEWAY_OAUTH_SECRET, so a
	// deployment that wants no OAuth at all is told how to say so.
	off := ""
	if c.OAuthServer.Mode == OAuthServerSupabase {
		off = ", or set GATEWAY_OAUTH_SERVER=off"
	}
	public := c.PublicURL.Hostname()
	if single(public) {
		p.fail("GATEWAY_PUBLIC_URL", fmt.Sprintf("must be the public URL clients reach the gateway at%s: %s has the single-label host %s", off, c.PublicURL, public))
	}
	if c.OAuthIssuer == "" || !p.parsed("GATEWAY_OAUTH_ISSUER") {
		return
	}
	what := "must be the public URL browsers reach Supabase Auth at (…/auth/v1)"
	if c.OAuthServer.Mode == OAuthServerSupabase {
		what = "must be the public URL of Supabase Auth that MCP clients are sent to (…/auth/v1)"
	}
	u, err := url.Parse(c.OAuthIssuer)
	if err != nil {
		return // parsed already; cannot happen
	}
	host := u.Hostname()
	switch {
	case single(host):
		p.fail("GATEWAY_OAUTH_ISSUER", fmt.Sprintf("%s%s: %s has the single-label host %s", what, off, c.OAuthIssuer, host))
	case local(host) != "" && local(public) == "" && !single(public):
		p.fail("GATEWAY_OAUTH_ISSUER", fmt.Sprintf("%s%s: %s has the %s %s, but GATEWAY_PUBLIC_URL %s is public", what, off, c.OAuthIssuer, local(host), host, c.PublicURL))
	}
}

// parsed reports whether name is unset or a valid base URL; a malformed
// value has its own message and its derived URLs are not checked again.
func (p *parser) parsed(name string) bool {
	v := p.lookup(name)
	if v == "" {
		return true
	}
	_, err := parseBaseURL(v)
	return err == nil
}

// single reports whether host is a name of one label (a trailing dot
// changes nothing). localhost is loopback, not a short name.
func single(host string) bool {
	h := strings.TrimSuffix(host, ".")
	if _, err := netip.ParseAddr(h); err == nil {
		return false
	}
	return h != "" && !strings.Contains(h, ".") && !strings.EqualFold(h, "localhost")
}

// local names the kind of address host is when clients elsewhere cannot
// reach it, or returns "".
func local(host string) string {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return "loopback host"
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return ""
	}
	switch a = a.Unmap(); {
	case a.IsLoopback():
		return "loopback address"
	case a.IsPrivate():
		return "private address"
	case a.IsLinkLocalUnicast():
		return "link-local address"
	case a.IsUnspecified():
		return "unspecified address"
	}
	return ""
}
