// Package userdb gives request handlers a PostgREST client that acts as the
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
// JWT_SECRET is an ES256 private JWK. It is validated on first use, in the
// original's order and with its messages, and parsed once (the original
// re-parsed it on every mint). A value that is not valid JSON is reported
// with V8's JSON.parse message, reproduced by a small checker: the
// position-bearing wordings of current V8 ("Expected property name or '}'
// in JSON at position 1"), except that a stray token is reported in V8's
// older form ("Unexpected token 'x' in JSON at position 5") because the
// current form quotes the source, which here is the private key. WebCrypto
// import failures use Deno's texts ("invalid b64 coordinate", "crypto
// error"); a d that does not match (x, y) is refused, which the original
// did not check.
package userdb
