package mcptokens

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// UserLookup confirms a Supabase Auth session token and returns its user
// id. It fails with a server-fault *apierror.Error (503 when Auth is
// unavailable, 500 when it is not configured); any other failure means the
// session was refused.
type UserLookup interface {
	GetUser(ctx context.Context, accessToken string) (*mcpauth.SupabaseUser, error)
}

// Minter signs a new API token (docs/contract/protocol.md A9).
type Minter func(sub string, scopes []string, tokenID string, days float64, now time.Time) (string, error)

// Options configures the function.
type Options struct {
	Users UserLookup
	// ForSession returns a PostgREST client that acts with the caller's own
	// Supabase session token, so RLS confines it to the caller's rows; nil
	// when PostgREST is not configured.
	ForSession func(userID, accessToken string) *userclient.Client
	Mint       Minter
	// MaxBodyBytes bounds request bodies; 0 means 64 KiB.
	MaxBodyBytes int64
	Now          func() time.Time
	NewID        func() string
	Logger       *slog.Logger
}

// Handler serves mcp-tokens.
type Handler struct {
	opts Options
}

// New validates opts and returns the handler.
func New(opts Options) (*Handler, error) {
	if opts.Users == nil || opts.ForSession == nil || opts.Mint == nil {
		return nil, errors.New("mcptokens: Users, ForSession and Mint are required")
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 64 << 10
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = func() string { return uuid.NewString() }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{opts: opts}, nil
}

// Register mounts the function on g for every method, at the group root and
// below it, as the edge runtime routes sub-paths to the same function.
func (h *Handler) Register(g *echo.Group) {
	g.Any("", h.Serve)
	g.Any("/*", h.Serve)
}

// corsHeaders are the original's values, sent on every response.
var corsHeaders = [][2]string{
	{"Access-Control-Allow-Origin", "*"},
	{"Access-Control-Allow-Headers", "authorization, x-client-info, apikey, content-type"},
	{"Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS"},
}

// Serve dispatches on the method and maps every failure to the
// {"error": message} body in one place.
func (h *Handler) Serve(c echo.Context) error {
	w := c.Response().Header()
	for _, kv := range corsHeaders {
		w.Set(kv[0], kv[1])
	}
	ctx := c.Request().Context()
	var (
		body any
		err  error
	)
	switch c.Request().Method {
	case http.MethodOptions:
		w.Set("Content-Type", "text/plain;charset=UTF-8")
		return c.String(http.StatusOK, "ok")
	case http.MethodGet:
		body, err = h.list(ctx, c.Request())
	case http.MethodPost:
		body, err = h.create(ctx, c.Request())
	case http.MethodDelete:
		body, err = h.revoke(ctx, c.Request())
	default:
		err = apierror.New(http.StatusMethodNotAllowed, apierror.ReasonMethodNotAllow, "Method not allowed")
	}
	if err != nil {
		e := apierror.As(err)
		if e.IsServerFault() {
			h.opts.Logger.ErrorContext(ctx, "mcp-tokens request failed", "status", e.Status, "error", e.Message, "cause", e.Err)
		}
		body = jsjson.NewObject(1).Set("error", e.Message)
		return writeJSON(c, e.Status, body)
	}
	return writeJSON(c, http.StatusOK, body)
}

// writeJSON writes v as JSON.stringify would, with the original's bare
// application/json content type.
func writeJSON(c echo.Context, status int, v any) error {
	data, err := jsjson.Marshal(v)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Type", "application/json")
	c.Response().WriteHeader(status)
	_, err = c.Response().Write(data)
	return err
}

var (
	errMissingAuth  = apierror.Unauthorized(apierror.ReasonMissing, "Missing Authorization header")
	errUnauthorized = apierror.Unauthorized(apierror.ReasonInvalid, "Unauthorized")
	errNotStaff     = apierror.New(http.StatusForbidden, apierror.ReasonForbidden, "MCP tokens are only available to instructors and graders")
	errBodyTooLarge = apierror.New(http.StatusRequestEntityTooLarge, apierror.ReasonTooLarge, "Request body too large")
	errInvalidJSON  = apierror.New(http.StatusBadRequest, apierror.ReasonBadRequest, "Request body must be valid JSON")
	errNotObject    = apierror.New(http.StatusBadRequest, apierror.ReasonBadRequest, "Request body must be a JSON object")
)

func badRequest(msg string) error {
	return apierror.New(http.StatusBadRequest, apierror.ReasonBadRequest, msg)
}

// readBody parses a JSON object body. The original answers 500 with the
// parser's text for invalid JSON and a TypeError for null; both are the
// client's fault, so this answers 400 (docs/compatibility.md).
func (h *Handler) readBody(r *http.Request) (*jsjson.Object, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, h.opts.MaxBodyBytes+1))
	if err != nil {
		return nil, apierror.New(http.StatusBadRequest, apierror.ReasonBadRequest, "Could not read request body").WithCause(err)
	}
	if int64(len(data)) > h.opts.MaxBodyBytes {
		return nil, errBodyTooLarge
	}
	v, err := jsjson.Decode(data)
	if err != nil {
		return nil, errInvalidJSON.WithCause(err)
	}
	obj, ok := v.(*jsjson.Object)
	if !ok || obj == nil {
		return nil, errNotObject
	}
	return obj, nil
}

// caller is an authenticated web user with a client acting as them.
type caller struct {
	userID string
	db     *userclient.Client
}

// authenticate follows docs/contract/protocol.md B2: the token is the header with its
// first "Bearer " removed, confirmed by Supabase Auth.
func (h *Handler) authenticate(ctx context.Context, r *http.Request) (*caller, error) {
	values := r.Header.Values("Authorization")
	if len(values) > 1 {
		// Two credentials are ambiguous and must never be resolved to one
		// of them. The original's runtime joins them with ", " and Auth
		// refuses the result, so this is also the original's answer.
		return nil, errUnauthorized
	}
	header := ""
	if len(values) == 1 {
		header = values[0]
	}
	if header == "" {
		return nil, errMissingAuth
	}
	token := strings.Replace(header, "Bearer ", "", 1)
	if token == "" {
		// supabase-js does not even ask Auth about an empty token.
		return nil, errUnauthorized
	}
	user, err := h.opts.Users.GetUser(ctx, token)
	if err != nil {
		// Auth being down or misconfigured is the server's fault (503/500);
		// anything else means the session was refused.
		var e *apierror.Error
		if errors.As(err, &e) && e.IsServerFault() {
			return nil, e
		}
		return nil, errUnauthorized.WithCause(err)
	}
	if user == nil || user.ID == "" {
		return nil, errUnauthorized
	}
	db := h.opts.ForSession(user.ID, token)
	if db == nil {
		// No PostgREST URL configured: supabase-js's own message, as B8 says.
		return nil, apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, "supabaseUrl is required.")
	}
	return &caller{userID: user.ID, db: db}, nil
}
