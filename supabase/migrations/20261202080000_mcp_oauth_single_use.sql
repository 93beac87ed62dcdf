-- MCP gateway: single use of consent decisions and refresh-token retries
-- (docs/oauth.md).
--
--   * mcp_oauth_decided_authorizations — authorizations whose consent page
--     was decided (approved or denied). The pending authorization lives in
--     a sealed cookie; the row, keyed by its id, is what makes the first
--     decision the only one, on any replica: a second insert fails.
--   * mcp_oauth_refresh_tokens.replaced_by — the hash of the refresh token
--     that replaced a used one. Until that replacement is first used, the
--     old token may be presented once more (a host retrying a refresh whose
--     answer it lost); after that, presenting it is reuse and revokes the
--     grant.
--
-- Service role only, like the other OAuth tables. Idempotent. Expired rows
-- are harmless; prune them at leisure, e.g. daily:
--   DELETE FROM public.mcp_oauth_decided_authorizations WHERE expires_at < now();

ALTER TABLE public.mcp_oauth_refresh_tokens ADD COLUMN IF NOT EXISTS replaced_by text;

CREATE TABLE IF NOT EXISTS public.mcp_oauth_decided_authorizations (
    authorization_id text        NOT NULL,
    expires_at       timestamptz NOT NULL,
    decided_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT mcp_oauth_decided_authorizations_pkey PRIMARY KEY (authorization_id)
);

COMMENT ON TABLE public.mcp_oauth_decided_authorizations IS 'OAuth authorizations of the MCP gateway whose consent was decided (single use of the sealed pending cookie); service_role only';

ALTER TABLE public.mcp_oauth_decided_authorizations ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.mcp_oauth_decided_authorizations FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.mcp_oauth_decided_authorizations TO service_role;
