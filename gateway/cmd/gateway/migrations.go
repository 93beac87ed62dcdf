package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// Migration files of supabase/migrations, named as operators see them.
const (
	migrationTokens    = "supabase/migrations/20261129230000_mcp_gateway_tokens.sql"
	migrationOAuth     = "supabase/migrations/20261201020000_mcp_oauth.sql"
	migrationSingleUse = "supabase/migrations/20261202080000_mcp_oauth_single_use.sql"
	migrationGrantFns  = "supabase/migrations/20261202090000_mcp_oauth_grant_functions.sql"
	migrationPending   = "supabase/migrations/20261202100000_mcp_pending_actions.sql"
	migrationApprove   = "supabase/migrations/20261203000000_mcp_pending_action_approve.sql"
	migrationStepUp    = "supabase/migrations/20261203010000_mcp_oauth_step_up.sql"
	migrationAuth      = "supabase/migrations/20261204000000_mcp_auth_lookup.sql"
	migrationDispatch  = "supabase/migrations/20261207000000_mcp_write_dispatch.sql"
	migrationActivity  = "supabase/migrations/20261207200000_mcp_activity.sql"

	migrationStudentOverview  = "supabase/migrations/20261207100000_mcp_student_overview.sql"
	migrationRubric           = "supabase/migrations/20261208100000_mcp_rubric.sql"
	migrationRegradeRequests  = "supabase/migrations/20261208110000_mcp_list_regrade_requests.sql"
	migrationHelpQueues       = "supabase/migrations/20261208120000_mcp_help_queue_overview.sql"
	migrationGradingProgress  = "supabase/migrations/20261208130000_mcp_grading_progress.sql"
	migrationSearchSubmission = "supabase/migrations/20261208140000_mcp_search_submissions.sql"
	migrationRegradeRequest   = "supabase/migrations/20261208150000_mcp_regrade_request.sql"
)

// Features whose objects are probed only when the feature is on.
const (
	featureAlways = ""      // mcp-tokens and authentication
	featureTools  = "tools" // MCP_SERVER_ENABLED: the read tools' SQL functions
	featureOAuth  = "oauth"
	featureWrites = "writes" // GATEWAY_WRITE_TOOLS=on: the pending actions (docs/writes.md)
	// GATEWAY_ACTIVITY_RECORD=on: the record and its pages (docs/activity.md)
	featureActivity = "activity"
)

// schemaObject is a table or function one of the gateway's migrations
// creates. A function is probed by calling it with its named arguments,
// each set to a text that PostgreSQL cannot convert to a time, uuid,
// number or boolean: every function has such an argument
// (TestSchemaObjectsMatchMigrations), so the call fails while its
// arguments are converted, before the function runs, and a missing
// function is told apart by PostgREST's "not found".
type schemaObject struct {
	name string
	// args are the function's argument names (nil for a table); each is
	// sent as badValue.
	args    []string
	file    string
	feature string // the feature that needs it
}

// badValue is no timestamptz, uuid, number or boolean PostgreSQL accepts.
const badValue = "not-a-value"

