package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/config"
)

// notProbed are the granted functions the gateway never calls through
// PostgREST, so readiness need not ask for them: each is called inside
// another function that is probed, or its file has objects that are.
var notProbed = map[string]string{
	"mcp_write_function":                   "read by mcp_pending_action_approve",
	"mcp_write_reply_to_help_request":      "called by mcp_pending_action_approve",
	"mcp_write_set_help_request_status":    "called by mcp_pending_action_approve",
	"mcp_write_reply_to_discussion_thread": "called by mcp_pending_action_approve",
	"mcp_write_comment_on_regrade_request": "called by mcp_pending_action_approve",
	"mcp_write_decide_regrade_request":     "called by mcp_pending_action_approve",
	"mcp_write_add_rubric_comment":         "called by mcp_pending_action_approve",
	"mcp_rubric_points_allowed":            "called by mcp_write_add_rubric_comment",
	"mcp_pending_action_outcome":           "called by mcp_pending_action_approve",
	"mcp_pending_action_approver":          "called by mcp_pending_action_approve",
	"mcp_pending_action_claim":             "called by mcp_pending_action_approve",
	"mcp_pending_action_finish":            "called by mcp_pending_action_approve",
	"mcp_pending_action_decide":            "called by mcp_pending_action_approve",
	"mcp_pending_action_record":            "called by mcp_pending_action_approve",
	"mcp_caller_is_class_staff":            "called inside the staff read functions, which are probed",
	"mcp_profile_membership":               "called inside the staff read functions, which are probed",
	"mcp_class_profiles":                   "called inside the staff read functions, which are probed",
	// It takes no argument that could fail to convert, so a probe would
	// run it; its file's table and other functions are probed.
	"mcp_activity_my_pending": "no argument to probe with; the activity file's other objects are probed",
}

// TestSchemaObjectsMatchMigrations keeps schemaObjects true to
// supabase/migrations: every table a migration creates and every function
// it lets the service role or signed-in users execute is probed, named
// with its file and, for a function, its argument names in order, unless
// notProbed says why not.
func TestSchemaObjectsMatchMigrations(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "supabase", "migrations", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations found: %v", err)
	}
	table := regexp.MustCompile(`(?i)CREATE TABLE IF NOT EXISTS public\.(\w+)`)
	granted := regexp.MustCompile(`(?i)GRANT EXECUTE ON FUNCTION public\.(\w+)\([^)]*\) TO (?:service_role|authenticated)`)
	dropped := regexp.MustCompile(`(?i)DROP FUNCTION IF EXISTS public\.(\w+)\(`)
	type object struct {
		Name, File string
		Args       []string
	}
	var want []object
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sql := string(b)
		name := "supabase/migrations/" + filepath.Base(f)
		// A function a later migration drops is no longer the earlier
		// file's (it may be created again below, with new arguments).
		for _, m := range dropped.FindAllStringSubmatch(sql, -1) {
			want = slices.DeleteFunc(want, func(o object) bool { return o.Name == m[1] && o.Args != nil })
		}
		for _, m := range table.FindAllStringSubmatch(sql, -1) {
			want = append(want, object{Name: m[1], File: name})
		}
		for _, m := range granted.FindAllStringSubmatch(sql, -1) {
			if _, ok := notProbed[m[1]]; ok || slices.ContainsFunc(want, func(o object) bool { return o.Name == m[1] && o.File == name }) {
				continue
			}
			def := regexp.MustCompile(`(?is)CREATE OR REPLACE FUNCTION public\.` + m[1] + `\(([^)]*)\)`).FindStringSubmatch(sql)
			if def == nil {
				t.Fatalf("%s: no definition of %s", name, m[1])
			}
			args := []string{}
			unconvertible := false
			for _, a := range strings.Split(def[1], ",") {
				if fs := strings.Fields(a); len(fs) > 1 {
					args = append(args, fs[0])
					switch strings.ToLower(fs[1]) {
					case "timestamptz", "timestamp", "uuid", "boolean", "integer", "bigint", "smallint", "numeric":
						unconvertible = true
					}
				}
			}
			if !unconvertible {
				t.Errorf("%s: %s has no argument that %q fails to convert to, so the probe would run it", name, m[1], badValue)
			}
			want = append(want, object{Name: m[1], File: name, Args: args})
		}
	}
	var got []object
	for _, o := range schemaObjects {
		got = append(got, object{Name: o.name, File: o.file, Args: o.args})
	}
	sortObjects := func(s []object) { sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name }) }
	sortObjects(want)
	sortObjects(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schemaObjects differ from supabase/migrations (-migrations +schemaObjects):\n%s", diff)
	}
}

