package oauthserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// PostgRESTStore is the Store on the project's PostgREST with the service
// role: the tables of supabase/migrations/*_mcp_oauth.sql are closed to
// every other role, and the grant's api_tokens row is written for the
// user, who has not yet got a session the gateway keeps.
type PostgRESTStore struct {
	db *postgrest.Client
}

// PostgRESTStoreOptions configures NewPostgRESTStore.
type PostgRESTStoreOptions struct {
	// RestURL is <SUPABASE_URL>/rest/v1.
	RestURL string
	// ServiceRoleKey is SUPABASE_SERVICE_ROLE_KEY.
	ServiceRoleKey string
	// DirectUpstream says RestURL is PostgREST itself: no apikey header.
	DirectUpstream bool
	HTTPClient     *http.Client
}

// NewPostgRESTStore validates opts.
func NewPostgRESTStore(opts PostgRESTStoreOptions) (*PostgRESTStore, error) {
	if opts.RestURL == "" || opts.ServiceRoleKey == "" {
		return nil, errors.New("oauthserver: the store needs SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY")
	}
	apiKey := opts.ServiceRoleKey
	if opts.DirectUpstream {
		apiKey = ""
	}
	c, err := postgrest.New(postgrest.Options{BaseURL: opts.RestURL, APIKey: apiKey, HTTPClient: opts.HTTPClient, MaxBodyBytes: 1 << 20})
	if err != nil {
		return nil, err
	}
	return &PostgRESTStore{db: c.WithBearer(opts.ServiceRoleKey)}, nil
}

const (
	tableCodes   = "mcp_oauth_codes"
	tableRefresh = "mcp_oauth_refresh_tokens"
	tableGrants  = "mcp_oauth_grants"
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
	UsedAt      *string   `json:"used_at,omitempty"`
}

// SaveCode implements Store.
func (s *PostgRESTStore) SaveCode(ctx context.Context, c Code) error {
	row := map[string]any{
		"code_hash": c.Hash, "token_id": c.TokenID, "client_hash": c.ClientHash, "client_name": c.ClientName,
		"redirect_uri": c.RedirectURI, "code_challenge": c.Challenge, "user_id": c.UserID,
		"scopes": c.Scopes, "resource": c.Resource, "expires_at": ts(c.ExpiresAt),
	}
	_, err := s.db.From(tableCodes).Insert(ctx, row, postgrest.ReturnMinimal)
	return err
}

// MarkCodeUsed implements Store: one PATCH guarded by used_at IS NULL is
// the atomic step; a miss is then told apart (used before, or absent).
func (s *PostgRESTStore) MarkCodeUsed(ctx context.Context, hash string, now time.Time) (*Code, error) {
	body, err := s.db.From(tableCodes).Select("*").Eq("code_hash", hash).Is("used_at", "null").
		Update(ctx, map[string]any{"used_at": ts(now)}, postgrest.ReturnRows)
	if err != nil {
		return nil, err
	}
	var rows []codeRow
	if err := json.Unmarshal(body, &rows); err != nil {
		return nil, fmt.Errorf("oauthserver: decode code: %w", err)
	}
	used := false
	if len(rows) == 0 {
		raw, err := s.db.From(tableCodes).Select("*").Eq("code_hash", hash).MaybeSingle(ctx)
		if err != nil {
			return nil, err
		}
		if raw == nil {
			return nil, ErrNotFound
		}
		var r codeRow
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("oauthserver: decode code: %w", err)
		}
		rows, used = []codeRow{r}, true
	}
	r := rows[0]
	return &Code{Hash: r.CodeHash, TokenID: r.TokenID, ClientHash: r.ClientHash, ClientName: r.ClientName,
		RedirectURI: r.RedirectURI, Challenge: r.Challenge, UserID: r.UserID, Scopes: r.Scopes,
		Resource: r.Resource, ExpiresAt: r.ExpiresAt, Used: used}, nil
}

// CreateGrant implements Store: the api_tokens row, then the marker.
func (s *PostgRESTStore) CreateGrant(ctx context.Context, g Grant) error {
	tok := map[string]any{"user_id": g.UserID, "name": g.Name, "token_id": g.TokenID, "scopes": g.Scopes, "expires_at": ts(g.ExpiresAt)}
	if _, err := s.db.From("api_tokens").Insert(ctx, tok, postgrest.ReturnMinimal); err != nil {
		return err
	}
	marker := map[string]any{"token_id": g.TokenID, "client_id": g.ClientID, "client_name": g.ClientName, "redirect_uri": g.RedirectURI}
	_, err := s.db.From(tableGrants).Insert(ctx, marker, postgrest.ReturnMinimal)
	return err
}

