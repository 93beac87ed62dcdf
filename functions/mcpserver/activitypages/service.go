package activitypages

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/sealing"
	"github.com/pawtograder/mcp-gateway/gateway/supabasesignin"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// Paths inside mcp-server's group.
const (
	PathConnections = "/connections"
	PathActivity    = "/activity"
	pathRevoke      = PathConnections + "/revoke"
	pathCallback    = PathConnections + "/callback"
)

// Users mints the per-user client the pages read with
// (*userclient.Factory).
type Users interface {
	ForUser(ctx context.Context, userID string) (*userclient.Client, error)
}

// Options configures the pages.
type Options struct {
	// BaseURL is mcp-server's public URL; the pages are BaseURL+Path….
	BaseURL string
	// Users reads as the signed-in person. Required.
	Users Users
	// Secrets are GATEWAY_OAUTH_SECRET's values. Required.
	Secrets []string
	// AuthURL is where the gateway reaches Supabase Auth, AuthPublicURL
	// where browsers do (default AuthURL); AnonKey its apikey.
	AuthURL, AuthPublicURL, AnonKey string
	// Providers are the sign-in options. Default github.
	Providers []string
	// HTTPClient reaches Auth. Default: 10 s timeout.
	HTTPClient *http.Client
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives failures. Default: discard.
	Logger *slog.Logger
}

// Pages serves the Connections and class activity pages.
type Pages struct {
	opts     Options
	supabase supabasesignin.Auth
	cookie   sealing.Keys // the sign-in cookie
	csrf     sealing.Keys // the revoke form's token
	secure   bool
	path     string // mcp-server's URL path, the cookie's
}

// New validates opts.
func New(opts Options) (*Pages, error) {
	var errs []error
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("activitypages: Options.BaseURL must be an absolute http(s) URL (got %q)", opts.BaseURL))
	}
	if opts.Users == nil || opts.AuthURL == "" {
		errs = append(errs, errors.New("activitypages: Options.Users and Options.AuthURL are required"))
	}
	p := &Pages{}
	if err := sealing.DeriveInto(opts.Secrets, "pawtograder-mcp-activity/", map[string]*sealing.Keys{"cookie": &p.cookie, "csrf": &p.csrf}); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	setDefaults(&opts)
	p.opts, p.secure, p.path = opts, u.Scheme == "https", strings.TrimRight(u.Path, "/")
	p.opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	p.supabase = supabasesignin.Auth{URL: opts.AuthURL, PublicURL: opts.AuthPublicURL, AnonKey: opts.AnonKey, HTTP: opts.HTTPClient}
	return p, nil
}

func setDefaults(o *Options) {
	if o.AuthPublicURL == "" {
		o.AuthPublicURL = o.AuthURL
	}
	if len(o.Providers) == 0 {
		o.Providers = []string{"github"}
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Register mounts the pages on mcp-server's group g.
func (p *Pages) Register(g *echo.Group) {
	g.GET(PathConnections, p.connections)
	g.POST(pathRevoke, p.revoke)
	g.GET(pathCallback, p.callback)
	g.GET(PathActivity, p.activity)
}
