// Package mcptokens serves the mcp-tokens function: a signed-in instructor
// or grader issues, lists and revokes long-lived `mcp_` API tokens for MCP
// clients and the Pawtograder CLI.
//
// The web user is authenticated by Supabase Auth (GET /auth/v1/user), and
// every database read and write runs under that user's own session token,
// so row-level security confines each user to their own tokens. It holds
// no privileged key: a revocation reaches revoked_token_ids through the
// api_tokens trigger, in the same transaction as the user's update.
//
// Request flow per method (docs/contract/protocol.md Part B):
//
//	OPTIONS  200 "ok"
//	GET      auth → staff check → list
//	POST     parse body → auth → staff check → validate → mint → insert
//	DELETE   parse body → auth → validate → find → revoke
//	other    405
package mcptokens
