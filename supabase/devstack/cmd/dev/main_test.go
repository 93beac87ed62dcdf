package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/supabase/devstack/dbsetup"
	"github.com/pawtograder/mcp-gateway/supabase/devstack/gotruestandin"
	"github.com/pawtograder/mcp-gateway/supabase/devstack/pgcluster"
)

// TestServeExistingDatabase prepares a database the way a maintainer would
// (schema, auth.sessions, the gateway's migrations and data loaded
// separately), points the dev command at it with -database-url, and calls a
// tool through the gateway it starts with the printed demo token. On exit
// the database must still hold its data, minus the demo token's row and the
// demo session.
func TestServeExistingDatabase(t *testing.T) {
	cluster := pgcluster.StartForTest(t)
	ctx := context.Background()
	if err := cluster.CreateDatabase(ctx, "existing"); err != nil {
		t.Fatal(err)
	}
	url := cluster.SuperuserURL("existing")
	if err := dbsetup.ApplyAll(ctx, url); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, gotruestandin.SchemaSQL); err != nil {
		t.Fatal(err)
	}

	envFile := filepath.Join(t.TempDir(), "env")
	dev, err := startDev(ctx, flags{gatewayBin: gatewayBinary(t), envFile: envFile, databaseURL: url})
	if err != nil {
		t.Fatal(err)
	}

	env := readEnv(t, envFile)
	if env["DEMO_CLASS_ID"] != "1" {
		t.Errorf("DEMO_CLASS_ID = %q, want 1 (Alice, the first instructor of the seed)", env["DEMO_CLASS_ID"])
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`
	req, err := http.NewRequest(http.MethodPost, env["GATEWAY_URL"]+"/functions/v1/mcp-server", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+env["DEMO_TOKEN"])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `\"title\": \"Hello World\"`) {
		t.Errorf("get_assignment: status %d, body %s; want 200 with assignment 1 (Hello World)", resp.StatusCode, got)
	}

	if err := dev.stop(); err != nil {
		t.Errorf("dev: %v", err)
	}
	var threads, demoTokens, sessions int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM public.discussion_threads),
		(SELECT count(*) FROM public.api_tokens WHERE name = 'scripts/dev demo'),
		(SELECT count(*) FROM auth.sessions)`).Scan(&threads, &demoTokens, &sessions); err != nil {
		t.Fatal(err)
	}
	if threads != 74 || demoTokens != 0 || sessions != 0 {
		t.Errorf("after exit: %d threads (want 74, the seed), %d demo tokens (want 0), %d sessions (want 0)", threads, demoTokens, sessions)
	}
	if _, err := os.Stat(envFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("env file still there after exit: %v", err)
	}
}

// TestServeExistingDatabaseNamesWhatIsMissing: a database without the
// Supabase pieces is refused with one message naming each of them.
func TestServeExistingDatabaseNamesWhatIsMissing(t *testing.T) {
	cluster := pgcluster.StartForTest(t)
	ctx := context.Background()
	if err := cluster.CreateDatabase(ctx, "bare"); err != nil {
		t.Fatal(err)
	}
	err := run(ctx, slog.New(slog.DiscardHandler), io.Discard, flags{
		gatewayBin: "/nonexistent", envFile: filepath.Join(t.TempDir(), "env"), databaseURL: cluster.SuperuserURL("bare"),
	})
	want := "devstack: dbsetup: the database lacks role anon; role authenticated; role service_role; table auth.users; table auth.sessions (id, user_id); function auth.uid(); " +
		"the gateway's migration (public.api_tokens.last_used_at, public.revoked_token_ids); " +
		"the gateway's OAuth migration (public.mcp_oauth_grants, public.mcp_oauth_codes, public.mcp_oauth_refresh_tokens)"
	if err == nil || err.Error() != want {
		t.Errorf("run on a bare database: %v\nwant: %s", err, want)
	}
}

func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		out[k] = strings.Trim(v, "'")
	}
	return out
}
