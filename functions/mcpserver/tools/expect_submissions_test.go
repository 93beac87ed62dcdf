package tools

import (
	"fmt"
	"strconv"
	"testing"
)

// Expectations for get_assignment and the submission tools (see
// expect_test.go for how they are made).

// sqlAssignment is record A of docs/contract/tools.md §1.5 for assignment
// $1 in class $2.
const sqlAssignment = `SELECT json_build_object('id', a.id, 'title', a.title, 'slug', a.slug,
	'description', a.description, 'handout_url', a.handout_url, 'due_date', a.due_date,
	'release_date', a.release_date, 'total_points', a.total_points,
	'has_autograder', a.has_autograder, 'class_id', a.class_id)
	FROM public.assignments a WHERE a.id = $1 AND a.class_id = $2`

func TestExpectGetAssignment(t *testing.T) {
	// Alice teaches class 1 and sees every assignment of it as stored.
	for _, id := range seedIDs(t, `SELECT id FROM public.assignments WHERE class_id = 1 ORDER BY id`) {
		t.Run(fmt.Sprintf("instructor_%v", id), func(t *testing.T) {
			got := toolJSON(t, nil, userAlice, "get_assignment", fmt.Sprintf(`{"assignment_id":%v,"class_id":1}`, id))
			expectEqual(t, "assignment", seedJSON(t, sqlAssignment, id, 1), got)
		})
	}
	// SEED.md: students see assignments 1 and 2 of class 1; 3 is not yet
	// released and 4 is archived.
	for id, visible := range map[int]bool{1: true, 2: true, 3: false, 4: false} {
		t.Run(fmt.Sprintf("student_%d", id), func(t *testing.T) {
			got := toolJSON(t, nil, userSam, "get_assignment", fmt.Sprintf(`{"assignment_id":%d,"class_id":1}`, id))
			var want any
			if visible {
				want = seedJSON(t, sqlAssignment, id, 1)
			}
			expectEqual(t, "assignment", want, got)
		})
	}
	for _, tc := range []struct{ name, user, args string }{
		{"not_found", userAlice, `{"assignment_id":999,"class_id":1}`},
		{"class_2_assignment_under_class_1", userAlice, `{"assignment_id":5,"class_id":1}`},
		{"other_class_not_member", userAlice, `{"assignment_id":5,"class_id":2}`},
		{"no_enrolment", userNora, `{"assignment_id":1,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", nil, toolJSON(t, nil, tc.user, "get_assignment", tc.args))
		})
	}
}

// sqlSubmission is submission context S (docs/contract/tools.md §1.7) without
// grader_result, in its summary form (file_count and file_names), for
// submission $1 in class $2.
var sqlSubmission = `SELECT json_build_object('id', s.id, 'assignment_id', s.assignment_id,
	'created_at', s.created_at, 'sha', s.sha, 'repository', s.repository, 'ordinal', s.ordinal,
	'is_active', s.is_active,
	'student_profile_id', ` + publicID("s.profile_id", "s.class_id") + `,
	'student_name', ` + publicName("s.profile_id", "s.class_id") + `,
	'file_count', (SELECT count(*) FROM public.submission_files f WHERE f.submission_id = s.id AND f.class_id = s.class_id),
	'file_names', (SELECT coalesce(json_agg(f.name ORDER BY f.name COLLATE "C"), '[]') FROM public.submission_files f
		WHERE f.submission_id = s.id AND f.class_id = s.class_id))
	FROM public.submissions s WHERE s.id = $1 AND s.class_id = $2`

// sqlGraderResult is G (docs/contract/tools.md §1.6) in summary form for
// submission $1 in class $2: the newest result, test counts by the pass
// rule, and the build output row chosen as quirk Q7 says.
var sqlGraderResult = `SELECT json_build_object('id', g.id, 'score', g.score, 'max_score', g.max_score,
	'lint_passed', g.lint_passed, 'lint_output', g.lint_output, 'lint_output_format', g.lint_output_format,
	'errors', g.errors, 'execution_time', g.execution_time, 'ret_code', g.ret_code,
	'tests', '[]'::json,
	'build_output', (SELECT json_build_object('stdout', NULL, 'stderr', NULL, 'combined_output', o.output, 'output_format', o.format)
		FROM public.grader_result_output o WHERE o.grader_result_id = g.id ORDER BY ` + sqlOutputOrder + ` LIMIT 1),
	'test_count', (SELECT count(*) FROM public.grader_result_tests t WHERE t.grader_result_id = g.id),
	'tests_passed', (SELECT count(*) FROM public.grader_result_tests t WHERE t.grader_result_id = g.id AND ` + sqlPasses + `),
	'tests_failed', (SELECT count(*) FROM public.grader_result_tests t WHERE t.grader_result_id = g.id AND NOT ` + sqlPasses + `),
	'test_names', (SELECT coalesce(json_agg(t.name ORDER BY t.id), '[]') FROM public.grader_result_tests t WHERE t.grader_result_id = g.id))
	FROM public.grader_results g WHERE g.submission_id = $1 AND g.class_id = $2
	ORDER BY g.created_at DESC LIMIT 1`

// sqlTests is G.tests with test output, for submission $1 in class $2.
const sqlTests = `SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'part', t.part,
	'score', t.score, 'max_score', t.max_score, 'output', t.output, 'output_format', t.output_format,
	'is_released', t.is_released) ORDER BY t.id), '[]')
	FROM public.grader_result_tests t WHERE t.grader_result_id =
	(SELECT g.id FROM public.grader_results g WHERE g.submission_id = $1 AND g.class_id = $2 ORDER BY g.created_at DESC LIMIT 1)`

// sqlFiles is the full file rows of submission $1 in class $2 in name order.
const sqlFiles = `SELECT coalesce(json_agg(json_build_object('id', f.id, 'name', f.name, 'contents', f.contents)
	ORDER BY f.name COLLATE "C"), '[]') FROM public.submission_files f WHERE f.submission_id = $1 AND f.class_id = $2 %s`

// staffView lists every submission of each class with an instructor of it,
// who sees every row.
var staffView = []struct {
	class int
	user  string
}{{1, userAlice}, {2, userBea}}

func TestExpectGetSubmission(t *testing.T) {
	for _, v := range staffView {
		for _, id := range seedIDs(t, `SELECT id FROM public.submissions WHERE class_id = $1 ORDER BY id`, v.class) {
			t.Run(fmt.Sprintf("class_%d_submission_%v", v.class, id), func(t *testing.T) {
				args := fmt.Sprintf(`{"submission_id":%v,"class_id":%d}`, id, v.class)
				got := toolJSON(t, nil, v.user, "get_submission", args)
				want := seedJSON(t, sqlSubmission, id, v.class).(map[string]any)
				want["grader_result"] = seedJSON(t, sqlGraderResult, id, v.class)
				expectEqual(t, "submission", want, got)

				// With test output and files: the tests carry their output
				// and the summary fields give way to the full lists.
				args = fmt.Sprintf(`{"submission_id":%v,"class_id":%d,"include_test_output":true,"include_files":true}`, id, v.class)
				got = toolJSON(t, nil, v.user, "get_submission", args)
				expectEqual(t, "files", seedJSON(t, fmt.Sprintf(sqlFiles, ""), id, v.class), field(got, "files"))
				for _, k := range []string{"file_count", "file_names"} {
					if keysOf(got)[k] {
						t.Errorf("%s present with include_files", k)
					}
				}
				if g := field(got, "grader_result"); g != nil {
					expectEqual(t, "tests", seedJSON(t, sqlTests, id, v.class), field(g, "tests"))
					for _, k := range []string{"test_count", "tests_passed", "tests_failed", "test_names"} {
						if keysOf(g)[k] {
							t.Errorf("grader_result.%s present with include_test_output", k)
						}
					}
				}
			})
		}
	}
	// Stable facts of the seed: submission 3 is Sam's, 8 is in class 2,
	// 9 belongs to a group (no student profile), 6 has no grader result.
	t.Run("group_submission_has_no_student", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_submission", `{"submission_id":9,"class_id":1}`)
		expectEqual(t, "student", map[string]any{"student_profile_id": nil, "student_name": nil},
			pick(got, "student_profile_id", "student_name"))
	})
	t.Run("pending_has_no_grader_result", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_submission", `{"submission_id":6,"class_id":1}`)
		if g, ok := got.(map[string]any)["grader_result"]; !ok || g != nil {
			t.Errorf("grader_result = %v (present %v), want null", g, ok)
		}
	})
	t.Run("sam_is_the_student_of_3", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_submission", `{"submission_id":3,"class_id":1}`)
		expectEqual(t, "student_profile_id", pubID(1, 3), field(got, "student_profile_id"))
	})
	for _, tc := range []struct{ name, user, args string }{
		{"not_found", userAlice, `{"submission_id":999,"class_id":1}`},
		{"class_2_submission_under_class_1", userAlice, `{"submission_id":8,"class_id":1}`},
		{"other_class_not_member", userAlice, `{"submission_id":8,"class_id":2}`},
		{"another_students_submission", userSofia, `{"submission_id":3,"class_id":1}`},
		{"no_enrolment", userNora, `{"submission_id":3,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", nil, toolJSON(t, nil, tc.user, "get_submission", tc.args))
		})
	}
}

