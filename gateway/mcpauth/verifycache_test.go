package mcpauth

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

func TestVerifiedTokensCache(t *testing.T) {
	const secret = "verify-cache-secret-with-at-least-32-chars"
	now := time.Unix(1_800_000_000, 0)
	token, err := MintAPIToken(secret, "user-1", []string{"mcp:read"}, "tok-1", 1, now)
	if err != nil {
		t.Fatal(err)
	}
	var v verifiedTokens
	want, err := VerifyAPIToken(secret, token, now)
	if err != nil {
		t.Fatal(err)
	}

	// A miss verifies and remembers; a hit gives the same claims.
	for i := range 2 {
		got, err := v.verify(secret, token, now.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatalf("verify #%d: %v", i, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("verify #%d claims (-want +got):\n%s", i, diff)
		}
		if _, cached := v.byText[token]; !cached {
			t.Errorf("verify #%d: token not cached", i)
		}
	}

	// Around expiry, a hit answers exactly as the verifier does.
	exp := now.Add(24 * time.Hour)
	for _, at := range []time.Time{exp, exp.Add(TokenLeeway - time.Nanosecond), exp.Add(TokenLeeway), exp.Add(time.Hour)} {
		_, wantErr := VerifyAPIToken(secret, token, at)
		var c verifiedTokens
		if _, err := c.verify(secret, token, now); err != nil {
			t.Fatal(err)
		}
		_, gotErr := c.verify(secret, token, at)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("at exp%+v: cached verify error %v, verifier %v", at.Sub(exp), gotErr, wantErr)
		}
		if wantErr != nil {
			var wa, ga *apierror.Error
			if !errors.As(wantErr, &wa) || !errors.As(gotErr, &ga) || wa.Status != ga.Status || wa.Message != ga.Message || wa.Reason != ga.Reason {
				t.Errorf("at exp%+v: error %v, want %v", at.Sub(exp), gotErr, wantErr)
			}
			if _, cached := c.byText[token]; cached {
				t.Errorf("at exp%+v: an expired token stayed cached", at.Sub(exp))
			}
		}
	}

	// Refused tokens are not remembered, and a changed signature is no hit.
	tampered := token[:len(token)-2] + "AA"
	if tampered == token {
		tampered = token[:len(token)-2] + "BB"
	}
	for _, bad := range []string{tampered, "mcp_x.y.z", ""} {
		if _, err := v.verify(secret, bad, now); err == nil {
			t.Errorf("verify(%q) accepted", bad)
		}
		if _, cached := v.byText[bad]; cached {
			t.Errorf("refused token %q was cached", bad)
		}
	}
	// A short secret is refused whatever is cached.
	if _, err := v.verify("short", token, now); !errors.Is(err, errMCPSecret) {
		t.Errorf("verify with a short secret: %v, want the A7 step 3 error", err)
	}
}

func TestVerifiedTokensBound(t *testing.T) {
	const secret = "verify-cache-secret-with-at-least-32-chars"
	now := time.Unix(1_800_000_000, 0)
	v := verifiedTokens{max: 16}
	for i := range 16 + 10 {
		tok, err := MintAPIToken(secret, "user-1", []string{"mcp:read"}, "tok-"+strconv.Itoa(i), 1, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.verify(secret, tok, now); err != nil {
			t.Fatal(err)
		}
		if len(v.byText) > v.max {
			t.Fatalf("cache holds %d tokens, bound %d", len(v.byText), v.max)
		}
	}
}
