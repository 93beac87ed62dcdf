package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/activitypages"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/activityrecord"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/calllimit"
	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// recorderCloseTimeout bounds the last flush of the activity record at
// shutdown, after the last request has finished.
const recorderCloseTimeout = 10 * time.Second

// buildCallHooks builds what watches mcp-server's tool calls
// (docs/activity.md): the per-connection limit when
// GATEWAY_TOOL_CALLS_PER_MINUTE is not 0, and the activity record when
// GATEWAY_ACTIVITY_RECORD=on, whose batches go through the service-role
// client of the auth layer (serviceDB) from a worker no tool handler
// reaches. The record's purge runs in the background and its queue is
// written out when the gateway closes. nil when nothing watches.
func buildCallHooks(cfg config.Config, log *slog.Logger, up upstreams, w *wiring) (toolcall.Hook, *activityrecord.Recorder, error) {
	var hooks toolcall.Hooks
	if cfg.ToolCallsPerMinute > 0 {
		lim, err := calllimit.New(calllimit.Options{PerMinute: cfg.ToolCallsPerMinute, Metrics: w.metrics.Registry()})
		if err != nil {
			return nil, nil, err
		}
		hooks = append(hooks, lim)
	}
	var rec *activityrecord.Recorder
	if cfg.ActivityRecord {
		svc, err := serviceDB(cfg, up)
		if err != nil {
			return nil, nil, err
		}
		rec, err = activityrecord.New(activityrecord.Options{Store: activityrecord.NewPostgRESTStore(svc),
			Retention: cfg.ActivityRetention, StudentTools: studentTools(), Logger: log, Metrics: w.metrics.Registry()})
		if err != nil {
			return nil, nil, err
		}
		hooks = append(hooks, rec)
		w.background = append(w.background, rec.RunPurge)
		closeRest := w.close
		w.close = func() {
			ctx, cancel := context.WithTimeout(context.Background(), recorderCloseTimeout)
			defer cancel()
			if err := rec.Close(ctx); err != nil {
				log.Warn("activity record: rows still queued at shutdown were not written", "error", err.Error())
			}
			if closeRest != nil {
				closeRest()
			}
		}
	}
	if len(hooks) == 0 {
		return nil, rec, nil
	}
	return hooks, rec, nil
}

// buildActivityPages sets up the Connections and class activity pages
// when GATEWAY_ACTIVITY_RECORD=on (docs/activity.md): signed in through
// the project's Supabase Auth, reading as the person through users.
func buildActivityPages(cfg config.Config, log *slog.Logger, up upstreams, users *userclient.Factory, w *wiring) error {
	if !cfg.ActivityRecord {
		return nil
	}
	anonKey := cfg.SupabaseAnonKey
	if cfg.AuthDirect {
		anonKey = "" // GoTrue itself ignores apikey; only Kong checks it
	}
	publicAuth := cfg.OAuthIssuer
	if publicAuth == "" {
		publicAuth = up.authURL
	}
	pages, err := activitypages.New(activitypages.Options{
		BaseURL:       strings.TrimRight(cfg.PublicURL.String(), "/") + "/functions/v1/" + slugMCPServer,
		Users:         users,
		Secrets:       cfg.OAuthServer.Secrets,
		AuthURL:       up.authURL,
		AuthPublicURL: publicAuth,
		AnonKey:       anonKey,
		Providers:     cfg.OAuthServer.Providers,
		HTTPClient:    up.auth,
		Logger:        log,
	})
	if err != nil {
		return err
	}
	w.pages = pages.Register
	return nil
}

// studentTools are the read tools whose output schema names a
// student_profile_id: the only answers the activity record reads for
// students (a write tool answers with a proposal, not a student's record).
func studentTools() map[string]bool {
	out := map[string]bool{}
	for _, t := range tools.New(tools.Options{}).Tools() {
		if t.OutputSchema == nil {
			continue
		}
		if b, err := jsjson.Marshal(t.OutputSchema); err == nil && bytes.Contains(b, []byte(`"student_profile_id"`)) {
			out[t.Name] = true
		}
	}
	return out
}
