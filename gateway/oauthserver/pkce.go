package oauthserver

import (
	"crypto/subtle"
	"regexp"

	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

// pkceValue matches RFC 7636's code_verifier and an S256 code_challenge:
// 43–128 characters of [A-Za-z0-9-._~].
var pkceValue = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// verifyPKCE checks verifier against an S256 challenge in constant time.
// Only S256 is ever stored: plain is refused at the authorization request.
func verifyPKCE(challenge, verifier string) bool {
	if !pkceValue.MatchString(verifier) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(sealing.S256(verifier)), []byte(challenge)) == 1
}
