-- MCP gateway: get_rubric's reads in one round trip
-- (functions/mcpserver/tools/rubric.go, docs/performance.md).
--
-- The tool reads the assignment record and the rubric's four levels
-- (rubrics, parts, criteria, checks), each filtered by assignment and
-- class. Through PostgREST that is five requests; embedding cannot say it
-- with the same row-level security, since each level is read on its own
-- (a level whose parent the caller may not see is still read, and dropped
-- when nested, as the REST reads did).
--
--   * mcp_rubric — one row when the assignment is one row the caller may
--     see: its id and, in levels, a JSON object with the rows of each
--     level exactly as the REST reads would return them (the same columns,
--     order and limit: one row past 500, which the tool reports as
--     truncated); no row otherwise. Two columns, so PostgREST answers rows
--     as objects.
--
-- SECURITY INVOKER: every statement runs as the caller, under the same
-- row-level security as the REST reads it replaces. PL/pgSQL, whose body
-- is checked when first called, so the migration applies before
-- Pawtograder's tables exist, as the gateway's other migrations do.
-- Idempotent.

CREATE OR REPLACE FUNCTION public.mcp_rubric(p_class_id bigint, p_assignment_id bigint)
RETURNS TABLE (assignment_id bigint, levels json)
LANGUAGE plpgsql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
DECLARE
    v_rows int;
BEGIN
    -- The assignment record: exactly one visible row (PostgREST's single
    -- object read), or the answer is null.
    SELECT count(*) INTO v_rows
      FROM public.assignments AS a
     WHERE a.id = p_assignment_id AND a.class_id = p_class_id;
    IF v_rows <> 1 THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT p_assignment_id, json_build_object(
        'rubrics', (
            SELECT coalesce(json_agg(r), '[]')
              FROM (SELECT x.id, x.name, x.description, x.review_round, x.is_private
                      FROM public.rubrics AS x
                     WHERE x.assignment_id = p_assignment_id AND x.class_id = p_class_id
                     ORDER BY x.id
                     LIMIT 501) AS r),
        'parts', (
            SELECT coalesce(json_agg(r), '[]')
              FROM (SELECT x.id, x.rubric_id, x.name, x.description, x.ordinal
                      FROM public.rubric_parts AS x
                     WHERE x.assignment_id = p_assignment_id AND x.class_id = p_class_id
                     ORDER BY x.ordinal, x.id
                     LIMIT 501) AS r),
        'criteria', (
            SELECT coalesce(json_agg(r), '[]')
              FROM (SELECT x.id, x.rubric_part_id, x.name, x.description, x.ordinal, x.total_points, x.is_additive,
                           x.is_deduction_only, x.min_checks_per_submission, x.max_checks_per_submission
                      FROM public.rubric_criteria AS x
                     WHERE x.assignment_id = p_assignment_id AND x.class_id = p_class_id
                     ORDER BY x.ordinal, x.id
                     LIMIT 501) AS r),
        'checks', (
            SELECT coalesce(json_agg(r), '[]')
              FROM (SELECT x.id, x.rubric_criteria_id, x.name, x.description, x."group", x.ordinal, x.points,
                           x.is_annotation, x.max_annotations, x.file, x.artifact, x.is_required,
                           x.is_comment_required, x.student_visibility
                      FROM public.rubric_checks AS x
                     WHERE x.assignment_id = p_assignment_id AND x.class_id = p_class_id
                     ORDER BY x.ordinal, x.id
                     LIMIT 501) AS r)
    );
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_rubric(bigint, bigint) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_rubric(bigint, bigint) TO authenticated;
