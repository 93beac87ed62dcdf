// Package revision is MCP revision negotiation: the revisions served, what
// each changes (one predicate per change, so a new revision is a row in
// Served and the predicates it moves), and how a request states its
// revision (the MCP-Protocol-Version header and, from 2026-07-28, _meta and
// the Mcp-Method and Mcp-Name headers).
package revision

import (
	"slices"
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Original is the revision the original always answers, whatever the client
// asks for (Options.PinProtocol2024 and the drop-in path).
const Original = "2024-11-05"

// Modern is the stateless revision served natively: no initialize, every
// request carries its revision in _meta and in MCP-Protocol-Version.
const Modern = "2026-07-28"

// handshake are the handshake-based revisions, newest first: what
// initialize can negotiate. The transport is the same for all of them: no
// sessions, JSON answers to single requests, no server-initiated messages.
var handshake = []string{"2025-11-25", "2025-06-18", "2025-03-26", Original}

// Handshake returns the handshake revisions, newest first.
func Handshake() []string { return handshake }

// Served are every revision this server speaks, newest first: what
// server/discover lists and an UnsupportedProtocolVersionError offers.
func Served() []string { return served }

var served = append([]string{Modern}, handshake...)

// Revisions that change what the server answers.
const (
	// WithoutHeader is the revision a request without MCP-Protocol-Version
	// is served under (transports, "Protocol Version Header": the server
	// SHOULD assume 2025-03-26). It answers exactly as the original does.
	WithoutHeader = "2025-03-26"
	// firstWithoutBatches removed JSON-RPC batching.
	firstWithoutBatches = "2025-06-18"
	// firstWithStructuredOutput added outputSchema to tools/list and
	// structuredContent to tools/call results; it is also the first
	// revision that is not the drop-in path (views, skills as resources).
	firstWithStructuredOutput = "2025-06-18"
	// firstWithToolInputErrors reports argument validation failures as
	// tool execution errors (isError results, SEP-1303) and unknown tools
	// as -32602.
	firstWithToolInputErrors = "2025-11-25"
)

// HandshakeSupported reports whether v is a handshake revision served.
func HandshakeSupported(v string) bool { return slices.Contains(handshake, v) }

// Batches reports whether a request made under v may be a JSON-RPC batch.
func Batches(v string) bool { return v < firstWithoutBatches }

// Structured reports whether v has outputSchema and structuredContent.
func Structured(v string) bool { return v >= firstWithStructuredOutput }

// Negotiated reports whether v is past the drop-in path: the views, the
// skills and every field the original lacks are offered from here.
func Negotiated(v string) bool { return v >= firstWithStructuredOutput }

// ToolInputErrorsAsResults reports whether v answers argument validation
// failures with isError tool results.
func ToolInputErrorsAsResults(v string) bool { return v >= firstWithToolInputErrors }

// RequestCapabilities reports whether every request of v carries the
// client's capabilities (params._meta), so extensions go only to clients
// that declare them.
func RequestCapabilities(v string) bool { return v >= Modern }

// Stateless reports whether v is a served revision without initialize:
// every request states it, and results carry resultType and the server's
// identity.
func Stateless(v string) bool { return v >= Modern && slices.Contains(served, v) }

// ServeForTest adds the stateless revision v, newer than every other, until
// restore is called: tests show with it that a new revision is a row. Only
// tests call it, before building a server.
func ServeForTest(v string) (restore func()) {
	old := served
	served = append([]string{v}, served...)
	return func() { served = old }
}

// Negotiate picks the initialize answer's protocolVersion: the client's
// requested revision when supported, else the newest (MCP lifecycle,
// "Version Negotiation").
func Negotiate(params any) string {
	if p, ok := params.(*jsjson.Object); ok && p != nil {
		if v, ok := p.String("protocolVersion"); ok && HandshakeSupported(v) {
			return v
		}
	}
	return handshake[0]
}

// UnsupportedStreamMessage is the message of the GET stream's 400 answer
// for a MCP-Protocol-Version header naming a revision without a GET stream
// (the stream exists up to 2025-11-25).
func UnsupportedStreamMessage(v string) string {
	return "Bad Request: Unsupported protocol version: " + v +
		" (supported versions: " + strings.Join(handshake, ", ") + ")"
}
