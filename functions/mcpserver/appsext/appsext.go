// Package appsext is the MCP Apps extension (io.modelcontextprotocol/ui,
// SEP-1865) as this server negotiates it: who is offered the views of
// package views, and the views as resources/list entries, resources/read
// contents and tools/list _meta (docs/views.md).
//
// The extension is declared to every client at the negotiated revisions
// (from 2025-06-18) and the views are served there as resources to every
// request, so capabilities describe the server whoever asks; the drop-in
// path (2024-11-05, 2025-03-26, requests without MCP-Protocol-Version,
// PinProtocol2024) never sees them, and initialize, tools/list and
// resources/* answer there exactly as the original. tools/list's _meta.ui
// on the view tools goes to every request of 2025-06-18 and 2025-11-25 (a
// stateless server cannot know what initialize declared; a client without
// the extension ignores _meta) and, from 2026-07-28, where every request
// carries its capabilities, only to a request that declares the extension
// with the view MIME type.
package appsext

import (
	"slices"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Extension is the extension's identifier in capabilities.
const Extension = views.Extension

// Offered reports whether a request made under version is served the
// views as resources and told of the extension: at every negotiated
// revision.
func Offered(version string) bool { return revision.Negotiated(version) }

// ToolMetaOffered reports whether tools/list marks the view tools with
// _meta.ui for a request made under version from a client that declares
// the extension or not.
func ToolMetaOffered(version string, declared bool) bool {
	return revision.Negotiated(version) && (declared || !revision.RequestCapabilities(version))
}

// Declared reports whether client capabilities declare the extension with
// the view MIME type: extensions["io.modelcontextprotocol/ui"].mimeTypes
// (required by the extension) contains "text/html;profile=mcp-app".
func Declared(caps *jsjson.Object) bool {
	ui := revision.DeclaredExtension(caps, Extension)
	if ui == nil {
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