type refreshRow struct {
	TokenHash  string    `json:"token_hash"`
	TokenID    string    `json:"token_id"`
	UserID     string    `json:"user_id"`
	ClientHash string    `json:"client_hash"`
	Scopes     []string  `json:"scopes"`
	ExpiresAt  time.Time `json:"expires_at"`
	UsedAt     *string   `json:"used_at"`
}

func (r refreshRow) refresh() *Refresh {
	return &Refresh{Hash: r.TokenHash, TokenID: r.TokenID, UserID: r.UserID, ClientHash: r.ClientHash, Scopes: r.Scopes, ExpiresAt: r.ExpiresAt, Used: r.UsedAt != nil}
}

// SaveRefresh implements Store.
func (s *PostgRESTStore) SaveRefresh(ctx context.Context, r Refresh) error {
	row := map[string]any{"token_hash": r.Hash, "token_id": r.TokenID, "user_id": r.UserID, "client_hash": r.ClientHash, "scopes": r.Scopes, "expires_at": ts(r.ExpiresAt)}
	_, err := s.db.From(tableRefresh).Insert(ctx, row, postgrest.ReturnMinimal)
	return err
}

// MarkRefreshUsed implements Store.
func (s *PostgRESTStore) MarkRefreshUsed(ctx context.Context, hash string, now time.Time) (*Refresh, error) {
	body, err := s.db.From(tableRefresh).Select("*").Eq("token_hash", hash).Is("used_at", "null").
		Update(ctx, map[string]any{"used_at": ts(now)}, postgrest.ReturnRows)
	if err != nil {
		return nil, err
	}
	var rows []refreshRow
	if err := json.Unmarshal(body, &rows); err != nil {
		return nil, fmt.Errorf("oauthserver: decode refresh token: %w", err)
	}
	if len(rows) == 1 {
		r := rows[0].refresh()
		r.Used = false
		return r, nil
	}
	r, err := s.FindRefresh(ctx, hash)
	if err != nil {
		return nil, err
	}
	r.Used = true
	return r, nil
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

// GrantClient implements Store.
func (s *PostgRESTStore) GrantClient(ctx context.Context, tokenID string) (string, error) {
	raw, err := s.db.From(tableGrants).Select("client_id").Eq("token_id", tokenID).MaybeSingle(ctx)
	if err != nil {
		return "", err
	}
	if raw == nil {
		return "", ErrNotFound
	}
	var r struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", err
	}
	return r.ClientID, nil
}

// GrantActive implements Store.
func (s *PostgRESTStore) GrantActive(ctx context.Context, tokenID string, now time.Time) (bool, error) {
	raw, err := s.db.From("api_tokens").Select("revoked_at,expires_at").Eq("token_id", tokenID).MaybeSingle(ctx)
	if err != nil || raw == nil {
		return false, err
	}
	var r struct {
		RevokedAt *string   `json:"revoked_at"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return false, err
	}
	if r.RevokedAt != nil || !now.Before(r.ExpiresAt) {
		return false, nil
	}
	rev, err := s.db.From("revoked_token_ids").Select("token_id").Eq("token_id", tokenID).MaybeSingle(ctx)
	if err != nil {
		return false, err
	}
	return rev == nil, nil
}

// RevokeGrant implements Store: revoked_at on the api_tokens row (its
// trigger also writes revoked_token_ids), then revoked_token_ids itself,
// which is what verifiers read and which must hold even when the row was
// never created (a replayed code whose first use failed half-way).
func (s *PostgRESTStore) RevokeGrant(ctx context.Context, tokenID string, now time.Time) error {
	if _, err := s.db.From("api_tokens").Eq("token_id", tokenID).Is("revoked_at", "null").
		Update(ctx, map[string]any{"revoked_at": ts(now)}, postgrest.ReturnMinimal); err != nil {
		return err
	}
	_, insErr := s.db.From("revoked_token_ids").Insert(ctx, map[string]any{"token_id": tokenID}, postgrest.ReturnMinimal)
	if insErr == nil {
		return nil
	}
	row, err := s.db.From("revoked_token_ids").Select("token_id").Eq("token_id", tokenID).MaybeSingle(ctx)
	if err != nil {
		return errors.Join(err, insErr)
	}
	if row == nil {
		return insErr
	}
	return nil
}