func TestExpectListSubmissionFiles(t *testing.T) {
	const sqlList = `SELECT json_build_object('files', coalesce(json_agg(json_build_object('name', f.name,
		'size', coalesce(octet_length(f.contents), 0)) ORDER BY f.name COLLATE "C"), '[]'), 'total_count', count(*))
		FROM public.submission_files f WHERE f.submission_id = $1 AND f.class_id = $2`
	for _, v := range staffView {
		for _, id := range seedIDs(t, `SELECT id FROM public.submissions WHERE class_id = $1 ORDER BY id`, v.class) {
			t.Run(fmt.Sprintf("class_%d_submission_%v", v.class, id), func(t *testing.T) {
				got := toolJSON(t, nil, v.user, "list_submission_files", fmt.Sprintf(`{"submission_id":%v,"class_id":%d}`, id, v.class))
				expectEqual(t, "files", seedJSON(t, sqlList, id, v.class), got)
			})
		}
	}
	empty := map[string]any{"files": []any{}, "total_count": 0.0}
	for _, tc := range []struct{ name, user, args string }{
		{"not_found", userAlice, `{"submission_id":999,"class_id":1}`},
		{"class_2_submission_under_class_1", userAlice, `{"submission_id":8,"class_id":1}`},
		{"another_students_files", userSofia, `{"submission_id":2,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", empty, toolJSON(t, nil, tc.user, "list_submission_files", tc.args))
		})
	}
}

// TestExpectGetSubmissionFiles checks glob filtering
// (docs/contract/tools.md §1.10) against the same selection written as SQL
// LIKE conditions on the names.
func TestExpectGetSubmissionFiles(t *testing.T) {
	for _, tc := range []struct {
		name, glob, where string
	}{
		{"no_pattern", "", ""},
		{"java_under_src", "src/*.java", `AND f.name LIKE 'src/%.java' AND f.name NOT LIKE 'src/%/%'`},
		{"root_markdown", "*.md", `AND f.name LIKE '%.md' AND f.name NOT LIKE '%/%'`},
		{"any_depth_java", "**/*.java", `AND f.name LIKE '%.java'`},
		{"braces", "{README.md,docs/*}", `AND (f.name = 'README.md' OR (f.name LIKE 'docs/%' AND f.name NOT LIKE 'docs/%/%'))`},
		{"negated", "!src/**", `AND f.name NOT LIKE 'src/%'`},
		{"comment_matches_nothing", "#src/*", `AND false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, id := range seedIDs(t, `SELECT id FROM public.submissions WHERE class_id = 1 ORDER BY id`) {
				args := fmt.Sprintf(`{"submission_id":%v,"class_id":1,"glob_pattern":%s}`, id, strconv.Quote(tc.glob))
				got := toolJSON(t, nil, userAlice, "get_submission_files", args)
				files := seedJSON(t, fmt.Sprintf(sqlFiles, tc.where), id, 1).([]any)
				want := map[string]any{"files": files, "matched_count": float64(len(files))}
				expectEqual(t, fmt.Sprintf("submission %v", id), want, got)
			}
		})
	}
	empty := map[string]any{"files": []any{}, "matched_count": 0.0}
	for _, tc := range []struct{ name, user, args string }{
		{"not_found", userAlice, `{"submission_id":999,"class_id":1}`},
		{"another_students_files", userSofia, `{"submission_id":3,"class_id":1}`},
		{"class_2_submission_under_class_1", userAlice, `{"submission_id":8,"class_id":1,"glob_pattern":"*"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", empty, toolJSON(t, nil, tc.user, "get_submission_files", tc.args))
		})
	}
}

// TestExpectListSubmissionTests includes quirk Q6: only_failed returns the
// tests that fail the pass rule, with the summary over them.
func TestExpectListSubmissionTests(t *testing.T) {
	const sqlList = `WITH g AS (SELECT g.id FROM public.grader_results g WHERE g.submission_id = $1 AND g.class_id = $2
			ORDER BY g.created_at DESC LIMIT 1),
		r AS (SELECT t.id, t.name, t.part, t.score, t.max_score, ` + sqlPasses + ` AS passed
			FROM public.grader_result_tests t WHERE t.grader_result_id = (SELECT id FROM g))
		SELECT json_build_object(
			'tests', coalesce((SELECT json_agg(json_build_object('id', id, 'name', name, 'part', part, 'score', score,
				'max_score', max_score, 'passed', passed) ORDER BY id) FROM r WHERE %[1]s), '[]'),
			'summary', json_build_object(
				'passed', (SELECT count(*) FROM r WHERE passed AND %[1]s),
				'failed', (SELECT count(*) FROM r WHERE NOT passed AND %[1]s),
				'total_score', (SELECT coalesce(sum(score), 0) FROM r WHERE %[1]s),
				'max_score', (SELECT coalesce(sum(max_score), 0) FROM r WHERE %[1]s)))`
	for _, v := range staffView {
		for _, id := range seedIDs(t, `SELECT id FROM public.submissions WHERE class_id = $1 ORDER BY id`, v.class) {
			for _, onlyFailed := range []bool{false, true} {
				t.Run(fmt.Sprintf("class_%d_submission_%v_only_failed_%v", v.class, id, onlyFailed), func(t *testing.T) {
					args := fmt.Sprintf(`{"submission_id":%v,"class_id":%d,"only_failed":%v}`, id, v.class, onlyFailed)
					got := toolJSON(t, nil, v.user, "list_submission_tests", args)
					cond := "true"
					if onlyFailed {
						cond = "NOT passed"
					}
					expectEqual(t, "tests", seedJSON(t, fmt.Sprintf(sqlList, cond), id, v.class), got)
				})
			}
		}
	}
	// Result 3 (submission 3) has one failing test of five (SEED.md): the
	// quirk fix is visible in the seed, not only in an empty answer.
	t.Run("only_failed_finds_the_failure", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "list_submission_tests", `{"submission_id":3,"class_id":1,"only_failed":true}`)
		expectEqual(t, "failed test ids", nums(10), pluck(field(got, "tests"), "id"))
	})
	emptyOut := map[string]any{"tests": []any{}, "summary": map[string]any{"passed": 0.0, "failed": 0.0, "total_score": 0.0, "max_score": 0.0}}
	for _, tc := range []struct{ name, user, args string }{
		{"no_grader_result", userAlice, `{"submission_id":6,"class_id":1}`},
		{"not_found", userAlice, `{"submission_id":999,"class_id":1,"only_failed":true}`},
		{"class_2_submission_under_class_1", userAlice, `{"submission_id":8,"class_id":1}`},
		{"another_students_tests", userSofia, `{"submission_id":3,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", emptyOut, toolJSON(t, nil, tc.user, "list_submission_tests", tc.args))
		})
	}
}

