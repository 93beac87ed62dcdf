-- MCP gateway: an approval, its write and its record in one transaction
-- (docs/writes.md, "Why an approval cannot write twice").
--
-- mcp_pending_action_approve is called through PostgREST's /rpc with the
-- approving person's own JWT, which the gateway mints for this one action
-- (claim mcp_action) only after that person, signed in on the approval
-- page, pressed Approve. In one transaction it
--   1. locks the action (mcp_pending_action_claim, a narrow definer
--      function: the table stays closed to every role but the service
--      role) and checks it is this person's, pending, unexpired and that
--      the proposing token is not revoked;
--   2. makes the one write the tool planned, as that person (this
--      function runs as its caller, so row-level security and
--      Pawtograder's triggers apply), only if the target is still in the
--      state the preview showed;
--   3. records the outcome (mcp_pending_action_finish): approved with the
--      written row's id, or failed with a reason code.
-- Either all three commit or none does. A second approval waits for the
-- row lock and then finds the action decided, so nothing is written twice;
-- an approval whose answer was lost finds, when repeated, the row it
-- wrote. A failure that may pass (a deadlock, a timeout, a lost
-- connection) is not caught: the transaction rolls back and the action
-- stays pending, so approving again is safe.
--
-- The planned write of each tool is a fixed statement here, so a stored
-- plan can change values but never which table or column is written.
-- Idempotent: applying the file twice is a no-op.

ALTER TABLE public.mcp_pending_actions ADD COLUMN IF NOT EXISTS failure_detail jsonb;
CREATE INDEX IF NOT EXISTS mcp_pending_actions_created_idx ON public.mcp_pending_actions (created_at);

-- Approvals decided by earlier gateways in two steps may have no recorded
-- outcome. Their outcome is unknown, which is what they now say.
UPDATE public.mcp_pending_actions
   SET state = 'failed', failure = 'outcome_unknown'
 WHERE state = 'approved' AND written_row_id IS NULL AND failure IS NULL;

-- The two-step path is gone: the decision and the record are part of the
-- approval now; rejecting has a function of its own.
DROP FUNCTION IF EXISTS public.mcp_pending_action_decide(uuid, uuid, boolean, timestamptz);
DROP FUNCTION IF EXISTS public.mcp_pending_action_record(uuid, text, text);
DROP FUNCTION IF EXISTS public.mcp_pending_action_propose(uuid, text, text, bigint, text, jsonb, text, jsonb, timestamptz, integer);

-- A new pending action, unless the user already has p_max_pending waiting:
-- {"id": …} or {"refused": "too_many_pending", "pending": n}. Proposals of
-- one user are serialised by an advisory lock, so two racing proposals
-- cannot both pass the limit.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_propose(
    p_user_id uuid, p_token_id text, p_client_id text, p_class_id bigint, p_tool text,
    p_arguments jsonb, p_argument_digest text, p_preview jsonb, p_now timestamptz,
    p_ttl_seconds integer, p_max_pending integer)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    waiting integer;
    new_id uuid;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('mcp_pending_actions:' || p_user_id::text, 0));
    SELECT count(*) INTO waiting FROM public.mcp_pending_actions AS a
     WHERE a.user_id = p_user_id AND a.state = 'pending' AND a.expires_at > p_now;
    IF waiting >= greatest(p_max_pending, 1) THEN
        RETURN jsonb_build_object('refused', 'too_many_pending', 'pending', waiting);
    END IF;
    INSERT INTO public.mcp_pending_actions
        (user_id, token_id, client_id, class_id, tool, arguments, argument_digest, preview, created_at, expires_at)
    VALUES (p_user_id, nullif(p_token_id, ''), nullif(p_client_id, ''), p_class_id, p_tool,
            p_arguments, p_argument_digest, p_preview, p_now,
            p_now + make_interval(secs => least(greatest(p_ttl_seconds, 1), 3600)))
    RETURNING id INTO new_id;
    RETURN jsonb_build_object('id', new_id);
END;
$$;

