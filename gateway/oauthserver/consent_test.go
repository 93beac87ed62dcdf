package oauthserver

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pendingCookie is the pending-authorization cookie hc holds for h.
func (h *harness) pendingCookie(hc *http.Client) *http.Cookie {
	h.t.Helper()
	u, _ := url.Parse(h.issuer + "/consent")
	for _, c := range hc.Jar.Cookies(u) {
		if c.Name == "mcp_oauth" {
			return c
		}
	}
	h.t.Fatal("no pending cookie")
	return nil
}

// postWithCookie posts a consent decision carrying ck itself, as a copy
// of the cookie replayed from anywhere would.
func (h *harness) postWithCookie(issuer string, ck *http.Cookie, csrf, decision string) reply {
	h.t.Helper()
	form := url.Values{"csrf_token": {csrf}, "decision": {decision}}
	req, _ := http.NewRequest("POST", issuer+"/consent", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// TestConsentReplay: a pending authorization is spent by its first
// decision. Posting the same cookie and CSRF token again — after an
// approval, after a denial, or to another replica sharing the store —
// issues no second code and decides nothing.
func TestConsentReplay(t *testing.T) {
	cases := []struct{ first, again string }{
		{"approve", "approve"},
		{"deny", "approve"},
		{"approve", "deny"},
	}
	for _, tc := range cases {
		t.Run(tc.first+" then "+tc.again, func(t *testing.T) {
			h := newHarness(t, nil)
			hc := h.newBrowser()
			page := h.consentPage(hc, h.authorizeParams(h.register()))
			ck, csrf := h.pendingCookie(hc), csrfOf(t, page.body)
			if r := h.postWithCookie(h.issuer, ck, csrf, tc.first); r.status != http.StatusSeeOther {
				t.Fatalf("first decision: %d %s", r.status, r.body)
			}
			codes := len(h.store.codes)
			r := h.postWithCookie(h.issuer, ck, csrf, tc.again)
			if r.status != http.StatusBadRequest || r.header.Get("Location") != "" || !strings.Contains(r.body, "This sign-in has expired") {
				t.Errorf("replayed decision: %d Location %q", r.status, r.header.Get("Location"))
			}
			if len(h.store.codes) != codes {
				t.Errorf("the replay issued a code: %d codes, want %d", len(h.store.codes), codes)
			}
		})
	}
	t.Run("another replica", func(t *testing.T) {
		h := newHarness(t, nil)
		other := newHarness(t, func(o *Options) { o.Store = h.store })
		hc := h.newBrowser()
		page := h.consentPage(hc, h.authorizeParams(h.register()))
		ck, csrf := h.pendingCookie(hc), csrfOf(t, page.body)
		if r := h.postWithCookie(h.issuer, ck, csrf, "approve"); r.status != http.StatusSeeOther {
			t.Fatalf("approve: %d %s", r.status, r.body)
		}
		if r := h.postWithCookie(other.issuer, ck, csrf, "approve"); r.status != http.StatusBadRequest || len(h.store.codes) != 1 {
			t.Errorf("replay on another replica: %d, %d codes", r.status, len(h.store.codes))
		}
	})
	t.Run("store unavailable", func(t *testing.T) {
		h := newHarness(t, nil)
		hc := h.newBrowser()
		page := h.consentPage(hc, h.authorizeParams(h.register()))
		ck, csrf := h.pendingCookie(hc), csrfOf(t, page.body)
		h.store.mu.Lock()
		h.store.failNext = errTestStore
		h.store.mu.Unlock()
		if r := h.postWithCookie(h.issuer, ck, csrf, "approve"); r.status != http.StatusServiceUnavailable || len(h.store.codes) != 0 {
			t.Fatalf("store down: %d, %d codes", r.status, len(h.store.codes))
		}
		// Nothing was decided, so the same page works once the store does.
		if r := h.postWithCookie(h.issuer, ck, csrf, "approve"); r.status != http.StatusSeeOther || len(h.store.codes) != 1 {
			t.Errorf("after the store recovers: %d, %d codes", r.status, len(h.store.codes))
		}
	})
}

// TestRefusalReturnsToClient: a person who cannot grant access (here
// someone with no staff role, the case of a student, a person with no
// enrolment and a disabled grader alike) gets the refusal page, and its
// way out answers the client at its registered redirect URI with
// access_denied, the state and a fixed description, so the client stops
// waiting.
func TestRefusalReturnsToClient(t *testing.T) {
	h := newHarness(t, nil)
	hc := h.newBrowser()
	r := h.signIn(hc, h.authorizeParams(h.register()), samID, "sam@example.edu")
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "Only instructors and graders can connect assistants") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	checkPageHeaders(t, r)
	_, rest, ok := strings.Cut(r.body, `<a class="button primary" href="`)
	if !ok {
		t.Fatalf("the refusal page offers no way back to the client:\n%s", r.body)
	}
	href, label, _ := strings.Cut(rest, `">`)
	label, _, _ = strings.Cut(label, "</a>")
	if label != "Return to Test Assistant" {
		t.Errorf("link text %q, want %q", label, "Return to Test Assistant")
	}
	back, err := url.Parse(html.UnescapeString(href))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Scheme + "://" + back.Host + back.Path; got != testRedirect {
		t.Errorf("the way back goes to %s, want the registered %s", got, testRedirect)
	}
	want := url.Values{"error": {"access_denied"}, "error_description": {"The signed-in account cannot grant access"}, "state": {"xyz-state"}, "iss": {h.issuer}}
	if diff := cmp.Diff(want, back.Query()); diff != "" {
		t.Errorf("the way back (-want +got):\n%s", diff)
	}
	if len(h.store.codes) != 0 {
		t.Error("a refused person got a code")
	}
}
