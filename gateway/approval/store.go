package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// Action is one row of mcp_pending_actions.
type Action struct {
	ID        string          `json:"id"`
	UserID    string          `json:"user_id"`
	TokenID   string          `json:"token_id"`
	ClientID  string          `json:"client_id"`
	ClassID   int64           `json:"class_id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Digest    string          `json:"argument_digest"`
	Preview   tools.Preview   `json:"preview"`
	State     string          `json:"state"`
	RowID     string          `json:"written_row_id"`
	Failure   string          `json:"failure"`
	CreatedAt time.Time       `json:"created_at"`
	ExpiresAt time.Time       `json:"expires_at"`
	DecidedAt *time.Time      `json:"decided_at"`
}

// Decision outcomes of Store.Decide, as mcp_pending_action_decide names
// them; a decision made before is "already_" followed by the state.
const (
	OutcomeApproved = "approved"
	OutcomeRejected = "rejected"
	OutcomeNotFound = "not_found"
	OutcomeExpired  = "expired"
	OutcomeRevoked  = "revoked"
)

// Store keeps the pending actions. Every change is atomic in the store,
// so any replica serves any step.
type Store interface {
	// Propose stores a new pending action (a.ID, State and the decision
	// fields are ignored) and returns its id.
	Propose(ctx context.Context, a *Action, ttl time.Duration, now time.Time) (string, error)
	// Get returns the action if it is userID's, else nil; a pending action
	// past its expiry is expired by this call.
	Get(ctx context.Context, id, userID string, now time.Time) (*Action, error)
	// Decide approves or rejects the action, once, for its own user only.
	Decide(ctx context.Context, id, userID string, approve bool, now time.Time) (string, error)
	// Record stores an approved action's written row id, or its failure.
	Record(ctx context.Context, id, rowID, failure string) (bool, error)
}

// PostgRESTStore is the Store on the project's PostgREST with the service
// role: mcp_pending_actions (supabase/migrations/*_mcp_pending_actions.sql)
// is closed to every other role, and each change is one of its SQL
// functions, called through /rpc.
type PostgRESTStore struct {
	db *postgrest.Client
}

// NewPostgRESTStore keeps its tables through db, a service-role client
// (mcpauth.ServiceClient).
func NewPostgRESTStore(db *postgrest.Client) *PostgRESTStore { return &PostgRESTStore{db: db} }

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (s *PostgRESTStore) rpc(ctx context.Context, fn string, args map[string]any) (json.RawMessage, error) {
	return s.db.From("rpc/"+fn).Insert(ctx, args, postgrest.ReturnRows)
}

// Propose implements Store with mcp_pending_action_propose.
func (s *PostgRESTStore) Propose(ctx context.Context, a *Action, ttl time.Duration, now time.Time) (string, error) {
	body, err := s.rpc(ctx, "mcp_pending_action_propose", map[string]any{
		"p_user_id": a.UserID, "p_token_id": a.TokenID, "p_client_id": a.ClientID, "p_class_id": a.ClassID,
		"p_tool": a.Tool, "p_arguments": a.Arguments, "p_argument_digest": a.Digest, "p_preview": a.Preview,
		"p_now": ts(now), "p_ttl_seconds": int(ttl / time.Second),
	})
	if err != nil {
		return "", err
	}
	var id string
	if err := json.Unmarshal(body, &id); err != nil || id == "" {
		return "", fmt.Errorf("approval: decode the new action's id: %v", err)
	}
	return id, nil
}

// Get implements Store with mcp_pending_action_state.
func (s *PostgRESTStore) Get(ctx context.Context, id, userID string, now time.Time) (*Action, error) {
	body, err := s.rpc(ctx, "mcp_pending_action_state", map[string]any{"p_id": id, "p_user_id": userID, "p_now": ts(now)})
	if err != nil {
		return nil, err
	}
	var rows []Action
	if err := json.Unmarshal(body, &rows); err != nil {
		return nil, fmt.Errorf("approval: decode action: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}

// Decide implements Store with mcp_pending_action_decide.
func (s *PostgRESTStore) Decide(ctx context.Context, id, userID string, approve bool, now time.Time) (string, error) {
	body, err := s.rpc(ctx, "mcp_pending_action_decide", map[string]any{"p_id": id, "p_user_id": userID, "p_approve": approve, "p_now": ts(now)})
	if err != nil {
		return "", err
	}
	var out string
	if err := json.Unmarshal(body, &out); err != nil {
		return "", fmt.Errorf("approval: decode decision: %w", err)
	}
	return out, nil
}

// Record implements Store with mcp_pending_action_record.
func (s *PostgRESTStore) Record(ctx context.Context, id, rowID, failure string) (bool, error) {
	body, err := s.rpc(ctx, "mcp_pending_action_record", map[string]any{"p_id": id, "p_row_id": rowID, "p_failure": failure})
	if err != nil {
		return false, err
	}
	var ok bool
	if err := json.Unmarshal(body, &ok); err != nil {
		return false, fmt.Errorf("approval: decode record: %w", err)
	}
	return ok, nil
}
