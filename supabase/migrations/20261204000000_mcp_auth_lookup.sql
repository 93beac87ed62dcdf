-- MCP gateway: authentication's two look-ups in one round trip
-- (gateway/mcpauth, docs/performance.md).
--
-- Every request with an mcp_ token asks two questions before any tool
-- work: is the token revoked (revoked_token_ids), and is its user an
-- active instructor or grader anywhere (user_roles). Asked as two REST
-- reads they cost two round trips to PostgREST and two statements; asked
-- here they cost one of each, answered from one snapshot.
--
--   * mcp_auth_lookup — {"revoked": bool, "staff": bool} for a token id
--                        and a user id.
--
-- The answers are those of the original's two queries: revoked when
-- revoked_token_ids has the token id; staff when user_roles has a row of
-- the user, not disabled, with the role instructor or grader. A user id
-- that is not a uuid cannot be asked here (the call fails while its
-- arguments are converted); the gateway never sends one, and judges such
-- a user as the original's failed role query would (mcpauth.lookUp).
--
-- Service role only, like the gateway's other functions; runs as its
-- caller (the service role reads past RLS). PL/pgSQL, whose body is
-- checked when first called rather than when created: the migration then
-- applies before Pawtograder's user_roles exists, as the gateway's other
-- migrations do. Idempotent.

CREATE OR REPLACE FUNCTION public.mcp_auth_lookup(p_token_id text, p_user_id uuid)
RETURNS jsonb
LANGUAGE plpgsql
STABLE
SET search_path = ''
AS $$
BEGIN
    RETURN jsonb_build_object(
        'revoked', EXISTS (SELECT 1 FROM public.revoked_token_ids AS r WHERE r.token_id = p_token_id),
        'staff', EXISTS (
            SELECT 1
              FROM public.user_roles AS u
             WHERE u.user_id = p_user_id
               AND u.disabled = false
               AND u.role IN ('instructor', 'grader')
        )
    );
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_auth_lookup(text, uuid) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_auth_lookup(text, uuid) TO service_role;
