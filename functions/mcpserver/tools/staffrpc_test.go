package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// restRead is one of the REST reads a staff tool's SQL function replaces:
// the key of the function's answer that holds its rows, and the query as
// the tool sent it before (its select list, filters, order and limit).
type restRead struct {
	key   string
	query func(db *userclient.Client, a functionArgs, prev map[string]any) *postgrest.Query
	// unordered: the REST read has no order (a look-up by ids), so the
	// rows are compared as a set.
	unordered bool
	// single: a single object read, compared as its one row (null for
	// none).
	single bool
	// pick, when set, is what the function answers of the REST rows.
	pick func(rows []any) any
}

// functionArgs are a function case's arguments, as the tool passes them.
type functionArgs map[string]any

// text is argument k in the form a REST filter takes.
func (a functionArgs) text(k string) string {
	switch v := a[k].(type) {
	case int:
		return strconv.Itoa(v)
	case string:
		return v
	}
	return fmt.Sprint(a[k])
}

// functionCase is a staff read function and the REST reads it replaces:
// answered says, from REST reads, whether the function answers a row at
// all (nil: always one row).
type functionCase struct {
	fn, column string
	answered   func(t *testing.T, db *userclient.Client, a functionArgs) bool
	reads      []restRead
	args       []functionArgs
}

