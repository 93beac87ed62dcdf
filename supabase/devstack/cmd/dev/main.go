// Command dev runs the whole local development environment behind
// scripts/dev: the local Supabase stack (PostgreSQL with the Pawtograder
// schema and seed, the REST API and Auth), the gateway wired to it with
// freshly generated secrets, an mcp_ token and a session token (a Supabase
// access token) for a seeded instructor. It prints the URLs, the tokens, the
// commands that try them (in the order they are pasted) and ready-to-paste
// client configurations, writes KEY=VALUE settings to .dev/env, and on
// SIGINT or SIGTERM stops everything and removes its temporary data.
//
// With -database-url (or DEV_DATABASE_URL) it serves an existing database
// instead of a new one: no cluster, no fixtures, no seed; the REST and Auth
// stand-ins and the gateway run over it. The tokens then belong to the
// first active instructor (or -demo-user), and the demo token's api_tokens
// row and the session's auth.sessions row are deleted again on exit.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/gateway/clientconfig"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/supabase/devstack"
)

type flags struct {
	gatewayBin  string
	stackPort   int
	gatewayPort int
	envFile     string
	databaseURL string
	demoUser    string
}

func main() {
	var f flags
	flag.StringVar(&f.gatewayBin, "gateway-bin", "", "path of the built gateway binary (required)")
	flag.IntVar(&f.stackPort, "stack-port", envInt("DEV_STACK_PORT", 54321), "port of the local Supabase stack (a free one if taken)")
	flag.IntVar(&f.gatewayPort, "gateway-port", envInt("DEV_GATEWAY_PORT", 9000), "port of the gateway (a free one if taken)")
	flag.StringVar(&f.envFile, "env-file", filepath.Join(".dev", "env"), "where to write KEY=VALUE settings")
	flag.StringVar(&f.databaseURL, "database-url", os.Getenv("DEV_DATABASE_URL"), "serve this existing database (no cluster, no fixtures, no seed)")
	flag.StringVar(&f.demoUser, "demo-user", "", "user id of the demo token (default: the first active instructor)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, logger, os.Stdout, f); err != nil {
		fmt.Fprintln(os.Stderr, "dev:", err)
		os.Exit(1)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func randomSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func run(ctx context.Context, logger *slog.Logger, out io.Writer, f flags) (err error) {
	if f.gatewayBin == "" {
		return errors.New("-gateway-bin is required (scripts/dev builds it)")
	}
	if f.databaseURL == "" {
		fmt.Fprintln(out, "Starting PostgreSQL and the local Supabase stack…")
	} else {
		fmt.Fprintln(out, "Starting the local Supabase stack over the existing database…")
	}
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	stack, err := devstack.Start(startCtx, devstack.Options{Port: portOrFree(f.stackPort), Logger: logger, DatabaseURL: f.databaseURL})
	cancel()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stack.Close()) }()
	demo, err := findDemoUser(ctx, stack.DatabaseURL, f.demoUser)
	if err != nil {
		return err
	}

	mcpSecret := randomSecret()
	oauthSecret := randomSecret()
	gw, err := startGateway(ctx, f.gatewayBin, f.gatewayPort, func(url, listen string) []string {
		return append(os.Environ(),
			"SUPABASE_URL="+stack.URL,
			"SUPABASE_ANON_KEY="+stack.AnonKey,
			"SUPABASE_SERVICE_ROLE_KEY="+stack.ServiceRoleKey,
			"MCP_JWT_SECRET="+mcpSecret,
			"JWT_SECRET="+stack.GatewaySigningJWK,
			"EDGE_FUNCTIONS_URL="+url,
			"GATEWAY_PUBLIC_URL="+url,
			"GATEWAY_LISTEN_ADDR="+listen,
			"GATEWAY_LOG_FORMAT=text",
			// The gateway's own OAuth server, so any OAuth MCP client
			// connects with the URL alone (docs/oauth.md); an explicit
			// GATEWAY_OAUTH_SERVER in the caller's environment wins.
			"GATEWAY_OAUTH_SECRET="+oauthSecret,
			"GATEWAY_OAUTH_PROVIDERS="+envOr("GATEWAY_OAUTH_PROVIDERS", "github"),
		)
	})
	if err != nil {
		return err
	}
	defer gw.stop()
	gatewayURL := gw.url

	token, tokenID, err := mintDemoToken(ctx, stack.DatabaseURL, demo.userID, mcpSecret)
	if err != nil {
		return err
	}
	if f.databaseURL != "" {
		// Not a throwaway database: take the demo token's row away again.
		defer func() { err = errors.Join(err, deleteDemoToken(stack.DatabaseURL, tokenID)) }()
	}
	// What the web app holds after signing in: a Supabase access token
	// naming a real session, which mcp-tokens requires.
	session, sessionID, err := stack.SignIn(ctx, demo.userID, devstack.WithExpiry(sessionTTL))
	if err != nil {
		return fmt.Errorf("signing in the demo instructor: %w", err)
	}
	if f.databaseURL != "" {
		defer func() { err = errors.Join(err, stack.DeleteSession(context.Background(), sessionID)) }()
	}
	envFile, err := filepath.Abs(f.envFile)
	if err != nil {
		return err
	}
	settings := [][2]string{
		{"GATEWAY_URL", gatewayURL},
		{"SUPABASE_URL", stack.URL},
		{"DATABASE_URL", stack.DatabaseURL},
		{"SUPABASE_ANON_KEY", stack.AnonKey},
		{"SUPABASE_SERVICE_ROLE_KEY", stack.ServiceRoleKey},
		{"MCP_JWT_SECRET", mcpSecret},
		{"GATEWAY_OAUTH_SECRET", oauthSecret},
		{"JWT_SECRET", stack.GatewaySigningJWK},
		{"DEMO_TOKEN", token},
		{"SESSION_TOKEN", session},
		{"DEMO_CLASS_ID", demo.classID},
	}
	if err := writeEnv(envFile, settings); err != nil {
		return err
	}
	defer os.Remove(envFile)
	endpoint := gatewayURL + "/functions/v1/mcp-server"
	cfg, err := clientconfig.Render(clientconfig.Options{URL: endpoint, Token: token})
	if err != nil {
		return err
	}
	major, nodeErr := nodeMajor()
	fmt.Fprint(out, banner(bannerInfo{
		gatewayURL: gatewayURL, stackURL: stack.URL, restURL: stack.RestURL, authURL: stack.AuthURL,
		envFile: envFile, demo: demo, token: token, session: session,
		inspector: inspectorCommand(endpoint, major, nodeErr), clientConfig: withoutInspector(cfg),
	}))

	select {
	case <-ctx.Done():
		fmt.Fprintln(out, "\nStopping…")
		return nil
	case err := <-gw.exited:
		gw.exited <- err // let the deferred stop see it
		return fmt.Errorf("the gateway exited: %v", err)
	}
}

