package oauthserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// PostgRESTStore is the Store on the project's PostgREST with the service
// role: the tables of supabase/migrations/*_mcp_oauth*.sql are closed to
// every other role, and the grant's api_tokens row is written for the
// user, who has not yet got a session the gateway keeps. Every change of a
// grant that takes more than one statement is a function of
// supabase/migrations/*_mcp_oauth_grant_functions.sql, called through
// PostgREST's /rpc, so that it is one transaction with its row locks.
type PostgRESTStore struct {
	db *postgrest.Client
}

// NewPostgRESTStore keeps its tables through db, a service-role client
// (mcpauth.ServiceClient).
func NewPostgRESTStore(db *postgrest.Client) *PostgRESTStore { return &PostgRESTStore{db: db} }

const (
	tableCodes    = "mcp_oauth_codes"
	tableRefresh  = "mcp_oauth_refresh_tokens"
	tableGrants   = "mcp_oauth_grants"
	tableDecided  = "mcp_oauth_decided_authorizations"
	uniqueViolate = "23505" // SQLSTATE unique_violation
)

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// IsStaff implements Store.
func (s *PostgRESTStore) IsStaff(ctx context.Context, userID string) (bool, error) {
	body, err := s.db.From("user_roles").Select("class_id").
		Eq("user_id", userID).Eq("disabled", "false").
		In("role", []string{"instructor", "grader"}).Limit(1).Rows(ctx)
	if err != nil {
		return false, err
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(body, &rows); err != nil {
		return false, fmt.Errorf("oauthserver: decode user_roles: %w", err)
	}
	return len(rows) > 0, nil
}

type codeRow struct {
	CodeHash    string    `json:"code_hash"`
	TokenID     string    `json:"token_id"`
	ClientHash  string    `json:"client_hash"`
	ClientName  string    `json:"client_name"`
	RedirectURI string    `json:"redirect_uri"`
	Challenge   string    `json:"code_challenge"`
	UserID      string    `json:"user_id"`
	Scopes      []string  `json:"scopes"`
	Resource    string    `json:"resource"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// SaveCode implements Store.
func (s *PostgRESTStore) SaveCode(ctx context.Context, c Code) error {
	replaces := c.Replaces
	if replaces == nil {
		replaces = []string{} // the column is NOT NULL
	}
	row := map[string]any{
		"code_hash": c.Hash, "token_id": c.TokenID, "client_hash": c.ClientHash, "client_name": c.ClientName,
		"redirect_uri": c.RedirectURI, "code_challenge": c.Challenge, "user_id": c.UserID,
		"scopes": c.Scopes, "resource": c.Resource, "expires_at": ts(c.ExpiresAt), "replaces": replaces,
	}
	_, err := s.db.From(tableCodes).Insert(ctx, row, postgrest.ReturnMinimal)
	return err
}

// rpc calls the database function fn with named arguments args (POST
// /rpc/<fn>) and returns its result as PostgREST renders it.
func (s *PostgRESTStore) rpc(ctx context.Context, fn string, args map[string]any) (json.RawMessage, error) {
	return s.db.RPC(ctx, fn, args)
}

// MarkCodeUsed implements Store with mcp_oauth_use_code.
func (s *PostgRESTStore) MarkCodeUsed(ctx context.Context, hash string, now time.Time) (*Code, error) {
	body, err := s.rpc(ctx, "mcp_oauth_use_code", map[string]any{"p_code_hash": hash, "p_now": ts(now)})
	if err != nil {
		return nil, err
	}
	var rows []struct {
		codeRow
		WasUsed bool `json:"was_used"`
	}
	if err := json.Unmarshal(body, &rows); err != nil {
		return nil, fmt.Errorf("oauthserver: decode code: %w", err)
	}
	if len(rows) == 0 {
		return nil, ErrNotFound
	}
	r := rows[0]
	return &Code{Hash: r.CodeHash, TokenID: r.TokenID, ClientHash: r.ClientHash, ClientName: r.ClientName,
		RedirectURI: r.RedirectURI, Challenge: r.Challenge, UserID: r.UserID, Scopes: r.Scopes,
		Resource: r.Resource, ExpiresAt: r.ExpiresAt, Used: r.WasUsed}, nil
}

// LiveGrants implements Store with mcp_oauth_live_grants.
func (s *PostgRESTStore) LiveGrants(ctx context.Context, userID, clientHash string, now time.Time) ([]Grant, error) {
	body, err := s.rpc(ctx, "mcp_oauth_live_grants", map[string]any{"p_user_id": userID, "p_client_hash": clientHash, "p_now": ts(now)})
	if err != nil {
		return nil, err
	}
	var rows []struct {
		TokenID string   `json:"token_id"`
		Scopes  []string `json:"scopes"`
	}
	if err := json.Unmarshal(body, &rows); err != nil {
		return nil, fmt.Errorf("oauthserver: decode live grants: %w", err)
	}
	var out []Grant
	for _, r := range rows {
		out = append(out, Grant{TokenID: r.TokenID, UserID: userID, Scopes: r.Scopes})
	}
	return out, nil
}

// CreateGrant implements Store with mcp_oauth_create_grant.
func (s *PostgRESTStore) CreateGrant(ctx context.Context, codeHash string, g Grant, refreshHash string, now time.Time) (bool, error) {
	body, err := s.rpc(ctx, "mcp_oauth_create_grant", map[string]any{
		"p_code_hash": codeHash, "p_name": g.Name, "p_client_id": g.ClientID,
		"p_expires_at": ts(g.ExpiresAt), "p_refresh_hash": refreshHash, "p_now": ts(now),
	})
	if err != nil {
		return false, err
	}
	var active bool
	if err := json.Unmarshal(body, &active); err != nil {
		return false, fmt.Errorf("oauthserver: decode grant: %w", err)
	}
	return active, nil
}

type refreshRow struct {
	TokenHash  string    `json:"token_hash"`
	TokenID    string    `json:"token_id"`
	UserID     string    `json:"user_id"`
	ClientHash string    `json:"client_hash"`
	Scopes     []string  `json:"scopes"`
	ExpiresAt  time.Time `json:"expires_at"`
	UsedAt     *string   `json:"used_at"`
	ReplacedBy *string   `json:"replaced_by"`
}

func (r refreshRow) refresh() *Refresh {
	out := &Refresh{Hash: r.TokenHash, TokenID: r.TokenID, UserID: r.UserID, ClientHash: r.ClientHash, Scopes: r.Scopes, ExpiresAt: r.ExpiresAt, Used: r.UsedAt != nil}
	if r.ReplacedBy != nil {
		out.ReplacedBy = *r.ReplacedBy
	}
	return out
}

// RotateRefresh implements Store with mcp_oauth_rotate_refresh.
func (s *PostgRESTStore) RotateRefresh(ctx context.Context, hash, next string, now time.Time) (Rotation, error) {
	body, err := s.rpc(ctx, "mcp_oauth_rotate_refresh", map[string]any{"p_token_hash": hash, "p_next_hash": next, "p_now": ts(now)})
	if err != nil {
		return "", err
	}
	var out string
	if err := json.Unmarshal(body, &out); err != nil {
		return "", fmt.Errorf("oauthserver: decode refresh outcome: %w", err)
	}
	switch r := Rotation(out); r {
	case Rotated, Retried, Reused, Inactive:
		return r, nil
	case "not_found":
		return "", ErrNotFound
	}
	return "", fmt.Errorf("oauthserver: unknown refresh outcome %q", out)
}

// ConsumePending implements Store: the primary key on the authorization's
// id makes the insert the atomic step; a unique violation means another
// request (on any replica) decided it first.
func (s *PostgRESTStore) ConsumePending(ctx context.Context, id string, expires time.Time) (bool, error) {
	_, err := s.db.From(tableDecided).Insert(ctx, map[string]any{"authorization_id": id, "expires_at": ts(expires)}, postgrest.ReturnMinimal)
	var pe *postgrest.Error
	if errors.As(err, &pe) && pe.Code == uniqueViolate {
		return false, nil
	}
	return err == nil, err
}

// FindRefresh implements Store.
func (s *PostgRESTStore) FindRefresh(ctx context.Context, hash string) (*Refresh, error) {
	raw, err := s.db.From(tableRefresh).Select("*").Eq("token_hash", hash).MaybeSingle(ctx)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, ErrNotFound
	}
	var r refreshRow
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("oauthserver: decode refresh token: %w", err)
	}
	return r.refresh(), nil
}

// RevokeGrant implements Store with mcp_oauth_revoke_grant.
func (s *PostgRESTStore) RevokeGrant(ctx context.Context, tokenID, clientID string, now time.Time) (bool, error) {
	body, err := s.rpc(ctx, "mcp_oauth_revoke_grant", map[string]any{"p_token_id": tokenID, "p_client_id": clientID, "p_now": ts(now)})
	if err != nil {
		return false, err
	}
	var revoked bool
	if err := json.Unmarshal(body, &revoked); err != nil {
		return false, fmt.Errorf("oauthserver: decode revocation: %w", err)
	}
	return revoked, nil
}
