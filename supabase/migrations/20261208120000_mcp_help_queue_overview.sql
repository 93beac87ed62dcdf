-- MCP gateway: get_help_queue_overview's reads in one round trip
-- (functions/mcpserver/tools/queue_overview.go, docs/performance.md).
--
-- The tool reads the class's help queues, their open and in-progress
-- requests (the students and the linked submission's assignment
-- embedded), the caller's own user_roles rows (which mark the caller's
-- assignments) and then the public profiles of the requests' assignees.
-- Through PostgREST that is four requests two deep; embedding cannot say
-- it, since the caller's rows hang off no foreign key of the requests and
-- the profile look-up goes through user_roles, which help requests do not
-- reference.
--
--   * mcp_help_queue_overview — one row: the class id and, in found, a
--     JSON object with the queues (p_help_queue_id null for every queue;
--     by ordinal, then id, at most 1,000), the requests (oldest first,
--     then by id, one row past 1,000, which the tool reports as
--     truncated), the caller's user_roles rows in the class, and the
--     user_roles rows of the profile look-up (docs/contract/tools.md §1.2) for the assignees, each
--     exactly as the REST reads would return them. Two columns, so
--     PostgREST answers rows as objects.
--
-- SECURITY INVOKER: every statement runs as the caller, under the same
-- row-level security as the REST reads it replaces (each embed included).
-- PL/pgSQL, whose body is checked when first called, so the migration
-- applies before Pawtograder's tables exist, as the gateway's other
-- migrations do. Idempotent.
--
-- The profile look-up is the helper mcp_class_profiles of
-- supabase/migrations/20261208090000_mcp_staff_read_helpers.sql.

CREATE OR REPLACE FUNCTION public.mcp_help_queue_overview(p_class_id bigint, p_help_queue_id bigint)
RETURNS TABLE (class_id bigint, found json)
LANGUAGE plpgsql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
BEGIN
    -- The requests once (a CTE is computed once), for the list and for the
    -- assignees whose profiles are looked up.
    RETURN QUERY
    WITH q AS (
        SELECT x.id, x.help_queue, x.request, x.status, x.is_private, x.created_at, x.assignee,
               (SELECT coalesce(json_agg(s), '[]')
                  FROM (SELECT hs.profile_id
                          FROM public.help_request_students AS hs
                         WHERE hs.help_request_id = x.id) AS s) AS help_request_students,
               (SELECT row_to_json(sub)
                  FROM (SELECT su.assignment_id,
                               (SELECT row_to_json(a)
                                  FROM (SELECT asg.id, asg.title
                                          FROM public.assignments AS asg
                                         WHERE asg.id = su.assignment_id) AS a) AS assignments
                          FROM public.submissions AS su
                         WHERE su.id = x.referenced_submission_id) AS sub) AS submissions
          FROM public.help_requests AS x
         WHERE x.class_id = p_class_id
           AND x.status::text IN ('open', 'in_progress')
           AND (p_help_queue_id IS NULL OR x.help_queue = p_help_queue_id)
         ORDER BY x.created_at, x.id
         LIMIT 1001)
    SELECT p_class_id, json_build_object(
        'queues', (
            SELECT coalesce(json_agg(hq), '[]')
              FROM (SELECT x.id, x.name, x.description, x.queue_type, x.available
                      FROM public.help_queues AS x
                     WHERE x.class_id = p_class_id
                       AND (p_help_queue_id IS NULL OR x.id = p_help_queue_id)
                     ORDER BY x.ordinal, x.id
                     LIMIT 1000) AS hq),
        'requests', (SELECT coalesce(json_agg(q ORDER BY q.created_at, q.id), '[]') FROM q),
        'caller', (
            SELECT coalesce(json_agg(c), '[]')
              FROM (SELECT u.role, u.disabled, u.private_profile_id, u.public_profile_id
                      FROM public.user_roles AS u
                     WHERE u.user_id = auth.uid() AND u.class_id = p_class_id) AS c),
        'profiles', public.mcp_class_profiles(p_class_id, ARRAY(SELECT q.assignee FROM q))
    );
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_help_queue_overview(bigint, bigint) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_help_queue_overview(bigint, bigint) TO authenticated;