// demoUser is whom the demo token acts for: an instructor, one of their
// classes and an assignment there for the example call.
type demoUser struct {
	userID, email, classID, assignmentID string
}

// findDemoUser picks the demo instructor: userID when given, else the first
// active instructor enrolment (in the seed: Alice, class 1, fixtures/SEED.md).
func findDemoUser(ctx context.Context, databaseURL, userID string) (demoUser, error) {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return demoUser{}, err
	}
	defer conn.Close(ctx)
	var d demoUser
	err = conn.QueryRow(ctx, `
SELECT ur.user_id::text, coalesce(u.email, ''), ur.class_id::text,
       coalesce((SELECT min(a.id)::text FROM public.assignments a WHERE a.class_id = ur.class_id), '1')
  FROM public.user_roles ur LEFT JOIN auth.users u ON u.id = ur.user_id
 WHERE ur.role = 'instructor' AND NOT ur.disabled AND ($1 = '' OR ur.user_id::text = $1)
 ORDER BY ur.id
 LIMIT 1`, userID).Scan(&d.userID, &d.email, &d.classID, &d.assignmentID)
	if errors.Is(err, pgx.ErrNoRows) {
		if userID != "" {
			return demoUser{}, fmt.Errorf("-demo-user %s is not an active instructor in user_roles", userID)
		}
		return demoUser{}, errors.New("no active instructor in user_roles for the demo token (pass -demo-user)")
	}
	if err != nil {
		return demoUser{}, fmt.Errorf("finding the demo instructor: %w", err)
	}
	return d, nil
}

// mintDemoToken issues an mcp_ token for userID and records it in
// api_tokens, as mcp-tokens would, so it also shows in the token list. It
// returns the token and its id (jti).
func mintDemoToken(ctx context.Context, databaseURL, userID, secret string) (string, string, error) {
	id := uuid.NewString()
	now := time.Now()
	token, err := mcpauth.MintAPIToken(secret, userID, []string{"mcp:read", "mcp:write"}, id, 90, now)
	if err != nil {
		return "", "", err
	}
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `insert into public.api_tokens (user_id, name, token_id, scopes, expires_at)
		values ($1, 'scripts/dev demo', $2, $3, $4)`, userID, id, []string{"mcp:read", "mcp:write"}, now.Add(90*24*time.Hour))
	if err != nil {
		return "", "", fmt.Errorf("recording the demo token: %w", err)
	}
	return token, id, nil
}

// deleteDemoToken removes the demo token's api_tokens row (the token stops
// working with it).
func deleteDemoToken(databaseURL, tokenID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("removing the demo token: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `delete from public.api_tokens where token_id = $1`, tokenID); err != nil {
		return fmt.Errorf("removing the demo token: %w", err)
	}
	return nil
}

func writeEnv(path string, kv [][2]string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var b strings.Builder
	for _, p := range kv {
		fmt.Fprintf(&b, "%s=%s\n", p[0], shellQuote(p[1]))
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// shellQuote makes a value safe to source from a shell.
func shellQuote(v string) string {
	if v != "" && strings.IndexFunc(v, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '@' || r == '?' || r == '=' || r == '&' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
