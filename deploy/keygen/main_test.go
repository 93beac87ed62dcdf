package main

import (
	"bytes"
	"crypto"
	"strings"
	"testing"

	"github.com/lestrrat-go/jwx/v2/jwk"
)

func TestRunPrintsMatchingKeys(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, "test-kid"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	var privText, pubText string
	for i, l := range lines {
		if strings.HasPrefix(l, "JWT_SECRET='") {
			privText = strings.TrimSuffix(strings.TrimPrefix(l, "JWT_SECRET='"), "'")
		}
		if strings.HasPrefix(l, "# Add this key") {
			pubText = lines[i+1]
		}
	}
	priv, err := jwk.ParseKey([]byte(privText))
	if err != nil {
		t.Fatalf("private JWK: %v", err)
	}
	set, err := jwk.Parse([]byte(pubText))
	if err != nil {
		t.Fatalf("JWKS: %v", err)
	}
	pub, ok := set.LookupKeyID("test-kid")
	if !ok {
		t.Fatal("kid missing from JWKS")
	}
	if priv.KeyID() != "test-kid" || priv.KeyType() != "EC" {
		t.Fatalf("private key: kid %q type %q", priv.KeyID(), priv.KeyType())
	}
	if _, has := pub.Get("d"); has {
		t.Fatal("public JWKS leaks the private component")
	}
	wantPub, _ := priv.PublicKey()
	a, _ := wantPub.Thumbprint(crypto.SHA256)
	b, _ := pub.Thumbprint(crypto.SHA256)
	if !bytes.Equal(a, b) {
		t.Fatal("public key does not match the private key")
	}
}