// TestExpectListSubmissionTestsNegotiated: at a negotiated revision each
// test also carries is_released as stored (docs/compatibility.md S31).
func TestExpectListSubmissionTestsNegotiated(t *testing.T) {
	const sqlReleased = `SELECT coalesce(json_agg(json_build_object('id', t.id, 'is_released', t.is_released) ORDER BY t.id), '[]')
		FROM public.grader_result_tests t WHERE t.grader_result_id = (SELECT g.id FROM public.grader_results g
			WHERE g.submission_id = $1 AND g.class_id = $2 ORDER BY g.created_at DESC LIMIT 1)
		AND (NOT $3 OR NOT ` + sqlPasses + `)`
	for _, v := range staffView {
		for _, id := range seedIDs(t, `SELECT id FROM public.submissions WHERE class_id = $1 ORDER BY id`, v.class) {
			for _, onlyFailed := range []bool{false, true} {
				t.Run(fmt.Sprintf("class_%d_submission_%v_only_failed_%v", v.class, id, onlyFailed), func(t *testing.T) {
					args := fmt.Sprintf(`{"submission_id":%v,"class_id":%d,"only_failed":%v}`, id, v.class, onlyFailed)
					got := toolJSONNegotiated(t, v.user, "list_submission_tests", args)
					want := seedJSON(t, sqlReleased, id, v.class, onlyFailed)
					expectEqual(t, "tests", want, pickEach(field(got, "tests"), "id", "is_released"))
				})
			}
		}
	}
	// SEED.md: submission 2's test 6 (testHidden) is not released to the
	// student; the others are.
	t.Run("submission_2_hidden_test", func(t *testing.T) {
		got := field(toolJSONNegotiated(t, userAlice, "list_submission_tests", `{"submission_id":2,"class_id":1}`), "tests")
		expectEqual(t, "test ids", nums(3, 4, 5, 6), pluck(got, "id"))
		expectEqual(t, "is_released", []any{true, true, true, false}, pluck(got, "is_released"))
	})
}

