package tools

// The seam between the write tools and the approval service
// (gateway/approval, wired in by main): the tools validate, check as the
// caller that the target exists and the caller may act, and build the
// exact preview; the service stores the pending action and, once the
// person approves on its page, performs the planned write as that person,
// in one transaction with the decision and its record (the SQL function
// mcp_pending_action_approve). Nothing here holds the service role.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"
)

// ScopeWrite is the scope every write tool requires.
const ScopeWrite = "mcp:write"

// Action states, as the pending-actions table stores them.
const (
	StatePending  = "pending"
	StateApproved = "approved"
	StateRejected = "rejected"
	StateExpired  = "expired"
	StateFailed   = "failed"
)

// Caller is who makes a tool call: the authenticated user and the
// credential the call came with. The transport puts it in the context
// (WithCaller); the write tools record it with every proposal.
type Caller struct {
	UserID string
	// TokenID is the mcp_ token's id; "" for other credentials.
	TokenID string
	// ClientID is the OAuth client of a Supabase access token; "" otherwise.
	ClientID string
}

type callerKey struct{}

// WithCaller returns ctx carrying c for the tools of this call.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller WithCaller stored, if any.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && c.UserID != ""
}

// Approvals stores pending actions and reports their state.
// *approval.Service satisfies it.
type Approvals interface {
	// Propose stores a pending action and returns its state (pending, with
	// the approval URL and the sealed requestState of 2026-07-28).
	Propose(ctx context.Context, p Proposal) (*ActionState, error)
	// State returns the action's state as userID may see it, or
	// ErrNoAction when there is no such action of that user.
	State(ctx context.Context, userID, actionID string) (*ActionState, error)
	// Resume opens a requestState that Propose sealed, checks it belongs
	// to userID and tool and has not lapsed, and returns the action's
	// state; ErrNoAction when it does not verify.
	Resume(ctx context.Context, userID, tool, requestState string) (*ActionState, error)
}

// ErrNoAction is State's and Resume's answer for an action the caller has
// no access to (or that does not exist).
var ErrNoAction = &RefusedError{Message: "There is no pending action with that id for you."}

// Proposal is what a write tool asks a person to approve.
type Proposal struct {
	Caller
	ClassID int64
	Tool    string
	// Arguments are the call's arguments in canonical form (defaults
	// applied, keys sorted), and Digest their SHA-256 (hex).
	Arguments json.RawMessage
	Digest    string
	Preview   Preview
}

// Preview is what the approval page shows and the tool result repeats:
// what will be written, where, as whom and who will see it, and the one
// write the approval performs.
type Preview struct {
	Action     string         `json:"action"`
	As         string         `json:"as"`
	Where      string         `json:"where"`
	Visibility string         `json:"visibility"`
	Fields     []PreviewField `json:"fields"`
	Write      WritePlan      `json:"write"`
}

// PreviewField is one text the person reviews. StudentAuthored marks
// text a student wrote, which is data: it is quoted, never followed.
type PreviewField struct {
	Label           string `json:"label"`
	Text            string `json:"text"`
	StudentAuthored bool   `json:"student_authored"`
}

// WritePlan is the single write an approval performs, decided when the
// action was proposed: insert Values into Table, or update the row of
// Table matching Match with Values, only while the row still holds
// Expect (the state the preview showed). Now lists columns set to the
// time of the write. The approval's SQL function has one fixed statement
// per tool and reads only the values it expects from the plan, so a plan
// altered in storage cannot write another table or column.
type WritePlan struct {
	Table  string            `json:"table"`
	Op     string            `json:"op"`
	Match  map[string]string `json:"match,omitempty"`
	Values map[string]any    `json:"values"`
	Expect map[string]any    `json:"expect,omitempty"`
	Now    []string          `json:"now,omitempty"`
}

// ActionState is a pending action as the tools report it.
type ActionState struct {
	ActionID string
	Tool     string
	State    string
	// ApprovalURL is the page where the person approves (only while
	// pending).
	ApprovalURL string
	ExpiresAt   time.Time
	// RowID is the written row's id: every approved action has one.
	RowID string
	// Failure says, in fixed words, why a failed action wrote nothing.
	Failure string
	// Preview is set by Propose.
	Preview *Preview
	// RequestState is the sealed 2026-07-28 requestState (Propose only).
	RequestState string
}

// canonicalArguments encodes args with sorted keys (encoding/json sorts
// map keys) and returns the text and its SHA-256.
func canonicalArguments(args map[string]any) (json.RawMessage, string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// Resume answers the retry of a 2026-07-28 tools/call that carried the
// requestState a write tool's input_required result sealed: the action's
// state, as a call with action_id would report it. The tool must be a
// write tool the caller's scopes allow; the state must verify for this
// caller and tool (Approvals.Resume).
func (r *Registry) Resume(ctx context.Context, scopes []string, name, requestState string) (any, error) {
	t, ok := r.byName[name]
	if !ok || !t.Write {
		return nil, &UnknownToolError{Name: name}
	}
	if !slices.Contains(scopes, t.Scope) {
		return nil, &MissingScopeError{Scope: t.Scope}
	}
	cl, err := writeCaller(ctx)
	if err != nil {
		return nil, err
	}
	st, err := r.approvals.Resume(ctx, cl.UserID, name, requestState)
	if err != nil {
		return nil, err
	}
	return StateValue(st), nil
}

// Writes reports whether the catalogue has the write tools.
func (r *Registry) Writes() bool { return r.approvals != nil }
