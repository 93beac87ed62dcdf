-- MCP gateway: the grading write tools decide_regrade_request and
-- add_rubric_comment (docs/writes.md), approved in the one transaction of
-- 20261203000000_mcp_pending_action_approve.sql.
--
-- mcp_write_decide_regrade_request makes the tool's one write as the
-- approving person, through the function Pawtograder's web app calls for
-- its Resolve and Close buttons (update_regrade_request_status, in
-- components/ui/regrade-request-wrapper.tsx), so the platform's own rules
-- decide who may do what (graders and instructors resolve an opened
-- request, instructors close one) and its statements move the points,
-- create the rubric comment of a request about a check that had none,
-- recompute the review's score and notify the students. The reason the
-- tool requires is posted first, as a comment in the request's
-- conversation, since the platform has no column for it.
--
-- The decision is made only while the request is as the preview showed
-- it: the status the proposal read, and none of the other decisions taken
-- in between (checked again after the platform's function, whose row
-- lock the caller cannot take first, so that a decision made in the
-- moment between the two is rolled back rather than overridden). The
-- request, class and submission come from the request itself, and the
-- author must be one of the approving person's own profiles.
--
-- mcp_write_add_rubric_comment makes the tool's one write as the
-- approving person, so Pawtograder's row-level security and triggers
-- apply (its insert policy, the score recompute): a rubric check applied
-- to a submission's review, as the web app's rubric sidebar inserts it
-- (components/ui/rubric-sidebar.tsx: a submission_comments row) or, for
-- an annotation check, as its line comment form does
-- (components/ui/line-comments-form.tsx: a submission_file_comments row),
-- released when the review is released. The review, its submission and
-- class, the check and the file are checked against each other here, and
-- the points against the check's, so a plan altered in storage cannot put
-- a comment elsewhere or give it other points; the author must be one of
-- the approving person's own profiles. The comment is written only while
-- the review is as released or unreleased as the preview said
-- (review_changed otherwise), since that decides who sees it at once.
--
-- mcp_pending_action_approve is replaced by the same function with these
-- two tools added to its dispatch. Idempotent: applying the file twice is
-- a no-op.

ALTER TABLE public.mcp_pending_actions DROP CONSTRAINT IF EXISTS mcp_pending_actions_tool_check;
ALTER TABLE public.mcp_pending_actions ADD CONSTRAINT mcp_pending_actions_tool_check
    CHECK (tool IN ('reply_to_help_request', 'set_help_request_status', 'reply_to_discussion_thread',
                    'comment_on_regrade_request', 'decide_regrade_request', 'add_rubric_comment'));

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
    req_id bigint;
    req_status text;
    req_submission bigint;
    req_assignment bigint;
    req_class bigint;
    after record;
BEGIN
    IF new_status IS NULL OR new_status NOT IN ('resolved', 'closed') OR points IS NULL THEN
        RETURN jsonb_build_object('failure', 'refused');
    END IF;
    -- Columns, not the row type: the function is created before (and
    -- independently of) Pawtograder's tables.
    SELECT r.id, r.status::text, r.submission_id, r.assignment_id, r.class_id
      INTO req_id, req_status, req_submission, req_assignment, req_class
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
    BEGIN
        INSERT INTO public.submission_regrade_request_comments
            (comment, submission_id, assignment_id, submission_regrade_request_id, class_id, author)
        VALUES (v->>'reason', req_submission, req_assignment, req_id, req_class, author);
        PERFORM public.update_regrade_request_status(
            req_id, new_status::public.regrade_status, author,
            CASE WHEN new_status = 'resolved' THEN points END,
            CASE WHEN new_status = 'closed' THEN points END,
            (v->>'submission_file_id')::bigint, (v->>'line')::integer, NULL);
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

-- The points a check allows: one of its options' points when it has
-- options, otherwise from 0 to its points (either sign).
CREATE OR REPLACE FUNCTION public.mcp_rubric_points_allowed(p_check_points numeric, p_check_data jsonb, p_points numeric)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = ''
AS $$
    SELECT CASE
        WHEN jsonb_typeof(p_check_data->'options') = 'array' AND jsonb_array_length(p_check_data->'options') > 0 THEN
            EXISTS (SELECT 1 FROM jsonb_array_elements(p_check_data->'options') AS o
                     WHERE jsonb_typeof(o->'points') = 'number' AND (o->>'points')::numeric = p_points)
        ELSE p_points BETWEEN least(0, p_check_points) AND greatest(0, p_check_points)
    END;
$$;

