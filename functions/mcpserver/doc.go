// Package mcpserver serves the mcp-server edge function: the Model Context
// Protocol over streamable HTTP, byte-compatible with the Deno original
// (supabase/functions/mcp-server/index.ts) that existing clients talk to.
//
// No SDK server reproduces the original's answers (fixed protocol revision,
// status codes, envelope texts, id re-printing), so the transport and the
// JSON-RPC layer are written here; tools live in the tools sub-package.
//
// # Request flow
//
// Handle routes on the method, in the original's order, and sets the CORS
// headers on every answer:
//
//   - OPTIONS answers 200 "ok"; DELETE answers 202 (there are no sessions);
//     any other method but GET and POST answers 405. None authenticates.
//   - GET checks Accept for text/event-stream (406 otherwise) before
//     authenticating, then authenticates, reserves a stream slot (429 per
//     token, 503 overall or while shutting down), flushes the SSE headers,
//     sends the endpoint event when Options.EdgeFunctionsURL is set (a
//     warning is logged otherwise; request headers are never used to build
//     the URL) and then waits, sending nothing but optional keep-alive
//     comments, until the client leaves or Shutdown is called.
//   - POST authenticates first (Authenticator, then UserClients), records
//     the token's use without waiting, reads the body up to
//     Options.MaxBodyBytes (413 beyond), parses it with jsjson (400 -32700
//     on failure) and answers according to the body's shape, below.
//
// A POST body is answered by its shape:
//
//   - an object without an id (or with a null id): 202, nothing executed;
//   - an object with an id: dispatch, answered with JSON whatever Accept
//     says (202 for notifications/initialized);
//   - an array: a batch, bounded by Options.MaxBatch. Requests run one
//     after another in array order, primitives and null get Invalid
//     Request, everything else is skipped. The answers are framed as a JSON
//     array, or as SSE message events when Accept has text/event-stream but
//     neither application/json nor */*. A batch with nothing to answer gets
//     202;
//   - null: 400 -32600; any other primitive: 202.
//
// Failures before dispatch (authentication, body) use the transport
// envelope {"jsonrpc":"2.0","id":null,"error":{…}} on POST and {"error":…}
// on GET, with the status of the *apierror.Error. Failures inside a method
// are JSON-RPC errors in an HTTP 200 answer: -32601 for unknown methods,
// -32602 for arguments that fail the tool's schema, -32000 for everything
// else, as in the original.
//
// # Protocol revisions
//
// With Options.PinProtocol2024 the server is the original: initialize
// always answers 2024-11-05, MCP-Protocol-Version is ignored and every
// request is answered as 2024-11-05. Otherwise each request's revision is
// chosen on its own (docs/compatibility.md, "Protocol revisions"):
//
//   - a single request whose MCP-Protocol-Version header is 2026-07-28, or
//     whose params._meta names a revision, is served statelessly at
//     2026-07-28 (serveStateless): header and _meta must agree (-32020),
//     _meta must carry the revision (-32602) and the client's capabilities
//     (-32602), Mcp-Method and Mcp-Name must match the body (-32020), all
//     with 400; an unknown or removed method (initialize, ping) is -32601
//     with 404; results carry resultType and the server's identity in
//     _meta, tools/list the caching hints, structuredContent is the tool's
//     value itself; server/discover lists every revision served;
//     subscriptions/listen is acknowledged with no notification types and
//     ended at once (there is nothing to notify); GET is 405;
//   - otherwise initialize echoes the client's requested revision when it
//     is one of 2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05 (else the
//     newest), and each later request is served under the revision its
//     MCP-Protocol-Version header names (2025-03-26 when absent, as the
//     transport specification asks); any other header value is -32022
//     (UnsupportedProtocolVersionError, HTTP 400) with the revisions
//     served, once the body is read. The server keeps no sessions, so the
//     header is the only memory of the negotiation:
//   - 2024-11-05 and 2025-03-26 answer byte for byte as the original;
//   - 2025-06-18 refuses batches (400 -32600), lists each tool's
//     outputSchema after its inputSchema, and adds structuredContent
//     {"result": <value>} after the text block of a tools/call result (the
//     text is unchanged);
//   - 2025-11-25 also answers arguments that fail the tool's schema with a
//     tool execution error ({"content":[{"type":"text","text":<message>}],
//     "isError":true}, SEP-1303) and an unknown tool with -32602 instead of
//     -32000, as the specification's own example does.
//
// server/discover is also answered under the handshake revisions whenever
// the request names one; without any version information it stays the
// original's -32601. Methods are dispatched through one table (methods.go)
// with a handler per era.
//
// # Layout
//
// The package is the transport: HTTP, CORS, origins, authentication,
// streams, the method table and tools/call. Below it, each importing only
// downwards:
//
//   - answers: the one table of what each (revision, declared extensions,
//     audience) answers for initialize, tools/list, resources/*,
//     server/discover and skills/*, built by one function from typed
//     results and printed by one encoder (tools/call results too), each
//     row built once on first use;
//   - appsext, skillsext, writesext: the MCP Apps, Skills and write
//     extensions: who is offered what, and their entries;
//   - revision: the revisions served, a predicate per change they make,
//     and how a request states its revision;
//   - jsonrpc: responses, errors and envelopes as the original prints them.
//
// Adding a revision is a row of revision.Served and the predicates it
// moves; adding an extension is its package and its fields of the table's
// key and rows.
//
// # MCP Apps views
//
// From 2025-06-18 the server also offers the views of package views (the
// io.modelcontextprotocol/ui extension): _meta.ui.resourceUri on the view
// tools in tools/list, and resources/list and resources/read for the ui://
// documents, with the skills after them; initialize and server/discover
// declare resources and the extension to every client (capabilities
// describe the server), and at 2026-07-28 server/discover also declares
// the Skills extension, whose skills/list and skills/get answer every
// request. The drop-in path (no header, 2024-11-05, 2025-03-26,
// PinProtocol2024) is unchanged, and at 2026-07-28 only tools/list's
// _meta.ui follows the request's declaration
// (caller.clientCapabilities). Packages appsext and skillsext hold the
// rules and the entries, package answers the answers (docs/views.md,
// docs/skills.md).
//
// # Origins, metrics, audit and redaction
//
// The transport's DNS-rebinding protection is on by default: a request
// whose Origin is not allowed gets 403 with the transport envelope (-32000
// "Invalid Origin header: <origin>") before authentication, and an allowed
// origin is echoed in Access-Control-Allow-Origin with Vary: Origin. By
// default the allowed origins are Options.TrustedOrigins and loopback pages
// reaching the server over loopback; Options.AllowedOrigins replaces them
// with a list, or with "*" for the original's answer to every origin.
// Requests without Origin are always answered as the original answers them.
// Options.Metrics counts requests, tool calls and streams; Options.Audit
// receives one "tool call" line per tools/call (docs/audit.md), whose
// upstream_requests counts the PostgREST requests the gateway reports
// through CountUpstream; Options.Redact scrubs credential-named values from
// every tool result before it is encoded.
//
// All JSON is produced by jsjson so that key order, string escaping and
// number formatting (ids are echoed as JavaScript re-prints them) match
// JSON.stringify byte for byte. Results that do not depend on the request
// beyond its revision, declared extensions and audience are encoded once
// per key (package answers).
//
// # Deviations from the original
//
// Each is listed in docs/compatibility.md: parse errors are 400/-32700
// instead of 500/-32603 with the engine's text; a null body is 400/-32600;
// a primitive batch element is answered with Invalid Request instead of
// failing the batch with 500; bodies over the limit get 413 and long
// batches 400; GET streams are bounded; CORS also allows
// mcp-protocol-version (and mcp-method and mcp-name only on preflights
// asking for them and on 2026-07-28 answers, so drop-in answers keep their
// bytes) and exposes WWW-Authenticate; 401s carry
// WWW-Authenticate, naming the baseline scopes, when a resource metadata
// URL is configured; on requests that state a revision, a refused mcp_
// token's 401 says how to stop sending a pasted token and a tools/call
// lacking its scope is 403 insufficient_scope (auth.go); a tools/call
// beyond the connection's limit (Options.Calls) is refused with -32000 on
// the drop-in path and a tool error from 2025-06-18, with Retry-After
// (observe.go); unless
// PinProtocol2024 is set, the protocol revision is negotiated and newer
// revisions get structured results and tool execution errors, from
// 2025-06-18 the MCP Apps views (_meta.ui and the resources methods), and
// 2026-07-28 is served natively; an allow-list of origins refuses others
// with 403; results may be redacted; Handle answers any method, including
// those Echo does not route, which the gateway hands over through
// gateway.Function.Unrouted.
package mcpserver
