package tools

import (
	"fmt"
	"testing"
)

// sqlRubrics is get_rubric's answer for assignment $1 in class $2 built
// by SQL as the superuser (every row, no RLS): rubrics by id, parts,
// criteria and checks by ordinal then id, as the web app sorts them.
const sqlRubrics = `SELECT json_build_object('assignment_id', $1::bigint, 'class_id', $2::bigint, 'truncated', false, 'rubrics', coalesce((
  SELECT json_agg(json_build_object('id', r.id, 'name', r.name, 'description', r.description, 'review_round', r.review_round,
         'is_private', r.is_private, 'parts', coalesce((
    SELECT json_agg(json_build_object('id', p.id, 'name', p.name, 'description', p.description, 'ordinal', p.ordinal, 'criteria', coalesce((
      SELECT json_agg(json_build_object('id', c.id, 'name', c.name, 'description', c.description, 'ordinal', c.ordinal,
             'total_points', c.total_points, 'is_additive', c.is_additive, 'is_deduction_only', c.is_deduction_only,
             'min_checks_per_submission', c.min_checks_per_submission, 'max_checks_per_submission', c.max_checks_per_submission,
             'checks', coalesce((
        SELECT json_agg(json_build_object('id', k.id, 'name', k.name, 'description', k.description, 'group', k."group",
               'ordinal', k.ordinal, 'points', k.points, 'is_annotation', k.is_annotation, 'max_annotations', k.max_annotations,
               'file', k.file, 'artifact', k.artifact, 'is_required', k.is_required, 'is_comment_required', k.is_comment_required,
               'student_visibility', k.student_visibility) ORDER BY k.ordinal, k.id)
          FROM public.rubric_checks k WHERE k.rubric_criteria_id = c.id), '[]'))
        ORDER BY c.ordinal, c.id)
        FROM public.rubric_criteria c WHERE c.rubric_part_id = p.id), '[]'))
      ORDER BY p.ordinal, p.id)
      FROM public.rubric_parts p WHERE p.rubric_id = r.id), '[]'))
    ORDER BY r.id)
    FROM public.rubrics r WHERE r.assignment_id = $1 AND r.class_id = $2), '[]'))`

// rubricIDs flattens a get_rubric answer into the ids at each level, in
// answer order.
func rubricIDs(v any) (rubrics, parts, criteria, checks []any) {
	for _, r := range field(v, "rubrics").([]any) {
		rubrics = append(rubrics, field(r, "id"))
		for _, p := range field(r, "parts").([]any) {
			parts = append(parts, field(p, "id"))
			for _, c := range field(p, "criteria").([]any) {
				criteria = append(criteria, field(c, "id"))
				checks = append(checks, pluck(field(c, "checks"), "id")...)
			}
		}
	}
	return
}