-- Rejection by the action's own user while it is pending: 'rejected',
-- 'not_found', 'expired' or 'already_<state>'.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_reject(p_id uuid, p_user_id uuid, p_now timestamptz)
RETURNS text
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    a public.mcp_pending_actions;
BEGIN
    SELECT x.* INTO a FROM public.mcp_pending_actions AS x
     WHERE x.id = p_id AND x.user_id = p_user_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'not_found';
    END IF;
    IF a.state <> 'pending' THEN
        RETURN 'already_' || a.state;
    END IF;
    IF a.expires_at <= p_now THEN
        UPDATE public.mcp_pending_actions AS x SET state = 'expired', decided_at = p_now WHERE x.id = p_id;
        RETURN 'expired';
    END IF;
    UPDATE public.mcp_pending_actions AS x SET state = 'rejected', decided_at = p_now WHERE x.id = p_id;
    RETURN 'rejected';
END;
$$;

-- The approving JWT's subject, when the JWT was minted for approving
-- p_id (claim mcp_action); otherwise the call is refused. A person's own
-- session token, or a client's access token, carries no such claim.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_approver(p_id uuid)
RETURNS uuid
LANGUAGE plpgsql
STABLE
SET search_path = ''
AS $$
DECLARE
    claims jsonb := coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb;
BEGIN
    IF claims->>'mcp_action' IS DISTINCT FROM p_id::text OR coalesce(claims->>'sub', '') = '' THEN
        RAISE EXCEPTION 'this token does not approve this action' USING ERRCODE = '42501';
    END IF;
    RETURN (claims->>'sub')::uuid;
END;
$$;

-- An action's outcome as the approval answers it.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_outcome(a public.mcp_pending_actions, p_outcome text)
RETURNS jsonb
LANGUAGE sql
IMMUTABLE
SET search_path = ''
AS $$
    SELECT jsonb_strip_nulls(jsonb_build_object(
        'outcome', p_outcome, 'row_id', a.written_row_id, 'failure', a.failure, 'detail', a.failure_detail));
$$;

