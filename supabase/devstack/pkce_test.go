package devstack

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const pkceVerifier = "local-stack-verifier-0123456789abcdefghijklmnop"

func pkceChallenge(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// pkceSignIn runs the browser half of Supabase's PKCE flow against the
// stack: authorize, the stand-in provider page, the callback as userID.
// It returns where the browser ends up.
func pkceSignIn(t *testing.T, redirectTo, challenge, userID string) *url.URL {
	t.Helper()
	q := url.Values{"provider": {"github"}, "redirect_to": {redirectTo}, "code_challenge": {challenge}, "code_challenge_method": {"s256"}}
	resp, err := noFollow.Get(stack.AuthURL + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 302 {
		t.Fatalf("authorize: %d", resp.StatusCode)
	}
	page, err := noFollow.Get(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != 200 || !strings.Contains(string(body), "alice.instructor@example.edu (Alice Instructor)") || page.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("stand-in page: %d %s", page.StatusCode, body)
	}
	state, _ := url.Parse(resp.Header.Get("Location"))
	cb, err := noFollow.PostForm(stack.AuthURL+"/callback", url.Values{"state": {state.Query().Get("state")}, "user_id": {userID}})
	if err != nil {
		t.Fatal(err)
	}
	cb.Body.Close()
	loc, _ := url.Parse(cb.Header.Get("Location"))
	return loc
}

func pkceToken(t *testing.T, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", stack.AuthURL+"/token?grant_type=pkce", strings.NewReader(body))
	req.Header.Set("apikey", stack.AnonKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPKCESignIn: the flow end to end, then every refusal GoTrue gives
// with its exact status and body.
func TestPKCESignIn(t *testing.T) {
	const redirect = "http://127.0.0.1:9999/functions/v1/mcp-server/oauth/callback"
	loc := pkceSignIn(t, redirect, pkceChallenge(pkceVerifier), alice)
	code := loc.Query().Get("code")
	if !strings.HasPrefix(loc.String(), redirect+"?code=") || code == "" {
		t.Fatalf("callback redirected to %s", loc)
	}
	status, body := pkceToken(t, `{"auth_code":"`+code+`","code_verifier":"wrong-verifier-0123456789abcdefghijklmnopqrstu"}`)
	if want := `{"code":400,"error_code":"bad_code_verifier","msg":"code challenge does not match previously saved code verifier"}`; status != 400 || body != want {
		t.Errorf("wrong verifier: %d %s", status, body)
	}
	status, body = pkceToken(t, `{"auth_code":"`+code+`","code_verifier":"`+pkceVerifier+`"}`)
	var session struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		User        struct {
			ID    string `json:"id"`
			Email string `json:"email"`
		} `json:"user"`
	}
	if err := json.Unmarshal([]byte(body), &session); status != 200 || err != nil || session.User.ID != alice || session.AccessToken == "" || session.TokenType != "bearer" {
		t.Fatalf("exchange: %d %s", status, body)
	}
	// The session works at GET /user.
	req, _ := http.NewRequest("GET", stack.AuthURL+"/user", nil)
	req.Header.Set("apikey", stack.AnonKey)
	req.Header.Set("Authorization", "Bearer "+session.AccessToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /user with the session: %v %v", err, resp.StatusCode)
	}
	resp.Body.Close()

	notFound := `{"code":404,"error_code":"flow_state_not_found","msg":"invalid flow state, no valid flow state found"}`
	for name, tc := range map[string]struct {
		body   string
		status int
		want   string
	}{
		"reused code":    {`{"auth_code":"` + code + `","code_verifier":"` + pkceVerifier + `"}`, 404, notFound},
		"unknown code":   {`{"auth_code":"nope","code_verifier":"` + pkceVerifier + `"}`, 404, notFound},
		"empty verifier": {`{"auth_code":"x","code_verifier":""}`, 400, `{"code":400,"error_code":"validation_failed","msg":"invalid request: both auth code and code verifier should be non-empty"}`},
	} {
		if status, body := pkceToken(t, tc.body); status != tc.status || body != tc.want {
			t.Errorf("%s: %d %s", name, status, body)
		}
	}
}

// TestPKCEAuthorizeChecks: provider, PKCE parameters and the redirect
// allow-list, as GoTrue checks them.
func TestPKCEAuthorizeChecks(t *testing.T) {
	for name, tc := range map[string]struct {
		query  url.Values
		status int
		want   string
	}{
		"unknown provider": {url.Values{"provider": {"myspace"}}, 400, `{"code":400,"error_code":"validation_failed","msg":"Unsupported provider: provider is not enabled"}`},
		"challenge without method": {url.Values{"provider": {"github"}, "code_challenge": {pkceChallenge("x")}}, 400,
			`{"code":400,"error_code":"validation_failed","msg":"PKCE flow requires code_challenge_method and code_challenge"}`},
		"short challenge": {url.Values{"provider": {"github"}, "code_challenge": {"short"}, "code_challenge_method": {"s256"}}, 400,
			`{"code":400,"error_code":"validation_failed","msg":"code challenge has to be between 43 and 128 characters"}`},
	} {
		resp, err := noFollow.Get(stack.AuthURL + "/authorize?" + tc.query.Encode())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || string(b) != tc.want {
			t.Errorf("%s: %d %s", name, resp.StatusCode, b)
		}
	}
	// A redirect_to outside the allow-list falls back to the Site URL.
	loc := pkceSignIn(t, "https://evil.example/cb", pkceChallenge(pkceVerifier), alice)
	if loc.Host != "localhost:3000" || loc.Query().Get("code") == "" {
		t.Errorf("unlisted redirect_to went to %s", loc)
	}
}
