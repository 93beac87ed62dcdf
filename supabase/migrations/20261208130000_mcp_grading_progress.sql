-- MCP gateway: get_grading_progress' reads in one round trip
-- (functions/mcpserver/tools/grading.go, docs/performance.md).
--
-- The tool reads the caller's own user_roles rows in the class (whether
-- they are enabled staff, and which rows are theirs), the assignment's
-- grading rubric, its active submissions with their reviews, its review
-- assignments, its sent regrade requests, the class's enabled graders and
-- then the graders' and assignees' public profiles. Through PostgREST that
-- is seven requests two deep; embedding cannot say it, since the caller's
-- rows and the graders hang off no foreign key of the assignment and the
-- profile look-up goes through user_roles.
--
--   * mcp_grading_progress — one row when the caller is an enabled
--     instructor or grader of the class and the assignment is a row the
--     caller may see: the assignment id and, in found, a JSON object with
--     the assignment (id, grading_rubric_id), the caller's user_roles rows,
--     the submissions, review assignments, regrade requests and graders
--     (each by id, one row past 1,000, which the tool reports as
--     truncated) and the user_roles rows of the profile look-up (docs/contract/tools.md §1.2) for the
--     graders and assignees, each exactly as the REST reads would return
--     them; no row otherwise. Two columns, so PostgREST answers rows as
--     objects.
--
-- SECURITY INVOKER: every statement runs as the caller, under the same
-- row-level security as the REST reads it replaces (the embedded reviews
-- included). PL/pgSQL, whose body is checked when first called, so the
-- migration applies before Pawtograder's tables exist, as the gateway's
-- other migrations do. Idempotent.
--
-- The profile look-up is the helper mcp_class_profiles of
-- supabase/migrations/20261208090000_mcp_staff_read_helpers.sql.

CREATE OR REPLACE FUNCTION public.mcp_grading_progress(p_class_id bigint, p_assignment_id bigint)
RETURNS TABLE (assignment_id bigint, found json)
LANGUAGE plpgsql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
DECLARE
    v_caller json;
    v_assignment json;
BEGIN
    SELECT coalesce(json_agg(c), '[]') INTO v_caller
      FROM (SELECT u.role, u.disabled, u.private_profile_id, u.public_profile_id
              FROM public.user_roles AS u
             WHERE u.user_id = auth.uid() AND u.class_id = p_class_id) AS c;
    IF NOT EXISTS (SELECT 1 FROM json_array_elements(v_caller) AS r
                    WHERE r ->> 'role' IN ('instructor', 'grader') AND (r ->> 'disabled')::boolean = false) THEN
        RETURN;
    END IF;
    SELECT row_to_json(a) INTO v_assignment
      FROM (SELECT x.id, x.grading_rubric_id
              FROM public.assignments AS x
             WHERE x.id = p_assignment_id AND x.class_id = p_class_id) AS a;
    IF v_assignment IS NULL THEN
        RETURN;
    END IF;
    -- The review assignments and graders once (a CTE is computed once),
    -- for their lists and for the people whose profiles are looked up.
    RETURN QUERY
    WITH r AS (
        SELECT x.id, x.assignee_profile_id, x.due_date, x.completed_at
          FROM public.review_assignments AS x
         WHERE x.class_id = p_class_id AND x.assignment_id = p_assignment_id
         ORDER BY x.id
         LIMIT 1001),
    g AS (
        SELECT u.id, u.private_profile_id
          FROM public.user_roles AS u
         WHERE u.class_id = p_class_id AND u.role::text = 'grader' AND u.disabled = false
         ORDER BY u.id
         LIMIT 1001)
    SELECT p_assignment_id, json_build_object(
        'assignment', v_assignment,
        'caller', v_caller,
        'submissions', (
            SELECT coalesce(json_agg(s), '[]')
              FROM (SELECT x.id,
                           (SELECT coalesce(json_agg(v), '[]')
                              FROM (SELECT sr.rubric_id, sr.completed_at, sr.completed_by, sr.released
                                      FROM public.submission_reviews AS sr
                                     WHERE sr.submission_id = x.id) AS v) AS submission_reviews
                      FROM public.submissions AS x
                     WHERE x.class_id = p_class_id AND x.assignment_id = p_assignment_id AND x.is_active = true
                     ORDER BY x.id
                     LIMIT 1001) AS s),
        'reviews', (SELECT coalesce(json_agg(r ORDER BY r.id), '[]') FROM r),
        'regrades', (
            SELECT coalesce(json_agg(q), '[]')
              FROM (SELECT x.status
                      FROM public.submission_regrade_requests AS x
                     WHERE x.class_id = p_class_id AND x.assignment_id = p_assignment_id AND x.status::text <> 'draft'
                     ORDER BY x.id
                     LIMIT 1001) AS q),
        'graders', (SELECT coalesce(json_agg(json_build_object('private_profile_id', g.private_profile_id) ORDER BY g.id), '[]') FROM g),
        'profiles', public.mcp_class_profiles(p_class_id, ARRAY(SELECT g.private_profile_id FROM g UNION SELECT r.assignee_profile_id FROM r))
    );
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_grading_progress(bigint, bigint) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_grading_progress(bigint, bigint) TO authenticated;
