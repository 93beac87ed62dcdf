package config

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/lestrrat-go/jwx/v2/jwk"
)

// minMCPSecretLength is the shortest MCP_JWT_SECRET the original accepts
// (docs/contract/protocol.md A7 step 3), in UTF-16 code units.
const minMCPSecretLength = 32

// signingKeyForm is the expected form of JWT_SECRET, as every message about
// it states it.
const signingKeyForm = `must be an ES256 private JWK: a JSON object with kid, "kty":"EC", "crv":"P-256", x, y and d, such as scripts/gen-signing-key prints`

// secrets checks the two signing secrets. Their values never appear in a
// message: they are keys, and start-up errors end up in logs.
func (p *parser) secrets(c *Config) {
	switch n := utf16Len(c.MCPJWTSecret); {
	case n == 0:
		// mcp-tokens, always served, signs every token it issues with it.
		p.fail("MCP_JWT_SECRET", fmt.Sprintf("must be set: the HS256 secret of mcp_ API tokens, at least %d characters, e.g. from openssl rand -base64 32", minMCPSecretLength))
	case n < minMCPSecretLength:
		p.fail("MCP_JWT_SECRET", fmt.Sprintf("must be at least %d characters, counted in UTF-16 code units as JavaScript counts them, e.g. from openssl rand -base64 32 (got %d)", minMCPSecretLength, n))
	}

	switch {
	case c.JWTSecret != "":
		if problem := signingJWKProblem(c.JWTSecret); problem != "" {
			p.fail("JWT_SECRET", signingKeyForm+" ("+problem+")")
		}
	case c.MCPServerEnabled:
		p.fail("JWT_SECRET", "is required when MCP_SERVER_ENABLED is true (it signs the user JWTs mcp-server sends to PostgREST; an ES256 private JWK, such as scripts/gen-signing-key prints)")
	case c.IssuerURL != "":
		p.fail("JWT_SECRET", "is required when GATEWAY_ISSUER_URL is set (the issuer's JWKS publishes its public half; an ES256 private JWK, such as scripts/gen-signing-key prints)")
	}
}

// signingJWKProblem says what makes raw unusable as JWT_SECRET, or "" when
// it is usable. It accepts what the original signs with, checked in the
// order of docs/contract/protocol.md A11 (the text must start with "{",
// untrimmed; members other than kid, kty, crv, x, y and d are ignored), and
// also refuses a d that does not belong to (x, y), which the original
// would import and then sign tokens no one can verify. gateway/userdb
// parses the key by the same rules; the problems are worded so that they
// never quote the value.
func signingJWKProblem(raw string) string {
	if !strings.HasPrefix(raw, "{") {
		return `it does not start with "{"`
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &m) != nil {
		return "it is not valid JSON"
	}
	if kid, ok := jsonString(m["kid"]); !ok || kid == "" {
		return "it has no kid"
	}
	if kty, _ := jsonString(m["kty"]); kty != "EC" {
		return `its kty is not "EC"`
	}
	if crv, _ := jsonString(m["crv"]); crv != "P-256" {
		return `its crv is not "P-256"`
	}
	if d := string(m["d"]); d == "" || d == "null" || d == `""` {
		return "it has no d: it is a public key, and the private key is needed"
	}
	// Only the members the original imports reach the parser, so an
	// extra member such as "use" or "key_ops" cannot make it fail.
	imported := make(map[string]json.RawMessage, 5)
	for _, name := range []string{"kty", "crv", "x", "y", "d"} {
		if v, ok := m[name]; ok {
			imported[name] = v
		}
	}
	text, err := json.Marshal(imported)
	if err != nil {
		return "it is not valid JSON"
	}
	key, err := jwk.ParseKey(text)
	if err != nil {
		return "its x, y or d is not a base64url P-256 value"
	}
	pk, ok := key.(jwk.ECDSAPrivateKey)
	if !ok {
		return "it has no d: it is a public key, and the private key is needed"
	}
	var priv ecdsa.PrivateKey
	if pk.Raw(&priv) != nil {
		return "its x, y or d is not a base64url P-256 value"
	}
	scalar, errD := priv.ECDH()
	point, errXY := priv.PublicKey.ECDH()
	if errD != nil || errXY != nil {
		return "its x, y or d is not a base64url P-256 value"
	}
	if !scalar.PublicKey().Equal(point) {
		return "its d does not belong to its x and y"
	}
	return ""
}

// jsonString decodes raw when it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// utf16Len is JavaScript's String#length of s after Deno decodes the
// environment: each invalid UTF-8 byte becomes one U+FFFD, one code unit.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
