package mcpauth

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// ServiceClientOptions configures ServiceClient.
type ServiceClientOptions struct {
	// RestURL is <SUPABASE_URL>/rest/v1.
	RestURL string
	// ServiceRoleKey is SUPABASE_SERVICE_ROLE_KEY.
	ServiceRoleKey string
	// DirectUpstream says RestURL is PostgREST itself: no apikey header.
	DirectUpstream bool
	HTTPClient     *http.Client
}

// ServiceClient is a PostgREST client with the service role. It is built
// here, where the key lives, for the parts of the authentication layer
// that keep tables closed to every other role (the OAuth server's grants,
// the write tools' pending actions): they are handed the client and never
// see the key. Responses are bounded to 1 MiB: each is a row or a few.
func ServiceClient(opts ServiceClientOptions) (*postgrest.Client, error) {
	if opts.RestURL == "" || opts.ServiceRoleKey == "" {
		return nil, errors.New("mcpauth: the service-role client needs SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY")
	}
	c, err := postgrest.New(postgrest.Options{
		BaseURL:      opts.RestURL,
		APIKey:       directless(opts.ServiceRoleKey, opts.DirectUpstream),
		HTTPClient:   opts.HTTPClient,
		MaxBodyBytes: serviceMaxBody,
	})
	if err != nil {
		return nil, fmt.Errorf("mcpauth: %w", err)
	}
	// supabase-js sends the service key both as apikey and as bearer.
	return c.WithBearer(opts.ServiceRoleKey), nil
}
