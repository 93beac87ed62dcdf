package gateway

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// platformError is an error raised by the gateway itself in the role of the
// Supabase platform (an unknown function, an unreachable fallback runtime).
// It is answered in the platform's shape, {"code":…,"message":…} with an
// sb-error-code header, rather than in the functions' {"error":…} shape, so
// clients see the same bodies they saw from Supabase.
type platformError struct {
	Status  int
	Code    string
	Message string
	Err     error
}

func (e *platformError) Error() string { return e.Message }
func (e *platformError) Unwrap() error { return e.Err }

// errFunctionNotFound is what Supabase's hosted gateway answers for an
// unknown function slug: 404, header sb-error-code: NOT_FOUND, body
// {"code":"NOT_FOUND","message":"Requested function was not found"}.
// (The self-hosted edge runtime's main service answers a plain-text
// "Function not found"; the hosted JSON is the more useful of the two.)
var errFunctionNotFound = &platformError{
	Status:  http.StatusNotFound,
	Code:    "NOT_FOUND",
	Message: "Requested function was not found",
}

// errBodyTooLarge answers a request whose body is over the global limit.
var errBodyTooLarge = apierror.New(http.StatusRequestEntityTooLarge, apierror.ReasonTooLarge, "Request body too large")

// errPanic is the public face of a recovered panic: nothing of the panic
// value or stack reaches the client.
var errPanic = apierror.New(http.StatusInternalServerError, apierror.ReasonInternal, "Internal server error")

// errorHandler is the one Echo HTTPErrorHandler. It maps, in order:
//
//   - *platformError → the platform's {"code","message"} body;
//   - *apierror.Error (anywhere in the chain, via errors.As) → Status and
//     {"error": Message}, the shape both original functions use;
//   - *http.MaxBytesError (a handler read past the body limit) → 413;
//   - *echo.HTTPError → its code and message in the {"error"} shape;
//   - anything else → 500 {"error":"Internal server error"}.
//
// Internal causes are logged for 5xx answers and never serialised. Headers a
// handler set before failing (CORS, WWW-Authenticate) are kept.
func (s *Server) errorHandler(err error, c echo.Context) {
	ctx := c.Request().Context()
	if c.Response().Committed {
		// The handler already started its answer (for example an SSE stream
		// that later failed); all that is left is to record why.
		s.log.DebugContext(ctx, "error after response was committed", slog.String("error", err.Error()))
		return
	}

	var (
		status int
		body   *jsjson.Object
		cause  error
	)
	var pe *platformError
	var ae *apierror.Error
	var tooLarge *http.MaxBytesError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &pe):
		status, cause = pe.Status, pe.Err
		body = jsjson.NewObject(2).Set("code", pe.Code).Set("message", pe.Message)
		c.Response().Header().Set("sb-error-code", pe.Code)
	case errors.As(err, &ae):
		status, cause = ae.Status, ae.Err
		body = jsjson.NewObject(1).Set("error", ae.Message)
	case errors.As(err, &tooLarge):
		status, cause = errBodyTooLarge.Status, err
		body = jsjson.NewObject(1).Set("error", errBodyTooLarge.Message)
	case errors.As(err, &he):
		status, cause = he.Code, he.Internal
		msg, ok := he.Message.(string)
		if !ok {
			msg = http.StatusText(he.Code)
		}
		body = jsjson.NewObject(1).Set("error", msg)
	default:
		status, cause = http.StatusInternalServerError, err
		body = jsjson.NewObject(1).Set("error", "Internal server error")
	}

	if status >= 500 {
		attrs := []any{slog.Int("status", status)}
		if cause != nil {
			attrs = append(attrs, slog.String("error", cause.Error()))
		}
		s.log.ErrorContext(ctx, "request failed", attrs...)
		if s.opts.ReportError != nil {
			s.opts.ReportError(ctx, err, map[string]string{
				"component": "gateway",
				"function":  functionSlug(c),
				"method":    c.Request().Method,
			})
		}
	}

	var werr error
	if c.Request().Method == http.MethodHead {
		werr = c.NoContent(status)
	} else {
		b, merr := jsjson.Marshal(body)
		if merr != nil { // cannot happen for string members; keep the status anyway
			b = []byte(`{"error":"Internal server error"}`)
		}
		// No charset: the original functions write bare application/json.
		werr = c.Blob(status, echo.MIMEApplicationJSON, b)
	}
	if werr != nil {
		s.log.DebugContext(ctx, "writing error response failed", slog.String("error", werr.Error()))
	}
}
