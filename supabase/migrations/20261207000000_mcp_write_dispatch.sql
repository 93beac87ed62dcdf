-- MCP gateway: the approval's dispatch declared once, and an approval
-- that cannot outlive the gateway's deadline (docs/writes.md).
--
-- mcp_write_tools registers each write tool: its name and its write
-- function, which takes the stored plan (jsonb) and, when it has a second
-- argument, the decision's time (timestamptz), and answers {"row_id"} or
-- {"failure", "detail"}. mcp_pending_action_approve reads the function
-- from this table, so adding a write tool is its write function and one
-- row here (in the tool's own migration), never a new copy of the
-- approval. The pending-actions table refers to the registered tools
-- instead of listing them. The table is closed to every role but its
-- owner: the approval reads it through mcp_write_function, a definer
-- function that answers one tool's function.
--
-- The approval takes p_budget_ms, what is left of the gateway's deadline
-- less a margin: its lock waits give up within it (lock_timeout), and it
-- refuses to commit once the budget is spent (57014), so a gateway that
-- stopped waiting for the answer is never contradicted by a commit that
-- comes later. PostgREST runs a statement on after its client hangs up,
-- which is why the bound must be the database's own.
--
-- This replaces the approval of 20261204030000_mcp_grading_decisions.sql
-- (the earlier three declarations stay as released; this is the one the
-- database keeps). Idempotent: applying the file twice is a no-op.

CREATE TABLE IF NOT EXISTS public.mcp_write_tools (
    tool text PRIMARY KEY,
    write_function regprocedure NOT NULL
);
REVOKE ALL ON public.mcp_write_tools FROM PUBLIC, anon, authenticated, service_role;
-- Read only by the dispatch (SECURITY DEFINER) and by the gateway's
-- start-up check, which looks for the table as the service role.
GRANT SELECT ON public.mcp_write_tools TO service_role;

INSERT INTO public.mcp_write_tools (tool, write_function) VALUES
    ('reply_to_help_request', 'public.mcp_write_reply_to_help_request(jsonb)'),
    ('set_help_request_status', 'public.mcp_write_set_help_request_status(jsonb, timestamptz)'),
    ('reply_to_discussion_thread', 'public.mcp_write_reply_to_discussion_thread(jsonb)'),
    ('comment_on_regrade_request', 'public.mcp_write_comment_on_regrade_request(jsonb)'),
    ('decide_regrade_request', 'public.mcp_write_decide_regrade_request(jsonb)'),
    ('add_rubric_comment', 'public.mcp_write_add_rubric_comment(jsonb)')
ON CONFLICT (tool) DO UPDATE SET write_function = EXCLUDED.write_function;

ALTER TABLE public.mcp_pending_actions DROP CONSTRAINT IF EXISTS mcp_pending_actions_tool_check;
ALTER TABLE public.mcp_pending_actions DROP CONSTRAINT IF EXISTS mcp_pending_actions_tool_fkey;
ALTER TABLE public.mcp_pending_actions ADD CONSTRAINT mcp_pending_actions_tool_fkey
    FOREIGN KEY (tool) REFERENCES public.mcp_write_tools (tool);

-- The call of p_tool's write function on $1 (the plan) and $2 (the time),
-- or NULL for a tool not registered.
CREATE OR REPLACE FUNCTION public.mcp_write_function(p_tool text)
RETURNS text
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = ''
AS $$
    SELECT format('SELECT %I.%I($1%s)', n.nspname, p.proname, CASE WHEN p.pronargs = 2 THEN ', $2' ELSE '' END)
      FROM public.mcp_write_tools AS w
      JOIN pg_catalog.pg_proc AS p ON p.oid = w.write_function
      JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
     WHERE w.tool = p_tool;
$$;

DROP FUNCTION IF EXISTS public.mcp_pending_action_approve(uuid, timestamptz);

-- The approval: claim, write, record, in this one transaction. Answers
-- {"outcome", "row_id", "failure", "detail"}; a refused write also carries
-- "sqlstate" and "error" for the gateway's log (never shown to anyone).
CREATE OR REPLACE FUNCTION public.mcp_pending_action_approve(p_id uuid, p_now timestamptz, p_budget_ms integer DEFAULT 10000)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    budget interval := make_interval(secs => least(greatest(p_budget_ms, 100), 60000) / 1000.0);
    c jsonb;
    r jsonb;
    write_call text;
BEGIN
    PERFORM pg_catalog.set_config('lock_timeout', (extract(epoch FROM budget) * 1000)::integer::text || 'ms', true);
    c := public.mcp_pending_action_claim(p_id, p_now);
    IF c->>'outcome' <> 'go' THEN
        RETURN c;
    END IF;
    write_call := public.mcp_write_function(c->>'tool');
    BEGIN
        IF write_call IS NULL THEN
            r := jsonb_build_object('failure', 'unknown_tool');
        ELSE
            EXECUTE write_call INTO r USING c->'write', p_now;
        END IF;
    EXCEPTION
        -- Refusals that approving again would meet again: row-level
        -- security, a constraint, a value, or a trigger that raised.
        WHEN insufficient_privilege THEN
            r := jsonb_build_object('failure', 'not_allowed', 'sqlstate', SQLSTATE, 'error', SQLERRM);
        WHEN integrity_constraint_violation OR data_exception OR raise_exception THEN
            r := jsonb_build_object('failure', 'refused', 'sqlstate', SQLSTATE, 'error', SQLERRM);
    END;
    IF pg_catalog.clock_timestamp() > pg_catalog.statement_timestamp() + budget THEN
        RAISE EXCEPTION 'the approval ran past its deadline' USING ERRCODE = '57014';
    END IF;
    RETURN public.mcp_pending_action_finish(p_id, r->>'row_id', r->>'failure', r->'detail', p_now)
        || jsonb_strip_nulls(jsonb_build_object('sqlstate', r->'sqlstate', 'error', r->'error'));
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_write_function(text) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_write_function(text) TO authenticated;
REVOKE ALL ON FUNCTION public.mcp_pending_action_approve(uuid, timestamptz, integer) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_pending_action_approve(uuid, timestamptz, integer) TO authenticated;

-- The approval's arguments changed: PostgREST reloads its schema cache so
-- that the gateway's calls with p_budget_ms find the function at once.
NOTIFY pgrst, 'reload schema';
