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
	// Replaces are the token ids of the grants the consent page named as
	// the client's existing connection (a step-up): CreateGrant revokes
	// them in the step that creates this code's grant.
	Replaces []string
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
	// ReplacedBy is the hash of the refresh token issued when this one was
	// used: while that replacement is unused, this token may be presented
	// once more (a client retrying after a lost response). Empty when
	// unused, or when a retry superseded this token as a replacement.
	ReplacedBy string
}

// Rotation is the outcome of Store.RotateRefresh.
type Rotation string

// The outcomes of a refresh.
const (
	// Rotated: the token was unused; it is now used and replaced.
	Rotated Rotation = "rotated"
	// Retried: the token was used but its replacement never was; that
	// replacement is superseded (presenting it is reuse) and the new token
	// takes its place.
	Retried Rotation = "retried"
	// Reused: any other use of a used token; the grant is revoked.
	Reused Rotation = "reused"
	// Inactive: the grant is revoked or expired; nothing changed.
	Inactive Rotation = "inactive"
)

// ErrNotFound says no row has the given hash.
var ErrNotFound = errors.New("oauthserver: not found")

// Store persists codes, grants, refresh tokens and decided
// authorizations. Each method that changes a grant is one atomic step
// across replicas (one database transaction in PostgRESTStore): of two
// concurrent calls for the same code or refresh token, exactly one takes
// the first-use path, and a grant is revoked only by setting its
// api_tokens.revoked_at, whose trigger lists it in revoked_token_ids.
type Store interface {
	// IsStaff reports whether userID holds an active instructor or grader
	// role in at least one class (the mcp-tokens rule).
	IsStaff(ctx context.Context, userID string) (bool, error)
	SaveCode(ctx context.Context, c Code) error
	// MarkCodeUsed marks the code used and returns it as it was before:
	// Used true means it had been redeemed already, and then the same step
	// marks it replayed and revokes the grant its first use issued (or
	// makes CreateGrant create that grant revoked). ErrNotFound when
	// absent.
	MarkCodeUsed(ctx context.Context, hash string, now time.Time) (*Code, error)
	// CreateGrant creates, in one step, the grant of a code MarkCodeUsed
	// redeemed: the api_tokens row and the marker described by g, and the
	// grant's first refresh token (by its hash, with the grant's scopes and
	// expiry). g's TokenID, UserID, Scopes, ClientName and RedirectURI are
	// the code's (PostgRESTStore takes them from the code row itself). The
	// same step revokes the grants the code replaces (Code.Replaces) that
	// are still live, belong to the code's user and were issued to
	// g.ClientID, whether or not the code was replayed. It reports false
	// when the code was replayed before the grant existed: the grant is
	// then created revoked.
	CreateGrant(ctx context.Context, codeHash string, g Grant, refreshHash string, now time.Time) (active bool, err error)
	// LiveGrants lists the live grants (neither revoked nor expired at now)
	// of userID issued to the client whose hashToken(client_id) is
	// clientHash, oldest first, with their TokenID and Scopes.
	LiveGrants(ctx context.Context, userID, clientHash string, now time.Time) ([]Grant, error)
	// FindRefresh reads a refresh token without changing it.
	FindRefresh(ctx context.Context, hash string) (*Refresh, error)
	// RotateRefresh presents the refresh token hash and, unless the grant
	// is inactive or the token reused, stores next (hash, expiry and
	// scopes of the grant's) as its replacement, in one step.
	// ErrNotFound when absent.
	RotateRefresh(ctx context.Context, hash, next string, now time.Time) (Rotation, error)
	// RevokeGrant revokes the grant tokenID if it was issued to clientID
	// and is not revoked yet, and reports whether it did.
	RevokeGrant(ctx context.Context, tokenID, clientID string, now time.Time) (bool, error)
	// ConsumePending records the decision of the pending authorization id
	// (kept until expires) and reports whether it is the first: a sealed
	// cookie replayed after its decision must decide nothing.
	ConsumePending(ctx context.Context, id string, expires time.Time) (first bool, err error)
}
