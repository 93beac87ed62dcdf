package oauthserver

import (
	"errors"
	"github.com/pawtograder/mcp-gateway/gateway/supabasesignin"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
)

// callback is where Supabase Auth returns the browser after sign-in, with
// ?code= (or ?error=). The code is exchanged for the user, the staff rule
// is applied, and the browser moves on to the consent page with the user
// recorded in the pending cookie. The Supabase session itself is dropped.
func (s *Server) callback(c echo.Context) error {
	r := c.Request()
	if r.Method != http.MethodGet {
		return s.page(c, http.StatusMethodNotAllowed, "Method not allowed", "Open this address in a browser.", "")
	}
	p := s.getPending(c)
	if p == nil {
		return s.expired(c)
	}
	q := r.URL.Query()
	if q.Get("error") != "" || q.Get("code") == "" {
		// Sign-in was cancelled or failed at the provider or Auth. The
		// client's redirect URI is verified, so the client hears of it.
		s.clearPending(c)
		return s.redirectError(c, p.RedirectURI, p.State, codeAccessDenied, "Sign-in did not complete")
	}
	user, err := s.supabase.Exchange(r.Context(), q.Get("code"), p.SupabaseVerifier)
	if err != nil {
		var refused *supabasesignin.Refusal
		if errors.As(err, &refused) {
			s.log.InfoContext(r.Context(), "oauth callback: sign-in code refused", "status", refused.Status, "error_code", refused.Code)
			return s.page(c, http.StatusBadRequest, "Sign-in did not complete", "Pawtograder's sign-in service did not accept this sign-in (it may have expired or been used already).", "Start connecting again from your assistant.")
		}
		s.log.ErrorContext(r.Context(), "oauth callback: sign-in exchange failed", "error", err.Error())
		return s.page(c, http.StatusBadGateway, "Sign-in is unavailable", "Pawtograder's sign-in service could not be reached.", "Try again in a few minutes.")
	}
	staff, err := s.opts.Store.IsStaff(r.Context(), user.ID)
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth callback: role look-up failed", "error", err.Error())
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "Your roles could not be checked just now.", "Try again in a few minutes.")
	}
	if !staff {
		s.clearPending(c)
		// The client is waiting for an answer at its redirect URI (verified
		// when the authorization began); the way out of the page gives it
		// one, so it stops waiting instead of timing out.
		return s.render(c, http.StatusForbidden, "message", messagePage{
			Title:      "Only instructors and graders can connect assistants",
			Text:       "You are signed in as " + displayAccount(user) + ", which is not an instructor or grader in any Pawtograder class, so no assistant can be connected to this account.",
			Hint:       "If you should have staff access, ask your course's instructor to add you.",
			ClientName: hiddentext.ForPage(p.ClientName),
			ReturnURL:  s.redirectURL(p.RedirectURI, p.State, errorParams(codeAccessDenied, descNotStaff)),
		}, "")
	}
	p.UserID, p.Email = user.ID, user.Email
	if err := s.setPending(c, p); err != nil {
		return s.writeError(c, err)
	}
	pages.Secure(c.Response().Header())
	return c.Redirect(http.StatusSeeOther, s.endpoint("/consent"))
}

func displayAccount(u *supabasesignin.User) string {
	if u.Email != "" {
		return u.Email
	}
	return "user " + u.ID
}

// returnAddress is what the consent page shows of a redirect URI, in
// parts the page lays out separately: a line may break between them but
// never inside the host. The host is in its ASCII (IDNA) form, so a
// look-alike such as a Cyrillic "а" in a Latin name shows up as xn--…,
// with its registrable domain (eTLD+1) emphasised, since that is the part
// that says who receives the access; a client name can say anything. On a
// narrow screen a host too long for the line loses the start of its
// subdomain to an ellipsis, the way browsers' address bars do, and never
// any of its registrable domain.
type returnAddress struct {
	Scheme      string // "https://"
	Subdomain   string // "app." of app.example.com, or a whole IP or single-label host
	Registrable string // "example.com"
	Port        string // ":8443"
	Path        string // "/cb", escaped
}

// Host is the whole host and port, for the page's tooltip.
func (a returnAddress) Host() string { return a.Subdomain + a.Registrable + a.Port }

// Size names the type size a phone-wide page uses for the address: the
// part that must stay in view (registrable domain and port) fits a
// 375-pixel line at 16 px up to about 32 characters, at the smaller sizes
// up to about 42 and 50; beyond that the address scrolls in its own box.
func (a returnAddress) Size() string {
	visible := len(a.Registrable) + len(a.Port)
	if a.Registrable == "" {
		visible = len(a.Subdomain) + len(a.Port)
	}
	switch {
	case visible > 40:
		return " longer"
	case visible > 32:
		return " long"
	}
	return ""
}

func redirectAddress(raw string) returnAddress {
	u, err := url.Parse(raw)
	if err != nil {
		return returnAddress{Path: raw}
	}
	a := returnAddress{Scheme: u.Scheme + "://", Path: u.EscapedPath()}
	if a.Path == "/" {
		a.Path = ""
	}
	host := asciiHostname(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" {
		a.Port = ":" + p
	}
	if reg, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil && net.ParseIP(host) == nil {
		a.Subdomain, a.Registrable = strings.TrimSuffix(host, reg), reg
	} else {
		a.Subdomain = host
	}
	return a
}

// asciiHostname is a host name in its IDNA ASCII form (lower case, xn--
// labels); a name IDNA refuses is shown lower-cased with any non-ASCII
// escaped, so nothing but ASCII ever reaches a page or a header.
func asciiHostname(h string) string {
	if a, err := idna.Lookup.ToASCII(h); err == nil {
		return a
	}
	h = strings.ToLower(h)
	if isASCII(h) {
		return h
	}
	q := strconv.QuoteToASCII(h)
	return q[1 : len(q)-1]
}

// asciiHost is asciiHostname of a host with an optional port.
func asciiHost(hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return asciiHostname(hostport)
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port
	}
	return asciiHostname(host) + ":" + port
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
