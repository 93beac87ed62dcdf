// Package mcpauth authenticates MCP callers and is the only package that
// holds the Supabase service-role key.
//
// # The sequence (docs/contract/protocol.md A7)
//
// Authenticate takes the raw Authorization header and runs the original
// MCPAuth.ts checks in their order; the first failure wins and is an
// *apierror.Error with the original's exact status and message:
//
//  1. header present, else 401 "Missing Authorization header";
//  2. split on single spaces into exactly two parts, the first "bearer" in
//     any case, else 401 "Invalid Authorization header format";
//  3. MCP_JWT_SECRET set, else 500 — checked before the token, so a
//     misconfigured server never calls a token bad (a secret that is set
//     but shorter than 32 UTF-16 code units is refused once, by New);
//  4. the mcp_ token verifies (VerifyAPIToken, A9), else 401 "Invalid or
//     expired API token";
//  5. SUPABASE_URL and the service-role key configured, else 500;
//  6. revocation look-up in revoked_token_ids: a failure is 503 "Could not
//     verify token revocation status: <message>", never 401 — the caller
//     should retry, not discard a good token;
//  7. a row there is 401 "API token has been revoked";
//  8. (a repeat of step 5 in the original, unreachable);
//  9. the staff gate (an active instructor or grader role anywhere): a
//     failed query is 500 "Failed to verify user permissions";
//  10. no role is 403 "User must be an instructor or grader in at least
//     one class".
//
// Steps 11–12 (the per-user PostgREST client with a minted ES256 JWT) are
// package userclient's. Scopes are checked per tool with Principal.HasScope.
//
// # One round trip
//
// Steps 6 and 9 are reads with the service role. Asked as two REST reads
// they cost two round trips on every request, so Authenticate asks both
// in one call of the SQL function mcp_auth_lookup (the gateway's
// migration 20261204000000_mcp_auth_lookup.sql), which answers
// {"revoked": …, "staff": …} from one statement, and judges the answer in
// A7 order. A failure of the call reads as the original's first failing
// step, the revocation look-up (503). The original's role query fails only
// when PostgreSQL refuses the token's sub as a uuid; such a sub is sent as
// null and judged as that failure (500), by a check that accepts what
// PostgreSQL's uuid input accepts (pgUUID). The Supabase path has no revocation
// look-up: it runs the staff gate (GET user_roles) and the session check
// concurrently (golang.org/x/sync/errgroup) and judges them in that order.
//
// # Side effects
//
// TouchLastUsed records api_tokens.last_used_at (A8) without blocking: a
// bounded queue, one worker, a deadline per write, and at most one write
// per token per 30 s. The package never writes revoked_token_ids: a token
// is revoked by setting api_tokens.revoked_at, whose trigger adds the row
// in the same transaction (mcp-tokens as the user, the OAuth server's
// grant functions as the service role).
//
// AuthClient looks up Supabase Auth users for mcp-tokens and the OAuth
// path; it uses the anon key only and separates "Auth refused the token"
// (401) from "Auth is unavailable" (503).
//
// # Deviations from the original
//
//   - exp is required in API tokens (the original accepts a token without
//     exp, which could then never expire). Tokens minted by either side
//     always carry exp, so they stay interchangeable.
//   - sub and jti must be JSON strings (the original only needs them
//     truthy); only a holder of the secret could mint anything else.
//   - At exactly exp + 1 s (to the nanosecond) golang-jwt refuses where
//     djwt still accepts.
//   - A revocation look-up that gets no HTTP answer says "fetch failed"
//     (or "request timed out") instead of the runtime's text, which names
//     internal hosts; the full cause is kept for the logs.
package mcpauth
