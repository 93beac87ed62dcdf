package tools

// The seam between the write tools and the approval service
// (package approval, wired in by main): the tools validate, check as the
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
)

// ScopeWrite is the scope every write tool requires.
const ScopeWrite = "mcp:write"

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
// caller and tool (approval.Approvals.Resume).
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
