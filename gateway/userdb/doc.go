// Package userdb gives request handlers a PostgREST client that acts as the
// calling user. It mints short-lived ES256 user JWTs (cached per user) and
// pairs them with the anon key, so Postgres row-level security applies to
// every read exactly as it would for the user's own browser session.
package userdb
