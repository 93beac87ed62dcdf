package config

import (
	"errors"
	"fmt"
	"unicode/utf16"

	"github.com/pawtograder/mcp-gateway/gateway/signingkey"
)

// minMCPSecretLength is the shortest MCP_JWT_SECRET the original accepts
// (docs/contract/protocol.md A7 step 3), in UTF-16 code units.
const minMCPSecretLength = 32

// signingKeyForm is the expected form of JWT_SECRET, as every message about
// it states it.
const signingKeyForm = `must be an ES256 private JWK: a JSON object with kid, "kty":"EC", "crv":"P-256", x, y and d, such as scripts/gen-signing-key prints`

// secrets checks the two signing secrets and parses JWT_SECRET into
// c.SigningKey. Their values never appear in a message: they are keys, and
// start-up errors end up in logs.
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
		key, problem := parseSigningKey(c.JWTSecret)
		if problem != "" {
			p.fail("JWT_SECRET", signingKeyForm+" ("+problem+")")
		}
		c.SigningKey = key
	case c.MCPServerEnabled:
		p.fail("JWT_SECRET", "is required when MCP_SERVER_ENABLED is true (it signs the user JWTs mcp-server sends to PostgREST; an ES256 private JWK, such as scripts/gen-signing-key prints)")
	case c.IssuerURL != "":
		p.fail("JWT_SECRET", "is required when GATEWAY_ISSUER_URL is set (the issuer's JWKS publishes its public half; an ES256 private JWK, such as scripts/gen-signing-key prints)")
	}
}

// signingJWKProblem says what makes raw unusable as JWT_SECRET, or "" when
// it is usable: gateway/signingkey's problem, worded for an operator.
func signingJWKProblem(raw string) string {
	_, problem := parseSigningKey(raw)
	return problem
}

// parseSigningKey parses JWT_SECRET with gateway/signingkey, the parser
// gateway/userclient shares (A11's checks, plus a d that must belong to
// (x, y)). problem is "" when key is usable; it never quotes the value.
func parseSigningKey(raw string) (key *signingkey.Key, problem string) {
	key, err := signingkey.Parse(raw)
	switch {
	case err == nil:
		return key, ""
	case errors.Is(err, signingkey.ErrPublicKey):
		return nil, err.Error() + ", and the private key is needed"
	}
	return nil, err.Error()
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
