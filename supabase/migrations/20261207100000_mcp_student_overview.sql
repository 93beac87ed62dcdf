-- MCP gateway: get_student_overview's reads in one round trip
-- (functions/mcpserver/tools/student_overview.go, docs/performance.md).
--
-- The tool translates a public profile id into the private one, then
-- reads the student's groups, their (and their groups') submissions with
-- the autograder score, the class's assignments, their help requests and
-- their discussion posts. Through PostgREST that is six requests three
-- deep (the submissions' filter needs the groups, which need the private
-- id); embedding cannot say it, since every list hangs off the private
-- profile id the first read finds.
--
--   * mcp_student_overview — one row: the student's private profile id
--     and, in overview, a JSON object with the rows of each of those
--     reads, exactly as the REST reads would return them; no row when the
--     public profile id is not one user_roles row of the class the caller
--     may see (or is not a uuid). Two columns, so PostgREST answers rows
--     as objects (a function of one column returns its type).
--
-- SECURITY INVOKER: every statement runs as the caller, under the same
-- row-level security as the REST reads it replaces (the embedded
-- profile's name and the submissions' grader results included). Each
-- list keeps the REST read's order and limit: one row past 1,000 for the
-- lists whose truncation the tool reports. PL/pgSQL, whose body is checked
-- when first called, so the migration applies before Pawtograder's tables
-- exist, as the gateway's other migrations do. Idempotent.

CREATE OR REPLACE FUNCTION public.mcp_student_overview(p_class_id bigint, p_student_profile_id text)
RETURNS TABLE (private_profile_id uuid, overview json)
LANGUAGE plpgsql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
DECLARE
    v_public uuid;
    v_private uuid;
    v_name text;
    v_rows int;
BEGIN
    BEGIN
        v_public := p_student_profile_id::uuid;
    EXCEPTION WHEN invalid_text_representation THEN
        RETURN;
    END;
    -- docs/contract/tools.md §1.3: one visible row, or none (two would fail PostgREST's single
    -- object read).
    SELECT count(*) INTO v_rows
      FROM public.user_roles AS u
     WHERE u.class_id = p_class_id AND u.public_profile_id = v_public;
    IF v_rows <> 1 THEN
        RETURN;
    END IF;
    SELECT u.private_profile_id, p.name INTO v_private, v_name
      FROM public.user_roles AS u
      LEFT JOIN public.profiles AS p ON p.id = u.public_profile_id
     WHERE u.class_id = p_class_id AND u.public_profile_id = v_public;
    IF v_private IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT v_private, json_build_object(
        'name', v_name,
        'assignments', (
            SELECT coalesce(json_agg(a), '[]')
              FROM (SELECT x.id, x.title, x.due_date
                      FROM public.assignments AS x
                     WHERE x.class_id = p_class_id
                     ORDER BY x.id
                     LIMIT 1000) AS a),
        'submissions', (
            SELECT coalesce(json_agg(s), '[]')
              FROM (SELECT x.id, x.assignment_id, x.created_at, x.ordinal, x.is_active, x.assignment_group_id,
                           (SELECT coalesce(json_agg(g), '[]')
                              FROM (SELECT r.score, r.max_score
                                      FROM public.grader_results AS r
                                     WHERE r.submission_id = x.id) AS g) AS grader_results
                      FROM public.submissions AS x
                     WHERE x.class_id = p_class_id
                       AND (x.profile_id = v_private
                            OR x.assignment_group_id IN (
                                SELECT m.assignment_group_id
                                  FROM (SELECT gm.assignment_group_id
                                          FROM public.assignment_groups_members AS gm
                                         WHERE gm.class_id = p_class_id AND gm.profile_id = v_private
                                         ORDER BY gm.id
                                         LIMIT 1000) AS m))
                     ORDER BY x.created_at DESC, x.id DESC
                     LIMIT 1001) AS s),
        'help_requests', (
            SELECT coalesce(json_agg(h), '[]')
              FROM (SELECT hs.help_request_id,
                           (SELECT row_to_json(r)
                              FROM (SELECT q.id, q.status, q.request, q.created_at, q.help_queue
                                      FROM public.help_requests AS q
                                     WHERE q.id = hs.help_request_id) AS r) AS help_requests
                      FROM public.help_request_students AS hs
                     WHERE hs.class_id = p_class_id AND hs.profile_id = v_private
                     ORDER BY hs.help_request_id DESC
                     LIMIT 1001) AS h),
        'posts', (
            SELECT coalesce(json_agg(d), '[]')
              FROM (SELECT t.id, t.subject, t.created_at, t.is_question, t.root, t.topic_id
                      FROM public.discussion_threads AS t
                     WHERE t.class_id = p_class_id AND t.author = v_private AND t.draft = false
                     ORDER BY t.created_at DESC, t.id DESC
                     LIMIT 1001) AS d)
    );
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_student_overview(bigint, text) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_student_overview(bigint, text) TO authenticated;
