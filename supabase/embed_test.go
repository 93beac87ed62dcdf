package supabase

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func names(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Name
	}
	return out
}

// TestClassification pins which embedded file plays which role; adding a
// file is a deliberate act that updates this list.
func TestClassification(t *testing.T) {
	tests := []struct {
		name string
		got  []File
		want []string
	}{
		{"Bootstrap", Bootstrap(), []string{"fixtures/00_supabase_roles.sql"}},
		{"Fixtures", Fixtures(), []string{"fixtures/10_schema.sql", "fixtures/15_triggers.sql", "fixtures/20_rls.sql"}},
		{"Seed", Seed(), []string{"fixtures/90_seed.sql"}},
		{"Migrations", Migrations(), []string{"migrations/20261129230000_mcp_gateway_tokens.sql", "migrations/20261201020000_mcp_oauth.sql", "migrations/20261202080000_mcp_oauth_single_use.sql", "migrations/20261202090000_mcp_oauth_grant_functions.sql", "migrations/20261202100000_mcp_pending_actions.sql", "migrations/20261203000000_mcp_pending_action_approve.sql", "migrations/20261203010000_mcp_oauth_step_up.sql", "migrations/20261204000000_mcp_auth_lookup.sql", "migrations/20261204020000_mcp_grading_writes.sql", "migrations/20261204030000_mcp_grading_decisions.sql", "migrations/20261207000000_mcp_write_dispatch.sql", "migrations/20261207010000_mcp_decide_regrade_checks.sql", "migrations/20261207020000_mcp_pending_action_supersede.sql", "migrations/20261207100000_mcp_student_overview.sql", "migrations/20261207200000_mcp_activity.sql", "migrations/20261208090000_mcp_staff_read_helpers.sql", "migrations/20261208100000_mcp_rubric.sql", "migrations/20261208110000_mcp_list_regrade_requests.sql", "migrations/20261208120000_mcp_help_queue_overview.sql", "migrations/20261208130000_mcp_grading_progress.sql", "migrations/20261208140000_mcp_search_submissions.sql", "migrations/20261208150000_mcp_regrade_request.sql"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, names(tt.got)); diff != "" {
				t.Errorf("%s() files (-want +got):\n%s", tt.name, diff)
			}
			for _, f := range tt.got {
				if f.SQL == "" {
					t.Errorf("%s is empty", f.Name)
				}
			}
		})
	}
}

// TestMigrationNames enforces Supabase's naming (14-digit UTC timestamp,
// snake_case) and ordering after Pawtograder's api_tokens migration
// (20260130031926), which the gateway's migration amends.
func TestMigrationNames(t *testing.T) {
	re := regexp.MustCompile(`^migrations/(\d{14})_[a-z0-9_]+\.sql$`)
	for _, f := range Migrations() {
		m := re.FindStringSubmatch(f.Name)
		if m == nil {
			t.Errorf("%s: want migrations/<YYYYMMDDHHMMSS>_<snake_case>.sql", f.Name)
			continue
		}
		if m[1] <= "20260130031926" {
			t.Errorf("%s: timestamp must sort after Pawtograder's 20260130031926_create_api_tokens_table.sql", f.Name)
		}
	}
}
