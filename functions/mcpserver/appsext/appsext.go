// Package appsext is the MCP Apps extension (io.modelcontextprotocol/ui,
// SEP-1865) as this server negotiates it: who is offered the views of
// package views, and the views as resources/list entries, resources/read
// contents and tools/list _meta (docs/views.md).
//
// A stateless server knows a client's capabilities only when they travel
// with the request being answered:
//
//   - the drop-in path (2024-11-05, 2025-03-26, requests without
//     MCP-Protocol-Version, PinProtocol2024): never offered; initialize,
//     tools/list and resources/* answer exactly as the original.
//   - 2025-06-18 and 2025-11-25: capabilities travel only in initialize and
//     the server keeps no session, so the views are offered to every
//     request: tools/list carries _meta.ui on the view tools (a client
//     without the extension ignores _meta) and the resource methods are
//     served.
//   - from 2026-07-28, where every request carries its capabilities: the
//     views go only to a request that declares the extension with the view
//     MIME type.
package appsext

import (
	"slices"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Extension is the extension's identifier in capabilities.
const Extension = views.Extension

// Offered reports whether a request made under version, from a client
// that declares the extension or not, gets the views.
func Offered(version string, declared bool) bool {
	switch {
	case !revision.Negotiated(version):
		return false
	case !revision.RequestCapabilities(version):
		return true
	}
	return declared
}

// Declared reports whether client capabilities declare the extension with
// the view MIME type: extensions["io.modelcontextprotocol/ui"].mimeTypes
// (required by the extension) contains "text/html;profile=mcp-app".
func Declared(caps *jsjson.Object) bool {
	if caps == nil {
		return false
	}
	ext, ok := caps.Object("extensions")
	if !ok || ext == nil {
		return false
	}
	ui, ok := ext.Object(Extension)
	if !ok || ui == nil {
		return false
	}
	types, _ := ui.Array("mimeTypes")
	return slices.Contains(types, any(views.MIMEType))
}

// Resource is a view as a resources/list entry.
type Resource struct{ View views.View }

// Object is the entry: uri, name, title, description, mimeType, _meta.
func (r Resource) Object() *jsjson.Object {
	return jsjson.NewObject(6).
		Set("uri", r.View.URI).
		Set("name", r.View.Name).
		Set("title", r.View.Title).
		Set("description", r.View.Description).
		Set("mimeType", views.MIMEType).
		Set("_meta", viewMeta())
}

// Contents is a view as a resources/read content.
type Contents struct{ View views.View }

// Object is the content: uri, mimeType, text, _meta.
func (c Contents) Object() *jsjson.Object {
	return jsjson.NewObject(4).
		Set("uri", c.View.URI).
		Set("mimeType", views.MIMEType).
		Set("text", c.View.HTML).
		Set("_meta", viewMeta())
}

// viewMeta is every view's _meta: {"ui":{"csp":{…},"prefersBorder":true}}.
// The CSP lists no origin at all (the views load and contact nothing
// outside the document; tool calls go through the host), and the views
// ask for the host's border since they are cards of tabular data.
func viewMeta() *jsjson.Object {
	csp := jsjson.NewObject(4).
		Set("connectDomains", []any{}).
		Set("resourceDomains", []any{}).
		Set("frameDomains", []any{}).
		Set("baseUriDomains", []any{})
	ui := jsjson.NewObject(2).Set("csp", csp).Set("prefersBorder", true)
	return jsjson.NewObject(1).Set("ui", ui)
}

// ToolMeta is the _meta a view tool carries in tools/list,
// {"ui":{"resourceUri":…}}, or nil for a tool no view renders.
func ToolMeta(tool string) *jsjson.Object {
	uri, ok := views.ForTool(tool)
	if !ok {
		return nil
	}
	return jsjson.NewObject(1).Set("ui", jsjson.NewObject(1).Set("resourceUri", uri))
}
