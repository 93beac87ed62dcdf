package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

// Defaults for AuthClient.
const (
	// DefaultAuthMaxBody bounds a Supabase Auth /user response.
	DefaultAuthMaxBody = 1 << 20
	// DefaultAuthTimeout bounds one user look-up.
	DefaultAuthTimeout = 10 * time.Second
)

// AuthClient looks up the user behind a Supabase Auth access token, as
// supabase-js auth.getUser(token) does (docs/contract/protocol.md B2 step 3). It is used
// by mcp-tokens and the OAuth path; it holds only the anon key.
type AuthClient struct {
	// AuthURL is GoTrue's base, e.g. <SUPABASE_URL>/auth/v1.
	AuthURL string
	// AnonKey is sent as the apikey header.
	AnonKey string
	// DirectUpstream says AuthURL is GoTrue itself, not Supabase's API
	// gateway, so no apikey header is sent (the key must still be set).
	DirectUpstream bool
	// HTTPClient defaults to a client over http.DefaultTransport.
	HTTPClient *http.Client
	// MaxBodyBytes bounds the response; 0 means DefaultAuthMaxBody.
	MaxBodyBytes int64
	// Timeout bounds one look-up even when the caller's context has no
	// deadline; 0 means DefaultAuthTimeout.
	Timeout time.Duration
}

// SupabaseUser is the part of GoTrue's user object the gateway uses.
type SupabaseUser struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Role  string `json:"role"`
}

// AuthError is a failed user look-up. Status is GoTrue's HTTP status, or 0
// when no answer arrived. Message is the cause as supabase-js would word it
// (GoTrue's msg / message / error_description / error field).
type AuthError struct {
	Status  int
	Message string
	Err     error
}

// Error returns Message.
func (e *AuthError) Error() string { return e.Message }

// Unwrap returns the transport cause, if any.
func (e *AuthError) Unwrap() error { return e.Err }

// Unavailable reports whether the failure is Auth's, not the token's
// (B2 step 4): any status that is not a 4xx, including no answer at all.
func (e *AuthError) Unavailable() bool { return e.Status < 400 || e.Status > 499 }

// Messages of the user look-up path (docs/contract/protocol.md B2, B8).
const (
	MsgAuthUnavailableOp = "Authentication"
	msgNoURL             = "supabaseUrl is required."
	msgNoKey             = "supabaseKey is required."
	msgSessionMissing    = "Auth session missing!"
)

// GetUser returns the user for accessToken. Failures are *apierror.Error:
//
//   - Auth refused the token (a 4xx, an empty token, or a 2xx without a
//     user): 401 "Unauthorized";
//   - Auth unavailable (5xx, network failure, no status): 503
//     "Authentication is temporarily unavailable: <cause>";
//   - AuthURL or AnonKey unset: 500 with supabase-js's own message.
//
// In every case the *AuthError is the Err, for errors.As.
func (c *AuthClient) GetUser(ctx context.Context, accessToken string) (*SupabaseUser, error) {
	switch {
	case c.AuthURL == "":
		return nil, apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, msgNoURL)
	case c.AnonKey == "":
		return nil, apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, msgNoKey)
	}
	if accessToken == "" {
		// supabase-js does not send the request: AuthSessionMissingError, 400.
		return nil, refused(&AuthError{Status: http.StatusBadRequest, Message: msgSessionMissing})
	}
	user, aerr := c.getUser(ctx, accessToken)
	switch {
	case aerr == nil && user.ID != "":
		return user, nil
	case aerr == nil:
		return nil, refused(&AuthError{Status: http.StatusOK, Message: "no user"})
	case aerr.Unavailable():
		return nil, UpstreamUnavailable(MsgAuthUnavailableOp, aerr)
	default:
		return nil, refused(aerr)
	}
}

func refused(cause *AuthError) *apierror.Error {
	return apierror.Unauthorized(apierror.ReasonInvalid, MsgUnauthorized).WithCause(cause)
}

func (c *AuthClient) getUser(ctx context.Context, token string) (*SupabaseUser, *AuthError) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultAuthTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.AuthURL, "/")+"/user", nil)
	if err != nil {
		return nil, &AuthError{Message: transportMessage(err), Err: err}
	}
	if !c.DirectUpstream {
		req.Header.Set("apikey", c.AnonKey)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &AuthError{Message: transportMessage(err), Err: err}
	}
	defer resp.Body.Close()
	limit := c.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultAuthMaxBody
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, &AuthError{Message: transportMessage(err), Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &AuthError{Status: resp.StatusCode, Message: "response too large", Err: errors.New("mcpauth: auth response exceeds limit")}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &AuthError{Status: resp.StatusCode, Message: authErrorMessage(resp.StatusCode, data)}
	}
	var u SupabaseUser
	if err := json.Unmarshal(data, &u); err != nil {
		return nil, &AuthError{Status: resp.StatusCode, Message: err.Error(), Err: err}
	}
	return &u, nil
}

// authErrorMessage picks GoTrue's message the way gotrue-js does
// (msg || message || error_description || error), falling back to
// {"status":N} when the body carries none (B3's example for a 502).
func authErrorMessage(status int, body []byte) string {
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		for _, k := range []string{"msg", "message", "error_description", "error"} {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return `{"status":` + strconv.Itoa(status) + `}`
}
