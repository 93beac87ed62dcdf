package userclient

import "testing"

// Internals for the integration tests of package userdb_test, which sits
// outside the package so that it can import gatewaytest (which imports
// userclient).
var (
	ParseSigningJWK = parseSigningJWK
	MintUserJWT     = mintUserJWT
)

// NewTestJWK is a fresh ES256 private JWK with kid.
func NewTestJWK(t testing.TB, kid string) string { return newTestKey(t).jwk(kid) }
