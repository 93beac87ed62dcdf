// Package activitypages serves the two pages of the activity record
// (docs/activity.md) inside mcp-server's path:
//
//   - GET /connections: the signed-in person's connections (each mcp_
//     token or OAuth grant: client, scopes, created, last used, the calls
//     per tool of the last seven days), their proposals waiting for
//     approval, and a Revoke button per connection, which revokes it the
//     way mcp-tokens does: the api_tokens row's revoked_at, set as the
//     person, whose trigger adds the revocation in the same transaction;
//   - GET /activity?class_id=N: for the class's instructors only, per staff
//     member and day the tools their assistants called and how many
//     students' records the answers held, the students whose records were
//     read (each listable: &student=<profile id>), and a CSV export
//     (&format=csv).
//
// Sign-in is the project's Supabase Auth through its PKCE flow
// (gateway/supabasesignin, as the approval pages sign in), kept in a sealed
// cookie (keys derived from GATEWAY_OAUTH_SECRET under labels of their
// own). Every read runs as the signed-in person through a per-user client,
// so row-level security decides what each page shows; this package never
// holds the service role. Pages are server-rendered in the house layout
// (gateway/htmlpage): no script, nothing loaded from elsewhere, not
// framed, not cached. Names others chose (staff, students, client
// applications) are shown as data, escaped and marked.
package activitypages
