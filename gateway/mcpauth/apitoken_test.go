package mcpauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

const testSecret = "0123456789abcdef0123456789abcdef"

var testNow = time.UnixMilli(1764460800123).UTC()

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// hs256 builds a compact JWS by hand from exact header and payload text.
func hs256(secret, header, payload string) string {
	si := b64(header) + "." + b64(payload)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(si))
	return si + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func hs384(secret, header, payload string) string {
	si := b64(header) + "." + b64(payload)
	m := hmac.New(sha512.New384, []byte(secret))
	m.Write([]byte(si))
	return si + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func rs256(t testing.TB, header, payload string) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	si := b64(header) + "." + b64(payload)
	sig, err := jwt.SigningMethodRS256.Sign(si, k)
	if err != nil {
		t.Fatal(err)
	}
	return si + "." + base64.RawURLEncoding.EncodeToString(sig)
}

const hdr = `{"alg":"HS256","typ":"JWT"}`

// claims writes a payload with the given members, in order.
func payload(members ...string) string { return "{" + strings.Join(members, ",") + "}" }

var (
	pSub    = `"sub":"11111111-1111-4111-8111-111111111111"`
	pScopes = `"scopes":["mcp:read"]`
	pJti    = `"jti":"22222222-2222-4222-8222-222222222222"`
	pIss    = `"iss":"pawtograder"`
	pAud    = `"aud":"mcp"`
	pExp    = `"exp":1772236800`
	pIat    = `"iat":1764460800`
)

func goodPayload() string { return payload(pSub, pScopes, pJti, pIss, pAud, pExp, pIat) }