CREATE OR REPLACE FUNCTION public.mcp_write_add_rubric_comment(p_write jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, extensions
AS $$
DECLARE
    v jsonb := p_write->'values';
    review_id bigint;
    review_released boolean;
    review_submission bigint;
    review_class bigint;
    check_annotation boolean;
    check_points numeric;
    check_data jsonb;
    check_file text;
    file_id bigint := (v->>'submission_file_id')::bigint;
    file_name text;
    new_id bigint;
BEGIN
    -- Columns, not the row type: the function is created before (and
    -- independently of) Pawtograder's tables.
    SELECT sr.id, sr.released, sr.submission_id, sr.class_id, rc.is_annotation, rc.points, rc.data, rc.file
      INTO review_id, review_released, review_submission, review_class, check_annotation, check_points, check_data, check_file
      FROM public.submission_reviews AS sr
      JOIN public.rubric_checks AS rc ON rc.rubric_id = sr.rubric_id
     WHERE sr.id = (v->>'submission_review_id')::bigint
       AND sr.submission_id = (v->>'submission_id')::bigint
       AND sr.class_id = (v->>'class_id')::bigint
       AND rc.id = (v->>'rubric_check_id')::bigint;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('failure', 'target_gone');
    END IF;
    IF review_released IS DISTINCT FROM (p_write->'expect'->>'released')::boolean THEN
        RETURN jsonb_build_object('failure', 'review_changed', 'detail', jsonb_build_object('released', review_released::text));
    END IF;
    IF NOT public.authorizeforprofile((v->>'author')::uuid) THEN
        RETURN jsonb_build_object('failure', 'not_allowed');
    END IF;
    IF NOT public.mcp_rubric_points_allowed(check_points, check_data, (v->>'points')::numeric)
       OR check_annotation IS DISTINCT FROM (file_id IS NOT NULL) THEN
        RETURN jsonb_build_object('failure', 'refused');
    END IF;
    IF file_id IS NULL THEN
        INSERT INTO public.submission_comments
            (submission_id, author, comment, points, class_id, rubric_check_id, submission_review_id, released, eventually_visible)
        VALUES (review_submission, (v->>'author')::uuid, v->>'comment', (v->>'points')::numeric, review_class,
                (v->>'rubric_check_id')::bigint, review_id, review_released, true)
        RETURNING id INTO new_id;
        RETURN jsonb_build_object('row_id', new_id::text);
    END IF;
    SELECT f.name INTO file_name FROM public.submission_files AS f WHERE f.id = file_id AND f.submission_id = review_submission;
    IF NOT FOUND OR (check_file IS NOT NULL AND check_file IS DISTINCT FROM file_name) THEN
        RETURN jsonb_build_object('failure', 'refused');
    END IF;
    INSERT INTO public.submission_file_comments
        (submission_id, submission_file_id, author, comment, line, points, class_id, rubric_check_id, submission_review_id,
         released, eventually_visible)
    VALUES (review_submission, file_id, (v->>'author')::uuid, v->>'comment', (v->>'line')::integer, (v->>'points')::numeric,
            review_class, (v->>'rubric_check_id')::bigint, review_id, review_released, true)
    RETURNING id INTO new_id;
    RETURN jsonb_build_object('row_id', new_id::text);
END;
$$;

-- The approval: claim, write, record, in this one transaction (as in
-- 20261204020000_mcp_grading_writes.sql, with decide_regrade_request and
-- add_rubric_comment added).
CREATE OR REPLACE FUNCTION public.mcp_pending_action_approve(p_id uuid, p_now timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    c jsonb := public.mcp_pending_action_claim(p_id, p_now);
    r jsonb;
BEGIN
    IF c->>'outcome' <> 'go' THEN
        RETURN c;
    END IF;
    BEGIN
        CASE c->>'tool'
        WHEN 'reply_to_help_request' THEN
            r := public.mcp_write_reply_to_help_request(c->'write');
        WHEN 'set_help_request_status' THEN
            r := public.mcp_write_set_help_request_status(c->'write', p_now);
        WHEN 'reply_to_discussion_thread' THEN
            r := public.mcp_write_reply_to_discussion_thread(c->'write');
        WHEN 'comment_on_regrade_request' THEN
            r := public.mcp_write_comment_on_regrade_request(c->'write');
        WHEN 'decide_regrade_request' THEN
            r := public.mcp_write_decide_regrade_request(c->'write');
        WHEN 'add_rubric_comment' THEN
            r := public.mcp_write_add_rubric_comment(c->'write');
        ELSE
            r := jsonb_build_object('failure', 'unknown_tool');
        END CASE;
    EXCEPTION
        -- Refusals that approving again would meet again: row-level
        -- security, a constraint, a value, or a trigger that raised.
        WHEN insufficient_privilege THEN
            r := jsonb_build_object('failure', 'not_allowed', 'sqlstate', SQLSTATE, 'error', SQLERRM);
        WHEN integrity_constraint_violation OR data_exception OR raise_exception THEN
            r := jsonb_build_object('failure', 'refused', 'sqlstate', SQLSTATE, 'error', SQLERRM);
    END;
    RETURN public.mcp_pending_action_finish(p_id, r->>'row_id', r->>'failure', r->'detail', p_now)
        || jsonb_strip_nulls(jsonb_build_object('sqlstate', r->'sqlstate', 'error', r->'error'));
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_rubric_points_allowed(numeric, jsonb, numeric) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_rubric_points_allowed(numeric, jsonb, numeric) TO authenticated;
REVOKE ALL ON FUNCTION public.mcp_write_decide_regrade_request(jsonb) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_write_decide_regrade_request(jsonb) TO authenticated;
REVOKE ALL ON FUNCTION public.mcp_write_add_rubric_comment(jsonb) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_write_add_rubric_comment(jsonb) TO authenticated;
REVOKE ALL ON FUNCTION public.mcp_pending_action_approve(uuid, timestamptz) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_approve(uuid, timestamptz) TO authenticated;
