package activitypages

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// noUsers fails every read: the tests below never get that far, except
// where a failed read is the point.
type noUsers struct{}

func (noUsers) ForUser(context.Context, string) (*userclient.Client, error) {
	return nil, errors.New("database down")
}

var now = time.Date(2026, 12, 7, 16, 0, 0, 0, time.UTC)

func newPages(t *testing.T) (*Pages, *echo.Echo) {
	t.Helper()
	p, err := New(Options{BaseURL: "https://gw.example.edu/functions/v1/mcp-server", Users: noUsers{},
		Secrets: []string{strings.Repeat("s", 32)}, AuthURL: "http://auth.internal/auth/v1", AuthPublicURL: "https://project.example/auth/v1",
		Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	p.Register(e.Group("/functions/v1/mcp-server"))
	return p, e
}

func serve(e *echo.Echo, method, target string, cookie *http.Cookie, form url.Values) *httptest.ResponseRecorder {
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != nil {
		r.AddCookie(cookie)
	}
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	return w
}

// signedInCookie is the cookie of a person signed in as userID.
func signedInCookie(t *testing.T, p *Pages, userID string) *http.Cookie {
	t.Helper()
	w := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/", nil), w)
	if err := p.writeSession(c, &session{User: &account{ID: userID, Expires: now.Add(time.Hour).Unix()}}); err != nil {
		t.Fatal(err)
	}
	return w.Result().Cookies()[0]
}

// TestSignInFirst: a page without a session sends the browser to Supabase
// Auth with the callback on the gateway's public URL, and remembers where
// to return.
func TestSignInFirst(t *testing.T) {
	_, e := newPages(t)
	for _, target := range []string{"/functions/v1/mcp-server/connections", "/functions/v1/mcp-server/activity?class_id=1"} {
		w := serve(e, http.MethodGet, target, nil, nil)
		loc, _ := url.Parse(w.Header().Get("Location"))
		if w.Code != http.StatusSeeOther || loc.Host != "project.example" || loc.Query().Get("redirect_to") != "https://gw.example.edu/functions/v1/mcp-server/connections/callback" {
			t.Errorf("%s: %d %s", target, w.Code, w.Header().Get("Location"))
		}
		if ck := w.Result().Cookies(); len(ck) != 1 || !ck[0].HttpOnly || !ck[0].Secure || ck[0].Name != "__Secure-mcp_activity" {
			t.Errorf("%s: cookie %+v", target, ck)
		}
	}
}

// TestRefusals: what the pages refuse, and that nothing is read for it.
func TestRefusals(t *testing.T) {
	p, e := newPages(t)
	gary := signedInCookie(t, p, "gary")
	tests := []struct {
		name, method, target string
		cookie               *http.Cookie
		form                 url.Values
		status               int
		says                 string
	}{
		{"no class", http.MethodGet, "/functions/v1/mcp-server/activity", gary, nil, 400, "This address does not name a class."},
		{"not a class number", http.MethodGet, "/functions/v1/mcp-server/activity?class_id=1%20or%201=1", gary, nil, 400, "This address does not name a class."},
		{"not a student id", http.MethodGet, "/functions/v1/mcp-server/activity?class_id=1&student=x", gary, nil, 400, "This address does not name a class."},
		{"revoke without sign-in", http.MethodPost, "/functions/v1/mcp-server/connections/revoke", nil,
			url.Values{"token_id": {"t1"}, "csrf_token": {p.csrf.Sign("revoke|gary|t1")}}, 403, "nothing was revoked"},
		{"revoke with another's token", http.MethodPost, "/functions/v1/mcp-server/connections/revoke", gary,
			url.Values{"token_id": {"t1"}, "csrf_token": {p.csrf.Sign("revoke|sam|t1")}}, 403, "did not come from your Connections page"},
		{"revoke of another connection", http.MethodPost, "/functions/v1/mcp-server/connections/revoke", gary,
			url.Values{"token_id": {"t2"}, "csrf_token": {p.csrf.Sign("revoke|gary|t1")}}, 403, "did not come from your Connections page"},
		{"a failed read is no empty page", http.MethodGet, "/functions/v1/mcp-server/connections", gary, nil, 503, "could not be read just now, so nothing is shown"},
		{"callback without a sign-in", http.MethodGet, "/functions/v1/mcp-server/connections/callback?code=x", nil, nil, 400, "This sign-in is no longer valid."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(e, tt.method, tt.target, tt.cookie, tt.form)
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.says) {
				t.Errorf("%d %s\nwant %d and %q", w.Code, w.Body.String(), tt.status, tt.says)
			}
			if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("CSP %q", csp)
			}
		})
	}
}

// TestExpiredSession: a session past its hour is a new sign-in.
func TestExpiredSession(t *testing.T) {
	p, e := newPages(t)
	ck := signedInCookie(t, p, "gary")
	p.opts.Now = func() time.Time { return now.Add(time.Hour) }
	if w := serve(e, http.MethodGet, "/functions/v1/mcp-server/connections", ck, nil); w.Code != http.StatusSeeOther {
		t.Errorf("%d, want a new sign-in", w.Code)
	}
}

func TestCell(t *testing.T) {
	tests := map[string]string{"Gary Grader": "Gary Grader", "=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")", "+1": "'+1", "-2": "'-2", "@SUM": "'@SUM", "": ""}
	for in, want := range tests {
		if got := cell(in); got != want {
			t.Errorf("cell(%q) = %q, want %q", in, got, want)
		}
	}
}