// schemaObjects are what the gateway's migrations create and the gateway
// uses. TestSchemaObjectsMatchMigrations keeps the list true to
// supabase/migrations.
var schemaObjects = []schemaObject{
	{name: "api_tokens", file: migrationTokens},
	{name: "revoked_token_ids", file: migrationTokens},
	{name: "mcp_auth_lookup", args: []string{"p_token_id", "p_user_id"}, file: migrationAuth},
	{name: "mcp_student_overview", args: []string{"p_class_id", "p_student_profile_id"}, file: migrationStudentOverview, feature: featureTools},
	{name: "mcp_rubric", args: []string{"p_class_id", "p_assignment_id"}, file: migrationRubric, feature: featureTools},
	{name: "mcp_list_regrade_requests", args: []string{"p_class_id", "p_assignment_id", "p_status", "p_limit"}, file: migrationRegradeRequests, feature: featureTools},
	{name: "mcp_help_queue_overview", args: []string{"p_class_id", "p_help_queue_id"}, file: migrationHelpQueues, feature: featureTools},
	{name: "mcp_grading_progress", args: []string{"p_class_id", "p_assignment_id"}, file: migrationGradingProgress, feature: featureTools},
	{name: "mcp_search_submissions", args: []string{"p_class_id", "p_assignment_id", "p_include_inactive", "p_student_profile_id"}, file: migrationSearchSubmission, feature: featureTools},
	{name: "mcp_regrade_request", args: []string{"p_class_id", "p_regrade_request_id"}, file: migrationRegradeRequest, feature: featureTools},
	{name: "mcp_oauth_grants", file: migrationOAuth, feature: featureOAuth},
	{name: "mcp_oauth_codes", file: migrationOAuth, feature: featureOAuth},
	{name: "mcp_oauth_refresh_tokens", file: migrationOAuth, feature: featureOAuth},
	{name: "mcp_oauth_decided_authorizations", file: migrationSingleUse, feature: featureOAuth},
	{name: "mcp_oauth_use_code", args: []string{"p_code_hash", "p_now"}, file: migrationGrantFns, feature: featureOAuth},
	{name: "mcp_oauth_create_grant", args: []string{"p_code_hash", "p_name", "p_client_id", "p_expires_at", "p_refresh_hash", "p_now"}, file: migrationGrantFns, feature: featureOAuth},
	{name: "mcp_oauth_rotate_refresh", args: []string{"p_token_hash", "p_next_hash", "p_now"}, file: migrationGrantFns, feature: featureOAuth},
	{name: "mcp_oauth_revoke_grant", args: []string{"p_token_id", "p_client_id", "p_now"}, file: migrationGrantFns, feature: featureOAuth},
	{name: "mcp_oauth_live_grants", args: []string{"p_user_id", "p_client_hash", "p_now"}, file: migrationStepUp, feature: featureOAuth},
	{name: "mcp_pending_actions", file: migrationPending, feature: featureWrites},
	{name: "mcp_pending_action_propose", args: []string{"p_user_id", "p_token_id", "p_client_id", "p_class_id", "p_tool", "p_arguments", "p_argument_digest", "p_preview", "p_now", "p_ttl_seconds", "p_max_pending"}, file: migrationApprove, feature: featureWrites},
	{name: "mcp_pending_action_state", args: []string{"p_id", "p_user_id", "p_now"}, file: migrationPending, feature: featureWrites},
	{name: "mcp_pending_action_reject", args: []string{"p_id", "p_user_id", "p_now"}, file: migrationApprove, feature: featureWrites},
	{name: "mcp_pending_actions_purge", args: []string{"p_before", "p_limit"}, file: migrationApprove, feature: featureWrites},
	{name: "mcp_write_tools", file: migrationDispatch, feature: featureWrites},
	{name: "mcp_pending_action_approve", args: []string{"p_id", "p_now", "p_budget_ms"}, file: migrationDispatch, feature: featureWrites},
	{name: "mcp_activity", file: migrationActivity, feature: featureActivity},
	{name: "mcp_activity_record", args: []string{"p_rows", "p_now"}, file: migrationActivity, feature: featureActivity},
	{name: "mcp_activity_purge", args: []string{"p_before", "p_limit"}, file: migrationActivity, feature: featureActivity},
	{name: "mcp_activity_mine", args: []string{"p_since"}, file: migrationActivity, feature: featureActivity},
	{name: "mcp_activity_is_instructor", args: []string{"p_class_id"}, file: migrationActivity, feature: featureActivity},
	{name: "mcp_activity_class_days", args: []string{"p_class_id", "p_since"}, file: migrationActivity, feature: featureActivity},
	{name: "mcp_activity_class_students", args: []string{"p_class_id", "p_since"}, file: migrationActivity, feature: featureActivity},
	{name: "mcp_activity_student_reads", args: []string{"p_class_id", "p_student", "p_since", "p_limit"}, file: migrationActivity, feature: featureActivity},
}

// schemaRetry is how often the start-up check probes again while objects
// are missing or PostgREST cannot say.
var schemaRetry = 30 * time.Second

// schemaCheck finds out, at start-up and until it succeeds, whether the
// database has what the gateway's migrations create. A missing table
// otherwise shows up only as a failing request. While something is
// missing, readiness fails naming the migration files; an upstream that
// cannot be asked is not "missing" (readiness reports it as before).
type schemaCheck struct {
	objects []schemaObject
	db      *postgrest.Client // the service role's, from mcpauth
	log     *slog.Logger

	mu       sync.Mutex
	complete bool   // every object was found once; never probed again
	logged   string // the missing set last logged, so it is logged once
}

// newSchemaCheck probes, with the service-role client mcpauth builds (as
// for the OAuth server's store, over a small transport of its own), the
// objects the enabled features need; nil when PostgREST or the key is not
// configured (the functions answer their own 500s then).
func newSchemaCheck(cfg config.Config, log *slog.Logger) *schemaCheck {
	hc := &http.Client{Timeout: cfg.UpstreamTimeout, Transport: &http.Transport{MaxIdleConns: 2}, CheckRedirect: noRedirects}
	db, err := serviceDB(cfg, upstreams{restURL: urlString(cfg.PostgRESTURL), rest: hc})
	if err != nil {
		return nil
	}
	enabled := map[string]bool{
		featureAlways:   true,
		featureTools:    cfg.MCPServerEnabled,
		featureOAuth:    cfg.MCPServerEnabled && cfg.PublicURL != nil && cfg.OAuthServer.Mode == config.OAuthServerGateway,
		featureWrites:   cfg.WriteTools,
		featureActivity: cfg.ActivityRecord,
	}
	s := &schemaCheck{db: db, log: log}
	for _, o := range schemaObjects {
		if enabled[o.feature] {
			s.objects = append(s.objects, o)
		}
	}
	return s
}

