package userclient

import (
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/signingkey"
)

// TestOptionsSigningKey: a Factory built from the key gateway/config
// parsed signs exactly as one built from the raw JWK, and the parsed key
// wins when both are given.
func TestOptionsSigningKey(t *testing.T) {
	const user = "11111111-1111-4111-8111-111111111111"
	k := newTestKey(t)
	parsed, err := signingkey.Parse(k.jwk("kid-1"))
	if err != nil {
		t.Fatal(err)
	}
	fromRaw := NewFactory(Options{SigningJWK: k.jwk("kid-1"), Now: fixedClock(1764460800123)})
	fromKey := NewFactory(Options{SigningKey: parsed, SigningJWK: "{not used", Now: fixedClock(1764460800123)})
	a, err := fromRaw.token(user)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fromKey.token(user)
	if err != nil {
		t.Fatal(err)
	}
	// ES256 signatures are randomised: compare header and payload.
	head := func(tok string) string { return tok[:strings.LastIndexByte(tok, '.')] }
	if head(a) != head(b) {
		t.Errorf("header.payload differ:\n raw: %s\n key: %s", head(a), head(b))
	}
	pubRaw, _ := fromRaw.PublicJWK()
	pubKey, err := fromKey.PublicJWK()
	if err != nil {
		t.Fatal(err)
	}
	if pubKey.KeyID() != "kid-1" || pubKey.Algorithm().String() != "ES256" || pubKey.KeyUsage() != pubRaw.KeyUsage() {
		t.Errorf("public JWK kid %q alg %q use %q", pubKey.KeyID(), pubKey.Algorithm(), pubKey.KeyUsage())
	}
}
