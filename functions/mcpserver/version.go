package mcpserver

import (
	"slices"
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// supportedVersions are the MCP revisions this server speaks, newest first.
// The transport is the same for all of them: no sessions, JSON answers to
// single requests, no server-initiated messages.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

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

// unsupportedVersionMessage is the 400 answer's message for a
// MCP-Protocol-Version header naming a revision this server does not speak.
func unsupportedVersionMessage(v string) string {
	return "Bad Request: Unsupported protocol version: " + v +
		" (supported versions: " + strings.Join(supportedVersions, ", ") + ")"
}

// requestVersion reads the MCP-Protocol-Version header. ok is false when the
// header names an unsupported revision, which the transport answers with 400.
// The version is "" when the header is absent or the server is pinned (the
// original never reads it).
func (s *Server) requestVersion(header string) (version string, ok bool) {
	if s.pinProtocol || header == "" {
		return "", true
	}
	return header, versionSupported(header)
}

// batchesAllowed reports whether a request made under version may be a
// JSON-RPC batch. Requests without the header keep the original's batches.
func batchesAllowed(version string) bool {
	return version == "" || version < firstVersionWithoutBatches
}