func TestExpectGetRubric(t *testing.T) {
	t.Run("instructor sees every rubric as SQL builds it", func(t *testing.T) {
		for _, a := range []struct{ assignment, class int }{{1, 1}, {2, 1}} {
			args := fmt.Sprintf(`{"assignment_id":%d,"class_id":%d}`, a.assignment, a.class)
			want := seedJSON(t, sqlRubrics, a.assignment, a.class)
			expectEqual(t, "get_rubric"+args, want, toolJSON(t, nil, userAlice, "get_rubric", args))
		}
	})
	// SEED.md: HW1 has rubrics 1 (grading), 2 (self-review) and 11
	// (private meta-grading); rubric 1's parts by ordinal are 2, 3, 1 and
	// check 4 is never shown to students.
	t.Run("order and what each role sees", func(t *testing.T) {
		const args = `{"assignment_id":1,"class_id":1}`
		cases := []struct {
			name, user                      string
			rubrics, parts, criteria, check []any
		}{
			{"instructor", userAlice, nums(1, 2, 11), nums(2, 3, 1, 4, 5), nums(1, 4, 3, 2, 5, 6), nums(1, 2, 5, 4, 3, 6, 7)},
			{"grader", userGary, nums(1, 2, 11), nums(2, 3, 1, 4, 5), nums(1, 4, 3, 2, 5, 6), nums(1, 2, 5, 4, 3, 6, 7)},
			{"student", userSam, nums(1, 2), nums(2, 3, 1, 4), nums(1, 4, 3, 2, 5), nums(1, 2, 5, 3, 6)},
			{"grader of class B, student of A", userTara, nums(1, 2), nums(2, 3, 1, 4), nums(1, 4, 3, 2, 5), nums(1, 2, 5, 3, 6)},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r, p, cr, ch := rubricIDs(toolJSON(t, nil, c.user, "get_rubric", args))
				expectEqual(t, "rubric ids", c.rubrics, r)
				expectEqual(t, "part ids", c.parts, p)
				expectEqual(t, "criterion ids", c.criteria, cr)
				expectEqual(t, "check ids", c.check, ch)
			})
		}
	})
	t.Run("null outside the caller's classes", func(t *testing.T) {
		for _, c := range []struct{ user, args string }{
			{userBea, `{"assignment_id":1,"class_id":1}`},   // class B's instructor, class A's rubric
			{userAlice, `{"assignment_id":5,"class_id":2}`}, // class A's instructor, class B's rubric
			{userAlice, `{"assignment_id":5,"class_id":1}`}, // class B's assignment under class A's id
			{userNora, `{"assignment_id":1,"class_id":1}`},  // not enrolled
			{userSam, `{"assignment_id":3,"class_id":1}`},   // unreleased assignment
		} {
			expectEqual(t, "get_rubric"+c.args+" as "+c.user, nil, toolJSON(t, nil, c.user, "get_rubric", c.args))
		}
	})
}

func TestExpectListStudentSubmissions(t *testing.T) {
	sam := pubID(1, 3)
	const samPrivate = "'20000001-0000-4000-8000-000000000003'"
	t.Run("every assignment, newest first", func(t *testing.T) {
		want := seedIDs(t, `SELECT id FROM public.submissions WHERE profile_id = `+samPrivate+` AND class_id = 1 ORDER BY created_at DESC, id DESC LIMIT 10`)
		if len(want) < 2 {
			t.Fatalf("the seed gives Sam %d submissions; the case proves nothing", len(want))
		}
		got := toolJSON(t, nil, userAlice, "list_student_submissions", fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, sam))
		expectEqual(t, "submission ids", want, pluck(got, "id"))
	})
	t.Run("one assignment answers as get_submissions_for_student", func(t *testing.T) {
		for _, aid := range []int{1, 2} {
			for _, files := range []bool{false, true} {
				want := toolJSON(t, nil, userAlice, "get_submissions_for_student",
					fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":%d,"class_id":1,"include_files":%t}`, sam, aid, files))
				got := toolJSON(t, nil, userAlice, "list_student_submissions",
					fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":%d,"class_id":1,"include_files":%t}`, sam, aid, files))
				expectEqual(t, fmt.Sprintf("assignment %d, files %t", aid, files), want, got)
			}
		}
	})
	t.Run("limit is bounded", func(t *testing.T) {
		total := len(seedIDs(t, `SELECT id FROM public.submissions WHERE profile_id = `+samPrivate+` AND class_id = 1`))
		for _, c := range []struct{ limit, want int }{{1, 1}, {2, 2}, {1000, min(total, listStudentSubmissionsMax)}} {
			got := toolJSON(t, nil, userAlice, "list_student_submissions", fmt.Sprintf(`{"student_profile_id":%q,"class_id":1,"limit":%d}`, sam, c.limit))
			if n := len(got.([]any)); n != c.want {
				t.Errorf("limit %d: %d submissions, want %d", c.limit, n, c.want)
			}
		}
	})
	t.Run("a student sees only their own", func(t *testing.T) {
		got := toolJSON(t, nil, userSofia, "list_student_submissions", fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, sam))
		expectEqual(t, "Sofia asking for Sam's", []any{}, got)
		own := toolJSON(t, nil, userSam, "list_student_submissions", fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, sam))
		if len(own.([]any)) == 0 {
			t.Error("Sam sees none of his own submissions")
		}
	})
}