// restRows is a REST read's answer, decoded.
func restRows(t *testing.T, q *postgrest.Query) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw, err := q.Rows(ctx)
	if err != nil {
		t.Fatalf("REST read: %v", err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// checkFunctionReadsAsREST calls fc.fn as each persona with each argument
// set and compares every list it answers with the REST read it replaces,
// made by the same persona: the same rows, columns, order and limit under
// row-level security, and no row exactly when the REST reads say the
// answer is null.
func checkFunctionReadsAsREST(t *testing.T, fc functionCase) {
	users := []struct{ name, id string }{
		{"instructor_a", userAlice}, {"grader_a", userGary}, {"student_a", userSam}, {"disabled_grader_a", userDale},
		{"student_a_grader_b", userTara}, {"instructor_b", userBea}, {"student_b", userBen}, {"unenrolled", userNora},
	}
	for _, u := range users {
		db, _ := clientFor(t, u.id)
		for _, a := range fc.args {
			t.Run(fmt.Sprintf("%s/%s/%v", fc.fn, u.name, map[string]any(a)), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				raw, err := db.ReadRPC(ctx, fc.fn, map[string]any(a))
				if err != nil {
					t.Fatalf("%s: %v", fc.fn, err)
				}
				var rows []map[string]any
				if err := json.Unmarshal(raw, &rows); err != nil {
					t.Fatalf("%s answered %s: %v", fc.fn, raw, err)
				}
				want := fc.answered == nil || fc.answered(t, db, a)
				if got := len(rows) == 1; got != want || len(rows) > 1 {
					t.Fatalf("%s answered %d rows; the REST reads say a row: %v", fc.fn, len(rows), want)
				}
				if !want {
					return
				}
				found, _ := rows[0][fc.column].(map[string]any)
				prev := map[string]any{}
				for _, r := range fc.reads {
					want := any([]any{}) // no REST request: no rows
					if q := r.query(db, a, prev); q != nil {
						want = restRows(t, q)
					}
					prev[r.key] = want
					if rows, _ := want.([]any); r.single {
						want = nil
						if len(rows) == 1 {
							want = rows[0]
						}
					} else if r.pick != nil {
						want = r.pick(rows)
					}
					got := found[r.key]
					if r.key == "" {
						got = rows[0][fc.column] // the whole row the function answers
					}
					if r.unordered {
						want, got = sortedRows(t, want), sortedRows(t, got)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s: %s differs from its REST read (-rest +function):\n%s", fc.fn, r.key, diff)
					}
				}
			})
		}
	}
}

// sortedRows is a list of rows ordered by their JSON text.
func sortedRows(t *testing.T, v any) any {
	rows, _ := v.([]any)
	texts := make([]string, 0, len(rows))
	for _, r := range rows {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	sort.Strings(texts)
	return texts
}

// rowValues are the non-null string values of key in the rows of a REST
// answer, in order.
func rowValues(v any, key string) []string {
	var out []string
	rows, _ := v.([]any)
	for _, r := range rows {
		m, _ := r.(map[string]any)
		if s, ok := m[key].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// profileLookupRead is the profile look-up (docs/contract/tools.md §1.2) of the private profile ids
// of earlier reads: each source is a read's key and a column of its rows.
func profileLookupRead(sources ...[2]string) restRead {
	return restRead{key: "profiles", unordered: true, query: func(db *userclient.Client, a functionArgs, prev map[string]any) *postgrest.Query {
		var ids []string
		for _, src := range sources {
			ids = append(ids, rowValues(prev[src[0]], src[1])...)
		}
		ids = uniqueStrings(ids)
		if len(ids) == 0 {
			return nil
		}
		return db.From("user_roles").Select(profileLookupColumns).Eq("class_id", a.text("p_class_id")).In("private_profile_id", ids)
	}}
}

// isStaffREST is the tools' staff check before their SQL functions: the
// caller's own enabled instructor or grader row in the class, read
// through REST.
func isStaffREST(t *testing.T, db *userclient.Client, a functionArgs) bool {
	return oneRow(t, db.From("user_roles").Select("role").Eq("user_id", db.UserID()).Eq("class_id", a.text("p_class_id")).
		Eq("disabled", "false").In("role", []string{"instructor", "grader"}).Limit(1))
}

// oneRow says a REST read answers exactly one row (PostgREST's single
// object read succeeds).
func oneRow(t *testing.T, q *postgrest.Query) bool {
	rows, _ := restRows(t, q).([]any)
	return len(rows) == 1
}

// rubricLevelRead is get_rubric's REST read of one level.
func rubricLevelRead(key, table, columns string, byOrdinal bool) restRead {
	return restRead{key: key, query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		q := db.From(table).Select(columns).Eq("assignment_id", a.text("p_assignment_id")).Eq("class_id", a.text("p_class_id"))
		if byOrdinal {
			q = q.Order("ordinal", true)
		}
		return q.Order("id", true).Limit(rubricRowLimit + 1)
	}}
}

// TestRubricFunctionReadsAsREST: mcp_rubric reads what get_rubric's five
// REST reads read.
func TestRubricFunctionReadsAsREST(t *testing.T) {
	checkFunctionReadsAsREST(t, functionCase{
		fn: "mcp_rubric", column: "levels",
		answered: func(t *testing.T, db *userclient.Client, a functionArgs) bool {
			return oneRow(t, db.From("assignments").Select(assignmentColumns).Eq("id", a.text("p_assignment_id")).Eq("class_id", a.text("p_class_id")))
		},
		reads: []restRead{
			rubricLevelRead("rubrics", "rubrics", "id,name,description,review_round,is_private", false),
			rubricLevelRead("parts", "rubric_parts", "id,rubric_id,name,description,ordinal", true),
			rubricLevelRead("criteria", "rubric_criteria", "id,rubric_part_id,name,description,ordinal,total_points,is_additive,is_deduction_only,min_checks_per_submission,max_checks_per_submission", true),
			rubricLevelRead("checks", "rubric_checks", "id,rubric_criteria_id,name,description,group,ordinal,points,is_annotation,max_annotations,file,artifact,is_required,is_comment_required,student_visibility", true),
		},
		args: []functionArgs{
			{"p_class_id": 1, "p_assignment_id": 1}, {"p_class_id": 1, "p_assignment_id": 2},
			{"p_class_id": 1, "p_assignment_id": 3}, {"p_class_id": 2, "p_assignment_id": 5}, {"p_class_id": 1, "p_assignment_id": 5},
		},
	})
}

// TestListRegradeRequestsFunctionReadsAsREST: mcp_list_regrade_requests
// reads what list_regrade_requests' REST reads read: no row unless the
// caller is enabled staff of the class; the requests per status filter,
// assignment and limit; the profiles of their students and assignees.
func TestListRegradeRequestsFunctionReadsAsREST(t *testing.T) {
	requests := restRead{key: "requests", query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		q := db.From("submission_regrade_requests").Select("id,status,created_at,opened_at,assignment_id,submission_id,created_by,assignee,initial_points,resolved_points,closed_points,resolved_at,closed_at,last_commented_at,"+
			"rubric_checks!submission_regrade_requests_rubric_check_id_fkey(id,name,points)").Eq("class_id", a.text("p_class_id"))
		if a["p_assignment_id"] != nil {
			q = q.Eq("assignment_id", a.text("p_assignment_id"))
		}
		switch status := a.text("p_status"); status {
		case "", "open":
			q = q.In("status", []string{"opened", "escalated"})
		case "all":
			q = q.Neq("status", "draft")
		default:
			q = q.Eq("status", status)
		}
		return q.Order("created_at", false).Order("id", false).Limit(a["p_limit"].(int))
	}}
	checkFunctionReadsAsREST(t, functionCase{
		fn: "mcp_list_regrade_requests", column: "found", answered: isStaffREST,
		reads: []restRead{requests, profileLookupRead([2]string{"requests", "created_by"}, [2]string{"requests", "assignee"})},
		args: []functionArgs{
			{"p_class_id": 1, "p_assignment_id": nil, "p_status": "", "p_limit": 25},
			{"p_class_id": 1, "p_assignment_id": nil, "p_status": "all", "p_limit": 100},
			{"p_class_id": 1, "p_assignment_id": 1, "p_status": "resolved", "p_limit": 100},
			{"p_class_id": 1, "p_assignment_id": nil, "p_status": "all", "p_limit": 1},
			{"p_class_id": 2, "p_assignment_id": nil, "p_status": "all", "p_limit": 100},
		},
	})
}

// callerRowsRead is callerInClass' REST read of the caller's own rows.
var callerRowsRead = restRead{key: "caller", unordered: true, query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
	return db.From("user_roles").Select("role,disabled,private_profile_id,public_profile_id").Eq("user_id", db.UserID()).Eq("class_id", a.text("p_class_id"))
}}

// TestHelpQueueOverviewFunctionReadsAsREST: mcp_help_queue_overview reads
// what get_help_queue_overview's REST reads read.
func TestHelpQueueOverviewFunctionReadsAsREST(t *testing.T) {
	oneQueue := func(a functionArgs) bool { return a["p_help_queue_id"] != nil }
	queues := restRead{key: "queues", query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		q := db.From("help_queues").Select("id,name,description,queue_type,available").Eq("class_id", a.text("p_class_id"))
		if oneQueue(a) {
			q = q.Eq("id", a.text("p_help_queue_id"))
		}
		return q.Order("ordinal", true).Order("id", true).Limit(maxRows)
	}}
	// The embedded students are compared as the tool uses them: the rows
	// in order, each request's students as a set (the embed has no order).
	requests := restRead{key: "requests", query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		q := db.From("help_requests").Select("id,help_queue,request,status,is_private,created_at,assignee,"+
			"help_request_students!help_request_students_help_request_id_fkey(profile_id),"+
			"submissions!help_requests_referenced_submission_id_fkey(assignment_id,assignments!submissio_assignment_id_fkey(id,title))").
			Eq("class_id", a.text("p_class_id")).In("status", []string{"open", "in_progress"})
		if oneQueue(a) {
			q = q.Eq("help_queue", a.text("p_help_queue_id"))
		}
		return q.Order("created_at", true).Order("id", true).Limit(maxRows + 1)
	}}
	checkFunctionReadsAsREST(t, functionCase{
		fn: "mcp_help_queue_overview", column: "found",
		reads: []restRead{queues, requests, callerRowsRead, profileLookupRead([2]string{"requests", "assignee"})},
		args:  []functionArgs{{"p_class_id": 1, "p_help_queue_id": nil}, {"p_class_id": 1, "p_help_queue_id": 1}, {"p_class_id": 2, "p_help_queue_id": nil}},
	})
}