// TestMintAPITokenVectors pins MintAPIToken to tokens produced by the
// original algorithm. The expected strings were computed with node's
// crypto over JSON.stringify output (a second opinion); the test also
// rebuilds each one by hand here.
func TestMintAPITokenVectors(t *testing.T) {
	tests := []struct {
		name    string
		secret  string
		sub     string
		scopes  []string
		jti     string
		days    float64
		nowMs   int64
		payload string
		want    string
	}{
		{
			name: "90 days", secret: testSecret,
			sub: "11111111-1111-4111-8111-111111111111", scopes: []string{"mcp:read", "cli:read"},
			jti: "22222222-2222-4222-8222-222222222222", days: 90, nowMs: 1764460800123,
			payload: `{"sub":"11111111-1111-4111-8111-111111111111","scopes":["mcp:read","cli:read"],"jti":"22222222-2222-4222-8222-222222222222","iss":"pawtograder","aud":"mcp","exp":1772236800,"iat":1764460800}`,
			want:    "mcp_eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMTExMTExMS0xMTExLTQxMTEtODExMS0xMTExMTExMTExMTEiLCJzY29wZXMiOlsibWNwOnJlYWQiLCJjbGk6cmVhZCJdLCJqdGkiOiIyMjIyMjIyMi0yMjIyLTQyMjItODIyMi0yMjIyMjIyMjIyMjIiLCJpc3MiOiJwYXd0b2dyYWRlciIsImF1ZCI6Im1jcCIsImV4cCI6MTc3MjIzNjgwMCwiaWF0IjoxNzY0NDYwODAwfQ.cqEUUBGgmN6R4rH7X2sQ17W7plhMveVpjji8Sh_8QcQ",
		},
		{
			name: "half second rounds up, fractional days, empty scopes", secret: testSecret,
			sub: "11111111-1111-4111-8111-111111111111", scopes: []string{},
			jti: "33333333-3333-4333-8333-333333333333", days: 1.5, nowMs: 1764460800500,
			payload: `{"sub":"11111111-1111-4111-8111-111111111111","scopes":[],"jti":"33333333-3333-4333-8333-333333333333","iss":"pawtograder","aud":"mcp","exp":1764590401,"iat":1764460801}`,
			want:    "mcp_eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMTExMTExMS0xMTExLTQxMTEtODExMS0xMTExMTExMTExMTEiLCJzY29wZXMiOltdLCJqdGkiOiIzMzMzMzMzMy0zMzMzLTQzMzMtODMzMy0zMzMzMzMzMzMzMzMiLCJpc3MiOiJwYXd0b2dyYWRlciIsImF1ZCI6Im1jcCIsImV4cCI6MTc2NDU5MDQwMSwiaWF0IjoxNzY0NDYwODAxfQ.V9T91sA3luZae1gP39gckRIT8UFJO_EYvHxzjE8ccd0",
		},
		{
			name: "unicode secret, JS string escaping, duplicate scopes", secret: "ünïcödé-secret-😀-0123456789abcdefghij",
			sub: "u\"<>&\u2028", scopes: []string{"mcp:read", "mcp:read"},
			jti: "j", days: 365, nowMs: 1764460800499,
			payload: "{\"sub\":\"u\\\"<>&\u2028\",\"scopes\":[\"mcp:read\",\"mcp:read\"],\"jti\":\"j\",\"iss\":\"pawtograder\",\"aud\":\"mcp\",\"exp\":1795996800,\"iat\":1764460800}",
			want:    "mcp_eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1XCI8PibigKgiLCJzY29wZXMiOlsibWNwOnJlYWQiLCJtY3A6cmVhZCJdLCJqdGkiOiJqIiwiaXNzIjoicGF3dG9ncmFkZXIiLCJhdWQiOiJtY3AiLCJleHAiOjE3OTU5OTY4MDAsImlhdCI6MTc2NDQ2MDgwMH0.wjQ2VTTH4yzbw4xTyoSG76v8nGKiWPEdAy5WjmzPuoc",
		},
		{
			name: "fractional milliseconds of expiry", secret: testSecret,
			sub: "a", scopes: []string{"mcp:write"}, jti: "b", days: 1.0000001, nowMs: 1764460800000,
			payload: `{"sub":"a","scopes":["mcp:write"],"jti":"b","iss":"pawtograder","aud":"mcp","exp":1764547200,"iat":1764460800}`,
			want:    "mcp_eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhIiwic2NvcGVzIjpbIm1jcDp3cml0ZSJdLCJqdGkiOiJiIiwiaXNzIjoicGF3dG9ncmFkZXIiLCJhdWQiOiJtY3AiLCJleHAiOjE3NjQ1NDcyMDAsImlhdCI6MTc2NDQ2MDgwMH0.Iw6YyLfahHqV8INLFWP6hmGUAVdhFSSwxV4quWymT4k",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			byHand := "mcp_" + hs256(tc.secret, hdr, tc.payload)
			if diff := cmp.Diff(tc.want, byHand); diff != "" {
				t.Fatalf("hand-built vector differs from node's (-node +hand):\n%s", diff)
			}
			got, err := MintAPIToken(tc.secret, tc.sub, tc.scopes, tc.jti, tc.days, time.UnixMilli(tc.nowMs))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("MintAPIToken (-want +got):\n%s", diff)
			}
			// And the verifier accepts what the original mints.
			c, err := VerifyAPIToken(tc.secret, tc.want, time.UnixMilli(tc.nowMs))
			if err != nil {
				t.Fatalf("VerifyAPIToken(original token) = %v", err)
			}
			if c.Subject != tc.sub || c.TokenID != tc.jti || !cmp.Equal(c.Scopes, tc.scopes, cmpopts.EquateEmpty()) {
				t.Errorf("claims = %+v", c)
			}
		})
	}
}

func TestMintAPITokenErrors(t *testing.T) {
	_, err := MintAPIToken("short", "a", nil, "b", 1, testNow)
	assertAPIError(t, err, http.StatusInternalServerError, MsgMCPSecret)
	if _, err := MintAPIToken(testSecret, "a", nil, "b", math.Inf(1), testNow); err == nil {
		t.Error("infinite lifetime accepted")
	}
	if _, err := MintAPIToken(testSecret, "a", nil, "b", math.NaN(), testNow); err == nil {
		t.Error("NaN lifetime accepted")
	}
}

