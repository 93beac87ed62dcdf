package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway"
	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// readyTimeout bounds one readiness probe: a few seconds, so a replica
// whose database stopped answering leaves the load balancer quickly,
// and never longer than an upstream call may take.
func readyTimeout(cfg config.Config) time.Duration {
	return min(cfg.UpstreamTimeout, gateway.DefaultReadyTimeout)
}

// readiness is /readyz's check: PostgreSQL answers through PostgREST, and
// the database has the gateway's migrations. Without the service role
// (schema is nil) it can only ask whether PostgREST answers at all.
func readiness(cfg config.Config, schema *schemaCheck) func(context.Context) error {
	reachable := postgrestReady(cfg)
	if schema != nil {
		reachable = databaseReady(schema.db)
	}
	return func(ctx context.Context) error {
		if err := reachable(ctx); err != nil {
			return err
		}
		return schema.check(ctx)
	}
}

// databaseReady reads no rows of api_tokens through PostgREST with the
// service role. PostgREST answers that only once PostgreSQL has run the
// query, so a stopped or unreachable database fails readiness; a request
// PostgREST can answer alone (such as a HEAD of its root) would pass
// while every tool call failed. The error texts are shown in /readyz, so
// they name no address or key.
func databaseReady(db *postgrest.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := db.From("api_tokens").Select("*").Limit(0).Rows(ctx)
		var pe *postgrest.Error
		switch {
		case err == nil:
			return nil
		case errors.As(err, &pe) && pe.Status != 0:
			if pe.Status >= 500 {
				return fmt.Errorf("the database did not answer (PostgREST answered %d)", pe.Status)
			}
			return nil // PostgREST and PostgreSQL answered; the schema check says the rest
		case ctx.Err() != nil:
			return errors.New("the database did not answer in time")
		}
		return errors.New("PostgREST is unreachable")
	}
}

// postgrestReady reports ready when PostgREST answers at all (any status
// below 500) within the probe's deadline. The error texts are shown in
// /readyz, so they name no address or key.
func postgrestReady(cfg config.Config) func(context.Context) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 2}}
	return func(ctx context.Context) error {
		if cfg.PostgRESTURL == nil {
			return errors.New("PostgREST is not configured (set SUPABASE_URL or GATEWAY_POSTGREST_URL)")
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, cfg.PostgRESTURL.String()+"/", nil)
		if err != nil {
			return errors.New("PostgREST URL is unusable")
		}
		if cfg.SupabaseAnonKey != "" {
			// Kong refuses requests without an apikey before they reach
			// PostgREST; with it, the probe measures PostgREST itself.
			req.Header.Set("apikey", cfg.SupabaseAnonKey)
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return errors.New("PostgREST did not answer in time")
			}
			return errors.New("PostgREST is unreachable")
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("PostgREST answered %d", resp.StatusCode)
		}
		return nil
	}
}