// TestGradingProgressFunctionReadsAsREST: mcp_grading_progress reads what
// get_grading_progress' REST reads read: no row unless the caller is
// enabled staff and the assignment visible.
func TestGradingProgressFunctionReadsAsREST(t *testing.T) {
	byAssignment := func(key, table, columns string, more func(q *postgrest.Query) *postgrest.Query) restRead {
		return restRead{key: key, query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
			q := db.From(table).Select(columns).Eq("class_id", a.text("p_class_id")).Eq("assignment_id", a.text("p_assignment_id"))
			return more(q).Order("id", true).Limit(maxRows + 1)
		}}
	}
	same := func(q *postgrest.Query) *postgrest.Query { return q }
	graders := restRead{key: "graders", query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		return db.From("user_roles").Select("private_profile_id").Eq("class_id", a.text("p_class_id")).Eq("role", "grader").Eq("disabled", "false").
			Order("id", true).Limit(maxRows + 1)
	}}
	assignment := restRead{key: "assignment", query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		return db.From("assignments").Select("id,grading_rubric_id").Eq("id", a.text("p_assignment_id")).Eq("class_id", a.text("p_class_id"))
	}}
	checkFunctionReadsAsREST(t, functionCase{
		fn: "mcp_grading_progress", column: "found",
		answered: func(t *testing.T, db *userclient.Client, a functionArgs) bool {
			rows, _ := restRows(t, callerRowsRead.query(db, a, nil)).([]any)
			staff := false
			for _, r := range rows {
				m := r.(map[string]any)
				staff = staff || ((m["role"] == "instructor" || m["role"] == "grader") && m["disabled"] == false)
			}
			return staff && oneRow(t, assignment.query(db, a, nil))
		},
		reads: []restRead{
			{key: "assignment", query: assignment.query, single: true}, callerRowsRead,
			byAssignment("submissions", "submissions", "id,submission_reviews!submission_reviews_submission_id_fkey(rubric_id,completed_at,completed_by,released)",
				func(q *postgrest.Query) *postgrest.Query { return q.Eq("is_active", "true") }),
			byAssignment("reviews", "review_assignments", "id,assignee_profile_id,due_date,completed_at", same),
			byAssignment("regrades", "submission_regrade_requests", "status", func(q *postgrest.Query) *postgrest.Query { return q.Neq("status", "draft") }),
			graders, profileLookupRead([2]string{"graders", "private_profile_id"}, [2]string{"reviews", "assignee_profile_id"}),
		},
		args: []functionArgs{{"p_class_id": 1, "p_assignment_id": 1}, {"p_class_id": 1, "p_assignment_id": 2}, {"p_class_id": 2, "p_assignment_id": 5}, {"p_class_id": 1, "p_assignment_id": 5}},
	})
}

