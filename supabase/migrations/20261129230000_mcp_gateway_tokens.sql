-- MCP gateway: API-token metadata and the revocation list.
--
-- Brings a database to the state that the gateway's mcp-tokens function and
-- auth module expect (docs/contract/schema.md §2.1–2.2), whether it is empty (after the
-- Supabase bootstrap) or a Pawtograder database that already has these
-- tables. Every statement is idempotent: applying the file twice is a no-op.
-- Existing columns, constraints and data are never altered, only completed.
--
-- Deliberate hardening compared with Pawtograder's own migration:
--   * revoked_token_ids gets RLS and loses every privilege of anon and
--     authenticated. Upstream it had no RLS and table-wide privileges, so
--     anyone holding the public anon key could read, insert or DELETE
--     revocation rows (un-revoking stolen tokens). Only service_role (which
--     the gateway's auth module and mcp-tokens use for this table) keeps
--     access; the revocation trigger writes as its SECURITY DEFINER owner.
--   * api_tokens: anon loses all privileges and authenticated keeps only
--     SELECT, INSERT and UPDATE. Supabase's default privileges would also
--     grant TRUNCATE (which ignores RLS) and DELETE (no policy allows it).
--   * Both trigger functions pin search_path, as SECURITY DEFINER functions
--     must, so a caller's search_path cannot redirect their table references.

CREATE TABLE IF NOT EXISTS public.api_tokens (
    id           uuid        NOT NULL DEFAULT gen_random_uuid(),
    user_id      uuid        NOT NULL,
    name         text        NOT NULL,
    token_id     text        NOT NULL,
    scopes       text[]      NOT NULL DEFAULT ARRAY['mcp:read'],
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    CONSTRAINT api_tokens_pkey PRIMARY KEY (id),
    CONSTRAINT api_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users (id) ON DELETE CASCADE,
    CONSTRAINT api_tokens_token_id_key UNIQUE (token_id),
    CONSTRAINT valid_scopes CHECK (scopes <@ ARRAY['mcp:read', 'mcp:write', 'cli:read', 'cli:write']::text[])
);

-- Older Pawtograder revisions predate last_used_at.
ALTER TABLE public.api_tokens ADD COLUMN IF NOT EXISTS last_used_at timestamptz;

CREATE INDEX IF NOT EXISTS idx_api_tokens_user_id ON public.api_tokens (user_id);

COMMENT ON TABLE public.api_tokens IS 'Metadata of issued API tokens (the token string itself is never stored)';
COMMENT ON COLUMN public.api_tokens.token_id IS 'The token''s JWT jti claim, used for revocation look-ups';

CREATE TABLE IF NOT EXISTS public.revoked_token_ids (
    token_id   text        NOT NULL,
    revoked_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT revoked_token_ids_pkey PRIMARY KEY (token_id)
);

COMMENT ON TABLE public.revoked_token_ids IS 'Revoked token jtis, checked on every token authentication; service_role only';

-- Only revoked_at, name and last_used_at may change after issue.
CREATE OR REPLACE FUNCTION public.prevent_api_token_mutation()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = ''
AS $$
BEGIN
    IF NEW.token_id IS DISTINCT FROM OLD.token_id THEN
        RAISE EXCEPTION 'Cannot modify token_id';
    END IF;
    IF NEW.scopes IS DISTINCT FROM OLD.scopes THEN
        RAISE EXCEPTION 'Cannot modify scopes';
    END IF;
    IF NEW.user_id IS DISTINCT FROM OLD.user_id THEN
        RAISE EXCEPTION 'Cannot modify user_id';
    END IF;
    IF NEW.expires_at IS DISTINCT FROM OLD.expires_at THEN
        RAISE EXCEPTION 'Cannot modify expires_at';
    END IF;
    IF NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        RAISE EXCEPTION 'Cannot modify created_at';
    END IF;
    RETURN NEW;
END;
$$;

-- Records a revocation when revoked_at goes from NULL to non-NULL. SECURITY
-- DEFINER because the revoking user has no privilege on revoked_token_ids;
-- ON CONFLICT because mcp-tokens (or an earlier revocation) may have written
-- the row already.
CREATE OR REPLACE FUNCTION public.handle_api_token_revocation()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = ''
AS $$
BEGIN
    IF NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL THEN
        INSERT INTO public.revoked_token_ids (token_id, revoked_at)
        VALUES (NEW.token_id, NEW.revoked_at)
        ON CONFLICT (token_id) DO NOTHING;
    END IF;
    RETURN NEW;
END;
$$;

REVOKE ALL ON FUNCTION public.prevent_api_token_mutation() FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION public.handle_api_token_revocation() FROM PUBLIC, anon, authenticated;

DROP TRIGGER IF EXISTS prevent_token_mutation ON public.api_tokens;
CREATE TRIGGER prevent_token_mutation
    BEFORE UPDATE ON public.api_tokens
    FOR EACH ROW
    EXECUTE FUNCTION public.prevent_api_token_mutation();

DROP TRIGGER IF EXISTS on_api_token_revoked ON public.api_tokens;
CREATE TRIGGER on_api_token_revoked
    AFTER UPDATE ON public.api_tokens
    FOR EACH ROW
    EXECUTE FUNCTION public.handle_api_token_revocation();

ALTER TABLE public.api_tokens ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS "Users can view own tokens" ON public.api_tokens;
CREATE POLICY "Users can view own tokens"
    ON public.api_tokens
    FOR SELECT
    USING (auth.uid() = user_id);

DROP POLICY IF EXISTS "Users can create own tokens" ON public.api_tokens;
CREATE POLICY "Users can create own tokens"
    ON public.api_tokens
    FOR INSERT
    WITH CHECK (auth.uid() = user_id);

DROP POLICY IF EXISTS "Users can revoke own tokens" ON public.api_tokens;
CREATE POLICY "Users can revoke own tokens"
    ON public.api_tokens
    FOR UPDATE
    USING (auth.uid() = user_id)
    WITH CHECK (auth.uid() = user_id);

-- An early Pawtograder revision allowed deletes; tokens are revoked, never
-- deleted, so that the revocation stays auditable.
DROP POLICY IF EXISTS "Users can delete own tokens" ON public.api_tokens;

REVOKE ALL ON public.api_tokens FROM PUBLIC, anon, authenticated;
GRANT SELECT, INSERT, UPDATE ON public.api_tokens TO authenticated;
GRANT ALL ON public.api_tokens TO service_role;

ALTER TABLE public.revoked_token_ids ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.revoked_token_ids FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.revoked_token_ids TO service_role;
