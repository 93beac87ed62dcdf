package oauthserver

import (
	"crypto/sha256"
	"encoding/base64"

	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

// MinSecretLength is the minimum length of each GATEWAY_OAUTH_SECRET
// value, in bytes.
const MinSecretLength = sealing.MinSecretLength

// keyring holds the OAuth server's keys, one set per purpose, derived
// from the configured secrets (gateway/sealing: the first seals and signs,
// every one opens and verifies).
type keyring struct {
	seal   sealing.Keys // the pending-authorization cookie
	client sealing.Keys // registered client ids
	csrf   sealing.Keys // consent-form CSRF tokens
}

func newKeyring(secrets []string) (*keyring, error) {
	k := &keyring{}
	if err := sealing.DeriveInto(secrets, "pawtograder-mcp-oauth/", map[string]*sealing.Keys{"cookie": &k.seal, "client-id": &k.client, "csrf": &k.csrf}); err != nil {
		return nil, err
	}
	return k, nil
}

var b64 = base64.RawURLEncoding

// hashToken is how codes and refresh tokens are stored: SHA-256, hex. The
// values are 256-bit random, so an unsalted fast hash is enough; a
// database leak yields nothing usable.
func hashToken(v string) string {
	sum := sha256.Sum256([]byte(v))
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 64)
	for i, b := range sum {
		out[2*i], out[2*i+1] = hexdigits[b>>4], hexdigits[b&15]
	}
	return string(out)
}
