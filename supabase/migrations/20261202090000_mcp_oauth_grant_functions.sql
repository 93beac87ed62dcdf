-- MCP gateway: the OAuth server's multi-step changes of grants, each one
-- transaction (docs/oauth.md).
--
-- The authorization server calls these through PostgREST
-- (POST /rest/v1/rpc/<function>) with the service role. Each takes the row
-- locks it needs, so that two requests racing for the same code or refresh
-- token are serialised by PostgreSQL, on any replica:
--
--   * mcp_oauth_use_code      — redeems a code: the first use marks it used;
--                               any later use marks it replayed and revokes
--                               the grant its first use issued;
--   * mcp_oauth_create_grant  — the first use's grant (api_tokens row, the
--                               mcp_oauth_grants marker and the first refresh
--                               token), created already revoked when the code
--                               was replayed before it existed;
--   * mcp_oauth_rotate_refresh — a refresh: rotation, the forgiven retry, or
--                               reuse, which revokes the grant;
--   * mcp_oauth_revoke_grant  — RFC 7009 revocation by the grant's client.
--
-- A grant is revoked in one way only: api_tokens.revoked_at goes from NULL
-- to a time, and the on_api_token_revoked trigger (the gateway's first
-- migration) writes revoked_token_ids in the same transaction. Nothing here
-- writes revoked_token_ids itself, so a token id listed there always has
-- its api_tokens row revoked.
--
-- The functions run as their caller (no SECURITY DEFINER): only the service
-- role, which owns every privilege on these tables, may execute them. The
-- caller passes the time (p_now), so that the gateway's clock decides
-- expiry, as it does everywhere else. Idempotent: applying the file twice is
-- a no-op.

-- When a code was presented again after its first use (which then revokes
-- whatever the first use issued, now or when it is created).
ALTER TABLE public.mcp_oauth_codes ADD COLUMN IF NOT EXISTS replayed_at timestamptz;

CREATE OR REPLACE FUNCTION public.mcp_oauth_use_code(p_code_hash text, p_now timestamptz)
RETURNS TABLE (
    code_hash      text,
    token_id       text,
    client_hash    text,
    client_name    text,
    redirect_uri   text,
    code_challenge text,
    user_id        uuid,
    scopes         text[],
    resource       text,
    expires_at     timestamptz,
    was_used       boolean
)
LANGUAGE plpgsql
SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
    c public.mcp_oauth_codes;
BEGIN
    -- The first use: the guarded update is the atomic step. A concurrent
    -- first use holds the row until it commits, and then this update finds
    -- used_at set and matches nothing.
    UPDATE public.mcp_oauth_codes AS k SET used_at = p_now
     WHERE k.code_hash = p_code_hash AND k.used_at IS NULL
    RETURNING k.* INTO c;
    IF FOUND THEN
        RETURN QUERY SELECT c.code_hash, c.token_id, c.client_hash, c.client_name, c.redirect_uri,
            c.code_challenge, c.user_id, c.scopes, c.resource, c.expires_at, false;
        RETURN;
    END IF;
    -- A replay. The row lock orders it against mcp_oauth_create_grant: if
    -- the grant exists it is revoked here; if not, replayed_at makes it be
    -- created revoked.
    SELECT k.* INTO c FROM public.mcp_oauth_codes AS k WHERE k.code_hash = p_code_hash FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    UPDATE public.mcp_oauth_codes AS k SET replayed_at = coalesce(k.replayed_at, p_now)
     WHERE k.code_hash = p_code_hash;
    UPDATE public.api_tokens AS a SET revoked_at = p_now
     WHERE a.token_id = c.token_id AND a.revoked_at IS NULL;
    RETURN QUERY SELECT c.code_hash, c.token_id, c.client_hash, c.client_name, c.redirect_uri,
        c.code_challenge, c.user_id, c.scopes, c.resource, c.expires_at, true;
END;
$$;

-- Returns true when the grant was created active, false when it was created
-- revoked because the code had been replayed meanwhile. Everything the
-- grant records (user, token id, scopes, client name, redirect URI) comes
-- from the code row: the scopes are those the person approved.
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
    IF c.replayed_at IS NOT NULL THEN
        UPDATE public.api_tokens AS a SET revoked_at = p_now WHERE a.token_id = c.token_id;
        RETURN false;
    END IF;
    RETURN true;
