package mcpserver

import (
	"slices"
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// supportedVersions are the handshake-based ("legacy") MCP revisions this
// server speaks, newest first: the revisions initialize can negotiate. The
// transport is the same for all of them: no sessions, JSON answers to
// single requests, no server-initiated messages.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// versionModern is the stateless revision served natively: no initialize,
// every request carries its revision in _meta and in MCP-Protocol-Version
// (see revision2026.go).
const versionModern = "2026-07-28"

// servedVersions are every revision this server speaks, newest first: what
// server/discover lists and an UnsupportedProtocolVersionError offers.
var servedVersions = append([]string{versionModern}, supportedVersions...)

// firstVersionWithoutBatches is the revision that removed JSON-RPC batching.
const firstVersionWithoutBatches = "2025-06-18"

// headerProtocolVersion is the header clients send after initialization
// (revisions 2025-06-18 and later).
const headerProtocolVersion = "MCP-Protocol-Version"

func versionSupported(v string) bool { return slices.Contains(supportedVersions, v) }

// negotiate picks the initialize answer's protocolVersion: the client's
// requested revision when supported, else the newest (MCP lifecycle,
// "Version Negotiation"). With PinProtocol2024 it is always 2024-11-05, the
// original's fixed answer.
func (s *Server) negotiate(params any) string {
	if s.pinProtocol {
		return protocolVersion
	}
	if p, ok := params.(*jsjson.Object); ok && p != nil {
		if v, ok := p.String("protocolVersion"); ok && versionSupported(v) {
			return v
		}
	}
	return supportedVersions[0]
}

// unsupportedVersionMessage is the message of the GET stream's 400 answer
// for a MCP-Protocol-Version header naming a revision without a GET stream
// (the stream exists up to 2025-11-25).
func unsupportedVersionMessage(v string) string {
	return "Bad Request: Unsupported protocol version: " + v +
		" (supported versions: " + strings.Join(supportedVersions, ", ") + ")"
}

// Revisions that change what the server answers.
const (
	// versionWithoutHeader is the revision a request without
	// MCP-Protocol-Version is served under (transports, "Protocol Version
	// Header": the server SHOULD assume 2025-03-26). It answers exactly as
	// the original does.
	versionWithoutHeader = "2025-03-26"
	// firstVersionWithStructuredOutput added outputSchema to tools/list and
	// structuredContent to tools/call results.
	firstVersionWithStructuredOutput = "2025-06-18"
	// firstVersionWithToolInputErrors reports argument validation failures
	// as tool execution errors (isError results, SEP-1303) and unknown tools
	// as -32602.
	firstVersionWithToolInputErrors = "2025-11-25"
)

// requestVersion returns the revision a request is served under. With
// PinProtocol2024 it is always the original's 2024-11-05 (the header is never
// read); otherwise it is the MCP-Protocol-Version header, or 2025-03-26 when
// the header is absent. ok is false when the header names an unsupported
// revision, which the transport answers with 400; version then holds the
// header's text for the message.
func (s *Server) requestVersion(header string) (version string, ok bool) {
	switch {
	case s.pinProtocol:
		return protocolVersion, true
	case header == "":
		return versionWithoutHeader, true
	}
	return header, versionSupported(header)
}

// batchesAllowed reports whether a request made under version may be a
// JSON-RPC batch.
func batchesAllowed(version string) bool { return version < firstVersionWithoutBatches }

// structuredOutput reports whether version has outputSchema and
// structuredContent.
func structuredOutput(version string) bool { return version >= firstVersionWithStructuredOutput }

// toolInputErrorsAsResults reports whether version answers argument
// validation failures with isError tool results.
func toolInputErrorsAsResults(version string) bool { return version >= firstVersionWithToolInputErrors }