// TestSchemaProbeAnswers: which PostgREST answers mean "missing". Only
// PostgREST's not-found codes do; an upstream fault, a refused key or a
// 404 from something else leave the question open.
func TestSchemaProbeAnswers(t *testing.T) {
	cases := []struct {
		name     string
		function bool
		status   int
		body     string
		want     objectState
	}{
		{"table readable", false, 200, `[]`, objectPresent},
		{"table missing, PostgREST 12", false, 404, `{"code":"PGRST205","message":"Could not find the table 'public.x' in the schema cache"}`, objectMissing},
		{"table missing, older PostgREST", false, 404, `{"code":"42P01","message":"relation \"public.x\" does not exist"}`, objectMissing},
		{"table behind a proxy that does not route", false, 404, `Not Found`, objectUnknown},
		{"table with the key refused", false, 401, `{"message":"Invalid API key"}`, objectUnknown},
		{"table not readable", false, 403, `{"code":"42501"}`, objectUnknown},
		{"upstream fault", false, 503, `{"code":"PGRST002"}`, objectUnknown},
		{"function whose argument does not convert", true, 400, `{"code":"22007"}`, objectPresent},
		{"function the service role may not execute", true, 403, `{"code":"42501"}`, objectPresent},
		{"function missing", true, 404, `{"code":"PGRST202"}`, objectMissing},
		{"function missing, older PostgREST", true, 404, `{"code":"42883"}`, objectMissing},
		{"function with a table's code", true, 404, `{"code":"PGRST205"}`, objectUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got *http.Request
			var body map[string]string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r
				_ = json.NewDecoder(r.Body).Decode(&body)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			s := newSchemaCheck(config.Config{PostgRESTURL: mustParse(t, srv.URL+"/rest/v1"), SupabaseServiceRoleKey: "service", UpstreamTimeout: time.Second}, slog.New(slog.DiscardHandler))
			o := schemaObject{name: "x"}
			if tc.function {
				o.args = []string{"p_a", "p_now"}
			}
			if st := s.probe(context.Background(), o); st != tc.want {
				t.Errorf("probe = %d, want %d", st, tc.want)
			}
			wantReq := "GET /rest/v1/x?select=*&limit=0"
			if tc.function {
				wantReq = "POST /rest/v1/rpc/x"
				if diff := cmp.Diff(map[string]string{"p_a": badValue, "p_now": badValue}, body); diff != "" {
					t.Errorf("arguments (-want +got):\n%s", diff)
				}
			}
			// Compared decoded: the postgrest client escapes "*" as %2A,
			// which PostgREST reads back as "*".
			uri := got.URL.Path
			if q, err := url.QueryUnescape(got.URL.RawQuery); err == nil && q != "" {
				uri += "?" + q
			}
			if r := got.Method + " " + uri; r != wantReq {
				t.Errorf("request %s, want %s", r, wantReq)
			}
			if got.Header.Get("apikey") != "service" || got.Header.Get("Authorization") != "Bearer service" {
				t.Errorf("headers %v, want the service role", got.Header)
			}
		})
	}
}

// TestSchemaCheckUnreachable: an upstream that does not answer is not a
// missing migration, and the check tries again later.
func TestSchemaCheckUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	s := newSchemaCheck(config.Config{PostgRESTURL: mustParse(t, dead.URL+"/rest/v1"), SupabaseServiceRoleKey: "service", UpstreamTimeout: time.Second}, slog.New(slog.DiscardHandler))
	if err := s.check(context.Background()); err != nil {
		t.Errorf("check = %v, want nil", err)
	}
	if s.done() {
		t.Error("check counted an unreachable upstream as complete")
	}
}

