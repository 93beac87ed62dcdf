// Package oauthserver makes the gateway its own OAuth 2.1 authorization
// server for the MCP endpoint, so an OAuth-only MCP host (claude.ai and
// ChatGPT connectors, IDE clients, mcp-remote) connects with nothing but
// the server URL.
//
// The flow, end to end:
//
//  1. Discovery. The protected-resource metadata names this package's
//     issuer; its RFC 8414 metadata (metadata.go) lists the endpoints below.
//  2. Registration. Either Dynamic Client Registration (register.go): the
//     client's metadata is HMAC-signed into the client_id, so nothing is
//     stored and nobody can forge a client; or a Client ID Metadata
//     Document (cimd.go): the client_id is an https URL fetched with SSRF
//     protection and cached per its Cache-Control.
//  3. Authorization (authorize.go). The request is checked (exact redirect
//     URI, PKCE S256, resource, scopes); the pending authorization travels
//     in a sealed (AES-GCM), short-lived, HttpOnly cookie, so any replica
//     can continue it. The browser goes to the project's Supabase Auth with
//     Supabase's own PKCE flow for third-party sign-in.
//  4. Callback (callback.go). The Supabase code is exchanged for the user;
//     only instructors and graders continue. The Supabase session is
//     discarded: the assistant never sees it.
//  5. Consent (consent.go). A server-rendered page names the client, its
//     redirect host, the account, the scopes and the lifetime. The name
//     is whatever the client registered, so on this page and every other
//     that shows it its hidden characters are drawn as markers and counted
//     in a warning (gateway/hiddentext), as on the approval page. The form
//     carries a CSRF token bound to the pending authorization. The first
//     decision (approve or deny) is recorded in the store and spends the
//     pending authorization on every replica. Someone who cannot grant
//     access gets a refusal page whose way out tells the client
//     (access_denied), so it stops waiting. When the person already has a
//     live grant for the same client_id that lacks a requested scope (a
//     step-up after 403 insufficient_scope), the page says what is added
//     to that connection, and approving replaces it (see stepUp).
//  6. Token (token.go). A single-use, 60-second code becomes a grant: an
//     ordinary api_tokens row of the user, so mcp-tokens lists and revokes
//     it. Access tokens are mcp_ JWTs minted by mcpauth (jti = the grant's
//     token id, one hour); refresh tokens are opaque, stored hashed and
//     rotated; a replayed code revokes the grant, and so does a replaced
//     refresh token once its replacement has been used (before that, a
//     client retrying a refresh whose answer was lost is served again).
//  7. Revocation (revoke.go), RFC 7009.
//
// The grant rows are written with the service role (store.go), which is
// why this package, like mcpauth, may hold that key.
//
// Every absolute URL is built from the configured issuer; Host and
// X-Forwarded-* never are (X-Forwarded-For is read only for rate limiting,
// by Echo's extractor, and only from configured trusted proxies). Rate
// limits are token buckets per client address, per client and address
// for token requests that find nothing, and per grant for refreshes
// (ratelimit.go).
package oauthserver
