package devstack

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/goldenfile"
)

var stack *Stack

func TestMain(m *testing.M) {
	flag.Parse()
	Main(m, func(s *Stack) { stack = s })
}

// Seeded users (supabase/fixtures/SEED.md).
const (
	alice = "10000000-0000-4000-8000-000000000001"
	gary  = "10000000-0000-4000-8000-000000000002"
	sam   = "10000000-0000-4000-8000-000000000003"
	nora  = "10000000-0000-4000-8000-000000000009"
)

type hcase struct {
	name   string
	method string
	path   string // under stack.URL
	hdr    map[string]string
	body   string
}

var kept = []string{"Content-Type", "Content-Range", "WWW-Authenticate"}

// runGolden sends every case to the running stack and compares the
// transcript with testdata/<file>.
func runGolden(t *testing.T, file string, cases []hcase) {
	t.Helper()
	var sb strings.Builder
	for _, c := range cases {
		m := c.method
		if m == "" {
			m = http.MethodGet
		}
		var rd io.Reader
		if c.body != "" {
			rd = strings.NewReader(c.body)
		}
		req, err := http.NewRequest(m, stack.URL+escape(c.path), rd)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		fmt.Fprintf(&sb, "### %s\n%s %s\nstatus: %d\n", c.name, m, c.path, res.StatusCode)
		for _, k := range kept {
			if v := res.Header.Get(k); v != "" {
				fmt.Fprintf(&sb, "%s: %s\n", k, v)
			}
		}
		fmt.Fprintf(&sb, "%s\n\n", body)
	}
	golden(t, file, sb.String())
}

func escape(p string) string {
	path, q, ok := strings.Cut(p, "?")
	if !ok {
		return p
	}
	parts := strings.Split(q, "&")
	for i, kv := range parts {
		k, v, _ := strings.Cut(kv, "=")
		parts[i] = url.QueryEscape(k) + "=" + url.QueryEscape(v)
	}
	return path + "?" + strings.Join(parts, "&")
}

// golden compares got with testdata/file (goldenfile, -update).
func golden(t *testing.T, file, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", file), []byte(got))
}

// as returns headers for a request with the anon apikey and a bearer token.
func as(tok string) map[string]string {
	return map[string]string{"apikey": stack.AnonKey, "Authorization": "Bearer " + tok}
}

