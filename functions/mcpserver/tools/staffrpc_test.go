package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
					got := found[r.key]
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

// rowValues are the non-null string values of keys in the rows of a
// REST answer, in order.
func rowValues(v any, keys ...string) []string {
	var out []string
	rows, _ := v.([]any)
	for _, r := range rows {
		m, _ := r.(map[string]any)
		for _, k := range keys {
			if s, ok := m[k].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// profileLookupRead is §1.2's profile look-up of the private profile ids
// under keys of the rows read as from.
func profileLookupRead(from string, keys ...string) restRead {
	return restRead{key: "profiles", unordered: true, query: func(db *userclient.Client, a functionArgs, prev map[string]any) *postgrest.Query {
		ids := uniqueStrings(rowValues(prev[from], keys...))
		if len(ids) == 0 {
			return nil
		}
		return db.From("user_roles").Select(profileLookupColumns).Eq("class_id", a.text("p_class_id")).In("private_profile_id", ids)
	}}
}

// isStaffREST is the caller's staff check (staffInClass) as a REST read.
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
		reads: []restRead{requests, profileLookupRead("requests", "created_by", "assignee")},
		args: []functionArgs{
			{"p_class_id": 1, "p_assignment_id": nil, "p_status": "", "p_limit": 25},
			{"p_class_id": 1, "p_assignment_id": nil, "p_status": "all", "p_limit": 100},
			{"p_class_id": 1, "p_assignment_id": 1, "p_status": "resolved", "p_limit": 100},
			{"p_class_id": 1, "p_assignment_id": nil, "p_status": "all", "p_limit": 1},
			{"p_class_id": 2, "p_assignment_id": nil, "p_status": "all", "p_limit": 100},
		},
	})
}
