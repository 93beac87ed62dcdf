-- MCP gateway: write tools whose every write a person approves on a page
-- the gateway serves (docs/writes.md).
--
-- A write tool call never writes. It stores a pending action here: who
-- proposed it (user, token, OAuth client), the tool, its canonical
-- arguments and their digest, and the exact preview the approval page
-- shows, which also holds the one write the approval performs. The person
-- opens the approval link, signs in, and approves or rejects; only an
-- approval by the action's own user, while it is pending and unexpired,
-- moves it to approved, once. The write then runs as that user through
-- PostgREST (row-level security decides), and its row id is recorded.
--
-- The table is the gateway's alone: RLS on with no policy, and only the
-- service role (which bypasses RLS) holds privileges. State changes are
-- the functions below, called through PostgREST (POST /rest/v1/rpc/<fn>)
-- with the service role; each is one statement or one transaction with
-- its row lock, so two approvals racing on any replicas approve once. The
-- functions run as their caller (no SECURITY DEFINER) and take the time
-- from the gateway (p_now), whose clock decides expiry everywhere else.
-- Idempotent: applying the file twice is a no-op.

CREATE TABLE IF NOT EXISTS public.mcp_pending_actions (
    id              uuid        NOT NULL DEFAULT gen_random_uuid(),
    user_id         uuid        NOT NULL,
    token_id        text,
    client_id       text,
    class_id        bigint      NOT NULL,
    tool            text        NOT NULL,
    arguments       jsonb       NOT NULL,
    argument_digest text        NOT NULL,
    preview         jsonb       NOT NULL,
    state           text        NOT NULL DEFAULT 'pending',
    written_row_id  text,
    failure         text,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    decided_at      timestamptz,
    CONSTRAINT mcp_pending_actions_pkey PRIMARY KEY (id),
    CONSTRAINT mcp_pending_actions_state_check
        CHECK (state IN ('pending', 'approved', 'rejected', 'expired', 'failed')),
    CONSTRAINT mcp_pending_actions_tool_check
        CHECK (tool IN ('reply_to_help_request', 'set_help_request_status', 'reply_to_discussion_thread')),
    CONSTRAINT mcp_pending_actions_expiry_check CHECK (expires_at > created_at),
    -- Bounds, so that a proposal cannot store an unbounded document.
    CONSTRAINT mcp_pending_actions_size_check
        CHECK (octet_length(arguments::text) <= 65536 AND octet_length(preview::text) <= 262144)
);

CREATE INDEX IF NOT EXISTS mcp_pending_actions_user_idx ON public.mcp_pending_actions (user_id, created_at);

COMMENT ON TABLE public.mcp_pending_actions IS 'MCP write tools: actions awaiting a person''s approval (docs/writes.md); service_role only';

ALTER TABLE public.mcp_pending_actions ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.mcp_pending_actions FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.mcp_pending_actions TO service_role;

-- A new pending action; returns its id.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_propose(
    p_user_id uuid, p_token_id text, p_client_id text, p_class_id bigint, p_tool text,
    p_arguments jsonb, p_argument_digest text, p_preview jsonb, p_now timestamptz, p_ttl_seconds integer)
RETURNS uuid
LANGUAGE sql
SET search_path = ''
AS $$
    INSERT INTO public.mcp_pending_actions
        (user_id, token_id, client_id, class_id, tool, arguments, argument_digest, preview, created_at, expires_at)
    VALUES (p_user_id, nullif(p_token_id, ''), nullif(p_client_id, ''), p_class_id, p_tool,
            p_arguments, p_argument_digest, p_preview, p_now,
            p_now + make_interval(secs => least(greatest(p_ttl_seconds, 1), 3600)))
    RETURNING id;
$$;

-- The action's state as its own user may see it, or no row for anyone
-- else. A pending action past its expiry becomes expired here (decided_at
-- is then the p_now of the call that expired it), so every reader (tool,
-- page, any replica) reports the same state.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_state(p_id uuid, p_user_id uuid, p_now timestamptz)
RETURNS SETOF public.mcp_pending_actions
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
    UPDATE public.mcp_pending_actions AS a SET state = 'expired', decided_at = p_now
     WHERE a.id = p_id AND a.user_id = p_user_id AND a.state = 'pending' AND a.expires_at <= p_now;
    RETURN QUERY SELECT a.* FROM public.mcp_pending_actions AS a WHERE a.id = p_id AND a.user_id = p_user_id;
END;
$$;

-- The decision, single use: only the action's own user, only while it is
-- pending and unexpired, and only while the token that proposed it is not
-- revoked. Returns the outcome: 'approved' or 'rejected' (this call
-- decided), 'not_found' (no such action for this user), 'expired',
-- 'revoked' (the proposing token was revoked; the action fails), or
-- 'already_<state>' when it was decided before.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_decide(p_id uuid, p_user_id uuid, p_approve boolean, p_now timestamptz)
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
    IF a.token_id IS NOT NULL AND EXISTS (SELECT 1 FROM public.revoked_token_ids AS r WHERE r.token_id = a.token_id) THEN
        UPDATE public.mcp_pending_actions AS x SET state = 'failed', failure = 'token revoked', decided_at = p_now WHERE x.id = p_id;
        RETURN 'revoked';
    END IF;
    IF p_approve THEN
        UPDATE public.mcp_pending_actions AS x SET state = 'approved', decided_at = p_now WHERE x.id = p_id;
        RETURN 'approved';
    END IF;
    UPDATE public.mcp_pending_actions AS x SET state = 'rejected', decided_at = p_now WHERE x.id = p_id;
    RETURN 'rejected';
END;
$$;

-- The approved write's result: the written row's id, or the failure (the
-- action becomes failed). Only an approved action without a result yet is
-- changed; returns whether this call recorded it.
CREATE OR REPLACE FUNCTION public.mcp_pending_action_record(p_id uuid, p_row_id text, p_failure text)
RETURNS boolean
LANGUAGE sql
SET search_path = ''
AS $$
    WITH done AS (
        UPDATE public.mcp_pending_actions AS x
           SET written_row_id = nullif(p_row_id, ''),
               failure = nullif(p_failure, ''),
               state = CASE WHEN nullif(p_failure, '') IS NULL THEN 'approved' ELSE 'failed' END
         WHERE x.id = p_id AND x.state = 'approved' AND x.written_row_id IS NULL AND x.failure IS NULL
        RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM done);
$$;

REVOKE ALL ON FUNCTION public.mcp_pending_action_propose(uuid, text, text, bigint, text, jsonb, text, jsonb, timestamptz, integer) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_pending_action_state(uuid, uuid, timestamptz) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_pending_action_decide(uuid, uuid, boolean, timestamptz) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_pending_action_record(uuid, text, text) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_propose(uuid, text, text, bigint, text, jsonb, text, jsonb, timestamptz, integer) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_state(uuid, uuid, timestamptz) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_decide(uuid, uuid, boolean, timestamptz) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_record(uuid, text, text) TO service_role;