// pickEach is pick for every item of a list.
func pickEach(list any, keys ...string) any {
	items, _ := list.([]any)
	out := make([]any, 0, len(items))
	for _, it := range items {
		out = append(out, pick(it, keys...))
	}
	return out
}

// TestExpectGetTestOutput includes quirk Q15: of two tests with one name,
// the lowest id.
func TestExpectGetTestOutput(t *testing.T) {
	const sqlTest = `SELECT json_build_object('test', (SELECT json_build_object('id', t.id, 'name', t.name, 'part', t.part,
		'output', t.output, 'output_format', t.output_format)
		FROM public.grader_result_tests t WHERE t.grader_result_id =
			(SELECT g.id FROM public.grader_results g WHERE g.submission_id = $1 AND g.class_id = $2 ORDER BY g.created_at DESC LIMIT 1)
		AND %s ORDER BY t.id LIMIT 1))`
	for _, v := range staffView {
		subs := seedIDs(t, `SELECT DISTINCT g.submission_id FROM public.grader_results g WHERE g.class_id = $1 ORDER BY 1`, v.class)
		for _, sub := range subs {
			tests := seedJSON(t, `SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.id)
				FROM public.grader_result_tests t JOIN public.grader_results g ON g.id = t.grader_result_id
				WHERE g.submission_id = $1 AND g.class_id = $2`, sub, v.class)
			for _, tt := range tests.([]any) {
				id, name := field(tt, "id"), field(tt, "name").(string)
				t.Run(fmt.Sprintf("class_%d_submission_%v_test_%v", v.class, sub, id), func(t *testing.T) {
					got := toolJSON(t, nil, v.user, "get_test_output", fmt.Sprintf(`{"submission_id":%v,"class_id":%d,"test_id":%v}`, sub, v.class, id))
					expectEqual(t, "by id", seedJSON(t, fmt.Sprintf(sqlTest, "t.id = $3"), sub, v.class, id), got)
					got = toolJSON(t, nil, v.user, "get_test_output", fmt.Sprintf(`{"submission_id":%v,"class_id":%d,"test_name":%s}`, sub, v.class, strconv.Quote(name)))
					expectEqual(t, "by name", seedJSON(t, fmt.Sprintf(sqlTest, "t.name = $3"), sub, v.class, name), got)
				})
			}
		}
	}
	// SEED.md: result 3 has testDuplicate twice, ids 9 and 10.
	t.Run("duplicate_name_is_the_lowest_id", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_test_output", `{"submission_id":3,"class_id":1,"test_name":"testDuplicate"}`)
		expectEqual(t, "id", 9.0, field(field(got, "test"), "id"))
	})
	none := map[string]any{"test": nil}
	for _, tc := range []struct{ name, user, args string }{
		{"unknown_name", userAlice, `{"submission_id":3,"class_id":1,"test_name":"noSuchTest"}`},
		{"test_of_another_submission", userAlice, `{"submission_id":3,"class_id":1,"test_id":1}`},
		{"no_grader_result", userAlice, `{"submission_id":6,"class_id":1,"test_id":1}`},
		{"class_2_submission_under_class_1", userAlice, `{"submission_id":8,"class_id":1,"test_id":17}`},
		{"another_students_test", userSofia, `{"submission_id":3,"class_id":1,"test_id":7}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", none, toolJSON(t, nil, tc.user, "get_test_output", tc.args))
		})
	}
}

// TestExpectGetSubmissionBuildOutput includes quirk Q7: with several output
// rows, the one whose visibility comes first, then the lowest id.
func TestExpectGetSubmissionBuildOutput(t *testing.T) {
	const sqlBuild = `SELECT json_build_object(
		'build', (SELECT json_build_object('stdout', NULL, 'stderr', NULL, 'combined_output', o.output, 'output_format', o.format)
			FROM public.grader_result_output o WHERE o.grader_result_id = g.id ORDER BY ` + sqlOutputOrder + ` LIMIT 1),
		'lint', json_build_object('passed', g.lint_passed, 'output', coalesce(nullif(g.lint_output, ''), ''),
			'output_format', coalesce(nullif(g.lint_output_format, ''), 'text')))
		FROM public.grader_results g WHERE g.submission_id = $1 AND g.class_id = $2 ORDER BY g.created_at DESC LIMIT 1`
	for _, v := range staffView {
		for _, id := range seedIDs(t, `SELECT id FROM public.submissions WHERE class_id = $1 ORDER BY id`, v.class) {
			t.Run(fmt.Sprintf("class_%d_submission_%v", v.class, id), func(t *testing.T) {
				want := seedJSON(t, sqlBuild, id, v.class)
				if want == nil { // no grader result
					want = map[string]any{"build": nil, "lint": nil}
				}
				got := toolJSON(t, nil, v.user, "get_submission_build_output", fmt.Sprintf(`{"submission_id":%v,"class_id":%d}`, id, v.class))
				expectEqual(t, "build output", want, got)
				got = toolJSON(t, nil, v.user, "get_submission_build_output", fmt.Sprintf(`{"submission_id":%v,"class_id":%d,"include_lint":false}`, id, v.class))
				expectEqual(t, "without lint", map[string]any{"build": field(want, "build")}, got)
			})
		}
	}
	// SEED.md: result 3 has four output rows; a student sees only the
	// visible one, which is also the one staff get.
	t.Run("four_rows_as_student", func(t *testing.T) {
		staff := toolJSON(t, nil, userAlice, "get_submission_build_output", `{"submission_id":3,"class_id":1}`)
		student := toolJSON(t, nil, userSam, "get_submission_build_output", `{"submission_id":3,"class_id":1}`)
		if field(staff, "build") == nil {
			t.Fatal("staff got no build output for submission 3")
		}
		expectEqual(t, "student's build", field(staff, "build"), field(student, "build"))
	})
	for _, tc := range []struct{ name, user, args string }{
		{"not_found", userAlice, `{"submission_id":999,"class_id":1}`},
		{"class_2_submission_under_class_1", userAlice, `{"submission_id":8,"class_id":1}`},
		{"another_students_build", userSofia, `{"submission_id":3,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", map[string]any{"build": nil, "lint": nil}, toolJSON(t, nil, tc.user, "get_submission_build_output", tc.args))
		})
	}
}

