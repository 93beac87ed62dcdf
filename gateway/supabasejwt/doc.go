// Package supabasejwt verifies access tokens issued by Supabase Auth (its
// OAuth 2.1 server or its ordinary sessions) against the project's JWKS, so
// MCP connector clients can call the gateway with a standard OAuth token
// instead of a pasted mcp_ token.
//
// Verification is pinned: ES256 and RS256 with keys from the JWKS (HS256 only
// when a legacy secret is configured), the configured issuer, an audience of
// either this resource's URL or "authenticated", required sub and exp, and a
// bounded clock skew. The JWKS is cached with a TTL and refetched on an
// unknown kid at most once per MinRefetchInterval, so a flood of tokens with
// made-up kids cannot turn into a flood of requests to Auth.
package supabasejwt