func mint(t *testing.T, user string, opts ...TokenOption) string {
	t.Helper()
	tok, err := stack.MintSessionToken(user, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// gatewayToken mints the 60 s user JWT exactly as the gateway does
// (docs/contract/protocol.md A10) with GatewaySigningJWK.
func gatewayToken(t *testing.T, user string) string {
	t.Helper()
	k, err := jwk.ParseKey([]byte(stack.GatewaySigningJWK))
	if err != nil {
		t.Fatal(err)
	}
	var raw any
	if err := k.Raw(&raw); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"sub": user, "role": "authenticated", "aud": "authenticated", "exp": now + 60, "iat": now})
	tok.Header["kid"] = k.KeyID()
	s, err := tok.SignedString(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRESTWithSeed drives the queries of the original functions through the
// stack's HTTP server, as the seeded personas.
func TestRESTWithSeed(t *testing.T) {
	aliceTok, samTok, noraTok := mint(t, alice), mint(t, sam), mint(t, nora)
	svc := map[string]string{"apikey": stack.ServiceRoleKey, "Authorization": "Bearer " + stack.ServiceRoleKey}
	anon := map[string]string{"apikey": stack.AnonKey, "Authorization": "Bearer " + stack.AnonKey}
	helpQ := "/rest/v1/help_requests?select=id,request,status,created_at,updated_at,created_by,referenced_submission_id,help_queues!inner(name)&class_id=eq.1&order=created_at.desc&limit=20"
	single := func(h map[string]string) map[string]string {
		out := map[string]string{"Accept": "application/vnd.pgrst.object+json"}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	cases := []hcase{
		{name: "no apikey", path: "/rest/v1/classes?select=id"},
		{name: "unknown apikey", path: "/rest/v1/classes?select=id", hdr: map[string]string{"apikey": "nope"}},
		{name: "help requests as instructor", path: helpQ, hdr: as(aliceTok)},
		{name: "help requests as student", path: helpQ, hdr: as(samTok)},
		{name: "help requests as unenrolled", path: helpQ, hdr: as(noraTok)},
		{name: "help requests as service role", path: "/rest/v1/help_requests?select=id&order=id", hdr: svc},
		{name: "help requests as anon", path: "/rest/v1/help_requests?select=id", hdr: anon},
		{name: "anon cannot read api tokens", path: "/rest/v1/api_tokens?select=id", hdr: anon},
		{name: "own api tokens only", path: "/rest/v1/api_tokens?select=name,token_id,scopes,expires_at,revoked_at,last_used_at&user_id=eq." + alice + "&order=created_at.desc", hdr: as(aliceTok)},
		{name: "other user's api tokens invisible", path: "/rest/v1/api_tokens?select=name&user_id=eq." + alice, hdr: as(samTok)},
		{name: "grader cannot read autograder", path: "/rest/v1/autograder?select=grader_repo&id=eq.1", hdr: as(mint(t, gary))},
		{name: "instructor reads autograder", path: "/rest/v1/autograder?select=grader_repo&id=eq.1", hdr: as(aliceTok)},
		{name: "public profile embed", path: "/rest/v1/user_roles?select=private_profile_id,public_profile_id,profiles!user_roles_public_profile_id_fkey(name)&class_id=eq.1&private_profile_id=in.(20000001-0000-4000-8000-000000000003,20000001-0000-4000-8000-000000000008)&order=private_profile_id", hdr: as(aliceTok)},
		{name: "assignment single", path: "/rest/v1/assignments?select=id,title,slug,description,handout_url,due_date,release_date,total_points,has_autograder,class_id&id=eq.2&class_id=eq.1", hdr: single(as(aliceTok))},
		{name: "unreleased assignment hidden from student", path: "/rest/v1/assignments?select=id&id=eq.3&class_id=eq.1", hdr: single(as(samTok))},
		{name: "grader result json verbatim", path: "/rest/v1/grader_results?select=id,score,max_score,lint_passed,lint_output,lint_output_format,errors,execution_time,ret_code&submission_id=eq.3&class_id=eq.1&order=created_at.desc&limit=1", hdr: as(aliceTok)},
		{name: "duplicate-key json", path: "/rest/v1/grader_results?select=id,errors&submission_id=eq.4&class_id=eq.1", hdr: as(aliceTok)},
		{name: "thread search with or", path: "/rest/v1/discussion_threads?select=id,subject&class_id=eq.1&parent=is.null&or=(subject.ilike.%hello%,body.ilike.%hello%)&order=created_at.desc&limit=20", hdr: as(samTok)},
		{name: "invalid bigint yields error", path: "/rest/v1/submissions?select=id&id=eq.undefined&class_id=eq.1", hdr: as(aliceTok)},
		{name: "gateway-minted ES256 token", path: "/rest/v1/user_roles?select=class_id,role&user_id=eq." + gary + "&disabled=eq.false&role=in.(instructor,grader)", hdr: as(gatewayToken(t, gary))},
		{name: "expired session token", path: "/rest/v1/classes?select=id", hdr: as(mint(t, alice, WithExpiry(-time.Hour)))},
	}
	runGolden(t, "rest_seed.golden", cases)
}

// TestAuthUser pins GET /auth/v1/user answers.
func TestAuthUser(t *testing.T) {
	ctx := context.Background()
	tok, sid, err := stack.SignIn(ctx, sam)
	if err != nil {
		t.Fatal(err)
	}
	deletedTok, deletedSID, err := stack.SignIn(ctx, gary)
	if err != nil {
		t.Fatal(err)
	}
	if err := stack.DeleteSession(ctx, deletedSID); err != nil {
		t.Fatal(err)
	}
	_ = sid
	ghost := mint(t, "10000000-0000-4000-8000-0000000000ff")
	cases := []hcase{
		{name: "valid session", path: "/auth/v1/user", hdr: as(tok)},
		{name: "no authorization", path: "/auth/v1/user", hdr: map[string]string{"apikey": stack.AnonKey}},
		{name: "no apikey", path: "/auth/v1/user", hdr: map[string]string{"Authorization": "Bearer " + tok}},
		{name: "expired", path: "/auth/v1/user", hdr: as(mint(t, sam, WithExpiry(-time.Minute)))},
		{name: "garbage", path: "/auth/v1/user", hdr: as("not-a-jwt")},
		{name: "unknown kid", path: "/auth/v1/user", hdr: as(mint(t, sam, WithHeader("kid", "nope")))},
		{name: "no sub", path: "/auth/v1/user", hdr: as(mint(t, sam, WithoutClaim("sub")))},
		{name: "sub not a uuid", path: "/auth/v1/user", hdr: as(mint(t, "bob"))},
		{name: "user does not exist", path: "/auth/v1/user", hdr: as(ghost)},
		{name: "session deleted", path: "/auth/v1/user", hdr: as(deletedTok)},
		{name: "legacy HS256 token", path: "/auth/v1/user", hdr: as(mint(t, sam, WithHS256([]byte(stack.JWTSecret))))},
	}
	runGolden(t, "auth_user.golden", cases)
}

// TestJWKSAndRotation checks the published keys and that a rotated Auth key
// is accepted by the REST API while the old one stays valid until removed.
func TestJWKSAndRotation(t *testing.T) {
	get := func(path string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, stack.URL+escape(path), nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	kids := func() []string {
		_, body := get("/auth/v1/.well-known/jwks.json", nil)
		var doc struct {
			Keys []struct {
				Kid string `json:"kid"`
				D   string `json:"d"`
			} `json:"keys"`
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range doc.Keys {
			if k.D != "" {
				t.Fatalf("JWKS leaks a private key: %s", body)
			}
			out = append(out, k.Kid)
		}
		return out
	}
	if diff := cmp.Diff([]string{AuthKeyID, GatewayKeyID}, kids()); diff != "" {
		t.Fatalf("initial kids (-want +got):\n%s", diff)
	}
	old := mint(t, alice)
	if _, err := stack.RotateSigningKey("devstack-auth-2"); err != nil {
		t.Fatal(err)
	}
	fresh := mint(t, alice)
	path := "/rest/v1/classes?select=id&order=id"
	for name, tok := range map[string]string{"old": old, "new": fresh} {
		if code, body := get(path, as(tok)); code != 200 || body != `[{"id":1}]` {
			t.Errorf("%s token: %d %s", name, code, body)
		}
	}
	if err := stack.RemoveJWK(AuthKeyID); err != nil {
		t.Fatal(err)
	}
	code, body := get(path, as(old))
	want := `{"code":"PGRST301","details":"None of the keys was able to decode the JWT","hint":null,"message":"No suitable key or wrong key type"}`
	if code != 401 || body != want {
		t.Errorf("removed kid: %d %s, want 401 %s", code, body, want)
	}
	if diff := cmp.Diff([]string{GatewayKeyID, "devstack-auth-2"}, kids()); diff != "" {
		t.Errorf("kids after rotation (-want +got):\n%s", diff)
	}
}
