package main

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/oauthserver"
)

// oauthPrefix is where the authorization server lives inside mcp-server's
// path: behind Supabase's API gateway only /functions/v1/… reaches us.
const oauthPrefix = "/oauth"

// buildOAuthServer builds the gateway's own authorization server
// (GATEWAY_OAUTH_SERVER=gateway). config.Load has already checked that
// everything it needs is set.
func buildOAuthServer(cfg config.Config, log *slog.Logger, resource string, up upstreams) (*oauthserver.Server, error) {
	issuer := strings.TrimRight(cfg.PublicURL.String(), "/") + "/functions/v1/" + slugMCPServer + oauthPrefix
	if cfg.IssuerURL != "" && strings.TrimRight(cfg.IssuerURL, "/") == issuer {
		return nil, fmt.Errorf("GATEWAY_ISSUER_URL must not be %s, where the OAuth authorization server lives (GATEWAY_OAUTH_SERVER=gateway); use another path such as …/%s/oidc", issuer, slugMCPServer)
	}
	svc, err := serviceDB(cfg, up)
	if err != nil {
		return nil, err
	}
	anonKey := cfg.SupabaseAnonKey
	if cfg.AuthDirect {
		anonKey = "" // GoTrue itself ignores apikey; only Kong checks it
	}
	publicAuth := cfg.OAuthIssuer // where browsers reach Supabase Auth (default: GATEWAY_AUTH_URL)
	if publicAuth == "" {
		publicAuth = up.authURL
	}
	return oauthserver.New(oauthserver.Options{
		Issuer:        issuer,
		ResourceURL:   resource,
		Secrets:       cfg.OAuthServer.Secrets,
		AuthURL:       up.authURL,
		AuthPublicURL: publicAuth,
		AnonKey:       anonKey,
		Providers:     cfg.OAuthServer.Providers,
		Store:         oauthserver.NewPostgRESTStore(svc),
		Mint: func(sub string, scopes []string, id string, days float64, now time.Time) (string, error) {
			return mcpauth.MintAPIToken(cfg.MCPJWTSecret, sub, scopes, id, days, now)
		},
		Verify: func(token string, now time.Time) (string, error) {
			c, err := mcpauth.VerifyAPIToken(cfg.MCPJWTSecret, token, now)
			if err != nil {
				return "", err
			}
			return c.TokenID, nil
		},
		HTTPClient:       up.auth,
		TrustedProxies:   cfg.OAuthServer.TrustedProxies,
		AllowPrivateCIMD: cfg.OAuthServer.CIMDAllowPrivate,
		AccessTokenTTL:   cfg.OAuthServer.AccessTokenTTL,
		Logger:           log,
	})
}
