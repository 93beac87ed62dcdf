package supabasesignin

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAuthorizeURL(t *testing.T) {
	a := Auth{PublicURL: "https://project.example/auth/v1"}
	got := a.AuthorizeURL("github", "https://gw.example/functions/v1/mcp-server/approve/callback", "abc")
	want := "https://project.example/auth/v1/authorize?code_challenge=abc&code_challenge_method=s256&provider=github&redirect_to=https%3A%2F%2Fgw.example%2Ffunctions%2Fv1%2Fmcp-server%2Fapprove%2Fcallback"
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestExchange: the request Auth receives, and every kind of answer.
func TestExchange(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		want    *User
		refusal *Refusal
		fault   string
	}{
		{name: "session", status: 200, body: `{"access_token":"x","user":{"id":"u1","email":"a@example.edu"}}`, want: &User{ID: "u1", Email: "a@example.edu"}},
		{name: "refused", status: 400, body: `{"error_code":"flow_state_not_found","msg":"invalid flow state"}`,
			refusal: &Refusal{Status: 400, Code: "flow_state_not_found", Msg: "invalid flow state"}},
		{name: "unavailable", status: 503, body: `{}`, fault: "supabasesignin: supabase auth answered 503"},
		{name: "no user", status: 200, body: `{"access_token":"x"}`, fault: "supabasesignin: supabase auth session without a user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct{ path, query, apikey, body string }
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got.path, got.query, got.apikey, got.body = r.URL.Path, r.URL.RawQuery, r.Header.Get("apikey"), string(b)
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			a := Auth{URL: srv.URL + "/auth/v1", AnonKey: "anon", HTTP: srv.Client()}
			u, err := a.Exchange(context.Background(), "the-code", "the-verifier")
			if diff := cmp.Diff(struct{ path, query, apikey, body string }{"/auth/v1/token", "grant_type=pkce", "anon", `{"auth_code":"the-code","code_verifier":"the-verifier"}`}, got, cmp.AllowUnexported(got)); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			var refusal *Refusal
			switch {
			case tt.want != nil:
				if err != nil || *u != *tt.want {
					t.Errorf("got %+v, %v; want %+v", u, err, tt.want)
				}
			case tt.refusal != nil:
				if !errors.As(err, &refusal) || *refusal != *tt.refusal {
					t.Errorf("got %v; want the refusal %+v", err, tt.refusal)
				}
			default:
				if err == nil || err.Error() != tt.fault || errors.As(err, &refusal) {
					t.Errorf("got %v; want the fault %q", err, tt.fault)
				}
			}
		})
	}
}

func TestProviderName(t *testing.T) {
	for id, want := range map[string]string{"github": "GitHub", "azure": "Microsoft", "custom": "Custom", "": ""} {
		if got := ProviderName(id); got != want {
			t.Errorf("ProviderName(%q) = %q, want %q", id, got, want)
		}
	}
}
