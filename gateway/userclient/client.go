package userclient

import (
	"context"
	"encoding/json"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// Client reads PostgREST as one user: every request carries the anon key
// and that user's own JWT, so row-level security decides what it sees.
// It is the only data access tool handlers are given.
type Client struct {
	userID string
	rest   *postgrest.Client
}

// NewClient returns a Client for userID that authenticates with token.
// base must be a PostgREST client configured with the anon key.
func NewClient(base *postgrest.Client, userID, token string) *Client {
	return &Client{userID: userID, rest: base.WithBearer(token)}
}

// UserID is the auth user the client acts as.
func (c *Client) UserID() string { return c.userID }

// From starts a query on table as this user.
func (c *Client) From(table string) *postgrest.Query { return c.rest.From(table) }

// ReadRPC calls the SQL function fn, which only reads, as this user
// (postgrest.Client.ReadRPC).
func (c *Client) ReadRPC(ctx context.Context, fn string, args any) (json.RawMessage, error) {
	return c.rest.ReadRPC(ctx, fn, args)
}

// RPC calls the SQL function fn as this user (POST /rpc/<fn>).
func (c *Client) RPC(ctx context.Context, fn string, args any) (json.RawMessage, error) {
	return c.rest.RPC(ctx, fn, args)
}
