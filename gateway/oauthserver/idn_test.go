package oauthserver

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestConsentShowsASCIIHost: the consent page shows the return address's
// host in its ASCII (IDNA) form with the registrable domain in <strong>,
// so a look-alike name (a Cyrillic "а" in "pawtograder") is visibly not
// the real one; the CSP header carries only ASCII.
func TestConsentShowsASCIIHost(t *testing.T) {
	cases := []struct {
		redirect, host, formAction string
	}{
		{"https://p\u0430wtograder.org/cb", `<span class="host" title="xn--pwtograder-zqi.org"><span class="reg"><strong>xn--pwtograder-zqi.org</strong></span></span>`, "https://xn--pwtograder-zqi.org"},
		{"https://app.B\u00fccher.co.uk:8443/cb", `<span class="host" title="app.xn--bcher-kva.co.uk:8443"><span class="sub"><bdi dir="ltr">app.</bdi></span><span class="reg"><strong>xn--bcher-kva.co.uk</strong>:8443</span></span>`, "https://app.xn--bcher-kva.co.uk:8443"},
		{"https://chatgpt.com/connector_platform_oauth_redirect", `<span class="host" title="chatgpt.com"><span class="reg"><strong>chatgpt.com</strong></span></span>`, "https://chatgpt.com"},
		{"http://localhost:9/cb", `<span class="host" title="localhost:9"><span class="reg">localhost:9</span></span>`, "http://localhost:9"},
		{"http://[::1]:9/cb", `<span class="host" title="[::1]:9"><span class="reg">[::1]:9</span></span>`, "http://[::1]:9"},
	}
	for _, tc := range cases {
		t.Run(tc.redirect, func(t *testing.T) {
			h := newHarness(t, nil)
			clientID := h.register(tc.redirect)
			v := h.authorizeParams(clientID)
			v.Set("redirect_uri", tc.redirect)
			r := h.consentPage(h.newBrowser(), v)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if !strings.Contains(r.body, tc.host) {
				_, addr, _ := strings.Cut(r.body, `<span class="addr`)
				addr, _, _ = strings.Cut(addr, "\n")
				t.Errorf("return address %s\nwant a host of %s", addr, tc.host)
			}
			if strings.Contains(r.body, "p\u0430wtograder") {
				t.Error("the page shows the raw Unicode host")
			}
			// A line may break between the address's parts, never inside
			// the host (its 375-pixel layout is measured in Chromium by
			// TestOAuthConsentLongHost).
			if !strings.Contains(r.body, ".host{display:inline-flex;max-width:100%;white-space:nowrap}") || !strings.Contains(r.body, `</span><wbr><span class="host" `) {
				t.Error("the host may break across lines")
			}
			csp := r.header.Get("Content-Security-Policy")
			if !strings.HasSuffix(csp, "form-action 'self' "+tc.formAction) {
				t.Errorf("CSP %q, want form-action %s", csp, tc.formAction)
			}
			for _, r := range csp {
				if r >= utf8.RuneSelf {
					t.Fatalf("CSP carries non-ASCII %q", csp)
				}
			}
		})
	}
}

func TestRedirectAddress(t *testing.T) {
	cases := map[string]returnAddress{
		"https://p\u0430wtograder.org/cb":            {Scheme: "https://", Registrable: "xn--pwtograder-zqi.org", Path: "/cb"},
		"https://claude.ai/api/mcp/auth_callback":    {Scheme: "https://", Registrable: "claude.ai", Path: "/api/mcp/auth_callback"},
		"https://a.b.github.io/":                     {Scheme: "https://", Subdomain: "a.", Registrable: "b.github.io"},
		"http://127.0.0.1:33418/oauth/callback":      {Scheme: "http://", Subdomain: "127.0.0.1", Port: ":33418", Path: "/oauth/callback"},
		"https://EXAMPLE.com/a%20b":                  {Scheme: "https://", Registrable: "example.com", Path: "/a%20b"},
		"https://chatgpt.com/connector/oauth/abc123": {Scheme: "https://", Registrable: "chatgpt.com", Path: "/connector/oauth/abc123"},
	}
	for raw, want := range cases {
		if diff := cmp.Diff(want, redirectAddress(raw)); diff != "" {
			t.Errorf("redirectAddress(%q) (-want +got):\n%s", raw, diff)
		}
	}
	// A client without a name is shown by its host, in ASCII too.
	c := &Client{RedirectURIs: []string{"https://p\u0430wtograder.org/cb"}}
	if got := c.DisplayName(); got != "xn--pwtograder-zqi.org" {
		t.Errorf("DisplayName = %q", got)
	}
	if got := origin("https://p\u0430wtograder.org:8443/cb?x=1"); got != "https://xn--pwtograder-zqi.org:8443" {
		t.Errorf("origin = %q", got)
	}
}

// TestReturnAddressSize: the type size follows the length of the part
// that must stay in view on a phone (registrable domain and port), not of
// the subdomain an ellipsis may shorten.
func TestReturnAddressSize(t *testing.T) {
	cases := []struct{ raw, want string }{
		{"https://claude.ai/api/mcp/auth_callback", ""},
		{"https://a-very-long-subdomain-that-may-be-elided.example.org/cb", ""},
		{"https://" + strings.Repeat("a", 28) + ".org/cb", ""},                // 32 characters in view
		{"https://" + strings.Repeat("a", 29) + ".org/cb", " long"},           // 33
		{"https://" + strings.Repeat("a", 32) + ".org:8443/cb", " longer"},    // 36 + 5
		{"https://connect.p\u0430wtograder-course-assistant.org/cb", " long"}, // xn--…-iuv.org, 39
		{"https://" + strings.Repeat("b", 37) + ".org/cb", " longer"},         // 41
		{"http://127.0.0.1:33418/oauth/callback", ""},
		{"http://[2001:db8:85a3:8d3:1319:8a2e:370:7348]:33418/cb", " longer"}, // no registrable domain: all of it
	}
	for _, tc := range cases {
		if got := redirectAddress(tc.raw).Size(); got != tc.want {
			a := redirectAddress(tc.raw)
			t.Errorf("Size(%q) = %q, want %q (%d characters in view)", tc.raw, got, tc.want, len(a.Registrable)+len(a.Port))
		}
	}
}
