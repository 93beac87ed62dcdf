package postgreststandin

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Error is a PostgREST-shaped API error. The body is {"code","details","hint",
// "message"} in that (alphabetical) key order, as PostgREST's aeson encoder
// writes it. Err is the internal cause; it is logged, never serialised.
type Error struct {
	Status  int
	Code    string
	Message string
	Details any // string, JSON value or nil
	Hint    any // string or nil
	// Header holds extra response headers (WWW-Authenticate for JWT errors).
	Header http.Header
	Err    error
}

// Error describes the error with its internal cause, for logs.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("postgreststandin: %s %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("postgreststandin: %s %s", e.Code, e.Message)
}

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Err }

// body renders the JSON body.
func (e *Error) body() []byte {
	b, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Details any    `json:"details"`
		Hint    any    `json:"hint"`
		Message string `json:"message"`
	}{e.Code, e.Details, e.Hint, e.Message})
	return b
}

// errParse is PGRST100: a malformed query-string parameter.
func errParse(message, details string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST100", Message: message, Details: details}
}

// errNotImplemented answers any PostgREST feature this server does not
// implement, so that a caller never silently gets a different result.
func errNotImplemented(details string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST127", Message: "Feature not implemented", Details: details}
}

// errInvalidBody is PGRST102.
func errInvalidBody(message string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST102", Message: message}
}

// errTableNotFound is PGRST205.
func errTableNotFound(schema, table string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "PGRST205",
		Message: fmt.Sprintf("Could not find the table '%s.%s' in the schema cache", schema, table)}
}

// errColumnNotFound is PGRST204 (unknown column in a write payload).
func errColumnNotFound(table, col string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST204",
		Message: fmt.Sprintf("Could not find the '%s' column of '%s' in the schema cache", col, table)}
}

// errSingular is PGRST116: a singular response was requested and n rows came back.
func errSingular(n int64) *Error {
	return &Error{Status: http.StatusNotAcceptable, Code: "PGRST116",
		Message: "Cannot coerce the result to a single JSON object",
		Details: fmt.Sprintf("The result contains %d rows", n)}
}

// errJWTDecode is PGRST301 with PostgREST's WWW-Authenticate header.
func errJWTDecode(message string, details any) *Error {
	return jwtError("PGRST301", message, details)
}

// errJWTClaims is PGRST303 (claims validation failed, e.g. expiry).
func errJWTClaims(message string) *Error {
	return jwtError("PGRST303", message, nil)
}

func jwtError(code, message string, details any) *Error {
	h := http.Header{}
	// PostgREST renders the description with Haskell's show, i.e. a quoted
	// string with backslash escapes; strconv.Quote matches it for ASCII.
	h.Set("WWW-Authenticate", `Bearer error="invalid_token", error_description=`+strconv.Quote(message))
	return &Error{Status: http.StatusUnauthorized, Code: code, Message: message, Details: details, Header: h}
}

// fromPg maps a PostgreSQL error to PostgREST's status and body. authed tells
// whether the request carried a JWT (42501 is 403 then, 401 otherwise).
func fromPg(err error, authed bool) *Error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return &Error{Status: http.StatusServiceUnavailable, Code: "PGRST001",
			Message: "Database client error. Retrying the connection.", Err: err}
	}
	out := &Error{Status: pgStatus(pe, authed), Code: pe.Code, Message: pe.Message, Err: err}
	if pe.Detail != "" {
		out.Details = pe.Detail
	}
	if pe.Hint != "" {
		out.Hint = pe.Hint
	}
	return out
}

// pgStatus is PostgREST's mapSQLtoHTTP.
func pgStatus(pe *pgconn.PgError, authed bool) int {
	c := pe.Code
	switch {
	case strings.HasPrefix(c, "08"):
		return 503
	case strings.HasPrefix(c, "09"):
		return 500
	case strings.HasPrefix(c, "0L"), strings.HasPrefix(c, "0P"):
		return 403
	case c == "23503", c == "23505":
		return 409
	case c == "25006":
		return 405
	case c == "21000":
		if strings.HasSuffix(pe.Message, "requires a WHERE clause") {
			return 400
		}
		return 500
	case c == "22023":
		// A role claim naming a role that does not exist (PostgREST #3601).
		if strings.HasPrefix(pe.Message, "role") && strings.HasSuffix(pe.Message, "does not exist") {
			return 401
		}
		return 400
	case strings.HasPrefix(c, "25"), strings.HasPrefix(c, "2D"), strings.HasPrefix(c, "38"),
		strings.HasPrefix(c, "39"), strings.HasPrefix(c, "3B"), strings.HasPrefix(c, "40"):
		return 500
	case strings.HasPrefix(c, "28"):
		return 403
	case c == "53400":
		return 500
	case strings.HasPrefix(c, "53"):
		return 503
	case strings.HasPrefix(c, "54"), strings.HasPrefix(c, "55"):
		return 500
	case c == "57P01":
		return 503
	case strings.HasPrefix(c, "57"), strings.HasPrefix(c, "58"), strings.HasPrefix(c, "F0"), strings.HasPrefix(c, "HV"):
		return 500
	case c == "P0001":
		return 400
	case strings.HasPrefix(c, "P0"), strings.HasPrefix(c, "XX"):
		return 500
	case c == "42883":
		return 404
	case c == "42P01":
		return 404
	case c == "42P17":
		return 500
	case c == "42501":
		if authed {
			return 403
		}
		return 401
	case strings.HasPrefix(c, "PT"):
		if n, err := strconv.Atoi(c[2:]); err == nil && n >= 100 && n <= 599 {
			return n
		}
		return 500
	}
	return 400
}
