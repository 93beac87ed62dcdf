// Package apierror defines the error value that every layer of the gateway
// returns when a request must fail with a specific HTTP status and public
// message. Each transport maps it to its own wire format in exactly one place.
package apierror

import (
	"errors"
	"fmt"
	"net/http"
)

// Reason classifies an error for metrics and logs. Values are a closed set so
// they are safe to use as metric labels.
type Reason string

// Reasons used across the gateway.
const (
	ReasonNone           Reason = ""
	ReasonMissing        Reason = "missing"     // no credential presented
	ReasonMalformed      Reason = "malformed"   // credential presented in the wrong shape
	ReasonInvalid        Reason = "invalid"     // credential refused (signature, claims, expiry)
	ReasonRevoked        Reason = "revoked"     // API token found in revoked_token_ids
	ReasonForbidden      Reason = "forbidden"   // authenticated but not allowed (not staff, scope)
	ReasonUpstream       Reason = "upstream"    // a dependency failed or was unreachable
	ReasonConfig         Reason = "config"      // the server is misconfigured
	ReasonBadRequest     Reason = "bad_request" // the request itself is invalid
	ReasonNotFound       Reason = "not_found"   // the addressed thing does not exist
	ReasonInternal       Reason = "internal"    // any other server fault
	ReasonTooLarge       Reason = "too_large"   // body over the configured limit
	ReasonOverloaded     Reason = "overloaded"  // a concurrency bound was reached
	ReasonMethodNotAllow Reason = "method_not_allowed"
)

// Error is an error with an HTTP status and a message that is safe to show
// to the caller. Err holds the internal cause; it is logged, never serialised.
type Error struct {
	Status  int
	Reason  Reason
	Message string
	Err     error
}

// Error implements error. It returns the public message only, so an Error
// that is accidentally printed never leaks its internal cause.
func (e *Error) Error() string { return e.Message }

// Unwrap exposes the internal cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// WithCause returns a copy of e that carries cause as its internal error.
// Sentinel values are never mutated.
func (e *Error) WithCause(cause error) *Error {
	c := *e
	c.Err = cause
	return &c
}

// New returns an Error with the given status, reason and public message.
func New(status int, reason Reason, message string) *Error {
	return &Error{Status: status, Reason: reason, Message: message}
}

// Newf is New with a formatted message.
func Newf(status int, reason Reason, format string, args ...any) *Error {
	return &Error{Status: status, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Unauthorized returns a 401 with the given reason and message.
func Unauthorized(reason Reason, message string) *Error {
	return New(http.StatusUnauthorized, reason, message)
}

// Internal returns a 500 whose public message is message and whose cause is err.
func Internal(message string, err error) *Error {
	return &Error{Status: http.StatusInternalServerError, Reason: ReasonInternal, Message: message, Err: err}
}

// As extracts an *Error from err's chain. When there is none, it returns a
// 500 with the public message "Internal server error" wrapping err, so a
// caller can always answer with a status and a safe message.
func As(err error) *Error {
	if e, ok := err.(*Error); ok { // the usual case, without errors.As's allocation
		return e
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Status: http.StatusInternalServerError, Reason: ReasonInternal, Message: "Internal server error", Err: err}
}

// IsServerFault reports whether the error is the server's fault (5xx), the
// only kind that is reported to error tracking.
func (e *Error) IsServerFault() bool { return e.Status >= 500 }
