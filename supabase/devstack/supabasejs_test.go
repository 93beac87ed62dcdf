package devstack

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestSupabaseJS drives the stack through the official @supabase/supabase-js
// client (pinned in postgreststandin/testdata/supabasejs/package.json) with the
// queries the original functions make, and pins the results.
func TestSupabaseJS(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the supabase-js check in -short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the supabase-js compatibility check needs Node.js and npm (scripts/install-deps installs them)")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("npm is not on PATH: the supabase-js compatibility check needs Node.js and npm (scripts/install-deps installs them)")
	}
	dir := filepath.Join("postgreststandin", "testdata", "supabasejs")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@supabase", "supabase-js")); err != nil {
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	t.Cleanup(func() {
		if _, err := stack.superPool.Exec(context.Background(), `DELETE FROM public.revoked_token_ids WHERE token_id = 'supabasejs-check-jti';
			DELETE FROM public.api_tokens WHERE token_id = 'supabasejs-check-jti'`); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	tok, _, err := stack.SignIn(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, "check.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SUPABASE_URL="+stack.URL, "SUPABASE_ANON_KEY="+stack.AnonKey, "USER_TOKEN="+tok)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node check.mjs: %v\n%s", err, stderr.String())
	}
	golden(t, "supabasejs.golden", stdout.String())
}
