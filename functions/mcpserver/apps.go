package mcpserver

import (
	"slices"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865): the views
// of package views, offered only where the negotiation rules below allow,
// so that a client without the extension sees no change (docs/views.md).
//
// A stateless server knows a client's capabilities only when they travel
// with the request being answered:
//
//   - 2024-11-05 and 2025-03-26 (and requests without MCP-Protocol-Version,
//     and every request with PinProtocol2024): the drop-in path. Never
//     offered: initialize, tools/list and resources/* answer exactly as the
//     original (resources/* is an unknown method).
//   - 2025-06-18 and 2025-11-25: capabilities travel only in initialize, and
//     the server keeps no session, so later requests cannot be told apart.
//     Offered to every request at these revisions: tools/list carries
//     _meta.ui on the view tools (a client without the extension ignores
//     _meta, which the schema reserves for such metadata) and resources/list
//     and resources/read are served. initialize declares the resources
//     capability and the extension only to a client that declares the
//     extension in that same request.
//   - later revisions (2026-07-28, where per-request capabilities replace
//     initialize): offered only to a request whose capabilities declare the
//     extension with the view MIME type.

// Methods of the extension's resources.
const (
	methodResourcesList = "resources/list"
	methodResourcesRead = "resources/read"
	// methodResourceTemplatesList is answered with an empty list.
	methodResourceTemplatesList = "resources/templates/list"
)

// Revisions that change how the extension is negotiated.
const (
	// firstVersionWithApps is the first revision whose requests may carry the
	// views; older ones are the drop-in path.
	firstVersionWithApps = "2025-06-18"
	// firstVersionWithRequestCapabilities is the first revision in which
	// every request carries the client's capabilities (params._meta), so the
	// views go only to clients that declare the extension.
	firstVersionWithRequestCapabilities = "2026-07-28"
)

// appsOffered reports whether a request made under version, from a client
// with the given capabilities (nil when the request carries none), gets the
// views: _meta.ui in tools/list and the resources methods. Handlers pass
// caller.clientCapabilities, which serveModern fills from the request's
// _meta at 2026-07-28 (revision2026.go).
func appsOffered(version string, caps *jsjson.Object) bool {
	switch {
	case version < firstVersionWithApps:
		return false
	case version < firstVersionWithRequestCapabilities:
		return true
	}
	return declaresApps(caps)
}

// appsDeclaredAtInitialize reports whether an initialize request that
// negotiated version, with params, gets the resources capability and the
// extension in its answer: only from 2025-06-18 and only when the client
// declares the extension (params.capabilities).
func appsDeclaredAtInitialize(version string, params any) bool {
	if version < firstVersionWithApps {
		return false
	}
	p, ok := params.(*jsjson.Object)
	if !ok || p == nil {
		return false
	}
	caps, _ := p.Object("capabilities")
	return declaresApps(caps)
}

// requestCapabilities returns the client capabilities a request carries in
// params._meta["io.modelcontextprotocol/clientCapabilities"], or nil. At
// 2026-07-28 serveModern has already put them on the caller; this reads
// them from a server/discover sent under a handshake revision.
func requestCapabilities(params any) *jsjson.Object {
	p, ok := params.(*jsjson.Object)
	if !ok || p == nil {
		return nil
	}
	meta, ok := p.Object("_meta")
	if !ok || meta == nil {
		return nil
	}
	caps, _ := meta.Object(metaClientCapabilities)
	return caps
}

// declaresApps reports whether client capabilities declare the extension
// with the view MIME type: extensions["io.modelcontextprotocol/ui"].mimeTypes
// (required by the extension) contains "text/html;profile=mcp-app".
func declaresApps(caps *jsjson.Object) bool {
	if caps == nil {
		return false
	}
	ext, ok := caps.Object("extensions")
	if !ok || ext == nil {
		return false
	}
	ui, ok := ext.Object(views.Extension)
	if !ok || ui == nil {
		return false
	}
	types, _ := ui.Array("mimeTypes")
	return slices.Contains(types, any(views.MIMEType))
}
