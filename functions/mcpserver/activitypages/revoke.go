package activitypages

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// revoke revokes one of the person's connections the way mcp-tokens'
// DELETE does: find the row by token id among the person's own, then set
// revoked_at as the person; the table's trigger writes the revocation in
// the same transaction, so every replica refuses the token from then on.
func (p *Pages) revoke(c echo.Context) error {
	s := p.readSession(c)
	if s.User == nil {
		return p.message(c, http.StatusForbidden, "Sign in first", "This request did not come from a signed-in Connections page, so nothing was revoked.", "Open your Connections page again.")
	}
	tokenID := c.FormValue("token_id")
	if len(tokenID) > 200 || !p.csrf.Verify("revoke|"+s.User.ID+"|"+tokenID, c.FormValue("csrf_token")) {
		return p.message(c, http.StatusForbidden, "Nothing was revoked", "This request did not come from your Connections page.", "Open your Connections page again.")
	}
	ctx := c.Request().Context()
	db, err := p.opts.Users.ForUser(ctx, s.User.ID)
	if err != nil {
		return p.unavailable(c, "connections", err)
	}
	raw, err := db.From("api_tokens").Select("id,name").Eq("token_id", tokenID).Eq("user_id", s.User.ID).MaybeSingle(ctx)
	var row struct{ ID, Name string }
	if err == nil && raw != nil {
		err = json.Unmarshal(raw, &row)
	}
	if err != nil {
		return p.failedRevoke(c, err)
	}
	if raw == nil {
		return p.message(c, http.StatusNotFound, "No such connection", "This connection is not one of yours, so nothing was revoked.", "Open your Connections page again.")
	}
	patch, _ := jsjson.Marshal(jsjson.NewObject(1).Set("revoked_at", p.opts.Now().UTC().Format("2006-01-02T15:04:05.000Z")))
	if _, err := db.From("api_tokens").Eq("id", row.ID).Update(ctx, patch, postgrest.ReturnMinimal); err != nil {
		return p.failedRevoke(c, err)
	}
	p.opts.Logger.InfoContext(ctx, "activitypages: connection revoked", "user_id", s.User.ID, "token_id", tokenID)
	return p.render(c, http.StatusOK, "message", messagePage{Title: "Connection revoked",
		Text: "“" + row.Name + "” is revoked: its assistant can no longer call Pawtograder, from now on and on every server.",
		Hint: "An assistant you still want to use needs a new connection.", Back: p.opts.BaseURL + PathConnections})
}

func (p *Pages) failedRevoke(c echo.Context, err error) error {
	p.opts.Logger.ErrorContext(c.Request().Context(), "activitypages: revoking failed", "error", err.Error())
	return p.message(c, http.StatusServiceUnavailable, "Nothing was revoked", "Pawtograder could not revoke this connection just now; it still works.", "Try again in a few minutes.")
}
