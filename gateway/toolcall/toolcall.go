// Package toolcall is the one seam between mcp-server's transport and what
// watches its tool calls from outside: the per-connection limit
// (gateway/calllimit) and the activity record (functions/mcpserver/activityrecord).
// The transport asks Admit before a tools/call runs and tells Done how it
// ended; everything else lives in the hooks' own packages.
package toolcall

import (
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// Event is one finished tools/call.
type Event struct {
	// At is when the call started.
	At        time.Time
	Principal *mcpauth.Principal
	// RequestID is the gateway's request id ("" when none).
	RequestID string
	// Tool is the tool's name as called (possibly an unknown one).
	Tool string
	// ClassID is the arguments' class_id when it is a number, else "".
	ClassID string
	// Outcome is one of mcpserver's Outcome constants.
	Outcome  string
	Duration time.Duration
	// Result is the answer's JSON text on success, nil otherwise. It is
	// only valid during Done: a hook keeps what it needs, never the slice.
	Result []byte
}

// Hook watches tool calls. Both methods run on the call's goroutine, so
// they must return at once: a hook never waits on I/O.
type Hook interface {
	// Admit decides whether p may call a tool now. A refusal is a
	// *Refusal; nil runs the call.
	Admit(p *mcpauth.Principal) *Refusal
	// Done is told how an admitted or refused call ended.
	Done(e *Event)
}

// Refusal is a call refused before it ran: Message says in words when to
// try again, RetryAfter is the same wait for the Retry-After header.
type Refusal struct {
	Message    string
	RetryAfter time.Duration
}

func (r *Refusal) Error() string { return r.Message }

// Seconds is wait in whole seconds, rounded up, at least one: the value of
// Retry-After and of the refusal's words.
func Seconds(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

// Hooks runs several hooks as one: the first refusal wins, and every hook
// is told every call.
type Hooks []Hook

// Admit implements Hook.
func (hs Hooks) Admit(p *mcpauth.Principal) *Refusal {
	for _, h := range hs {
		if r := h.Admit(p); r != nil {
			return r
		}
	}
	return nil
}

// Done implements Hook.
func (hs Hooks) Done(e *Event) {
	for _, h := range hs {
		h.Done(e)
	}
}