func TestExpectGetSubmissionsForStudent(t *testing.T) {
	// Every student of class 1 with every assignment: the newest
	// submissions first, each a full submission context (tests with
	// output).
	const sqlStudents = `SELECT json_agg(json_build_object('public', ur.public_profile_id, 'private', ur.private_profile_id) ORDER BY ur.id)
		FROM public.user_roles ur WHERE ur.class_id = 1 AND ur.role = 'student'`
	for _, st := range seedJSON(t, sqlStudents).([]any) {
		pub, priv := field(st, "public").(string), field(st, "private").(string)
		for _, a := range seedIDs(t, `SELECT id FROM public.assignments WHERE class_id = 1 ORDER BY id`) {
			t.Run(fmt.Sprintf("%s_assignment_%v", pub, a), func(t *testing.T) {
				want := seedIDs(t, `SELECT id FROM public.submissions WHERE profile_id = $1 AND assignment_id = $2 AND class_id = 1
					ORDER BY created_at DESC LIMIT 10`, priv, a)
				got := toolJSON(t, nil, userAlice, "get_submissions_for_student",
					fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":%v,"class_id":1}`, pub, a))
				expectEqual(t, "submission ids", want, pluck(got, "id"))
				for i, s := range got.([]any) {
					if g := field(s, "grader_result"); g != nil {
						expectEqual(t, fmt.Sprintf("tests of item %d", i), seedJSON(t, sqlTests, want[i], 1), field(g, "tests"))
					}
				}
				got = toolJSON(t, nil, userAlice, "get_submissions_for_student",
					fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":%v,"class_id":1,"limit":1}`, pub, a))
				expectEqual(t, "limit 1", want[:min(1, len(want))], pluck(got, "id"))
			})
		}
	}
	// Stable facts: Sam (public 30000001-…03) submitted assignment 1 three
	// times, as submissions 1, 2 and 3.
	t.Run("sam_assignment_1", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_submissions_for_student",
			fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":1,"class_id":1}`, pubID(1, 3)))
		expectEqual(t, "ids", nums(3, 2, 1), pluck(got, "id"))
	})
	for _, tc := range []struct{ name, user, args string }{
		// docs/contract/tools.md §2.13: the id must be a public profile id.
		{"private_id_finds_nothing", userAlice, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":1,"class_id":1}`, privID(1, 3))},
		{"unknown_profile", userAlice, `{"student_profile_id":"00000000-0000-4000-8000-000000000000","assignment_id":1,"class_id":1}`},
		{"limit_0", userAlice, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":1,"class_id":1,"limit":0}`, pubID(1, 3))},
		{"profile_of_class_1_under_class_2", userBea, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":5,"class_id":2}`, pubID(1, 3))},
		{"another_student_asks", userSofia, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":1,"class_id":1}`, pubID(1, 3))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", []any{}, toolJSON(t, nil, tc.user, "get_submissions_for_student", tc.args))
		})
	}
}
