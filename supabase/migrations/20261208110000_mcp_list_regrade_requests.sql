-- MCP gateway: list_regrade_requests' reads in one round trip
-- (functions/mcpserver/tools/grading.go, docs/performance.md).
--
-- The tool reads whether the caller holds an enabled instructor or grader
-- role in the class (their own user_roles rows), the class's regrade
-- requests (the disputed rubric check embedded) and then the public
-- profiles of their students and assignees. Through PostgREST that is
-- three requests two deep; embedding cannot say it, since the caller's
-- roles hang off no foreign key of the requests and the profile look-up
-- goes through user_roles, which the requests do not reference.
--
--   * mcp_list_regrade_requests — one row when the caller is staff of the
--     class: the class id and, in found, a JSON object with the requests
--     (p_status: 'open', empty or null for opened and escalated, 'all' for every
--     sent one, else that status; p_assignment_id null for every
--     assignment; newest first, at most p_limit) and the user_roles rows
--     of the profile look-up (docs/contract/tools.md §1.2) for their created_by and assignee, each
--     exactly as the REST reads would return them; no row otherwise. Two
--     columns, so PostgREST answers rows as objects.
--
-- SECURITY INVOKER: every statement runs as the caller, under the same
-- row-level security as the REST reads it replaces (the embedded rubric
-- check and public profile names included). PL/pgSQL, whose body is
-- checked when first called, so the migration applies before
-- Pawtograder's tables exist, as the gateway's other migrations do.
-- Idempotent.
--
-- The staff check and the profile look-up are the helpers of
-- supabase/migrations/20261208090000_mcp_staff_read_helpers.sql.

CREATE OR REPLACE FUNCTION public.mcp_list_regrade_requests(p_class_id bigint, p_assignment_id bigint, p_status text, p_limit int)
RETURNS TABLE (class_id bigint, found json)
LANGUAGE plpgsql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
BEGIN
    IF NOT public.mcp_caller_is_class_staff(p_class_id) THEN
        RETURN;
    END IF;
    -- The requests once (a CTE is computed once), for the list and for the
    -- people whose profiles are looked up.
    RETURN QUERY
    WITH q AS (
        SELECT x.id, x.status, x.created_at, x.opened_at, x.assignment_id, x.submission_id, x.created_by, x.assignee,
               x.initial_points, x.resolved_points, x.closed_points, x.resolved_at, x.closed_at, x.last_commented_at,
               (SELECT row_to_json(k)
                  FROM (SELECT c.id, c.name, c.points
                          FROM public.rubric_checks AS c
                         WHERE c.id = x.rubric_check_id) AS k) AS rubric_checks
          FROM public.submission_regrade_requests AS x
         WHERE x.class_id = p_class_id
           AND (p_assignment_id IS NULL OR x.assignment_id = p_assignment_id)
           AND CASE coalesce(nullif(p_status, ''), 'open')
                 WHEN 'open' THEN x.status::text IN ('opened', 'escalated')
                 WHEN 'all' THEN x.status::text <> 'draft'
                 ELSE x.status::text = p_status
               END
         ORDER BY x.created_at DESC, x.id DESC
         LIMIT p_limit)
    SELECT p_class_id, json_build_object(
        'requests', (SELECT coalesce(json_agg(q ORDER BY q.created_at DESC, q.id DESC), '[]') FROM q),
        'profiles', public.mcp_class_profiles(p_class_id, ARRAY(SELECT q.created_by FROM q UNION SELECT q.assignee FROM q))
    );
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_list_regrade_requests(bigint, bigint, text, int) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_list_regrade_requests(bigint, bigint, text, int) TO authenticated;