// TestSchemaCheckFeatures: the read tools' functions are probed when the
// MCP server is on; the OAuth server's, the write tools' and the activity
// record's objects only when each is on.
func TestSchemaCheckFeatures(t *testing.T) {
	base := config.Config{PostgRESTURL: mustParse(t, "http://127.0.0.1:1/rest/v1"), SupabaseServiceRoleKey: "s", MCPServerEnabled: true, PublicURL: mustParse(t, "https://x.example")}
	names := func(c config.Config) []string {
		var out []string
		for _, o := range newSchemaCheck(c, slog.New(slog.DiscardHandler)).objects {
			out = append(out, o.name)
		}
		return out
	}
	tokensOnly := base
	tokensOnly.MCPServerEnabled = false
	always := []string{"api_tokens", "revoked_token_ids", "mcp_auth_lookup"}
	if diff := cmp.Diff(always, names(tokensOnly)); diff != "" {
		t.Errorf("mcp-tokens alone (-want +got):\n%s", diff)
	}
	tools := append(slices.Clone(always), "mcp_student_overview", "mcp_rubric", "mcp_list_regrade_requests", "mcp_help_queue_overview",
		"mcp_grading_progress", "mcp_search_submissions", "mcp_regrade_request")
	supabase := base
	supabase.OAuthServer.Mode = config.OAuthServerSupabase
	if diff := cmp.Diff(tools, names(supabase)); diff != "" {
		t.Errorf("supabase mode (-want +got):\n%s", diff)
	}
	gw := base
	gw.OAuthServer.Mode = config.OAuthServerGateway
	want := append(slices.Clone(tools), "mcp_oauth_grants", "mcp_oauth_codes", "mcp_oauth_refresh_tokens", "mcp_oauth_decided_authorizations",
		"mcp_oauth_use_code", "mcp_oauth_create_grant", "mcp_oauth_rotate_refresh", "mcp_oauth_revoke_grant", "mcp_oauth_live_grants")
	if diff := cmp.Diff(want, names(gw)); diff != "" {
		t.Errorf("gateway mode (-want +got):\n%s", diff)
	}
	writes := gw
	writes.WriteTools = true
	want = append(want, "mcp_pending_actions", "mcp_pending_action_propose", "mcp_pending_action_state", "mcp_pending_action_reject", "mcp_pending_actions_purge", "mcp_write_tools",
		"mcp_pending_action_approve")
	if diff := cmp.Diff(want, names(writes)); diff != "" {
		t.Errorf("write tools on (-want +got):\n%s", diff)
	}
	activity := supabase
	activity.ActivityRecord = true
	want = append(slices.Clone(tools), "mcp_activity", "mcp_activity_record", "mcp_activity_purge", "mcp_activity_mine", "mcp_activity_is_instructor",
		"mcp_activity_class_days", "mcp_activity_class_students", "mcp_activity_student_reads")
	if diff := cmp.Diff(want, names(activity)); diff != "" {
		t.Errorf("activity record on (-want +got):\n%s", diff)
	}
	if newSchemaCheck(config.Config{}, slog.New(slog.DiscardHandler)) != nil {
		t.Error("a check without PostgREST")
	}
}