// TestSearchSubmissionsFunctionReadsAsREST: mcp_search_submissions reads
// what search_submissions' REST reads read: no row unless the assignment
// is visible; the submissions (active only unless asked), the sent
// regrade requests, the student's private profile and the submitters'
// profiles.
func TestSearchSubmissionsFunctionReadsAsREST(t *testing.T) {
	byAssignment := func(db *userclient.Client, a functionArgs, table, columns string) *postgrest.Query {
		return db.From(table).Select(columns).Eq("class_id", a.text("p_class_id")).Eq("assignment_id", a.text("p_assignment_id"))
	}
	subs := restRead{key: "submissions", query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		q := byAssignment(db, a, "submissions", "id,created_at,ordinal,is_active,profile_id,assignment_group_id,grader_results!grader_results_submission_id_fkey(score,max_score)")
		if a["p_include_inactive"] != true {
			q = q.Eq("is_active", "true")
		}
		return q.Order("created_at", false).Order("id", false).Limit(maxRows + 1)
	}}
	regrades := restRead{key: "regrades", query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		return byAssignment(db, a, "submission_regrade_requests", "submission_id,status").Neq("status", "draft").Order("id", true).Limit(maxRows)
	}}
	// the translation (docs/contract/tools.md §1.3), as privateProfileID reads it: one row or none.
	only := restRead{key: "only", query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		if a["p_student_profile_id"] == nil {
			return nil
		}
		return db.From("user_roles").Select("private_profile_id, role, profiles!user_roles_public_profile_id_fkey(name)").
			Eq("class_id", a.text("p_class_id")).Eq("public_profile_id", a.text("p_student_profile_id"))
	}, pick: func(rows []any) any {
		if len(rows) != 1 {
			return nil
		}
		return rows[0].(map[string]any)["private_profile_id"]
	}}
	checkFunctionReadsAsREST(t, functionCase{
		fn: "mcp_search_submissions", column: "found",
		answered: func(t *testing.T, db *userclient.Client, a functionArgs) bool {
			return oneRow(t, db.From("assignments").Select(assignmentColumns).Eq("id", a.text("p_assignment_id")).Eq("class_id", a.text("p_class_id")))
		},
		reads: []restRead{subs, regrades, only, profileLookupRead([2]string{"submissions", "profile_id"})},
		args: []functionArgs{
			{"p_class_id": 1, "p_assignment_id": 1, "p_include_inactive": true, "p_student_profile_id": nil},
			{"p_class_id": 1, "p_assignment_id": 1, "p_include_inactive": false, "p_student_profile_id": pubID(1, 3)},
			{"p_class_id": 1, "p_assignment_id": 2, "p_include_inactive": false, "p_student_profile_id": pubID(2, 3)},
			{"p_class_id": 2, "p_assignment_id": 5, "p_include_inactive": true, "p_student_profile_id": nil},
			{"p_class_id": 1, "p_assignment_id": 5, "p_include_inactive": true, "p_student_profile_id": nil},
		},
	})
}

