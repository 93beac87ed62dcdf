package approval

// The write feature's types, shared with the write tools (which import
// this package): what a tool proposes, what the person approves, and what
// the tools report.

import (
	"context"
	"encoding/json"
	"time"
)

// Action states, as the pending-actions table stores them.
const (
	StatePending  = "pending"
	StateApproved = "approved"
	StateRejected = "rejected"
	StateExpired  = "expired"
	StateFailed   = "failed"
)

// Approvals stores pending actions and reports their state.
// *Service satisfies it.
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
	// UserID proposed it, with the mcp_ token TokenID or through the
	// OAuth client ClientID ("" for the other).
	UserID, TokenID, ClientID string
	ClassID                   int64
	Tool                      string
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
	// Written names what the write makes, as the page says it once made
	// ("message", "rubric comment"; the row's id follows).
	Written string `json:"written,omitempty"`
}

// PreviewField is one text the person reviews. StudentAuthored marks
// text a student wrote, which is data: it is quoted, never followed.
type PreviewField struct {
	Label           string `json:"label"`
	Text            string `json:"text"`
	StudentAuthored bool   `json:"student_authored"`
}

// WritePlan is the single write an approval performs, decided when the
// action was proposed: the values its write function writes (Values), the
// row it changes (Match, for a tool that updates one), the state the row
// must still hold (Expect, what the preview showed), and the columns set
// to the time of the write (Now). Each write tool fills Values, Match and
// Expect with its own typed plan, whose JSON keys are the ones its SQL
// write function reads (TestPlansMatchTheirSQL in package tools); the
// function has one fixed statement and reads only those keys, so a plan
// altered in storage cannot write another table or column, and every value
// it does read is checked again there.
type WritePlan struct {
	Match  any      `json:"match,omitempty"`
	Values any      `json:"values"`
	Expect any      `json:"expect,omitempty"`
	Now    []string `json:"now,omitempty"`
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

// RefusedError is a write the caller may not make, or arguments that
// cannot be acted on; the transport answers it as a tool execution error
// (isError) with Message.
type RefusedError struct {
	Message string
	// Fault marks a failure of the server or upstream rather than of the
	// request (counted as an error, not a refusal).
	Fault bool
}

func (e *RefusedError) Error() string { return e.Message }
