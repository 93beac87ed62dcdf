package oauthserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"regexp"
)

// pkceValue matches RFC 7636's code_verifier and an S256 code_challenge:
// 43–128 characters of [A-Za-z0-9-._~].
var pkceValue = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// s256 is BASE64URL(SHA256(verifier)), RFC 7636 §4.2.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return b64.EncodeToString(sum[:])
}

// verifyPKCE checks verifier against an S256 challenge in constant time.
// Only S256 is ever stored: plain is refused at the authorization request.
func verifyPKCE(challenge, verifier string) bool {
	if !pkceValue.MatchString(verifier) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(s256(verifier)), []byte(challenge)) == 1
}