// classProfileColumns embed, under a profile id, what the answer shows of
// the person: the public profile and role of the class member whose
// private profile it is (private), or whose public profile it is (public).
// The profile's own name is never read: a private profile's is the
// person's real name.
const classProfileColumns = "private:user_roles!user_roles_private_profile_id_fkey(class_id,role,public_profile_id,pub:profiles!user_roles_public_profile_id_fkey(name))," +
	"public:user_roles!user_roles_public_profile_id_fkey(class_id,role,public_profile_id,pub:profiles!user_roles_public_profile_id_fkey(name))"

// regradeRequestColumns is get_regrade_request's REST read before
// mcp_regrade_request: the request with everything the answer shows
// embedded.
const regradeRequestColumns = "id,class_id,status,assignment_id,submission_id,created_at,opened_at,resolved_at,escalated_at,closed_at,last_commented_at,initial_points,resolved_points,closed_points," +
	"assignments!submission_regrade_requests_assignment_id_fkey(title)," +
	"rubric_checks!submission_regrade_requests_rubric_check_id_fkey(id,name,description,points)," +
	"submission_reviews!submission_regrade_requests_submission_review_id_fkey(id,name,total_score,total_autograde_score,tweak,released)," +
	"student:profiles!submission_regrade_requests_submitted_by_fkey(" + classProfileColumns + ")," +
	"assignee_profile:profiles!submission_regrade_requests_assignee_fkey(" + classProfileColumns + ")," +
	"submission_regrade_request_comments(id,created_at,comment,author_profile:profiles!submission_regrade_request_comments_author_fkey(" + classProfileColumns + "))"

// TestRegradeRequestFunctionReadsAsREST: mcp_regrade_request reads what
// get_regrade_request's REST reads read: no row unless the caller is
// enabled staff of the class and the request a sent one of it; the
// request row with every embed, the comments newest first.
func TestRegradeRequestFunctionReadsAsREST(t *testing.T) {
	request := restRead{key: "", single: true, query: func(db *userclient.Client, a functionArgs, _ map[string]any) *postgrest.Query {
		return db.From("submission_regrade_requests").Select(regradeRequestColumns).
			Eq("id", a.text("p_regrade_request_id")).Eq("class_id", a.text("p_class_id")).Neq("status", "draft").
			OrderIn(regradeComments, "created_at", false).OrderIn(regradeComments, "id", false).
			LimitIn(regradeComments, maxRegradeRequestComments+1)
	}}
	checkFunctionReadsAsREST(t, functionCase{
		fn: "mcp_regrade_request", column: "found",
		answered: func(t *testing.T, db *userclient.Client, a functionArgs) bool {
			return isStaffREST(t, db, a) && oneRow(t, request.query(db, a, nil))
		},
		reads: []restRead{request},
		args: []functionArgs{
			{"p_class_id": 1, "p_regrade_request_id": 1}, {"p_class_id": 1, "p_regrade_request_id": 2},
			{"p_class_id": 1, "p_regrade_request_id": 3}, {"p_class_id": 1, "p_regrade_request_id": 4},
			{"p_class_id": 1, "p_regrade_request_id": 5}, {"p_class_id": 2, "p_regrade_request_id": 6},
		},
	})
}

