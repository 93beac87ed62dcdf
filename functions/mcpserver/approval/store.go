package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Action is one row of mcp_pending_actions.
type Action struct {
	ID            string            `json:"id"`
	UserID        string            `json:"user_id"`
	TokenID       string            `json:"token_id"`
	ClientID      string            `json:"client_id"`
	ClassID       int64             `json:"class_id"`
	Tool          string            `json:"tool"`
	Arguments     json.RawMessage   `json:"arguments"`
	Digest        string            `json:"argument_digest"`
	Preview       Preview           `json:"preview"`
	State         string            `json:"state"`
	RowID         string            `json:"written_row_id"`
	Failure       string            `json:"failure"`
	FailureDetail map[string]string `json:"failure_detail"`
	CreatedAt     time.Time         `json:"created_at"`
	ExpiresAt     time.Time         `json:"expires_at"`
	DecidedAt     *time.Time        `json:"decided_at"`
}

// Outcomes of Store.Reject and Store.Approve, as the SQL functions name
// them; a decision made before is "already_" followed by the state.
const (
	OutcomeApproved = "approved"
	OutcomeRejected = "rejected"
	OutcomeFailed   = "failed"
	OutcomeNotFound = "not_found"
	OutcomeExpired  = "expired"
)

// Outcome is what an approval did: Outcome is approved (RowID written),
// failed (Failure says why, nothing written), expired, not_found or
// already_<state> (decided before; RowID and Failure are that decision's).
type Outcome struct {
	Outcome string            `json:"outcome"`
	RowID   string            `json:"row_id"`
	Failure string            `json:"failure"`
	Detail  map[string]string `json:"detail"`
	// SQLState and Error describe a refused write, for the log only.
	SQLState string `json:"sqlstate"`
	Error    string `json:"error"`
}

// ErrTooManyPending is Store.Propose's refusal when the user already has
// the most proposals allowed waiting.
var ErrTooManyPending = errors.New("approval: too many pending proposals")

// RPC calls a SQL function through PostgREST; *userclient.Client and
// *postgrest.Client satisfy it.
type RPC interface {
	RPC(ctx context.Context, fn string, args any) (json.RawMessage, error)
}

// Store keeps the pending actions. Every change is one transaction in the
// store, so any replica serves any step.
type Store interface {
	// Propose stores a new pending action (a.ID, State and the decision
	// fields are ignored) and returns its id, or ErrTooManyPending when
	// a.UserID has maxPending unexpired proposals waiting.
	Propose(ctx context.Context, a *Action, ttl time.Duration, maxPending int, now time.Time) (string, error)
	// Get returns the action if it is userID's, else nil; a pending action
	// past its expiry is expired by this call.
	Get(ctx context.Context, id, userID string, now time.Time) (*Action, error)
	// Reject rejects the action, once, for its own user only.
	Reject(ctx context.Context, id, userID string, now time.Time) (string, error)
	// Approve approves the action and makes its write in one transaction,
	// through as: the approving person's client, whose JWT names the
	// action (userclient.Factory.ForApproval).
	Approve(ctx context.Context, as RPC, id string, now time.Time) (*Outcome, error)
	// Purge deletes up to limit actions proposed before before, and
	// returns how many it deleted.
	Purge(ctx context.Context, before time.Time, limit int) (int, error)
}

// PostgRESTStore is the Store on the project's PostgREST: the service role
// for everything but the approval, which runs as the approving person.
// mcp_pending_actions (supabase/migrations/*_mcp_pending_action*.sql) is
// closed to every other role, and each change is one of its SQL functions.
type PostgRESTStore struct {
	db RPC
}

// NewPostgRESTStore keeps its tables through db, a service-role client
// that main builds (mcpauth.ServiceClient); this package never names the
// key.
func NewPostgRESTStore(db RPC) *PostgRESTStore { return &PostgRESTStore{db: db} }

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// call runs fn through db and decodes its JSON result into out.
func call(ctx context.Context, db RPC, fn string, args map[string]any, out any) error {
	body, err := db.RPC(ctx, fn, args)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("approval: decode %s: %w", fn, err)
	}
	return nil
}

// Propose implements Store with mcp_pending_action_propose.
func (s *PostgRESTStore) Propose(ctx context.Context, a *Action, ttl time.Duration, maxPending int, now time.Time) (string, error) {
	var out struct {
		ID      string `json:"id"`
		Refused string `json:"refused"`
	}
	err := call(ctx, s.db, "mcp_pending_action_propose", map[string]any{
		"p_user_id": a.UserID, "p_token_id": a.TokenID, "p_client_id": a.ClientID, "p_class_id": a.ClassID,
		"p_tool": a.Tool, "p_arguments": a.Arguments, "p_argument_digest": a.Digest, "p_preview": a.Preview,
		"p_now": ts(now), "p_ttl_seconds": int(ttl / time.Second), "p_max_pending": maxPending,
	}, &out)
	switch {
	case err != nil:
		return "", err
	case out.Refused == "too_many_pending":
		return "", ErrTooManyPending
	case out.ID == "":
		return "", errors.New("approval: the new action has no id")
	}
	return out.ID, nil
}

// Get implements Store with mcp_pending_action_state.
func (s *PostgRESTStore) Get(ctx context.Context, id, userID string, now time.Time) (*Action, error) {
	var rows []Action
	if err := call(ctx, s.db, "mcp_pending_action_state", map[string]any{"p_id": id, "p_user_id": userID, "p_now": ts(now)}, &rows); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}

// Reject implements Store with mcp_pending_action_reject.
func (s *PostgRESTStore) Reject(ctx context.Context, id, userID string, now time.Time) (string, error) {
	var out string
	err := call(ctx, s.db, "mcp_pending_action_reject", map[string]any{"p_id": id, "p_user_id": userID, "p_now": ts(now)}, &out)
	return out, err
}

// Approve implements Store with mcp_pending_action_approve, called as the
// approving person. With a deadline on ctx, the database's own budget
// (p_budget_ms) ends before it (approvalBudget), so the transaction never
// commits after the gateway stopped waiting for it.
func (s *PostgRESTStore) Approve(ctx context.Context, as RPC, id string, now time.Time) (*Outcome, error) {
	var out Outcome
	args := map[string]any{"p_id": id, "p_now": ts(now)}
	if d, ok := ctx.Deadline(); ok {
		args["p_budget_ms"] = approvalBudget(time.Until(d)).Milliseconds()
	}
	if err := call(ctx, as, "mcp_pending_action_approve", args, &out); err != nil {
		return nil, err
	}
	if out.Outcome == "" {
		return nil, errors.New("approval: the approval answered no outcome")
	}
	return &out, nil
}

// Purge implements Store with mcp_pending_actions_purge.
func (s *PostgRESTStore) Purge(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int
	err := call(ctx, s.db, "mcp_pending_actions_purge", map[string]any{"p_before": ts(before), "p_limit": limit}, &n)
	return n, err
}

// approvalBudget is the database's share of what is left of the
// gateway's deadline: three quarters, leaving the rest for the way there
// and back, and at least 100 ms (the SQL function's own floor).
func approvalBudget(left time.Duration) time.Duration {
	return max(left*3/4, 100*time.Millisecond)
}