// watch probes at once and then every schemaRetry until the check
// succeeds or ctx ends, so the log names missing migrations even where
// nothing polls /readyz.
func (s *schemaCheck) watch(ctx context.Context) {
	for {
		if s.check(ctx) == nil && s.done() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(schemaRetry):
		}
	}
}

func (s *schemaCheck) done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.complete
}

// check returns an error naming the migration files to apply while
// objects are missing, and nil otherwise (also when PostgREST could not be
// asked: that is readiness's own concern). The error text is shown by
// /readyz, so it names files and objects, never an address.
func (s *schemaCheck) check(ctx context.Context) error {
	if s == nil || s.done() {
		return nil
	}
	var missing []schemaObject
	known := true
	for _, o := range s.objects {
		switch s.probe(ctx, o) {
		case objectMissing:
			missing = append(missing, o)
		case objectUnknown:
			known = false
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(missing) == 0 {
		if known {
			s.complete = true
			if s.logged != "" {
				s.log.Info("database migrations found")
			}
		}
		return nil
	}
	var names, files []string
	for _, o := range missing {
		kind := "table "
		if o.args != nil {
			kind = "function "
		}
		names = append(names, kind+o.name)
		if !slices.Contains(files, o.file) {
			files = append(files, o.file)
		}
	}
	msg := "database migrations missing: apply " + strings.Join(files, ", ") +
		" (missing " + strings.Join(names, ", ") + "; see docs/deploy.md)"
	if set := strings.Join(names, ","); set != s.logged {
		s.logged = set
		s.log.Error("the database lacks the gateway's migrations; requests that need them fail until they are applied",
			slog.Any("missing", names), slog.Any("migrations", files))
	}
	return errors.New(msg)
}

type objectState int

const (
	objectPresent objectState = iota
	objectMissing
	objectUnknown
)

// String names the state in the probe's debug log.
func (st objectState) String() string {
	switch st {
	case objectPresent:
		return "present"
	case objectMissing:
		return "missing"
	}
	return "unknown"
}

// probe asks PostgREST about one object without changing anything: a
// table is read with limit=0, a function is called with arguments that
// fail to convert. Only PostgREST's "not found" answers (PGRST205 or
// 42P01 for a table, PGRST202 or 42883 for a function) mean missing.
func (s *schemaCheck) probe(ctx context.Context, o schemaObject) (state objectState) {
	status, code, err := s.ask(ctx, o)
	defer func() { s.logProbe(ctx, o, state, status, code, err) }()
	switch {
	case status == 0:
		return objectUnknown
	case status != http.StatusNotFound:
		// A function the service role may not execute exists; a table it
		// may not read, or an upstream fault, says nothing.
		if status >= 500 || status == http.StatusUnauthorized || (status == http.StatusForbidden && o.args == nil) {
			return objectUnknown
		}
		return objectPresent
	case o.args == nil && (code == "PGRST205" || code == "42P01"):
		return objectMissing
	case o.args != nil && (code == "PGRST202" || code == "42883"):
		return objectMissing
	}
	// A 404 without PostgREST's code: a proxy that does not route here.
	return objectUnknown
}

// ask sends o's probe and returns PostgREST's answer: its HTTP status and
// code (the postgrest client's typed error), or status 0 and the error
// when nothing answered.
func (s *schemaCheck) ask(ctx context.Context, o schemaObject) (status int, code string, err error) {
	if o.args == nil {
		_, err = s.db.From(o.name).Select("*").Limit(0).Rows(ctx)
	} else {
		args := make(map[string]string, len(o.args))
		for _, a := range o.args {
			args[a] = badValue
		}
		_, err = s.db.RPC(ctx, o.name, args)
	}
	var pe *postgrest.Error
	switch {
	case err == nil:
		return http.StatusOK, "", nil
	case errors.As(err, &pe) && pe.Status != 0:
		return pe.Status, pe.Code, nil
	}
	return 0, "", err
}

// logProbe logs one probe's answer at debug level only. A present
// function's refusal of badValue (400, 22P02 or 22007: "invalid input
// syntax … \"not-a-value\"") is the answer the probe asks for, not a
// failure. The real failures are logged elsewhere: missing objects once at
// error by check, an upstream that cannot be asked by readiness.
func (s *schemaCheck) logProbe(ctx context.Context, o schemaObject, state objectState, status int, code string, err error) {
	object, msg := "table "+o.name, "schema probe"
	if o.args != nil {
		object = "function " + o.name
		if state == objectPresent && status == http.StatusBadRequest {
			msg = "schema probe: the function refused the probe's arguments, as expected"
		}
	}
	attrs := []slog.Attr{slog.String("object", object), slog.String("state", state.String())}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	if code != "" {
		attrs = append(attrs, slog.String("code", code))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	s.log.LogAttrs(ctx, slog.LevelDebug, msg, attrs...)
}