func assertAPIError(t *testing.T, err error, status int, msg string) {
	t.Helper()
	var ae *apierror.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v (%T), want *apierror.Error %d %q", err, err, status, msg)
	}
	if diff := cmp.Diff(struct {
		Status  int
		Message string
	}{status, msg}, struct {
		Status  int
		Message string
	}{ae.Status, ae.Message}); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

func TestValidateMCPJWTSecret(t *testing.T) {
	tests := []struct {
		name   string
		secret string
		ok     bool
	}{
		{"unset", "", false},
		{"31 chars", strings.Repeat("a", 31), false},
		{"32 chars", strings.Repeat("a", 32), true},
		// 16 astral characters are 32 UTF-16 code units: JS length 32.
		{"16 emoji = 32 code units", strings.Repeat("😀", 16), true},
		{"15 emoji + 1", strings.Repeat("😀", 15) + "a", false},
		// 31 two-byte BMP characters: 62 bytes but JS length 31.
		{"31 BMP chars", strings.Repeat("é", 31), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateMCPJWTSecret(tc.secret)
			if tc.ok {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			assertAPIError(t, err, 500, MsgMCPSecret)
		})
	}
}

func TestJSRound(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0.5, 1}, {1.5, 2}, {2.5, 3}, {-0.5, 0}, {-1.5, -1}, {-2.5, -2},
		{0.49999999999999994, 0}, {1764460800.5, 1764460801}, {1764460800.4999, 1764460800},
	}
	for _, tc := range tests {
		if got := jsRound(tc.in); got != tc.want {
			t.Errorf("jsRound(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestVerifyAPIToken is the A9 matrix: every accepted and refused form.
func TestVerifyAPIToken(t *testing.T) {
	exp := `"exp":`          // built per case
	nowSec := testNow.Unix() // 1764460800; now is 1764460800.123
	num := func(n int64) string { return itoa(n) }
	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"valid with prefix", "mcp_" + hs256(testSecret, hdr, goodPayload()), true},
		{"valid without prefix", hs256(testSecret, hdr, goodPayload()), true},
		{"prefix is case-sensitive", "MCP_" + hs256(testSecret, hdr, goodPayload()), false},
		{"double prefix", "mcp_mcp_" + hs256(testSecret, hdr, goodPayload()), false},
		{"empty", "", false},
		{"mcp_ only", "mcp_", false},
		{"wrong secret", hs256(testSecret+"x", hdr, goodPayload()), false},
		{"HS384", hs384(testSecret, `{"alg":"HS384","typ":"JWT"}`, goodPayload()), false},
		{"HS256 header, HS384 signature", hs384(testSecret, hdr, goodPayload()), false},
		{"RS256", rs256(t, `{"alg":"RS256","typ":"JWT"}`, goodPayload()), false},
		{"none", b64(`{"alg":"none","typ":"JWT"}`) + "." + b64(goodPayload()) + ".", false},
		{"no alg", hs256(testSecret, `{"typ":"JWT"}`, goodPayload()), false},
		{"extra header members are fine", hs256(testSecret, `{"typ":"JWT","alg":"HS256","kid":"x"}`, goodPayload()), true},
		{"tampered payload", b64(hdr) + "." + b64(strings.Replace(goodPayload(), "mcp:read", "mcp:write", 1)) + "." + strings.Split(hs256(testSecret, hdr, goodPayload()), ".")[2], false},
		{"two parts", strings.Join(strings.Split(hs256(testSecret, hdr, goodPayload()), ".")[:2], "."), false},
		{"four parts", hs256(testSecret, hdr, goodPayload()) + ".x", false},
		{"payload not JSON", hs256(testSecret, hdr, "not json"), false},
		{"payload an array", hs256(testSecret, hdr, "[1]"), false},
		{"expired beyond leeway", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, exp+num(nowSec-1))), false},
		{"expired within leeway", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, exp+num(nowSec))), true},
		{"exp fractional within leeway", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, `"exp":1764460799.2`)), true},
		{"exp fractional beyond leeway", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, `"exp":1764460799.1`)), false},
		{"no exp (deviation: required)", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud)), false},
		{"exp null", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, `"exp":null`)), false},
		{"exp string", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, `"exp":"1772236800"`)), false},
		{"exp huge (deviation: out of range)", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, `"exp":1e400`)), false},
		{"nbf in future beyond leeway", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, pExp, `"nbf":`+num(nowSec+2))), false},
		{"nbf in future within leeway", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, pExp, `"nbf":`+num(nowSec+1))), true},
		{"nbf null", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, pExp, `"nbf":null`)), false},
		{"nbf string", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, pExp, `"nbf":"0"`)), false},
		{"iat in future is not checked", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, pExp, `"iat":9999999999`)), true},
		{"iat string (deviation: refused)", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pAud, pExp, `"iat":"x"`)), false},
		{"wrong iss", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, `"iss":"other"`, pAud, pExp)), false},
		{"missing iss", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pAud, pExp)), false},
		{"wrong aud", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, `"aud":"authenticated"`, pExp)), false},
		{"aud as array", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, `"aud":["mcp"]`, pExp)), false},
		{"missing aud", hs256(testSecret, hdr, payload(pSub, pScopes, pJti, pIss, pExp)), false},
		{"missing sub", hs256(testSecret, hdr, payload(pScopes, pJti, pIss, pAud, pExp)), false},
		{"empty sub", hs256(testSecret, hdr, payload(`"sub":""`, pScopes, pJti, pIss, pAud, pExp)), false},
		{"missing jti", hs256(testSecret, hdr, payload(pSub, pScopes, pIss, pAud, pExp)), false},
		{"empty jti", hs256(testSecret, hdr, payload(pSub, pScopes, `"jti":""`, pIss, pAud, pExp)), false},
		{"missing scopes", hs256(testSecret, hdr, payload(pSub, pJti, pIss, pAud, pExp)), false},
		{"scopes null", hs256(testSecret, hdr, payload(pSub, `"scopes":null`, pJti, pIss, pAud, pExp)), false},
		{"scopes a string", hs256(testSecret, hdr, payload(pSub, `"scopes":"mcp:read"`, pJti, pIss, pAud, pExp)), false},
		{"invalid scope", hs256(testSecret, hdr, payload(pSub, `"scopes":["mcp:read","admin"]`, pJti, pIss, pAud, pExp)), false},
		{"scope case", hs256(testSecret, hdr, payload(pSub, `"scopes":["MCP:READ"]`, pJti, pIss, pAud, pExp)), false},
		{"numeric scope", hs256(testSecret, hdr, payload(pSub, `"scopes":[1]`, pJti, pIss, pAud, pExp)), false},
		{"empty scopes", hs256(testSecret, hdr, payload(pSub, `"scopes":[]`, pJti, pIss, pAud, pExp)), true},
		{"cli scopes only", hs256(testSecret, hdr, payload(pSub, `"scopes":["cli:read","cli:write"]`, pJti, pIss, pAud, pExp)), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := VerifyAPIToken(testSecret, tc.token, testNow)
			if tc.ok {
				if err != nil {
					t.Fatalf("VerifyAPIToken = %v (cause %v), want success", err, errors.Unwrap(err))
				}
				if c.Subject == "" || c.TokenID == "" || c.Scopes == nil {
					t.Errorf("claims = %+v", c)
				}
				return
			}
			assertAPIError(t, err, http.StatusUnauthorized, MsgInvalidToken)
		})
	}
}

