package mcptokens

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

const (
	msgCreated = "Token created successfully. Save this token - it will only be shown once!"
	msgRevoked = "Token revoked successfully"
)

// unavailable formats docs/contract/protocol.md B3's UpstreamUnavailable error with the
// cause sanitised as docs/compatibility.md A6 promises: a PostgREST
// error's message with its code, `fetch failed`, `request timed out` or
// {"status":N} — never Go's transport text, which names the internal URL,
// the user id in its query and the addresses of both ends.
func unavailable(operation string, err error) error {
	return mcpauth.UpstreamUnavailable(operation, err)
}

// requireStaff is docs/contract/protocol.md B3, run under the caller's own JWT.
func (h *Handler) requireStaff(ctx context.Context, c *caller) error {
	rows, err := c.db.From("user_roles").
		Select("class_id,role").
		Eq("user_id", c.userID).
		Eq("disabled", "false").
		Filter("role", "in", "(instructor,grader)").
		Limit(1).
		Rows(ctx)
	if err != nil {
		return unavailable("Role lookup", err)
	}
	list, err := decodeArray(rows)
	if err != nil {
		return unavailable("Role lookup", err)
	}
	if len(list) == 0 {
		return errNotStaff
	}
	return nil
}

func decodeArray(raw []byte) ([]any, error) {
	v, err := jsjson.Decode(raw)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("mcptokens: expected a JSON array from PostgREST")
	}
	return list, nil
}

// list is GET (docs/contract/protocol.md B5).
func (h *Handler) list(ctx context.Context, r *http.Request) (any, error) {
	c, err := h.authenticate(ctx, r)
	if err != nil {
		return nil, err
	}
	if err := h.requireStaff(ctx, c); err != nil {
		return nil, err
	}
	raw, err := c.db.From("api_tokens").
		Select("id,token_id,name,scopes,expires_at,revoked_at,created_at,last_used_at").
		Eq("user_id", c.userID).
		Order("created_at", false).
		Rows(ctx)
	if err != nil {
		return nil, apierror.Internal("Failed to fetch tokens", err)
	}
	tokens, err := decodeArray(raw)
	if err != nil {
		return nil, apierror.Internal("Failed to fetch tokens", err)
	}
	return jsjson.NewObject(1).Set("tokens", tokens), nil
}

// create is POST (docs/contract/protocol.md B4).
func (h *Handler) create(ctx context.Context, r *http.Request) (any, error) {
	body, err := h.readBody(r)
	if err != nil {
		return nil, err
	}
	c, err := h.authenticate(ctx, r)
	if err != nil {
		return nil, err
	}
	if err := h.requireStaff(ctx, c); err != nil {
		return nil, err
	}
	req, msg := validateCreate(body)
	if msg != "" {
		return nil, badRequest(msg)
	}

	tokenID := h.opts.NewID()
	now := h.opts.Now()
	// new Date(ms) truncates a fractional millisecond count.
	expiresMs := now.UnixMilli() + int64(req.Days*86_400_000)
	expiresAt := time.UnixMilli(expiresMs).UTC().Format("2006-01-02T15:04:05.000Z")
	token, err := h.opts.Mint(c.userID, req.Scopes, tokenID, req.Days, now)
	if err != nil {
		// Minting fails only on a missing or short MCP_JWT_SECRET, whose
		// message the original shows the caller with a 500.
		var e *apierror.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, err.Error()).WithCause(err)
	}

	scopes := make([]any, len(req.Scopes))
	for i, s := range req.Scopes {
		scopes[i] = s
	}
	row := jsjson.NewObject(5).
		Set("user_id", c.userID).
		Set("name", req.Name).
		Set("token_id", tokenID).
		Set("scopes", scopes).
		Set("expires_at", expiresAt)
	payload, err := jsjson.Marshal(row)
	if err != nil {
		return nil, apierror.Internal("Failed to create token", err)
	}
	raw, err := c.db.From("api_tokens").
		Select("id,name,scopes,expires_at,created_at").
		Insert(ctx, payload, postgrest.ReturnSingle)
	if err != nil {
		return nil, apierror.Internal("Failed to create token", err)
	}
	metadata, err := jsjson.Decode(raw)
	if err != nil {
		return nil, apierror.Internal("Failed to create token", err)
	}
	return jsjson.NewObject(3).
		Set("token", token).
		Set("metadata", metadata).
		Set("message", msgCreated), nil
}

// revoke is DELETE (docs/contract/protocol.md B6) without the original's
// step 5: the on_api_token_revoked trigger writes revoked_token_ids in the
// transaction of the update, so once the update succeeds the token is
// refused by every verifier, and the original's own insert would only
// fail on the primary key.
func (h *Handler) revoke(ctx context.Context, r *http.Request) (any, error) {
	body, err := h.readBody(r)
	if err != nil {
		return nil, err
	}
	c, err := h.authenticate(ctx, r)
	if err != nil {
		return nil, err
	}
	tokenID, msg := validateRevoke(body)
	if msg != "" {
		return nil, badRequest(msg)
	}
	raw, err := c.db.From("api_tokens").
		Select("id,token_id,user_id").
		Eq("token_id", tokenID).
		Eq("user_id", c.userID).
		MaybeSingle(ctx)
	if err != nil {
		return nil, apierror.Internal("Failed to find token", err)
	}
	if raw == nil {
		return nil, apierror.New(http.StatusNotFound, apierror.ReasonNotFound, "Token not found")
	}
	found, err := jsjson.Decode(raw)
	row, ok := found.(*jsjson.Object)
	if err != nil || !ok {
		return nil, apierror.Internal("Failed to find token", err)
	}
	rowID := jsjson.String(row.Value("id"))

	now := h.opts.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	patch, _ := jsjson.Marshal(jsjson.NewObject(1).Set("revoked_at", now))
	if _, err := c.db.From("api_tokens").Eq("id", rowID).Update(ctx, patch, postgrest.ReturnMinimal); err != nil {
		return nil, apierror.Internal("Failed to revoke token", err)
	}
	return jsjson.NewObject(2).Set("success", true).Set("message", msgRevoked), nil
}
