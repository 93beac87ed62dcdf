package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/metrics"
	"github.com/pawtograder/mcp-gateway/gateway/oauthserver"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// buildApprovals builds the write tools' approval service when
// GATEWAY_WRITE_TOOLS=on (docs/writes.md), else nil: the catalogue then
// has no write tools and no approval page is mounted. Its store keeps the
// pending actions through the service-role client (serviceDB); the
// approved write runs as the approving user through users, so row-level
// security decides, in one transaction with the decision and its record.
func buildApprovals(cfg config.Config, log, audit *slog.Logger, up upstreams, users *userclient.Factory, m *metrics.Metrics) (*approval.Service, error) {
	if !cfg.WriteTools {
		return nil, nil
	}
	svc, err := serviceDB(cfg, up)
	if err != nil {
		return nil, err
	}
	anonKey := cfg.SupabaseAnonKey
	if cfg.AuthDirect {
		anonKey = "" // GoTrue itself ignores apikey; only Kong checks it
	}
	publicAuth := cfg.OAuthIssuer
	if publicAuth == "" {
		publicAuth = up.authURL
	}
	return approval.New(approval.Options{
		BaseURL: strings.TrimRight(cfg.PublicURL.String(), "/") + "/functions/v1/" + slugMCPServer,
		Store:   approval.NewPostgRESTStore(svc),
		Approver: func(ctx context.Context, userID, actionID string) (approval.RPC, error) {
			return users.ForApproval(ctx, userID, actionID)
		},
		MaxPending:    cfg.WriteMaxPending,
		Retention:     cfg.WriteRetention,
		Secrets:       cfg.OAuthServer.Secrets,
		AuthURL:       up.authURL,
		AuthPublicURL: publicAuth,
		AnonKey:       anonKey,
		Providers:     cfg.OAuthServer.Providers,
		HTTPClient:    up.auth,
		ClientAddress: oauthserver.ClientAddress(cfg.OAuthServer.TrustedProxies),
		Logger:        log,
		Audit:         audit,
		Metrics:       m.Registry(),
	})
}

// toolOptions are the registry's options; approvals, when set, adds the
// write tools.
func toolOptions(repos *repofiles.Client, log *slog.Logger, approvals *approval.Service) tools.Options {
	opts := tools.Options{Repos: repos, Logger: log}
	if approvals != nil {
		opts.Approvals = approvals
	}
	return opts
}

// writeToolNames are the write tools' metric labels when they are on.
func writeToolNames(cfg config.Config) []string {
	if !cfg.WriteTools {
		return nil
	}
	return tools.WriteNames()
}
