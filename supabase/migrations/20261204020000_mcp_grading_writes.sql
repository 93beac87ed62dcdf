-- MCP gateway: the grading write tool comment_on_regrade_request
-- (docs/writes.md), approved in the one transaction of
-- 20261203000000_mcp_pending_action_approve.sql.
--
-- mcp_write_comment_on_regrade_request makes the tool's one write as the
-- approving person, so Pawtograder's row-level security and triggers
-- apply: a comment in a regrade request's conversation, as
-- components/ui/regrade-request-wrapper.tsx inserts it. The submission,
-- assignment and class come from the request itself, never from the stored
-- plan, and the author must be one of the approving person's own profiles,
-- so a plan altered in storage can change only the text. The comment is
-- written only while the request is not closed (the web app shows no
-- comment form on a closed request, and a student's comment is refused
-- then by authorize_for_submission_regrade_comment).
--
-- mcp_pending_action_approve is replaced by the same function with this
-- tool added to its dispatch. Idempotent: applying the file twice is a
-- no-op.

-- The pending-actions table names the tools it holds.
ALTER TABLE public.mcp_pending_actions DROP CONSTRAINT IF EXISTS mcp_pending_actions_tool_check;
ALTER TABLE public.mcp_pending_actions ADD CONSTRAINT mcp_pending_actions_tool_check
    CHECK (tool IN ('reply_to_help_request', 'set_help_request_status', 'reply_to_discussion_thread',
                    'comment_on_regrade_request'));

CREATE OR REPLACE FUNCTION public.mcp_write_comment_on_regrade_request(p_write jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, extensions
AS $$
DECLARE
    v jsonb := p_write->'values';
    req_id bigint;
    req_status text;
    req_submission bigint;
    req_assignment bigint;
    req_class bigint;
    new_id bigint;
BEGIN
    -- Columns, not the row type: the function is created before (and
    -- independently of) Pawtograder's tables.
    SELECT r.id, r.status::text, r.submission_id, r.assignment_id, r.class_id
      INTO req_id, req_status, req_submission, req_assignment, req_class
      FROM public.submission_regrade_requests AS r
     WHERE r.id = (v->>'submission_regrade_request_id')::bigint AND r.class_id = (v->>'class_id')::bigint;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('failure', 'target_gone');
    END IF;
    IF req_status IN ('closed', 'draft') THEN
        RETURN jsonb_build_object('failure', 'regrade_closed', 'detail', jsonb_build_object('status', req_status));
    END IF;
    IF NOT public.authorizeforprofile((v->>'author')::uuid) THEN
        RETURN jsonb_build_object('failure', 'not_allowed');
    END IF;
    INSERT INTO public.submission_regrade_request_comments
        (comment, submission_id, assignment_id, submission_regrade_request_id, class_id, author)
    VALUES (v->>'comment', req_submission, req_assignment, req_id, req_class, (v->>'author')::uuid)
    RETURNING id INTO new_id;
    RETURN jsonb_build_object('row_id', new_id::text);
END;
$$;

-- The approval: claim, write, record, in this one transaction (as in
-- 20261203000000_mcp_pending_action_approve.sql, with
-- comment_on_regrade_request added).
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

REVOKE ALL ON FUNCTION public.mcp_write_comment_on_regrade_request(jsonb) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_write_comment_on_regrade_request(jsonb) TO authenticated;
REVOKE ALL ON FUNCTION public.mcp_pending_action_approve(uuid, timestamptz) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_approve(uuid, timestamptz) TO authenticated;
