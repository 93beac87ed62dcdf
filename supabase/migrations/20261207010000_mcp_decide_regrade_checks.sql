-- MCP gateway: decide_regrade_request re-checks in SQL every value of its
-- stored plan that the person saw or the write depends on, as
-- add_rubric_comment does (docs/writes.md): the points within the tool's
-- bounds (0 to 100000; a plan altered in storage cannot write -50 while
-- the page said 1), file_id and line together, the line from 1, and the
-- file one of the request's own submission that its annotation check
-- names. The request, class and submission come from the request itself
-- and the author must be one of the approving person's profiles, as
-- before. Idempotent: applying the file twice is a no-op.

CREATE OR REPLACE FUNCTION public.mcp_write_decide_regrade_request(p_write jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, extensions
AS $$
DECLARE
    v jsonb := p_write->'values';
    e jsonb := p_write->'expect';
    new_status text := v->>'new_status';
    author uuid := (v->>'author')::uuid;
    points numeric := (v->>'points')::numeric;
    file_id bigint := (v->>'submission_file_id')::bigint;
    file_line integer := (v->>'line')::integer;
    req_check bigint;
    req_id bigint;
    req_status text;
    req_submission bigint;
    req_assignment bigint;
    req_class bigint;
    after record;
BEGIN
    -- The tool's own bounds (decide_regrade_request: 0 to 100000, as the
    -- web app's regrade dialog refuses a negative score).
    IF new_status IS NULL OR new_status NOT IN ('resolved', 'closed')
       OR points IS NULL OR points < 0 OR points > 100000
       OR (file_id IS NULL) <> (file_line IS NULL) OR file_line < 1 THEN
        RETURN jsonb_build_object('failure', 'refused');
    END IF;
    -- Columns, not the row type: the function is created before (and
    -- independently of) Pawtograder's tables.
    SELECT r.id, r.status::text, r.submission_id, r.assignment_id, r.class_id, r.rubric_check_id
      INTO req_id, req_status, req_submission, req_assignment, req_class, req_check
      FROM public.submission_regrade_requests AS r
     WHERE r.id = (v->>'regrade_request_id')::bigint AND r.class_id = (v->>'class_id')::bigint;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('failure', 'target_gone');
    END IF;
    IF req_status IS DISTINCT FROM e->>'status' THEN
        RETURN jsonb_build_object('failure', 'regrade_decided',
                                  'detail', jsonb_build_object('was', e->>'status', 'status', req_status));
    END IF;
    IF NOT public.authorizeforprofile(author) THEN
        RETURN jsonb_build_object('failure', 'not_allowed');
    END IF;
    -- A file and line only for an annotation check, on a file of the
    -- request's own submission that the check names, if it names one.
    IF file_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM public.submission_files AS f JOIN public.rubric_checks AS rc ON rc.id = req_check
         WHERE f.id = file_id AND f.submission_id = req_submission AND rc.is_annotation
           AND (rc.file IS NULL OR rc.file = f.name)) THEN
        RETURN jsonb_build_object('failure', 'refused');
    END IF;
    BEGIN
        INSERT INTO public.submission_regrade_request_comments
            (comment, submission_id, assignment_id, submission_regrade_request_id, class_id, author)
        VALUES (v->>'reason', req_submission, req_assignment, req_id, req_class, author);
        PERFORM public.update_regrade_request_status(
            req_id, new_status::public.regrade_status, author,
            CASE WHEN new_status = 'resolved' THEN points END,
            CASE WHEN new_status = 'closed' THEN points END,
            file_id, file_line, NULL);
        -- A decision taken by someone else between the check above and the
        -- platform's row lock leaves its own timestamp: undo ours.
        SELECT r.resolved_at, r.escalated_at, r.closed_at INTO after
          FROM public.submission_regrade_requests AS r WHERE r.id = req_id;
        IF (new_status = 'closed' AND after.resolved_at IS DISTINCT FROM (e->>'resolved_at')::timestamptz)
           OR after.escalated_at IS DISTINCT FROM (e->>'escalated_at')::timestamptz
           OR (new_status = 'resolved' AND after.closed_at IS NOT NULL) THEN
            RAISE EXCEPTION 'decided meanwhile' USING ERRCODE = 'MCPRD';
        END IF;
    EXCEPTION WHEN SQLSTATE 'MCPRD' THEN
        SELECT r.status::text INTO req_status FROM public.submission_regrade_requests AS r WHERE r.id = req_id;
        RETURN jsonb_build_object('failure', 'regrade_decided',
                                  'detail', jsonb_build_object('was', e->>'status', 'status', req_status));
    END;
    RETURN jsonb_build_object('row_id', req_id::text);
END;
$$;

