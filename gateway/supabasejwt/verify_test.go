package supabasejwt

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/lestrrat-go/jwx/v2/jwk"
)

const (
	issuer   = "https://project.example/auth/v1"
	resource = "https://project.example/functions/v1/mcp-server"
)

// jwksServer serves a mutable JWKS and counts fetches.
type jwksServer struct {
	mu      sync.Mutex
	set     jwk.Set
	fetches atomic.Int32
	fail    atomic.Bool
	*httptest.Server
}

func newJWKSServer(t *testing.T) *jwksServer {
	s := &jwksServer{set: jwk.NewSet()}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		if s.fail.Load() {
			http.Error(w, "boom", http.StatusBadGateway)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(s.set)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) add(t *testing.T, kid string, private any) {
	t.Helper()
	k, err := jwk.FromRaw(private)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := k.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	_ = pub.Set(jwk.KeyIDKey, kid)
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.set.AddKey(pub)
}

func (s *jwksServer) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set = jwk.NewSet()
}

func sign(t *testing.T, method jwt.SigningMethod, kid string, key any, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rs, _ := rsa.GenerateKey(rand.Reader, 2048)
	otherEC, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv := newJWKSServer(t)
	srv.add(t, "ec1", ec)
	srv.add(t, "rs1", rs)

	base := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": issuer, "sub": "user-1", "aud": "authenticated", "role": "authenticated",
			"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "session_id": "sess-1", "client_id": "claude"}
	}
	with := func(k string, v any) jwt.MapClaims {
		c := base()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	tests := []struct {
		name    string
		token   string
		wantSub string
		wantErr string // "" = valid; "invalid" = *InvalidTokenError
	}{
		{"ES256 valid", sign(t, jwt.SigningMethodES256, "ec1", ec, base()), "user-1", ""},
		{"RS256 valid", sign(t, jwt.SigningMethodRS256, "rs1", rs, base()), "user-1", ""},
		{"audience is the resource", sign(t, jwt.SigningMethodES256, "ec1", ec, with("aud", resource)), "user-1", ""},
		{"audience array with resource", sign(t, jwt.SigningMethodES256, "ec1", ec, with("aud", []string{"x", resource})), "user-1", ""},
		{"audience of another resource", sign(t, jwt.SigningMethodES256, "ec1", ec, with("aud", "https://other.example/mcp")), "", "invalid"},
		{"no audience", sign(t, jwt.SigningMethodES256, "ec1", ec, with("aud", nil)), "", "invalid"},
		{"expired", sign(t, jwt.SigningMethodES256, "ec1", ec, with("exp", now.Add(-time.Minute).Unix())), "", "invalid"},
		{"expired within leeway", sign(t, jwt.SigningMethodES256, "ec1", ec, with("exp", now.Add(-10*time.Second).Unix())), "user-1", ""},
		{"no exp", sign(t, jwt.SigningMethodES256, "ec1", ec, with("exp", nil)), "", "invalid"},
		{"no sub", sign(t, jwt.SigningMethodES256, "ec1", ec, with("sub", nil)), "", "invalid"},
		{"wrong issuer", sign(t, jwt.SigningMethodES256, "ec1", ec, with("iss", "https://evil.example/auth/v1")), "", "invalid"},
		{"issued in the future", sign(t, jwt.SigningMethodES256, "ec1", ec, with("iat", now.Add(time.Hour).Unix())), "", "invalid"},
		{"unknown kid", sign(t, jwt.SigningMethodES256, "nope", ec, base()), "", "invalid"},
		{"no kid", sign(t, jwt.SigningMethodES256, "", ec, base()), "", "invalid"},
		{"wrong key for kid", sign(t, jwt.SigningMethodES256, "ec1", otherEC, base()), "", "invalid"},
		{"RS256 header on EC key", sign(t, jwt.SigningMethodRS256, "ec1", rs, base()), "", "invalid"},
		{"HS256 not configured", sign(t, jwt.SigningMethodHS256, "ec1", []byte("secret-secret-secret-secret-32by"), base()), "", "invalid"},
		{"alg none", sign(t, jwt.SigningMethodNone, "ec1", jwt.UnsafeAllowNoneSignatureType, base()), "", "invalid"},
		{"garbage", "not.a.jwt", "", "invalid"},
	}
	v, err := New(Options{Issuer: issuer, Audiences: []string{resource, "authenticated"}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	v.opts.HTTPClient = srv.Client()
	v.keys.hc = srv.Client()
	v.keys.url = srv.URL
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := v.Verify(context.Background(), tt.token)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if c.Subject != tt.wantSub || c.SessionID != "sess-1" || c.ClientID != "claude" {
					t.Fatalf("claims = %+v", c)
				}
				return
			}
			var ite *InvalidTokenError
			if !errors.As(err, &ite) {
				t.Fatalf("err = %v, want *InvalidTokenError", err)
			}
		})
	}
}

