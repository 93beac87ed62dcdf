package sealing

import (
	"encoding/base64"
	"strings"
	"testing"
)

const (
	secret1 = "0123456789abcdef0123456789abcdef"
	secret2 = "fedcba9876543210fedcba9876543210"
)

func mustDerive(t testing.TB, label string, secrets ...string) Keys {
	t.Helper()
	k, err := Derive(secrets, label)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestDeriveIsStable pins the derived keys: values the gateway has already
// handed out (registered client ids, cookies in flight) must still verify
// and open after an upgrade. The expected keys are those of the OAuth
// server's and the approval pages' labels before this package existed.
func TestDeriveIsStable(t *testing.T) {
	cases := []struct{ label, key string }{
		{"pawtograder-mcp-oauth/cookie", "zX6JI5CeOQb7qYYRyX6lRtr6sevQ28TFxDZ04whVa-U"},
		{"pawtograder-mcp-approval/cookie", "SnxHnQlGPeT_50mb_k9tdzxC11tdjOK0mznbqvZzG0k"},
		{"pawtograder-mcp-approval/request-state", "qCd1iVVu93m7gta98RWAFCpUCbsF5j-uXFBCMKUZUVI"},
	}
	for _, tc := range cases {
		k := mustDerive(t, tc.label, secret1, secret2)
		if got := base64.RawURLEncoding.EncodeToString(k.keys[0]); got != tc.key {
			t.Errorf("%s: key %s, want %s", tc.label, got, tc.key)
		}
	}
	signs := []struct{ label, msg, sig string }{
		{"pawtograder-mcp-oauth/client-id", "body", "b_OU5gJ6vnwYDYzfi6njandMKcQa1MNyUxGaEyk5UIo"},
		{"pawtograder-mcp-oauth/csrf", "consent|a|b", "U7n6azzelWHi9Gwne9dl9oD0BS4tNT22_NgWInNa9lE"},
		{"pawtograder-mcp-approval/csrf", "approve|a|b", "YceI2vsaXT4j07WLPt72zB8hvFl5vI7Q5DcPd0qpZpE"},
	}
	for _, tc := range signs {
		if got := mustDerive(t, tc.label, secret1, secret2).Sign(tc.msg); got != tc.sig {
			t.Errorf("%s: Sign(%q) = %s, want %s", tc.label, tc.msg, got, tc.sig)
		}
	}
	sk := mustDerive(t, "pawtograder-mcp-oauth/cookie", secret1, secret2)
	if got := base64.RawURLEncoding.EncodeToString(sk.keys[1]); got != "qe_xZzApqkSwFxvsqSspE1ByyvJgIa-Zt29Yy-2a6eE" {
		t.Errorf("second secret's key %s", got)
	}
}

func TestDeriveRefuses(t *testing.T) {
	for _, secrets := range [][]string{nil, {}, {"short"}, {secret1, strings.Repeat("x", 31)}} {
		if _, err := Derive(secrets, "l"); err == nil {
			t.Errorf("Derive(%q) accepted", secrets)
		}
	}
}

// TestSealOpen: a sealed value opens for its purpose under any configured
// secret, and tampering, another purpose, another label and a secret no
// longer configured all fail.
func TestSealOpen(t *testing.T) {
	k := mustDerive(t, "l", secret1)
	v, err := k.Seal([]byte("hello"), "a")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := k.Open(v, "a"); err != nil || string(got) != "hello" {
		t.Fatalf("Open: %q %v", got, err)
	}
	// Rotation: the new secret first, the old one still opens.
	rotated := mustDerive(t, "l", secret2, secret1)
	if got, err := rotated.Open(v, "a"); err != nil || string(got) != "hello" {
		t.Errorf("after rotation: %q %v", got, err)
	}
	b := []byte(v)
	b[len(b)/2] ^= 1
	for name, try := range map[string]func() ([]byte, error){
		"another purpose": func() ([]byte, error) { return k.Open(v, "b") },
		"tampered":        func() ([]byte, error) { return k.Open(string(b), "a") },
		"another label":   func() ([]byte, error) { return mustDerive(t, "m", secret1).Open(v, "a") },
		"secret dropped":  func() ([]byte, error) { return mustDerive(t, "l", secret2).Open(v, "a") },
		"cut":             func() ([]byte, error) { return k.Open(v[:10], "a") },
		"not base64":      func() ([]byte, error) { return k.Open("!!!!", "a") },
	} {
		if got, err := try(); err != ErrInvalid {
			t.Errorf("%s: opened %q (%v)", name, got, err)
		}
	}
}

// TestSignVerify: signatures verify under any configured secret and only
// in their canonical spelling.
func TestSignVerify(t *testing.T) {
	k := mustDerive(t, "l", secret1)
	sig := k.Sign("msg")
	if !k.Verify("msg", sig) || !mustDerive(t, "l", secret2, secret1).Verify("msg", sig) {
		t.Fatal("a signature does not verify")
	}
	for name, tc := range map[string]struct{ msg, sig string }{
		"other message":   {"msh", sig},
		"line break":      {"msg", sig[:10] + "\n" + sig[10:]},
		"padding":         {"msg", sig + "="},
		"empty":           {"msg", ""},
		"truncated":       {"msg", sig[:len(sig)-1]},
		"standard base64": {"msg", strings.NewReplacer("-", "+", "_", "/").Replace(sig)},
	} {
		if k.Verify(tc.msg, tc.sig) {
			t.Errorf("%s: %q verified", name, tc.sig)
		}
	}
	if mustDerive(t, "l", secret2).Verify("msg", sig) {
		t.Error("verified under a secret that did not sign")
	}
}

func TestRandomTokenAndS256(t *testing.T) {
	a, b := RandomToken(32), RandomToken(32)
	if len(a) != 43 || a == b {
		t.Errorf("RandomToken: %q %q", a, b)
	}
	// RFC 7636 appendix B.
	if got := S256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"); got != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
		t.Errorf("S256 = %s", got)
	}
}

// FuzzOpen: arbitrary cookie values never panic or open.
func FuzzOpen(f *testing.F) {
	k := mustDerive(f, "l", secret1)
	f.Add("")
	f.Add("AAAA")
	f.Add(strings.Repeat("A", 40))
	f.Fuzz(func(t *testing.T, v string) {
		if _, err := k.Open(v, "a"); err == nil {
			t.Errorf("opened %q", v)
		}
	})
}

func TestDeriveInto(t *testing.T) {
	var a, b Keys
	if err := DeriveInto([]string{secret1, secret2}, "pawtograder-mcp-oauth/", map[string]*Keys{"cookie": &a, "csrf": &b}); err != nil {
		t.Fatal(err)
	}
	if a.Sign("m") != mustDerive(t, "pawtograder-mcp-oauth/cookie", secret1, secret2).Sign("m") || b.Sign("m") != mustDerive(t, "pawtograder-mcp-oauth/csrf", secret1).Sign("m") {
		t.Error("DeriveInto derived other keys than Derive")
	}
	if err := DeriveInto([]string{"short"}, "p/", map[string]*Keys{"x": &a}); err == nil {
		t.Error("a short secret accepted")
	}
}
