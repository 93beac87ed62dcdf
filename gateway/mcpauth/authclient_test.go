package mcpauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAuthClientGetUser(t *testing.T) {
	tests := []struct {
		name        string
		token       string
		status      int
		body        string
		refused     bool
		noURL       bool
		noKey       bool
		wantUser    *SupabaseUser
		wantStatus  int
		wantMsg     string
		wantRequest bool
	}{
		{name: "ok", token: "tok", status: 200, body: `{"id":"u1","email":"a@b.c","role":"authenticated","aud":"authenticated"}`,
			wantUser: &SupabaseUser{ID: "u1", Email: "a@b.c", Role: "authenticated"}, wantRequest: true},
		{name: "refused 401", token: "tok", status: 401, body: `{"code":401,"error_code":"bad_jwt","msg":"invalid JWT"}`, wantStatus: 401, wantMsg: MsgUnauthorized, wantRequest: true},
		{name: "refused 403", token: "tok", status: 403, body: `{"message":"nope"}`, wantStatus: 401, wantMsg: MsgUnauthorized, wantRequest: true},
		{name: "empty token: no request", token: "", wantStatus: 401, wantMsg: MsgUnauthorized},
		{name: "2xx without user", token: "tok", status: 200, body: `{}`, wantStatus: 401, wantMsg: MsgUnauthorized, wantRequest: true},
		{name: "500 with msg", token: "tok", status: 500, body: `{"msg":"database error"}`, wantStatus: 503, wantMsg: "Authentication is temporarily unavailable: database error", wantRequest: true},
		{name: "502 HTML", token: "tok", status: 502, body: `<html>bad gateway</html>`, wantStatus: 503, wantMsg: `Authentication is temporarily unavailable: {"status":502}`, wantRequest: true},
		{name: "302", token: "tok", status: 302, body: ``, wantStatus: 503, wantMsg: `Authentication is temporarily unavailable: {"status":302}`, wantRequest: true},
		{name: "network failure", token: "tok", refused: true, wantStatus: 503, wantMsg: "Authentication is temporarily unavailable: fetch failed"},
		{name: "no URL", token: "tok", noURL: true, wantStatus: 500, wantMsg: "supabaseUrl is required."},
		{name: "no key", token: "tok", noKey: true, wantStatus: 500, wantMsg: "supabaseKey is required."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var gotReq []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotReq = append(gotReq, r.Method+" "+r.URL.Path, r.Header.Get("apikey"), r.Header.Get("Authorization"))
				if tc.status == 302 {
					w.Header().Set("Location", "/elsewhere")
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := &AuthClient{AuthURL: srv.URL + "/auth/v1/", AnonKey: "anon"}
			if tc.refused {
				c.AuthURL = strings.TrimSuffix(refusedURL(t), "/rest/v1") + "/auth/v1"
			}
			if tc.noURL {
				c.AuthURL = ""
			}
			if tc.noKey {
				c.AnonKey = ""
			}
			c.HTTPClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			u, err := c.GetUser(context.Background(), tc.token)
			if tc.wantUser != nil {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.wantUser, u); diff != "" {
					t.Errorf("user (-want +got):\n%s", diff)
				}
			} else {
				assertAPIError(t, err, tc.wantStatus, tc.wantMsg)
				var ae *AuthError
				if tc.wantStatus != 500 && !errors.As(err, &ae) {
					t.Errorf("cause is not *AuthError: %v", err)
				}
			}
			if tc.wantRequest {
				want := []string{"GET /auth/v1/user", "anon", "Bearer tok"}
				if diff := cmp.Diff(want, gotReq); diff != "" {
					t.Errorf("request (-want +got):\n%s", diff)
				}
			} else if len(gotReq) != 0 {
				t.Errorf("unexpected request %v", gotReq)
			}
		})
	}
}

func TestAuthErrorUnavailable(t *testing.T) {
	got := map[int]bool{}
	for _, s := range []int{0, 200, 302, 399, 400, 401, 499, 500, 503} {
		got[s] = (&AuthError{Status: s}).Unavailable()
	}
	want := map[int]bool{0: true, 200: true, 302: true, 399: true, 400: false, 401: false, 499: false, 500: true, 503: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAuthClientBodyLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"id":"u","pad":"`+strings.Repeat("x", 100)+`"}`)
	}))
	defer srv.Close()
	c := &AuthClient{AuthURL: srv.URL, AnonKey: "anon", MaxBodyBytes: 50}
	_, err := c.GetUser(context.Background(), "tok")
	assertAPIError(t, err, 503, "Authentication is temporarily unavailable: response too large")
}

func TestAuthClientTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	c := &AuthClient{AuthURL: srv.URL, AnonKey: "anon", Timeout: 100 * time.Millisecond}
	_, err := c.GetUser(context.Background(), "tok")
	assertAPIError(t, err, 503, "Authentication is temporarily unavailable: request timed out")
}
