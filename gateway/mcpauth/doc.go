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
// package userdb's. Scopes are checked per tool with Principal.HasScope.
//
// # Concurrency
//
// Steps 6 and 9 are independent reads with the service role. Done one
// after the other they cost two round trips on every request, so
// Authenticate runs them concurrently (golang.org/x/sync/errgroup) and
// judges the two results in A7 order: a failed look-up or a revoked token
// decides the answer whatever the role query says (and cancels it), exactly
// as the sequential code would, while a failed role query waits for the
// revocation answer. The Supabase path runs the staff gate and the session
// check the same way.
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