END;
$$;

-- Outcomes:
--   'rotated'   the token was unused: it is now used, replaced by p_next_hash;
--   'retried'   the token was used, but its replacement never was: that
--               replacement is superseded (used, replaced by nothing, so
--               presenting it is reuse) and p_next_hash takes its place;
--   'reused'    any other use of a used token: the grant is revoked;
--   'inactive'  the grant is revoked or expired: nothing changes;
--   'not_found' no such token.
-- The new token keeps the grant's scopes: a narrowed access token never
-- narrows the grant, and nothing ever widens it. Locks go from a token to
-- its replacement, never back, so concurrent refreshes cannot deadlock.
CREATE OR REPLACE FUNCTION public.mcp_oauth_rotate_refresh(p_token_hash text, p_next_hash text, p_now timestamptz)
RETURNS text
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    r public.mcp_oauth_refresh_tokens;
    n public.mcp_oauth_refresh_tokens;
BEGIN
    SELECT t.* INTO r FROM public.mcp_oauth_refresh_tokens AS t WHERE t.token_hash = p_token_hash FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'not_found';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM public.api_tokens AS a
                    WHERE a.token_id = r.token_id AND a.revoked_at IS NULL AND a.expires_at > p_now)
       OR EXISTS (SELECT 1 FROM public.revoked_token_ids AS x WHERE x.token_id = r.token_id) THEN
        RETURN 'inactive';
    END IF;
    IF r.used_at IS NULL THEN
        UPDATE public.mcp_oauth_refresh_tokens AS t SET used_at = p_now, replaced_by = p_next_hash
         WHERE t.token_hash = p_token_hash;
    ELSE
        IF r.replaced_by IS NOT NULL THEN
            SELECT t.* INTO n FROM public.mcp_oauth_refresh_tokens AS t WHERE t.token_hash = r.replaced_by FOR UPDATE;
        END IF;
        IF r.replaced_by IS NULL OR n.token_hash IS NULL OR n.used_at IS NOT NULL THEN
            UPDATE public.api_tokens AS a SET revoked_at = p_now
             WHERE a.token_id = r.token_id AND a.revoked_at IS NULL;
            RETURN 'reused';
        END IF;
        UPDATE public.mcp_oauth_refresh_tokens AS t SET used_at = p_now WHERE t.token_hash = n.token_hash;
        UPDATE public.mcp_oauth_refresh_tokens AS t SET replaced_by = p_next_hash WHERE t.token_hash = p_token_hash;
    END IF;
    INSERT INTO public.mcp_oauth_refresh_tokens (token_hash, token_id, user_id, client_hash, scopes, expires_at)
    VALUES (p_next_hash, r.token_id, r.user_id, r.client_hash, r.scopes, r.expires_at);
    IF r.used_at IS NULL THEN
        RETURN 'rotated';
    END IF;
    RETURN 'retried';
END;
$$;

-- Revokes the grant p_token_id if it was issued to p_client_id and is not
-- revoked yet; reports whether it did. A pasted mcp_ token (no marker) or
-- another client's grant is left alone (RFC 7009 §2.1).
CREATE OR REPLACE FUNCTION public.mcp_oauth_revoke_grant(p_token_id text, p_client_id text, p_now timestamptz)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
    UPDATE public.api_tokens AS a SET revoked_at = p_now
     WHERE a.token_id = p_token_id AND a.revoked_at IS NULL
       AND EXISTS (SELECT 1 FROM public.mcp_oauth_grants AS g
                    WHERE g.token_id = p_token_id AND g.client_id = p_client_id);
    RETURN FOUND;
END;
$$;

REVOKE ALL ON FUNCTION public.mcp_oauth_use_code(text, timestamptz) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_oauth_create_grant(text, text, text, timestamptz, text, timestamptz) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_oauth_rotate_refresh(text, text, timestamptz) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.mcp_oauth_revoke_grant(text, text, timestamptz) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.mcp_oauth_use_code(text, timestamptz) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_oauth_create_grant(text, text, text, timestamptz, text, timestamptz) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_oauth_rotate_refresh(text, text, timestamptz) TO service_role;
GRANT EXECUTE ON FUNCTION public.mcp_oauth_revoke_grant(text, text, timestamptz) TO service_role;

-- PostgREST learns of new functions from its schema cache.
NOTIFY pgrst, 'reload schema';
