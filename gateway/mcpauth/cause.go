package mcpauth

import (
	"context"
	"errors"
	"strconv"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// causeMessage renders an upstream failure for a public message the way
// the original's ErrorDetail / supabase-js would (docs/contract/protocol.md B3): a
// PostgREST error's message, followed by " (<code>)" when withCode is set
// and it has a code (A7 step 6 uses the bare message, B3 adds the code); an
// Auth error's message; for a failure without any answer, a fixed text.
//
// Transport failures deliberately do not repeat Go's error text, which
// names internal host names and ports; the full cause stays in the
// *apierror.Error's Err for the logs.
func causeMessage(err error, withCode bool) string {
	var pe *postgrest.Error
	if errors.As(err, &pe) {
		switch {
		case pe.Message != "" && pe.Code != "" && withCode:
			return pe.Message + " (" + pe.Code + ")"
		case pe.Message != "":
			return pe.Message
		case pe.Status < 300:
			// No answer, or a successful one whose body could not be
			// read (cut short, timed out): a transport failure.
			return transportMessage(pe.Err)
		case pe.Code != "":
			return pe.Code
		default:
			return `{"status":` + strconv.Itoa(pe.Status) + `}`
		}
	}
	var ae *AuthError
	if errors.As(err, &ae) {
		return ae.Error()
	}
	if err == nil {
		return "unknown error"
	}
	return transportMessage(err)
}

// transportMessage names a failure that produced no HTTP answer.
func transportMessage(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "request timed out"
	case errors.Is(err, context.Canceled):
		return "request was canceled"
	default:
		return "fetch failed"
	}
}
