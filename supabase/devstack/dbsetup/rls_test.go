package dbsetup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRowLevelSecurity pins, for every fixture table, the exact rows each
// persona sees through RLS (docs/contract/schema.md §5 and §7). Expected sets
// are derived by hand from SEED.md, so a change to either policies or seed
// shows up here.
func TestRowLevelSecurity(t *testing.T) {
	conn := connect(t, seededDatabase(t))
	personas := []persona{alice, gary, sam, sofia, dale, bea, ben, tara, nora, anon, service}

	tests := []struct {
		table string
		query string
		want  map[persona]string
	}{
		{
			table: "classes",
			query: `SELECT id::text FROM public.classes`,
			want: map[persona]string{
				alice: "1", gary: "1", sam: "1", sofia: "1", dale: "", bea: "2", ben: "2", tara: "1,2", nora: "",
				anon: denied, service: "1,2",
			},
		},
		{
			table: "user_privileges",
			query: `SELECT class_id || ':' || role FROM public.user_privileges`,
			want: map[persona]string{
				alice: "1:instructor", gary: "1:grader", sam: "1:student", sofia: "1:student", dale: "",
				bea: "2:instructor", ben: "2:student", tara: "2:grader,1:student", nora: "",
				anon: "", service: "1:grader,2:grader,1:student,1:student,1:student,2:student,1:instructor,2:instructor",
			},
		},
		{
			table: "user_roles (staff see disabled rows too)",
			query: `SELECT id::text FROM public.user_roles`,
			want: map[persona]string{
				alice: "1,2,3,4,5,9", gary: "1,2,3,4,5,9", sam: "3", sofia: "4", dale: "5",
				bea: "6,7,8", ben: "7", tara: "6,7,8,9", nora: "",
				anon: denied, service: "1,2,3,4,5,6,7,8,9",
			},
		},
		{
			table: "profiles",
			query: `SELECT count(*)::text || ' in ' || coalesce(string_agg(DISTINCT class_id::text, ','), '-') FROM public.profiles`,
			want: map[persona]string{
				alice: "12 in 1", gary: "12 in 1", sam: "12 in 1", sofia: "12 in 1", dale: "0 in -",
				bea: "6 in 2", ben: "6 in 2", tara: "18 in 1,2", nora: "0 in -",
				anon: denied, service: "18 in 1,2",
			},
		},
		{
			table: "users",
			query: `SELECT right(user_id::text, 2) FROM public.users`,
			want: map[persona]string{
				alice: "01,02,03,04,05,08", gary: "01,02,03,04,05,08", sam: "03", sofia: "04", dale: "05",
				bea: "06,07,08", ben: "07", tara: "06,07,08", nora: "09",
				anon: denied, service: "01,02,03,04,05,06,07,08,09",
			},
		},
		{
			table: "assignments (staff see unreleased 3 and archived 4)",
			query: `SELECT id::text FROM public.assignments`,
			want: map[persona]string{
				alice: "1,2,3,4", gary: "1,2,3,4", sam: "1,2", sofia: "1,2", dale: "",
				bea: "5", ben: "5", tara: "1,2,5", nora: "",
				anon: denied, service: "1,2,3,4,5",
			},
		},
		{
			table: "autograder (instructors only)",
			query: `SELECT id::text FROM public.autograder`,
			want: map[persona]string{
				alice: "1,2,3,4", gary: "", sam: "", sofia: "", dale: "",
				bea: "5", ben: "", tara: "", nora: "",
				anon: denied, service: "1,2,3,4,5",
			},
		},
		{
			table: "submissions",
			query: `SELECT id::text FROM public.submissions`,
			want: map[persona]string{
				alice: "1,2,3,4,5,6,7,9", gary: "1,2,3,4,5,6,7,9", sam: "1,2,3,6,9", sofia: "4,5,9", dale: "",
				bea: "8", ben: "8", tara: "7,8", nora: "",
				anon: denied, service: "1,2,3,4,5,6,7,8,9",
			},
		},
		{
			table: "submission_files",
			query: `SELECT id::text FROM public.submission_files`,
			want: map[persona]string{
				alice: "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,17", gary: "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,17",
				sam: "1,2,3,4,5,6,7,8,9,10,14,17", sofia: "11,12,13,17", dale: "",
				bea: "16", ben: "16", tara: "15,16", nora: "",
				anon: denied, service: "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
			},
		},
		{
			table: "grader_results",
			query: `SELECT id::text FROM public.grader_results`,
			want: map[persona]string{
				alice: "1,2,3,4,5,7,9", gary: "1,2,3,4,5,7,9", sam: "1,2,3,9", sofia: "4,5,9", dale: "",
				bea: "8", ben: "8", tara: "7,8", nora: "",
				anon: denied, service: "1,2,3,4,5,7,8,9",
			},
		},
		{
			table: "grader_result_tests (students: released only)",
			query: `SELECT id::text FROM public.grader_result_tests`,
			want: map[persona]string{
				alice: "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,18", gary: "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,18",
				sam: "1,2,3,4,5,7,8,9,10,11,18", sofia: "12,13,14,15,18", dale: "",
				bea: "17", ben: "17", tara: "16,17", nora: "",
				anon: denied, service: "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18",
			},
		},
		{
			table: "grader_result_output (staff: all visibilities)",
			query: `SELECT id::text FROM public.grader_result_output`,
			want: map[persona]string{
				alice: "1,2,3,4,5,6,7,8,10", gary: "1,2,3,4,5,6,7,8,10", sam: "1,2,4,10", sofia: "7,10", dale: "",
				bea: "9", ben: "9", tara: "8,9", nora: "",
				anon: denied, service: "1,2,3,4,5,6,7,8,9,10",
			},
		},
		{
			table: "help_queues",
			query: `SELECT id::text FROM public.help_queues`,
			want: map[persona]string{
				alice: "1,2", gary: "1,2", sam: "1,2", sofia: "1,2", dale: "",
				bea: "3", ben: "3", tara: "1,2,3", nora: "",
				anon: denied, service: "1,2,3",
			},
		},
		{
			table: "help_requests (private: creator and members only)",
			query: `SELECT id::text FROM public.help_requests`,
			want: map[persona]string{
				alice: "1,2,3,4,5", gary: "1,2,3,4,5", sam: "1,2,3,5", sofia: "1,2,4", dale: "",
				bea: "6", ben: "6", tara: "1,2,5,6", nora: "",
				anon: denied, service: "1,2,3,4,5,6",
			},
		},
		{
			table: "help_request_messages (instructors_only not filtered)",
			query: `SELECT id::text FROM public.help_request_messages`,
			want: map[persona]string{
				alice: "1,2,3,4,5,6,7,8,9", gary: "1,2,3,4,5,6,7,8,9", sam: "1,2,3,4,5,6,7,8,9", sofia: "1,2,3,4,5,6", dale: "",
				bea: "10,11", ben: "10,11", tara: "1,2,3,4,5,6,9,10,11", nora: "",
				anon: denied, service: "1,2,3,4,5,6,7,8,9,10,11",
			},
		},
		{
			table: "discussion_topics",
			query: `SELECT id::text FROM public.discussion_topics`,
			want: map[persona]string{
				alice: "1,2,3,4,5,6", gary: "1,2,3,4,5,6", sam: "1,2,3,4,5,6", sofia: "1,2,3,4,5,6", dale: "",
				bea: "7,8,9,10,11", ben: "7,8,9,10,11", tara: "1,2,3,4,5,6,7,8,9,10,11", nora: "",
				anon: denied, service: "1,2,3,4,5,6,7,8,9,10,11",
			},
		},
		{
			table: "discussion_threads (ids < 1000; instructors_only 6, 7, 13)",
			query: `SELECT id::text FROM public.discussion_threads WHERE id < 1000`,
			want: map[persona]string{
				alice: "1,2,3,4,5,6,7,8,11,12,13,14", gary: "1,2,3,4,5,6,7,8,11,12,13,14",
				sam: "1,2,3,4,5,8,11,12,14", sofia: "1,2,3,4,5,6,7,8,11,12,13,14", dale: "",
				bea: "9,10", ben: "9,10", tara: "1,2,3,4,5,8,9,10,11,12,14", nora: "",
				anon: denied, service: "1,2,3,4,5,6,7,8,9,10,11,12,13,14",
			},
		},
		{
			table: "discussion_threads (mega thread: its root post and 60 replies)",
			query: `SELECT count(*)::text FROM public.discussion_threads WHERE root = 8`,
			want: map[persona]string{
				alice: "61", gary: "61", sam: "61", sofia: "61", dale: "0",
				bea: "0", ben: "0", tara: "61", nora: "0",
				anon: denied, service: "61",
			},
		},
		{
			table: "api_tokens (own rows only)",
			query: `SELECT token_id FROM public.api_tokens`,
			want: map[persona]string{
				alice: "seed-jti-alice-active,seed-jti-alice-revoked", gary: "seed-jti-gary-expired", sam: "seed-jti-sam-student",
				sofia: "", dale: "", bea: "", ben: "", tara: "", nora: "",
				anon: denied, service: "seed-jti-sam-student,seed-jti-alice-active,seed-jti-gary-expired,seed-jti-alice-revoked",
			},
		},
		{
			table: "revoked_token_ids (service_role only)",
			query: `SELECT token_id FROM public.revoked_token_ids`,
			want: map[persona]string{
				alice: denied, gary: denied, sam: denied, sofia: denied, dale: denied,
				bea: denied, ben: denied, tara: denied, nora: denied,
				anon: denied, service: "seed-jti-alice-revoked",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.table, func(t *testing.T) {
			got := map[persona]string{}
			for _, p := range personas {
				got[p] = visibleIDs(t, conn, p, tt.query)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Transformer("names", func(m map[persona]string) map[string]string {
				out := make(map[string]string, len(m))
				for p, v := range m {
					out[p.name] = v
				}
				return out
			})); diff != "" {
				t.Errorf("%s: visible rows per persona (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}