func TestLegacyHS256(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	secret := "super-secret-jwt-token-with-at-least-32-characters"
	srv := newJWKSServer(t)
	v, err := New(Options{Issuer: issuer, JWKSURL: srv.URL, Audiences: []string{"authenticated"}, LegacySecret: secret,
		HTTPClient: srv.Client(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tok := sign(t, jwt.SigningMethodHS256, "", []byte(secret), jwt.MapClaims{"iss": issuer, "sub": "u", "aud": "authenticated", "exp": now.Add(time.Hour).Unix()})
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("HS256 with configured secret: %v", err)
	}
	bad := sign(t, jwt.SigningMethodHS256, "", []byte("another-secret-another-secret-32"), jwt.MapClaims{"iss": issuer, "sub": "u", "aud": "authenticated", "exp": now.Add(time.Hour).Unix()})
	var ite *InvalidTokenError
	if _, err := v.Verify(context.Background(), bad); !errors.As(err, &ite) {
		t.Fatalf("wrong secret: err = %v", err)
	}
}

func TestKeyRotationAndRefetchBound(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := now
	var mu sync.Mutex
	tick := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	nowFn := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }

	oldKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	newKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv := newJWKSServer(t)
	srv.add(t, "old", oldKey)
	v, err := New(Options{Issuer: issuer, JWKSURL: srv.URL, Audiences: []string{"authenticated"}, HTTPClient: srv.Client(), Now: nowFn})
	if err != nil {
		t.Fatal(err)
	}
	claims := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": issuer, "sub": "u", "aud": "authenticated", "exp": nowFn().Add(time.Hour).Unix()}
	}
	ctx := context.Background()
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "old", oldKey, claims())); err != nil {
		t.Fatal(err)
	}
	if got := srv.fetches.Load(); got != 1 {
		t.Fatalf("fetches after first verify = %d, want 1", got)
	}
	// Made-up kids right after a fetch cause no refetch.
	for i := 0; i < 50; i++ {
		_, _ = v.Verify(ctx, sign(t, jwt.SigningMethodES256, "made-up", oldKey, claims()))
	}
	if got := srv.fetches.Load(); got != 1 {
		t.Fatalf("fetches after unknown kids = %d, want 1", got)
	}
	// Rotation: the new key appears; after the refetch interval it is found.
	srv.clear()
	srv.add(t, "new", newKey)
	tick(31 * time.Second)
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "new", newKey, claims())); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	if got := srv.fetches.Load(); got != 2 {
		t.Fatalf("fetches after rotation = %d, want 2", got)
	}
	// The retired key is refused once the set no longer has it.
	var ite *InvalidTokenError
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "old", oldKey, claims())); !errors.As(err, &ite) {
		t.Fatalf("retired key: err = %v", err)
	}
	// A failing JWKS is a server fault, not an invalid token.
	srv.fail.Store(true)
	tick(11 * time.Minute)
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodES256, "new", newKey, claims()))
	if !errors.Is(err, ErrJWKSUnavailable) {
		t.Fatalf("JWKS down: err = %v, want ErrJWKSUnavailable", err)
	}
}

func TestPeekIssuer(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tok := sign(t, jwt.SigningMethodES256, "k", ec, jwt.MapClaims{"iss": issuer})
	if got := PeekIssuer(tok); got != issuer {
		t.Fatalf("PeekIssuer = %q", got)
	}
	for _, bad := range []string{"", "a.b", "a.b.c", "mcp_x.y.z"} {
		if got := PeekIssuer(bad); got != "" {
			t.Errorf("PeekIssuer(%q) = %q, want empty", bad, got)
		}
	}
}

func FuzzVerify(f *testing.F) {
	f.Add("eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.")
	f.Add("a.b.c")
	v, err := New(Options{Issuer: issuer, JWKSURL: "http://127.0.0.1:1/jwks", Audiences: []string{"authenticated"},
		HTTPClient: &http.Client{Timeout: time.Millisecond}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := v.Verify(context.Background(), token)
		if err == nil || c != nil {
			t.Fatalf("fuzzed token accepted: %q", token)
		}
		_ = PeekIssuer(token)
	})
}
