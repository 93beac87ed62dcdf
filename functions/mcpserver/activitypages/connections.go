package activitypages

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// connection is one api_tokens row of the person (an mcp_ token or an
// OAuth grant), with its calls.
type connection struct {
	TokenID    string     `json:"token_id"`
	Name       string     `json:"name"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
}

type toolCalls struct {
	Tool  string
	Calls int64
}

type connectionView struct {
	TokenID, Name, Scopes, Created, LastUsed, Expires, CSRF string
	Expired                                                 bool
	Calls                                                   []toolCalls
	Total                                                   int64
}

type pendingView struct{ Tool, Class, Proposed, Expires, URL string }

type connectionsPage struct {
	Title, Account, Action string
	Connections            []connectionView
	Pending                []pendingView
	Other                  []toolCalls // calls of connections no longer listed
}

// maxConnections bounds the rows the page lists.
const maxConnections = 100

// connections serves the person's Connections page.
func (p *Pages) connections(c echo.Context) error {
	a, err := p.signedIn(c, PathConnections)
	if a == nil {
		return err
	}
	ctx := c.Request().Context()
	db, err := p.opts.Users.ForUser(ctx, a.ID)
	if err != nil {
		return p.unavailable(c, "connections", err)
	}
	page, err := p.connectionsData(ctx, db, a)
	if err != nil {
		return p.unavailable(c, "connections", err)
	}
	return p.render(c, http.StatusOK, "connections", page)
}

// connectionsData reads the three parts of the page as the person.
func (p *Pages) connectionsData(ctx context.Context, db *userclient.Client, a *account) (*connectionsPage, error) {
	now := p.opts.Now()
	raw, err := db.From("api_tokens").Select("token_id,name,scopes,created_at,last_used_at,expires_at").
		Eq("user_id", a.ID).Is("revoked_at", "null").Order("created_at", false).Limit(maxConnections).Rows(ctx)
	if err != nil {
		return nil, err
	}
	var conns []connection
	if err := json.Unmarshal(raw, &conns); err != nil {
		return nil, err
	}
	calls, err := myCalls(ctx, db, now.Add(-7*24*time.Hour))
	if err != nil {
		return nil, err
	}
	page := &connectionsPage{Title: "Your connections", Account: a.who(), Action: p.opts.BaseURL + pathRevoke}
	for _, cn := range conns {
		page.Connections = append(page.Connections, p.connectionView(cn, calls[cn.TokenID], a.ID, now))
		delete(calls, cn.TokenID)
	}
	for _, rest := range calls {
		page.Other = append(page.Other, rest...)
	}
	page.Pending, err = p.pending(ctx, db)
	return page, err
}

func (p *Pages) connectionView(cn connection, calls []toolCalls, userID string, now time.Time) connectionView {
	v := connectionView{TokenID: cn.TokenID, Name: cn.Name, Scopes: strings.Join(cn.Scopes, " "), Created: stamp(cn.CreatedAt),
		LastUsed: "never", Expires: day(cn.ExpiresAt), Expired: !cn.ExpiresAt.After(now), Calls: calls,
		CSRF: p.csrf.Sign("revoke|" + userID + "|" + cn.TokenID)}
	if cn.LastUsedAt != nil {
		v.LastUsed = stamp(*cn.LastUsedAt)
	}
	for _, tc := range calls {
		v.Total += tc.Calls
	}
	return v
}

// myCalls is mcp_activity_mine: the person's calls since since, per
// connection ("" for a credential without a token) and tool.
func myCalls(ctx context.Context, db *userclient.Client, since time.Time) (map[string][]toolCalls, error) {
	raw, err := db.RPC(ctx, "mcp_activity_mine", map[string]any{"p_since": since.UTC().Format(time.RFC3339)})
	if err != nil {
		return nil, err
	}
	var rows []struct {
		TokenID *string `json:"token_id"`
		Tool    string  `json:"tool"`
		Calls   int64   `json:"calls"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, err
	}
	out := map[string][]toolCalls{}
	for _, r := range rows {
		id := ""
		if r.TokenID != nil {
			id = *r.TokenID
		}
		out[id] = append(out[id], toolCalls{Tool: r.Tool, Calls: r.Calls})
	}
	for _, list := range out {
		sort.Slice(list, func(i, j int) bool {
			return list[i].Calls > list[j].Calls || list[i].Calls == list[j].Calls && list[i].Tool < list[j].Tool
		})
	}
	return out, nil
}

// pending is mcp_activity_my_pending: the person's proposals waiting.
func (p *Pages) pending(ctx context.Context, db *userclient.Client) ([]pendingView, error) {
	raw, err := db.RPC(ctx, "mcp_activity_my_pending", map[string]any{})
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ID        string    `json:"id"`
		ClassID   int64     `json:"class_id"`
		Tool      string    `json:"tool"`
		CreatedAt time.Time `json:"created_at"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, err
	}
	var out []pendingView
	for _, r := range rows {
		out = append(out, pendingView{Tool: r.Tool, Class: itoa(r.ClassID), Proposed: stamp(r.CreatedAt),
			Expires: stamp(r.ExpiresAt), URL: p.opts.BaseURL + "/approve/" + r.ID})
	}
	return out, nil
}
