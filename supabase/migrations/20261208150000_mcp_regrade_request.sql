-- MCP gateway: get_regrade_request's reads in one round trip
-- (functions/mcpserver/tools/regrade_request.go, docs/performance.md).
--
-- The tool reads whether the caller holds an enabled instructor or grader
-- role in the class (their own user_roles rows) and the sent request with
-- everything it shows embedded: the assignment's title, the disputed
-- rubric check, the review, the student's and assignee's class membership
-- (through their profile, both ways round: the private profile's
-- user_roles row or the public one's, each with the public profile's
-- name) and the newest comments with their authors'. Through PostgREST
-- that is two requests at once; embedding cannot join them, since the
-- caller's roles hang off no foreign key of the request.
--
--   * mcp_regrade_request — one row when the caller is staff of the class
--     and the request is a sent one of the class the caller may see: its
--     id and, in found, the request row exactly as the REST read with its
--     embeds would return it (the comments newest first, one past 100,
--     which the tool reports as truncated; the user_roles embeds one-to-
--     one, by their unique profile ids); no row otherwise. Two columns, so
--     PostgREST answers rows as objects.
--
-- SECURITY INVOKER: every statement runs as the caller, under the same
-- row-level security as the REST reads it replaces (each embed, the
-- profiles and user_roles rows included). PL/pgSQL, whose body is checked
-- when first called, so the migration applies before Pawtograder's tables
-- exist, as the gateway's other migrations do. Idempotent.
--
-- The staff check and the profile look-up are the helpers of
-- supabase/migrations/20261208090000_mcp_staff_read_helpers.sql.

CREATE OR REPLACE FUNCTION public.mcp_regrade_request(p_class_id bigint, p_regrade_request_id bigint)
RETURNS TABLE (request_id bigint, found json)
LANGUAGE plpgsql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
BEGIN
    IF NOT public.mcp_caller_is_class_staff(p_class_id) THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT r.id, row_to_json(r)
      FROM (SELECT x.id, x.class_id, x.status, x.assignment_id, x.submission_id, x.created_at, x.opened_at, x.resolved_at,
                   x.escalated_at, x.closed_at, x.last_commented_at, x.initial_points, x.resolved_points, x.closed_points,
                   (SELECT row_to_json(a)
                      FROM (SELECT asg.title FROM public.assignments AS asg WHERE asg.id = x.assignment_id) AS a) AS assignments,
                   (SELECT row_to_json(k)
                      FROM (SELECT c.id, c.name, c.description, c.points
                              FROM public.rubric_checks AS c
                             WHERE c.id = x.rubric_check_id) AS k) AS rubric_checks,
                   (SELECT row_to_json(v)
                      FROM (SELECT sr.id, sr.name, sr.total_score, sr.total_autograde_score, sr.tweak, sr.released
                              FROM public.submission_reviews AS sr
                             WHERE sr.id = x.submission_review_id) AS v) AS submission_reviews,
                   (SELECT m.membership FROM public.mcp_profile_membership(x.created_by) AS m) AS student,
                   (SELECT m.membership FROM public.mcp_profile_membership(x.assignee) AS m) AS assignee_profile,
                   (SELECT coalesce(json_agg(cm), '[]')
                      FROM (SELECT c.id, c.created_at, c.comment,
                                   (SELECT m.membership FROM public.mcp_profile_membership(c.author) AS m) AS author_profile
                              FROM public.submission_regrade_request_comments AS c
                             WHERE c.submission_regrade_request_id = x.id
                             ORDER BY c.created_at DESC, c.id DESC
                             LIMIT 101) AS cm) AS submission_regrade_request_comments
              FROM public.submission_regrade_requests AS x
             WHERE x.id = p_regrade_request_id AND x.class_id = p_class_id AND x.status::text <> 'draft') AS r;
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_regrade_request(bigint, bigint) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_regrade_request(bigint, bigint) TO authenticated;
