package mcpauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/supabasejwt"
	"github.com/pawtograder/mcp-gateway/supabase/devstack"
)

const resourceURL = "https://gateway.example/functions/v1/mcp-server"

func supabaseAuthenticator(t *testing.T, s *devstack.Stack) *Authenticator {
	t.Helper()
	v, err := supabasejwt.New(supabasejwt.Options{
		Issuer:    s.AuthURL,
		Audiences: []string{resourceURL, "authenticated"},
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{
		RestURL: s.RestURL, ServiceRoleKey: s.ServiceRoleKey, MCPJWTSecret: testSecret,
		Supabase: v, Sessions: &AuthClient{AuthURL: s.AuthURL, AnonKey: s.AnonKey},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// TestSupabaseTokenMatrix is issue 9's token matrix against the local
// stack's Auth (JWKS, sessions) and PostgREST (staff gate).
func TestSupabaseTokenMatrix(t *testing.T) {
	// Local only: the tokens carry chosen claims and keys, signed by the
	// local Auth server.
	s := sharedStack(t).RequireLocal(t)
	a := supabaseAuthenticator(t, s)
	ctx := context.Background()
	signIn := func(user string, opts ...devstack.TokenOption) string {
		tok, _, err := s.SignIn(ctx, user, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherJWK, _ := jwk.FromRaw(otherKey)
	_ = otherJWK.Set(jwk.KeyIDKey, "not-published")

	tests := []struct {
		name       string
		token      string
		wantStatus int
		wantMsg    string
	}{
		{"valid, audience authenticated", signIn(alice), 0, ""},
		{"valid, audience is this resource", signIn(alice, devstack.WithClaim("aud", resourceURL)), 0, ""},
		{"grader", signIn(gary), 0, ""},
		{"audience of another resource", signIn(alice, devstack.WithClaim("aud", "https://other.example/mcp")), 401, MsgInvalidToken},
		{"expired", signIn(alice, devstack.WithExpiry(-time.Hour)), 401, MsgInvalidToken},
		{"no exp", signIn(alice, devstack.WithoutClaim("exp")), 401, MsgInvalidToken},
		{"no sub", signIn(alice, devstack.WithoutClaim("sub")), 401, MsgInvalidToken},
		{"unknown kid", signIn(alice, devstack.WithSigningKey(otherJWK)), 401, MsgInvalidToken},
		{"HS256 while no legacy secret is configured", signIn(alice, devstack.WithHS256([]byte(s.JWTSecret))), 401, MsgInvalidToken},
		{"not staff", signIn(sam), 403, MsgNotStaff},
		{"disabled staff role only", signIn(dale), 403, MsgNotStaff},
		{"no enrolment", signIn(nora), 403, MsgNotStaff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := a.Authenticate(ctx, "Bearer "+tt.token)
			if tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("Authenticate: %v", err)
				}
				if p.Kind != KindSupabase || p.TokenID != "" || !p.HasScope(ScopeMCPRead) {
					t.Fatalf("principal = %+v", p)
				}
				return
			}
			e := apierror.As(err)
			if e.Status != tt.wantStatus || e.Message != tt.wantMsg {
				t.Fatalf("got %d %q, want %d %q", e.Status, e.Message, tt.wantStatus, tt.wantMsg)
			}
		})
	}
}

func TestSupabaseWrongIssuerGoesToAPITokenPath(t *testing.T) {
	// Local only: a token with a chosen issuer, signed by the local Auth server.
	s := sharedStack(t).RequireLocal(t)
	a := supabaseAuthenticator(t, s)
	tok, _, err := s.SignIn(context.Background(), alice, devstack.WithClaim("iss", "https://evil.example/auth/v1"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Authenticate(context.Background(), "Bearer "+tok)
	if e := apierror.As(err); e.Status != http.StatusUnauthorized || e.Message != MsgInvalidToken {
		t.Fatalf("got %d %q, want the API-token path's refusal", e.Status, e.Message)
	}
}

func TestSupabaseSignedOutSessionIsRefused(t *testing.T) {
	// Local only: signs a session out through the local Auth server.
	s := sharedStack(t).RequireLocal(t)
	a := supabaseAuthenticator(t, s)
	ctx := context.Background()
	tok, session, err := s.SignIn(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate(ctx, "Bearer "+tok); err != nil {
		t.Fatalf("live session: %v", err)
	}
	if err := s.DeleteSession(ctx, session); err != nil {
		t.Fatal(err)
	}
	_, err = a.Authenticate(ctx, "Bearer "+tok)
	if e := apierror.As(err); e.Status != http.StatusUnauthorized || e.Message != MsgSessionEnded {
		t.Fatalf("signed-out session: %d %q", e.Status, e.Message)
	}
}

func TestSupabaseKeyRotation(t *testing.T) {
	// Local only: rotates the local Auth server's signing key.
	s := sharedStack(t).RequireLocal(t)
	a := supabaseAuthenticator(t, s)
	ctx := context.Background()
	before, _, err := s.SignIn(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate(ctx, "Bearer "+before); err != nil {
		t.Fatalf("before rotation: %v", err)
	}
	// The verifier fetched the JWKS just now; a new kid is found once the
	// minimum refetch interval has passed. Use a fresh verifier to model
	// that passage of time without sleeping.
	if _, err := s.RotateSigningKey("devstack-auth-rotated"); err != nil {
		t.Fatal(err)
	}
	after, _, err := s.SignIn(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	fresh := supabaseAuthenticator(t, s)
	if _, err := fresh.Authenticate(ctx, "Bearer "+after); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
}

func TestSupabaseAuthUnavailableIs503(t *testing.T) {
	// Local only: needs an ES256 session token from the local Auth server
	// (on a real stack the test tokens are HS256).
	s := sharedStack(t).RequireLocal(t)
	v, _ := supabasejwt.New(supabasejwt.Options{Issuer: s.AuthURL, Audiences: []string{"authenticated"}})
	a, err := New(Options{
		RestURL: s.RestURL, ServiceRoleKey: s.ServiceRoleKey, MCPJWTSecret: testSecret,
		Supabase: v, Sessions: &AuthClient{AuthURL: "http://127.0.0.1:1/auth/v1", AnonKey: s.AnonKey},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tok, _, err := s.SignIn(context.Background(), alice)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Authenticate(context.Background(), "Bearer "+tok)
	if e := apierror.As(err); e.Status != http.StatusServiceUnavailable {
		t.Fatalf("Auth down: %d %q, want 503", e.Status, e.Message)
	}
}
