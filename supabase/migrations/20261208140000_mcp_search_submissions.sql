-- MCP gateway: search_submissions' reads in one round trip
-- (functions/mcpserver/tools/search_submissions.go, docs/performance.md).
--
-- The tool reads the assignment record, the assignment's submissions (the
-- grader result embedded), its sent regrade requests, with
-- student_profile_id that student's private profile (docs/contract/tools.md §1.3), and then the
-- submitters' public profiles. Through PostgREST that is four requests
-- two deep; embedding cannot say it, since the profile translation and
-- look-up go through user_roles, which submissions reference only through
-- a row the caller may see under different rules, and the regrade
-- requests are counted per assignment, not per listed submission.
--
--   * mcp_search_submissions — one row when the assignment is one row the
--     caller may see: its id and, in found, a JSON object with the
--     submissions (active only unless p_include_inactive; newest first,
--     one row past 1,000, which the tool reports as truncated), the sent
--     regrade requests (by id, at most 1,000), only (the private profile
--     id p_student_profile_id stands for; null when it names no single
--     visible member, is not a uuid, or was not given) and the user_roles
--     rows of the profile look-up (docs/contract/tools.md §1.2) for the submitters, each exactly as
--     the REST reads would return them; no row otherwise. Two columns, so
--     PostgREST answers rows as objects.
--
-- SECURITY INVOKER: every statement runs as the caller, under the same
-- row-level security as the REST reads it replaces (the embedded grader
-- result, one-to-one by its unique submission_id, included). PL/pgSQL,
-- whose body is checked when first called, so the migration applies
-- before Pawtograder's tables exist, as the gateway's other migrations
-- do. Idempotent.
--
-- The profile look-up is the helper mcp_class_profiles of
-- supabase/migrations/20261208090000_mcp_staff_read_helpers.sql.

CREATE OR REPLACE FUNCTION public.mcp_search_submissions(p_class_id bigint, p_assignment_id bigint, p_include_inactive boolean,
                                                          p_student_profile_id text)
RETURNS TABLE (assignment_id bigint, found json)
LANGUAGE plpgsql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
DECLARE
    v_rows int;
    v_public uuid;
    v_only uuid;
BEGIN
    SELECT count(*) INTO v_rows
      FROM public.assignments AS a
     WHERE a.id = p_assignment_id AND a.class_id = p_class_id;
    IF v_rows <> 1 THEN
        RETURN;
    END IF;
    IF p_student_profile_id IS NOT NULL THEN
        BEGIN
            v_public := p_student_profile_id::uuid;
        EXCEPTION WHEN invalid_text_representation THEN
            v_public := NULL;
        END;
        -- One visible row, or none (two would fail PostgREST's single
        -- object read).
        SELECT count(*) INTO v_rows
          FROM public.user_roles AS u
         WHERE u.class_id = p_class_id AND u.public_profile_id = v_public;
        IF v_rows = 1 THEN
            SELECT u.private_profile_id INTO v_only
              FROM public.user_roles AS u
             WHERE u.class_id = p_class_id AND u.public_profile_id = v_public;
        END IF;
    END IF;
    -- The submissions once (a CTE is computed once), for the list and for
    -- the submitters whose profiles are looked up.
    RETURN QUERY
    WITH s AS (
        SELECT x.id, x.created_at, x.ordinal, x.is_active, x.profile_id, x.assignment_group_id,
               (SELECT row_to_json(g)
                  FROM (SELECT r.score, r.max_score
                          FROM public.grader_results AS r
                         WHERE r.submission_id = x.id) AS g) AS grader_results
          FROM public.submissions AS x
         WHERE x.class_id = p_class_id AND x.assignment_id = p_assignment_id
           AND (p_include_inactive OR x.is_active = true)
         ORDER BY x.created_at DESC, x.id DESC
         LIMIT 1001)
    SELECT p_assignment_id, json_build_object(
        'submissions', (SELECT coalesce(json_agg(s ORDER BY s.created_at DESC, s.id DESC), '[]') FROM s),
        'regrades', (
            SELECT coalesce(json_agg(q), '[]')
              FROM (SELECT x.submission_id, x.status
                      FROM public.submission_regrade_requests AS x
                     WHERE x.class_id = p_class_id AND x.assignment_id = p_assignment_id AND x.status::text <> 'draft'
                     ORDER BY x.id
                     LIMIT 1000) AS q),
        'only', v_only,
        'profiles', public.mcp_class_profiles(p_class_id, ARRAY(SELECT s.profile_id FROM s))
    );
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_search_submissions(bigint, bigint, boolean, text) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_search_submissions(bigint, bigint, boolean, text) TO authenticated;
