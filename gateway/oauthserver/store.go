package oauthserver

import (
	"context"
	"errors"
	"time"
)

// Code is an issued authorization code, stored by the hash of its value.
// TokenID is the grant's api_tokens.token_id, chosen when the code is
// issued, so that a replayed code can revoke what its first use issued.
type Code struct {
	Hash    string
	TokenID string
	// ClientHash binds the code to its client: hashToken(client_id)
	// (client ids can be long signed blobs; the hash keeps rows small).
	ClientHash  string
	ClientName  string
	RedirectURI string
	Challenge   string
	UserID      string
	Scopes      []string
	Resource    string
	ExpiresAt   time.Time
	Used        bool
}

// Grant is what an approved authorization creates: an api_tokens row of
// the user (so mcp-tokens lists and revokes it) plus a marker naming the
// client.
type Grant struct {
	TokenID     string
	UserID      string
	Name        string
	Scopes      []string
	ExpiresAt   time.Time
	ClientID    string
	ClientName  string
	RedirectURI string
}

// Refresh is a refresh token, stored by the hash of its value.
type Refresh struct {
	Hash       string
	TokenID    string
	UserID     string
	ClientHash string // hashToken(client_id)
	Scopes     []string
	ExpiresAt  time.Time
	Used       bool
}

// ErrNotFound says no row has the given hash.
var ErrNotFound = errors.New("oauthserver: not found")

// Store persists codes, grants and refresh tokens. Implementations must
// make MarkCodeUsed and MarkRefreshUsed atomic: of two concurrent calls
// for the same hash exactly one sees Used false.
type Store interface {
	// IsStaff reports whether userID holds an active instructor or grader
	// role in at least one class (the mcp-tokens rule).
	IsStaff(ctx context.Context, userID string) (bool, error)
	SaveCode(ctx context.Context, c Code) error
	// MarkCodeUsed marks the code used and returns it as it was before:
	// Used true means it had been redeemed already. ErrNotFound when absent.
	MarkCodeUsed(ctx context.Context, hash string, now time.Time) (*Code, error)
	CreateGrant(ctx context.Context, g Grant) error
	SaveRefresh(ctx context.Context, r Refresh) error
	// MarkRefreshUsed is MarkCodeUsed for refresh tokens.
	MarkRefreshUsed(ctx context.Context, hash string, now time.Time) (*Refresh, error)
	// FindRefresh reads a refresh token without changing it.
	FindRefresh(ctx context.Context, hash string) (*Refresh, error)
	// GrantClient returns the client a grant was issued to; ErrNotFound
	// when tokenID is not an OAuth grant (e.g. a pasted mcp_ token).
	GrantClient(ctx context.Context, tokenID string) (string, error)
	// GrantActive reports whether the grant exists, is not revoked (in
	// api_tokens or revoked_token_ids) and has not expired.
	GrantActive(ctx context.Context, tokenID string, now time.Time) (bool, error)
	// RevokeGrant revokes the grant everywhere a verifier looks, and
	// succeeds even when the api_tokens row does not exist (yet).
	RevokeGrant(ctx context.Context, tokenID string, now time.Time) error
}
