-- MCP gateway: a proposal made again replaces the one before it
-- (docs/writes.md, "Limits"). A tool call whose answer was lost leaves a
-- pending action nobody has the link to; the assistant's retry, the same
-- call (the same user, tool and argument digest), expires it at once
-- instead of leaving it to count toward the user's limit of pending
-- proposals until it lapses. Its link then says it expired, so a person
-- who still had the earlier page open cannot approve a plan the assistant
-- replaced. Idempotent: applying the file twice is a no-op.

CREATE INDEX IF NOT EXISTS mcp_pending_actions_waiting_idx
    ON public.mcp_pending_actions (user_id, tool, argument_digest) WHERE state = 'pending';

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
    UPDATE public.mcp_pending_actions AS a SET state = 'expired', decided_at = p_now
     WHERE a.user_id = p_user_id AND a.tool = p_tool AND a.argument_digest = p_argument_digest AND a.state = 'pending';
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
