package postgrest

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is a failed PostgREST request. Status is 0 when no HTTP response was
// received (network failure, deadline); then Err holds the cause.
type Error struct {
	Table   string
	Status  int
	Code    string // PostgREST or SQLSTATE code, e.g. PGRST116, 22P02
	Message string
	Details string
	Hint    string
	Err     error
}

// Error describes the failure the way supabase-js reports PostgREST errors:
// the message, or the transport failure.
func (e *Error) Error() string {
	switch {
	case e.Message != "":
		return e.Message
	case e.Err != nil:
		return e.Err.Error()
	default:
		return fmt.Sprintf("PostgREST answered HTTP %d", e.Status)
	}
}

// Unwrap returns the transport-level cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Unreachable reports whether PostgREST could not be reached or did not
// answer usefully: a transport failure, a gateway error or a 5xx.
func (e *Error) Unreachable() bool {
	return e.Status == 0 || e.Status >= http.StatusInternalServerError
}

// CodeNoRows is PostgREST's code when a singular response has 0 or >1 rows.
const CodeNoRows = "PGRST116"

// IsNoRows reports whether err is PostgREST's "not exactly one row" answer
// (or the client-side equivalent from MaybeSingle).
func IsNoRows(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeNoRows
}