-- Step 1: lock the approver's action and check it may be written.
-- {"outcome": "go", "tool", "write"} or the final answer: not_found,
-- expired, failed (token_revoked) or already_<state>.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_claim(p_id uuid, p_now timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
    approver uuid := public.mcp_pending_action_approver(p_id);
    a public.mcp_pending_actions;
BEGIN
    SELECT x.* INTO a FROM public.mcp_pending_actions AS x
     WHERE x.id = p_id AND x.user_id = approver FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('outcome', 'not_found');
    END IF;
    IF a.state <> 'pending' THEN
        RETURN public.mcp_pending_action_outcome(a, 'already_' || a.state);
    END IF;
    IF a.expires_at <= p_now THEN
        UPDATE public.mcp_pending_actions AS x SET state = 'expired', decided_at = p_now WHERE x.id = p_id;
        RETURN jsonb_build_object('outcome', 'expired');
    END IF;
    IF a.token_id IS NOT NULL AND EXISTS (SELECT 1 FROM public.revoked_token_ids AS r WHERE r.token_id = a.token_id) THEN
        UPDATE public.mcp_pending_actions AS x
           SET state = 'failed', failure = 'token_revoked', decided_at = p_now
         WHERE x.id = p_id RETURNING x.* INTO a;
        RETURN public.mcp_pending_action_outcome(a, 'failed');
    END IF;
    RETURN jsonb_build_object('outcome', 'go', 'tool', a.tool, 'write', a.preview->'write');
END;
$$;

-- Step 3: record the outcome of the claimed action (still locked by this
-- transaction): approved with the written row, or failed with a reason.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_finish(
    p_id uuid, p_row_id text, p_failure text, p_detail jsonb, p_now timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
    approver uuid := public.mcp_pending_action_approver(p_id);
    a public.mcp_pending_actions;
BEGIN
    UPDATE public.mcp_pending_actions AS x
       SET state = CASE WHEN p_failure IS NULL THEN 'approved' ELSE 'failed' END,
           written_row_id = p_row_id, failure = p_failure, failure_detail = p_detail, decided_at = p_now
     WHERE x.id = p_id AND x.user_id = approver AND x.state = 'pending'
    RETURNING x.* INTO a;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'the approved action is no longer pending' USING ERRCODE = '40001';
    END IF;
    RETURN public.mcp_pending_action_outcome(a, a.state);
END;
$$;

-- The writes, one per tool, as the caller. Each answers {"row_id"} or
-- {"failure", "detail"} when the target is no longer as proposed. They
-- run with the search path PostgREST gives a request (public,
-- extensions), because Pawtograder's triggers name their tables without a
-- schema; as the caller's own functions they gain no privilege by it.

-- A message in a help request's chat, as hooks/useRealtimeChat.tsx posts
-- it; only while the request is open or in progress (the web app's chat
-- is read-only once it is resolved or closed).
CREATE OR REPLACE FUNCTION public.mcp_write_reply_to_help_request(p_write jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, extensions
AS $$
DECLARE
    v jsonb := p_write->'values';
    current_status text;
    new_id bigint;
BEGIN
    SELECT h.status::text INTO current_status FROM public.help_requests AS h
     WHERE h.id = (v->>'help_request_id')::bigint AND h.class_id = (v->>'class_id')::bigint;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('failure', 'target_gone');
    END IF;
    IF current_status NOT IN ('open', 'in_progress') THEN
        RETURN jsonb_build_object('failure', 'request_closed', 'detail', jsonb_build_object('status', current_status));
    END IF;
    INSERT INTO public.help_request_messages
        (help_request_id, class_id, author, message, instructors_only, reply_to_message_id)
    VALUES ((v->>'help_request_id')::bigint, (v->>'class_id')::bigint, (v->>'author')::uuid, v->>'message',
            coalesce((v->>'instructors_only')::boolean, false), (v->>'reply_to_message_id')::bigint)
    RETURNING id INTO new_id;
    RETURN jsonb_build_object('row_id', new_id::text);
END;
$$;

-- A help request's status change, as the queue buttons of
-- components/help-queue/help-request-chat.tsx make it; only while the
-- request's status and assignee are those the preview showed.
CREATE OR REPLACE FUNCTION public.mcp_write_set_help_request_status(p_write jsonb, p_now timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, extensions
AS $$
DECLARE
    v jsonb := p_write->'values';
    m jsonb := p_write->'match';
    e jsonb := p_write->'expect';
    stamp boolean := coalesce(p_write->'now', '[]'::jsonb) ? 'resolved_at';
    updated bigint;
    cur_status text;
    cur_assignee uuid;
BEGIN
    IF e IS NULL OR NOT e ? 'status' THEN
        RETURN jsonb_build_object('failure', 'proposal_outdated');
    END IF;
    UPDATE public.help_requests AS h
       SET status = (v->>'status')::public.help_request_status,
           assignee = CASE WHEN v ? 'assignee' THEN (v->>'assignee')::uuid ELSE h.assignee END,
           resolved_by = CASE WHEN v ? 'resolved_by' THEN (v->>'resolved_by')::uuid ELSE h.resolved_by END,
           resolved_at = CASE WHEN stamp THEN p_now ELSE h.resolved_at END,
           resolution_status = CASE WHEN v ? 'resolution_status'
                                    THEN (v->>'resolution_status')::public.help_request_resolution_status
                                    ELSE h.resolution_status END
     WHERE h.id = (m->>'id')::bigint AND h.class_id = (m->>'class_id')::bigint
       AND h.status::text = e->>'status' AND h.assignee IS NOT DISTINCT FROM (e->>'assignee')::uuid
    RETURNING h.id INTO updated;
    IF FOUND THEN
        RETURN jsonb_build_object('row_id', updated::text);
    END IF;
    SELECT h.status::text, h.assignee INTO cur_status, cur_assignee FROM public.help_requests AS h
     WHERE h.id = (m->>'id')::bigint AND h.class_id = (m->>'class_id')::bigint;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('failure', 'target_gone');
    END IF;
    IF cur_status IS DISTINCT FROM e->>'status' THEN
        RETURN jsonb_build_object('failure', 'status_changed',
            'detail', jsonb_build_object('status', cur_status, 'was', e->>'status'));
    END IF;
    IF cur_assignee IS DISTINCT FROM (e->>'assignee')::uuid THEN
        RETURN jsonb_build_object('failure', 'assignee_changed');
    END IF;
    -- Visible and unchanged, yet not updated: row-level security refused.
    RETURN jsonb_build_object('failure', 'not_allowed');
END;
$$;

-- A reply in a discussion thread, as the web app's discussion page creates
-- one; only while the thread is there and published.
CREATE OR REPLACE FUNCTION public.mcp_write_reply_to_discussion_thread(p_write jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, extensions
AS $$
DECLARE
    v jsonb := p_write->'values';
    is_draft boolean;
    new_id bigint;
BEGIN
    SELECT t.draft INTO is_draft FROM public.discussion_threads AS t
     WHERE t.id = (v->>'parent')::bigint AND t.class_id = (v->>'class_id')::bigint;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('failure', 'target_gone');
    END IF;
    IF is_draft THEN
        RETURN jsonb_build_object('failure', 'thread_draft');
    END IF;
    INSERT INTO public.discussion_threads
        (subject, parent, root, topic_id, instructors_only, class_id, author, body)
    VALUES (v->>'subject', (v->>'parent')::bigint, (v->>'root')::bigint, (v->>'topic_id')::bigint,
            coalesce((v->>'instructors_only')::boolean, false), (v->>'class_id')::bigint,
            (v->>'author')::uuid, v->>'body')
    RETURNING id INTO new_id;
    RETURN jsonb_build_object('row_id', new_id::text);
END;
$$;

-- The approval: claim, write, record, in this one transaction. Answers
-- {"outcome", "row_id", "failure", "detail"}; a refused write also carries
-- "sqlstate" and "error" for the gateway's log (never shown to anyone).
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

-- Deletes up to p_limit actions proposed before p_before (all decided or
-- lapsed: a proposal waits an hour at most). Any replica may call it; one
-- purge runs at a time and the others return 0 at once.
CREATE OR REPLACE FUNCTION public.mcp_pending_actions_purge(p_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    n integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtextextended('mcp_pending_actions:purge', 0)) THEN
        RETURN 0;
    END IF;
    DELETE FROM public.mcp_pending_actions AS a
     WHERE a.id IN (SELECT x.id FROM public.mcp_pending_actions AS x
                     WHERE x.created_at < p_before AND (x.state <> 'pending' OR x.expires_at < p_before)
                     ORDER BY x.created_at
                     LIMIT least(greatest(p_limit, 1), 10000));
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_pending_action_propose(uuid, text, text, bigint, text, jsonb, text, jsonb, timestamptz, integer, integer) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_pending_action_reject(uuid, uuid, timestamptz) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_pending_actions_purge(timestamptz, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_propose(uuid, text, text, bigint, text, jsonb, text, jsonb, timestamptz, integer, integer) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_reject(uuid, uuid, timestamptz) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_pending_actions_purge(timestamptz, integer) TO service_role;

-- The approval runs as the approving person (authenticated). The definer
-- functions it calls check the approval claim themselves.
REVOKE ALL ON FUNCTION public.mcp_pending_action_approve(uuid, timestamptz) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_pending_action_approver(uuid) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_pending_action_outcome(public.mcp_pending_actions, text) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_pending_action_claim(uuid, timestamptz) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_pending_action_finish(uuid, text, text, jsonb, timestamptz) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_write_reply_to_help_request(jsonb) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_write_set_help_request_status(jsonb, timestamptz) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION public.mcp_write_reply_to_discussion_thread(jsonb) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_approve(uuid, timestamptz) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_approver(uuid) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_outcome(public.mcp_pending_actions, text) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_claim(uuid, timestamptz) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_finish(uuid, text, text, jsonb, timestamptz) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_write_reply_to_help_request(jsonb) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_write_set_help_request_status(jsonb, timestamptz) TO authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_write_reply_to_discussion_thread(jsonb) TO authenticated;
