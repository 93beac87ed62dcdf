package oauthserver

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Error is an OAuth error (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1):
// an HTTP status, an error code from the RFCs and a human-readable
// description. Err is the internal cause, logged and never serialised.
type Error struct {
	Status      int
	Code        string
	Description string
	Err         error
	// retryAfter, on a 429, is how long until the limit lets the request
	// through; writeError sends it as Retry-After.
	retryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("oauth %d %s: %s: %v", e.Status, e.Code, e.Description, e.Err)
	}
	return fmt.Sprintf("oauth %d %s: %s", e.Status, e.Code, e.Description)
}

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) withCause(err error) *Error {
	c := *e
	c.Err = err
	return &c
}

func oauthErr(status int, code, desc string) *Error {
	return &Error{Status: status, Code: code, Description: desc}
}

// RFC 6749 / 7591 / 8707 error codes.
const (
	codeInvalidRequest          = "invalid_request"
	codeInvalidClient           = "invalid_client"
	codeInvalidGrant            = "invalid_grant"
	codeUnsupportedGrantType    = "unsupported_grant_type"
	codeInvalidScope            = "invalid_scope"
	codeInvalidTarget           = "invalid_target"
	codeAccessDenied            = "access_denied"
	codeUnsupportedResponseType = "unsupported_response_type"
	codeServerError             = "server_error"
	codeTemporarilyUnavailable  = "temporarily_unavailable"
	codeInvalidRedirectURI      = "invalid_redirect_uri"
	codeInvalidClientMetadata   = "invalid_client_metadata"
)

var (
	errServer   = oauthErr(http.StatusInternalServerError, codeServerError, "The authorization server could not complete the request; try again")
	errBodySize = oauthErr(http.StatusRequestEntityTooLarge, codeInvalidRequest, "Request body too large")
)

// asError turns any error into an *Error, a server fault unless it is one.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return errServer.withCause(err)
}

// setNoStore sets the headers RFC 6749 §5.1 requires on token responses
// and that every response carrying a secret or a personal page needs.
func setNoStore(h http.Header) {
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
}

// setCORS lets browser-based clients call the JSON endpoints. They take no
// cookies and no credentials beyond what the body carries, so any origin
// may call them.
func setCORS(h http.Header, methods string) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", methods)
	h.Set("Access-Control-Allow-Headers", "authorization, content-type, mcp-protocol-version")
	h.Set("Access-Control-Max-Age", "86400")
}

// postPrologue is what every JSON endpoint a client calls with POST does
// first (registration, token, revocation): CORS, the preflight, 405 for
// other methods and, when limit is set, the per-address limit (token and
// revocation requests are limited per client and address once the client
// is known, and only when they find nothing: failures).
// done reports that the answer has been written, with err the write's
// result.
func (s *Server) postPrologue(c echo.Context, limit *limiter) (done bool, err error) {
	setCORS(c.Response().Header(), "POST, OPTIONS")
	switch c.Request().Method {
	case http.MethodOptions:
		return true, c.NoContent(http.StatusNoContent)
	case http.MethodPost:
	default:
		return true, s.methodNotAllowed(c, "POST, OPTIONS")
	}
	if ok, wait := limit.allow(s.clientIP(c.Request())); !ok {
		return true, s.writeError(c, tooMany(descTooManyAddress, wait))
	}
	return false, nil
}

// writeError is the one place JSON OAuth errors are written: the RFC body,
// no-store, and the cause logged for server faults.
func (s *Server) writeError(c echo.Context, err error) error {
	e := asError(err)
	if e.Status >= 500 {
		s.log.ErrorContext(c.Request().Context(), "oauth request failed", "path", c.Path(), "status", e.Status, "error", e.Error())
	} else if e.Err != nil {
		s.log.DebugContext(c.Request().Context(), "oauth request refused", "path", c.Path(), "code", e.Code, "error", e.Err.Error())
	}
	h := c.Response().Header()
	setNoStore(h)
	if e.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfterSeconds(e.retryAfter)))
	}
	body := jsjson.NewObject(2).Set("error", e.Code).Set("error_description", e.Description)
	return writeJSON(c, e.Status, body)
}

func writeJSON(c echo.Context, status int, v any) error {
	data, err := jsjson.Marshal(v)
	if err != nil {
		return err
	}
	return c.Blob(status, "application/json", data)
}