// TestReadinessNamesMissingMigrations: against the local stack with an
// OAuth table and function dropped, /readyz answers 503 naming the files
// that create them and one ERROR line names them; once the files are
// applied again, /readyz answers 200.
func TestReadinessNamesMissingMigrations(t *testing.T) {
	stack := env.RequireLocal(t)
	db := env.DB(t)
	ctx := context.Background()
	apply := func(files ...string) {
		t.Helper()
		for _, f := range files {
			sql, err := os.ReadFile(filepath.Join("..", "..", "..", f))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(ctx, string(sql)); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		if err := stack.Rest.ReloadSchema(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(ctx, `DROP TABLE public.mcp_oauth_decided_authorizations; DROP FUNCTION public.mcp_oauth_revoke_grant(text, text, timestamptz);
		DROP FUNCTION public.mcp_student_overview(bigint, text)`); err != nil {
		t.Fatal(err)
	}
	restored := false
	t.Cleanup(func() {
		if !restored {
			apply(migrationStudentOverview, migrationSingleUse, migrationGrantFns)
		}
	})
	if err := stack.Rest.ReloadSchema(ctx); err != nil {
		t.Fatal(err)
	}

	gw, _, logs := startGatewayAt(t, func(string) map[string]string { return oauthVars(nil) })
	r := call(t, "GET", gw+"/readyz", "", "")
	want := `{"status":"unavailable","reason":"database migrations missing: apply ` + migrationStudentOverview + `, ` + migrationSingleUse + `, ` + migrationGrantFns +
		` (missing function mcp_student_overview, table mcp_oauth_decided_authorizations, function mcp_oauth_revoke_grant; see docs/deploy.md)"}`
	if r.status != 503 || r.body != want {
		t.Errorf("readyz: %d %s\nwant 503 %s", r.status, r.body, want)
	}
	call(t, "GET", gw+"/readyz", "", "")
	var errorLines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["level"] == "ERROR" {
			delete(m, "time")
			errorLines = append(errorLines, m)
		}
	}
	wantLines := []map[string]any{{
		"level":      "ERROR",
		"msg":        "the database lacks the gateway's migrations; requests that need them fail until they are applied",
		"missing":    []any{"function mcp_student_overview", "table mcp_oauth_decided_authorizations", "function mcp_oauth_revoke_grant"},
		"migrations": []any{migrationStudentOverview, migrationSingleUse, migrationGrantFns},
	}}
	if diff := cmp.Diff(wantLines, errorLines); diff != "" {
		t.Errorf("ERROR lines after two probes (-want +got):\n%s", diff)
	}

	apply(migrationStudentOverview, migrationSingleUse, migrationGrantFns)
	restored = true
	if r := call(t, "GET", gw+"/readyz", "", ""); r.status != 200 || r.body != `{"status":"ok"}` {
		t.Errorf("readyz after the migrations: %d %s", r.status, r.body)
	}
}

// TestReadinessEveryFeature: with every feature on, each object probed is
// found on the local stack, so no probe mistakes an object it calls in
// its own way (a function's arguments, a table's grants) for a missing one.
func TestReadinessEveryFeature(t *testing.T) {
	env.RequireLocal(t)
	gw := startGateway(t, oauthVars(map[string]string{"GATEWAY_WRITE_TOOLS": "on", "GATEWAY_ACTIVITY_RECORD": "on"}))
	if r := call(t, "GET", gw+"/readyz", "", ""); r.status != 200 || r.body != `{"status":"ok"}` {
		t.Errorf("readyz: %d %s", r.status, r.body)
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestSchemaWatch: the start-up check logs one ERROR while a table is
// missing, however often it probes, and stops once the table is there.
func TestSchemaWatch(t *testing.T) {
	var present atomic.Bool
	var probes atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if probes.Add(1) >= 3 {
			present.Store(true)
		}
		if !present.Load() {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"code":"PGRST205"}`))
			return
		}
		_, _ = w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	defer func(d time.Duration) { schemaRetry = d }(schemaRetry)
	schemaRetry = 5 * time.Millisecond
	var logs syncBuffer
	s := newSchemaCheck(config.Config{PostgRESTURL: mustParse(t, srv.URL), SupabaseServiceRoleKey: "s", UpstreamTimeout: time.Second},
		slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime})))
	s.objects = []schemaObject{{name: "api_tokens", file: migrationTokens}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.watch(ctx)
	if ctx.Err() != nil {
		t.Fatal("watch did not end once the table was found")
	}
	want := `level=ERROR msg="the database lacks the gateway's migrations; requests that need them fail until they are applied" missing="[table api_tokens]" migrations=[` + migrationTokens + `]` + "\n" +
		`level=INFO msg="database migrations found"` + "\n"
	if got := logs.String(); got != want {
		t.Errorf("log after %d probes:\n%s\nwant:\n%s", probes.Load(), got, want)
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
