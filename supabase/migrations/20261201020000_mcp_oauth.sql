-- MCP gateway: storage of the gateway's OAuth 2.1 authorization server
-- (GATEWAY_OAUTH_SERVER=gateway, docs/oauth.md).
--
-- A grant itself is an ordinary public.api_tokens row of the user, so
-- mcp-tokens lists and revokes it like a pasted token and every existing
-- check (revoked_token_ids, last_used_at, the audit log) applies. These
-- tables hold only what OAuth adds:
--   * mcp_oauth_grants        — which client a grant was issued to (the
--                               marker that tells OAuth grants apart);
--   * mcp_oauth_codes         — authorization codes, by SHA-256 hash only,
--                               single-use (used_at), 60-second lifetime;
--   * mcp_oauth_refresh_tokens — refresh tokens, by SHA-256 hash only,
--                               rotated on every use (used_at).
-- Neither a code nor a token is ever stored in a usable form.
--
-- Only the service role (the gateway's authorization server) may touch
-- them: RLS is on with no policy, and anon and authenticated hold no
-- privilege, so not even a row's own user can read a hash through the
-- API. Every statement is idempotent: applying the file twice is a no-op.
--
-- Expired and used rows are harmless (they never verify again); prune
-- them at leisure, e.g. daily:
--   DELETE FROM public.mcp_oauth_codes WHERE expires_at < now() - interval '1 day';
--   DELETE FROM public.mcp_oauth_refresh_tokens WHERE expires_at < now();

CREATE TABLE IF NOT EXISTS public.mcp_oauth_grants (
    token_id     text        NOT NULL,
    client_id    text        NOT NULL,
    client_name  text        NOT NULL DEFAULT '',
    redirect_uri text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT mcp_oauth_grants_pkey PRIMARY KEY (token_id),
    CONSTRAINT mcp_oauth_grants_token_id_fkey FOREIGN KEY (token_id) REFERENCES public.api_tokens (token_id) ON DELETE CASCADE
);

COMMENT ON TABLE public.mcp_oauth_grants IS 'OAuth grants of the MCP gateway: the client each api_tokens grant row was issued to; service_role only';

CREATE TABLE IF NOT EXISTS public.mcp_oauth_codes (
    code_hash      text        NOT NULL,
    token_id       text        NOT NULL,
    client_hash    text        NOT NULL,
    client_name    text        NOT NULL DEFAULT '',
    redirect_uri   text        NOT NULL,
    code_challenge text        NOT NULL,
    user_id        uuid        NOT NULL,
    scopes         text[]      NOT NULL,
    resource       text        NOT NULL DEFAULT '',
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT mcp_oauth_codes_pkey PRIMARY KEY (code_hash),
    CONSTRAINT mcp_oauth_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users (id) ON DELETE CASCADE
);

COMMENT ON TABLE public.mcp_oauth_codes IS 'OAuth authorization codes of the MCP gateway, by SHA-256 hash; single-use; service_role only';

CREATE TABLE IF NOT EXISTS public.mcp_oauth_refresh_tokens (
    token_hash  text        NOT NULL,
    token_id    text        NOT NULL,
    user_id     uuid        NOT NULL,
    client_hash text        NOT NULL,
    scopes      text[]      NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT mcp_oauth_refresh_tokens_pkey PRIMARY KEY (token_hash),
    CONSTRAINT mcp_oauth_refresh_tokens_token_id_fkey FOREIGN KEY (token_id) REFERENCES public.api_tokens (token_id) ON DELETE CASCADE,
    CONSTRAINT mcp_oauth_refresh_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users (id) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS idx_mcp_oauth_refresh_tokens_token_id ON public.mcp_oauth_refresh_tokens (token_id);

COMMENT ON TABLE public.mcp_oauth_refresh_tokens IS 'OAuth refresh tokens of the MCP gateway, by SHA-256 hash; rotated on use; service_role only';

ALTER TABLE public.mcp_oauth_grants ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.mcp_oauth_codes ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.mcp_oauth_refresh_tokens ENABLE ROW LEVEL SECURITY;

REVOKE ALL ON public.mcp_oauth_grants, public.mcp_oauth_codes, public.mcp_oauth_refresh_tokens FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.mcp_oauth_grants, public.mcp_oauth_codes, public.mcp_oauth_refresh_tokens TO service_role;