func TestVerifyAPITokenClaims(t *testing.T) {
	c, err := VerifyAPIToken(testSecret, hs256(testSecret, hdr, goodPayload()), testNow)
	if err != nil {
		t.Fatal(err)
	}
	want := &TokenClaims{
		Subject:   "11111111-1111-4111-8111-111111111111",
		Scopes:    []string{"mcp:read"},
		TokenID:   "22222222-2222-4222-8222-222222222222",
		ExpiresAt: time.Unix(1772236800, 0),
		IssuedAt:  time.Unix(1764460800, 0),
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	// A short secret is a server fault, never "invalid token".
	_, err = VerifyAPIToken("short", hs256(testSecret, hdr, goodPayload()), testNow)
	assertAPIError(t, err, 500, MsgMCPSecret)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// FuzzVerifyAPIToken checks that no input panics, that every refusal is
// the A7 step 4 error, and that every accepted token really satisfies the
// A9 invariants.
func FuzzVerifyAPIToken(f *testing.F) {
	f.Add("mcp_" + hs256(testSecret, hdr, goodPayload()))
	f.Add(hs256(testSecret, hdr, payload(pSub, `"scopes":[]`, pJti, pIss, pAud, pExp)))
	f.Add(b64(`{"alg":"none"}`) + "." + b64(goodPayload()) + ".")
	f.Add("a.b.c")
	f.Add("mcp_...")
	f.Add(hs256(testSecret, hdr, `{"exp":1e400,"aud":["mcp"]}`))
	f.Fuzz(func(t *testing.T, token string) { checkVerify(t, token) })
}

// FuzzVerifyAPITokenPayload signs fuzzed payloads with the right key, so
// the claim checks (not just the signature) are exercised.
func FuzzVerifyAPITokenPayload(f *testing.F) {
	f.Add(goodPayload())
	f.Add(payload(pSub, `"scopes":[]`, pJti, pIss, pAud, pExp))
	f.Add(payload(pSub, pScopes, pJti, pIss, `"aud":["mcp"]`, pExp))
	f.Add(payload(pSub, pScopes, pJti, pIss, pAud, `"exp":1e400`, `"nbf":-1e400`))
	f.Add(`{"sub":1,"jti":true,"scopes":{},"exp":"x"}`)
	f.Fuzz(func(t *testing.T, p string) { checkVerify(t, hs256(testSecret, hdr, p)) })
}

// checkVerify asserts the verifier's contract for one token: a refusal is
// always the A7 step 4 error, and an accepted token satisfies A9.
func checkVerify(t *testing.T, token string) {
	t.Helper()
	c, err := VerifyAPIToken(testSecret, token, testNow)
	if err != nil {
		var ae *apierror.Error
		if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || ae.Message != MsgInvalidToken {
			t.Fatalf("refusal is %v, want the A7 step 4 error", err)
		}
		return
	}
	if c.Subject == "" || c.TokenID == "" || c.Scopes == nil {
		t.Fatalf("accepted token with missing claims: %+v", c)
	}
	for _, s := range c.Scopes {
		if !IsValidScope(s) {
			t.Fatalf("accepted invalid scope %q", s)
		}
	}
	if c.ExpiresAt.Unix() > MaxTimingClaim || (!c.IssuedAt.IsZero() && (c.IssuedAt.Unix() < 0 || c.IssuedAt.Unix() > MaxTimingClaim)) {
		t.Fatalf("accepted timing claims out of range: exp %v iat %v", c.ExpiresAt, c.IssuedAt)
	}
	if c.ExpiresAt.Add(TokenLeeway).Before(testNow) {
		t.Fatalf("accepted expired token: exp %v", c.ExpiresAt)
	}
}

func BenchmarkVerifyAPIToken(b *testing.B) {
	tok := "mcp_" + hs256(testSecret, hdr, goodPayload())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := VerifyAPIToken(testSecret, tok, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMintAPIToken(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MintAPIToken(testSecret, "11111111-1111-4111-8111-111111111111", []string{"mcp:read"}, "22222222-2222-4222-8222-222222222222", 90, testNow); err != nil {
			b.Fatal(err)
		}
	}
}
