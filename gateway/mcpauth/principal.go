package mcpauth

import "slices"

// Scopes an mcp_ API token may carry (docs/contract/protocol.md A9). The CLI scopes are
// accepted so that tokens minted for the TypeScript cli function also pass
// this verifier, as they do in the original.
const (
	ScopeMCPRead  = "mcp:read"
	ScopeMCPWrite = "mcp:write"
	ScopeCLIRead  = "cli:read"
	ScopeCLIWrite = "cli:write"
)

// ValidScopes lists every valid scope in the order the original prints them
// in its "Invalid scopes. Valid scopes are: …" message.
var ValidScopes = []string{ScopeMCPRead, ScopeMCPWrite, ScopeCLIRead, ScopeCLIWrite}

// IsValidScope reports whether s is one of ValidScopes (exact, case-sensitive).
func IsValidScope(s string) bool {
	switch s {
	case ScopeMCPRead, ScopeMCPWrite, ScopeCLIRead, ScopeCLIWrite:
		return true
	}
	return false
}

// CredentialKind says which kind of bearer credential produced a Principal.
type CredentialKind string

// Credential kinds.
const (
	// KindAPIToken is an mcp_ API token (HS256, docs/contract/protocol.md A9).
	KindAPIToken CredentialKind = "api_token"
	// KindSupabase is a Supabase Auth access token (OAuth path).
	KindSupabase CredentialKind = "supabase"
)

// Principal is the authenticated caller. It carries no credentials: data
// access goes through userclient, which mints its own short-lived user JWT.
type Principal struct {
	// UserID is the auth user id (the token's sub).
	UserID string
	// TokenID is the jti of an mcp_ token ("" for other kinds).
	TokenID string
	// Scopes are the token's scopes, in token order, duplicates kept.
	Scopes []string
	// Kind is the credential kind.
	Kind CredentialKind
	// ClientID is the OAuth client id for KindSupabase credentials.
	ClientID string
}

// HasScope reports whether the principal holds scope s. A nil principal
// holds nothing.
func (p *Principal) HasScope(s string) bool {
	return p != nil && slices.Contains(p.Scopes, s)
}

// MissingScopeMessage is the tool-layer message for a missing scope, e.g.
// "Missing required scope: mcp:read".
func MissingScopeMessage(scope string) string {
	return "Missing required scope: " + scope
}
