// Package approval is the human approval of the MCP write tools
// (docs/writes.md): the store of pending actions, the approval page and
// its sign-in, and the one write an approval performs.
//
// A write tool never writes. It hands a proposal to Service.Propose, which
// stores it (mcp_pending_actions, with the service role; the table is
// closed to every other role) and answers with a link to the approval
// page. The person opens it, signs in through the project's Supabase Auth
// (the PKCE flow the OAuth server uses), and must be the user whose
// credential proposed the action. The page shows the preview, with every
// text escaped and invisible or bidirectional control characters shown as
// visible markers, and an Approve and a Reject button (CSRF token bound to
// the action and the user; frame-ancestors 'none'; no-store; no script
// and no external asset). The decision is one SQL function: only a
// pending, unexpired action of that user moves, once. Only Approve
// performs the write, and it runs as the approving user through the
// per-user JWT on the anon key (Options.Perform), so row-level security
// decides. State lives in the database and in sealed cookies, so any
// replica serves any step. Every proposal, decision, expiry and completed
// write is an audit line and a counter.
package approval