// staffReadFunctions are the read tools' SQL functions with their argument
// types, as has_function_privilege names them.
var staffReadFunctions = []string{
	"mcp_student_overview(bigint,text)",
	"mcp_rubric(bigint,bigint)",
	"mcp_list_regrade_requests(bigint,bigint,text,integer)",
	"mcp_help_queue_overview(bigint,bigint)",
	"mcp_grading_progress(bigint,bigint)",
	"mcp_search_submissions(bigint,bigint,boolean,text)",
	"mcp_regrade_request(bigint,bigint)",
	// The helpers they call, which run as the caller too.
	"mcp_caller_is_class_staff(bigint)",
	"mcp_class_profiles(bigint,uuid[])",
	"mcp_profile_membership(uuid)",
}

// inlinedHelpers are the helpers with no SET clause, so that PostgreSQL
// inlines them into the calling query (a SET clause prevents it); their
// names are all schema-qualified instead.
var inlinedHelpers = map[string]bool{"mcp_profile_membership(uuid)": true}

// TestStaffReadFunctionsRunAsTheCaller: every read tool's SQL function is
// SECURITY INVOKER (row-level security applies as to the caller's REST
// reads), STABLE, with an empty search_path (none for an inlined helper),
// and executable by authenticated only: not by anon, nor by PUBLIC's
// default grant.
func TestStaffReadFunctionsRunAsTheCaller(t *testing.T) {
	db := testEnv(t).DB(t)
	for _, fn := range staffReadFunctions {
		t.Run(fn, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var definer bool
			var volatility string
			var config []string
			var anon, authenticated, public bool
			err := db.QueryRow(ctx, `SELECT p.prosecdef, p.provolatile::text, coalesce(p.proconfig, '{}'),
				has_function_privilege('anon', p.oid, 'EXECUTE'), has_function_privilege('authenticated', p.oid, 'EXECUTE'),
				coalesce(bool_or(a.grantee = 0 AND a.privilege_type = 'EXECUTE'), false)
				FROM pg_proc p LEFT JOIN LATERAL aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a ON true
				WHERE p.oid = ('public.' || $1)::regprocedure
				GROUP BY p.oid`, fn).Scan(&definer, &volatility, &config, &anon, &authenticated, &public)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{`search_path=""`}
			if inlinedHelpers[fn] {
				want = []string{}
			}
			if definer || volatility != "s" || !slices.Equal(config, want) {
				t.Errorf("security definer %v, volatility %q, config %v; want invoker, stable (s), %v", definer, volatility, config, want)
			}
			if anon || public || !authenticated {
				t.Errorf("EXECUTE: anon %v, PUBLIC %v, authenticated %v; want authenticated only", anon, public, authenticated)
			}
		})
	}
}

// TestProfileMembershipIsInlined: mcp_profile_membership runs once per
// comment of a regrade request, so PostgreSQL must plan its body into the
// calling query (no SET clause, set-returning, STABLE) rather than call it
// per row: the caller's plan has no scan of the function.
func TestProfileMembershipIsInlined(t *testing.T) {
	db := testEnv(t).DB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `SET LOCAL ROLE authenticated`); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, `EXPLAIN SELECT (SELECT m.membership FROM public.mcp_profile_membership(c.author) AS m)
		FROM public.submission_regrade_request_comments AS c`)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range plan {
		if strings.Contains(line, "Function Scan") {
			t.Fatalf("mcp_profile_membership is called, not inlined:\n%s", strings.Join(plan, "\n"))
		}
	}
}
