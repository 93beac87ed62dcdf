// Package userclient gives request handlers a PostgREST client that acts as the
// calling user. It mints short-lived ES256 user JWTs (cached per user) and
// pairs them with the anon key, so Postgres row-level security applies to
// every read exactly as it would for the user's own browser session.
//
// # Minting (docs/contract/protocol.md A10)
//
// A user JWT has the header {"alg":"ES256","typ":"JWT","kid":…} and the
// claims sub, role, aud, exp, iat, in those orders, with exp and iat
// rounded as JavaScript's Math.round rounds them. The bytes are written
// here and signed with golang-jwt's ES256 method, because a claims map
// would reorder them. Tokens live 60 s and are reused while more than 5 s
// remain; concurrent misses for one user sign once (singleflight), and the
// cache is bounded (oldest and unusable entries go first).
//
// # The signing key (A11)
//
// JWT_SECRET is an ES256 private JWK. gateway/config parses it once at
// start-up (gateway/signingkey) and main hands the parsed key to New as
// Options.SigningKey; a key the original could not sign with (A11's
// checks, with other members ignored) or whose d does not belong to
// (x, y) stops start-up instead of answering 500 to every request
// (docs/compatibility.md). New also takes the raw text (SigningJWK) and
// parses it with the same package; a bad one is a constructor error that
// says what is wrong without quoting the key. A Factory built without a
// key, for a gateway whose mcp-server is disabled, answers A11's
// "JWT_SECRET must be set" 500.
package userclient
