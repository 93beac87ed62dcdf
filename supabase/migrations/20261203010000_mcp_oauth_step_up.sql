-- MCP gateway: step-up of an OAuth grant (docs/oauth.md, "Step-up").
--
-- A client holding a read grant that needs mcp:write signs the person in
-- again. The consent page then names the connection the client already
-- has, and approving replaces it: the new grant holds the old grant's
-- scopes plus the added ones, and the old grant is revoked in the same
-- transaction that creates the new one, so the person's token list has one
-- live grant for the client, never two.
--
--   * mcp_oauth_live_grants        — the live grants of a user for one
--                                    client (by hashToken(client_id), the
--                                    form the consent page holds);
--   * mcp_oauth_codes.replaces     — the token ids of the grants a code's
--                                    consent page named as the existing
--                                    connection;
--   * mcp_oauth_create_grant       — redefined: it also revokes those
--                                    grants (if still live, of the same
--                                    user and issued to the same client).
--
-- Replacing, not widening in place: an access token is a self-contained
-- mcp_ JWT whose jti is its grant's token_id and whose scopes are in its
-- claims, so the old grant's tokens can only be stopped by revoking that
-- token id, and they would never gain mcp:write anyway. The client that
-- stepped up gets a fresh access and refresh token in the same token
-- response, so revoking the old ones costs it nothing.
--
-- The replacement happens whether or not the code was replayed meanwhile,
-- so both orders of a replay and the grant's creation end alike: the new
-- grant revoked (mcp_oauth_use_code or the replayed_at check) and the old
-- one revoked. Service role only, like the other OAuth functions; runs as
-- its caller; the caller passes the time. Idempotent.

ALTER TABLE public.mcp_oauth_codes ADD COLUMN IF NOT EXISTS replaces text[] NOT NULL DEFAULT '{}';

-- Live: not revoked (api_tokens.revoked_at nor revoked_token_ids) and not
-- expired, as mcp_oauth_rotate_refresh decides. The client is matched by
-- the SHA-256 (lower-case hex) of its client_id: client ids can be long
-- signed blobs, so the sealed consent cookie carries only the hash.
CREATE OR REPLACE FUNCTION public.mcp_oauth_live_grants(p_user_id uuid, p_client_hash text, p_now timestamptz)
RETURNS TABLE (token_id text, scopes text[])
LANGUAGE sql
STABLE
SET search_path = ''
AS $$
    SELECT a.token_id, a.scopes
      FROM public.api_tokens AS a
      JOIN public.mcp_oauth_grants AS g ON g.token_id = a.token_id
     WHERE a.user_id = p_user_id
       AND a.revoked_at IS NULL
       AND a.expires_at > p_now
       AND NOT EXISTS (SELECT 1 FROM public.revoked_token_ids AS x WHERE x.token_id = a.token_id)
       AND encode(sha256(convert_to(g.client_id, 'UTF8')), 'hex') = p_client_hash
     ORDER BY a.created_at, a.token_id;
$$;

-- As in 20261202090000_mcp_oauth_grant_functions.sql, plus the step-up:
-- the grants the code replaces are revoked here, in the transaction that
-- creates their successor. CREATE OR REPLACE keeps the function's
-- privileges (service role only), so they are not granted again here.
CREATE OR REPLACE FUNCTION public.mcp_oauth_create_grant(
    p_code_hash    text,
    p_name         text,
    p_client_id    text,
    p_expires_at   timestamptz,
    p_refresh_hash text,
    p_now          timestamptz
)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    c public.mcp_oauth_codes;
BEGIN
    SELECT k.* INTO c FROM public.mcp_oauth_codes AS k WHERE k.code_hash = p_code_hash FOR UPDATE;
    IF NOT FOUND OR c.used_at IS NULL THEN
        RAISE EXCEPTION 'mcp_oauth_create_grant: the authorization code has not been redeemed';
    END IF;
    INSERT INTO public.api_tokens (user_id, name, token_id, scopes, expires_at)
    VALUES (c.user_id, p_name, c.token_id, c.scopes, p_expires_at);
    INSERT INTO public.mcp_oauth_grants (token_id, client_id, client_name, redirect_uri)
    VALUES (c.token_id, p_client_id, c.client_name, c.redirect_uri);
    INSERT INTO public.mcp_oauth_refresh_tokens (token_hash, token_id, user_id, client_hash, scopes, expires_at)
    VALUES (p_refresh_hash, c.token_id, c.user_id, c.client_hash, c.scopes, p_expires_at);
    -- Step-up: revoke what this grant replaces. Only the code's own user's
    -- grants of the same client qualify, whatever the code row says.
    UPDATE public.api_tokens AS a SET revoked_at = p_now
     WHERE a.token_id = ANY (c.replaces) AND a.token_id <> c.token_id
       AND a.user_id = c.user_id AND a.revoked_at IS NULL
       AND EXISTS (SELECT 1 FROM public.mcp_oauth_grants AS g
                    WHERE g.token_id = a.token_id AND g.client_id = p_client_id);
    IF c.replayed_at IS NOT NULL THEN
        UPDATE public.api_tokens AS a SET revoked_at = p_now WHERE a.token_id = c.token_id;
        RETURN false;
    END IF;
    RETURN true;
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_oauth_live_grants(uuid, text, timestamptz) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_oauth_live_grants(uuid, text, timestamptz) TO service_role;

-- PostgREST learns of new functions from its schema cache.
NOTIFY pgrst, 'reload schema';
