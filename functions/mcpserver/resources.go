package mcpserver

import (
	"fmt"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// codeResourceNotFound is the resources specification's error for an
// unknown URI (2025-06-18 and later).
const codeResourceNotFound = -32002

// resourceTemplatesResult is the empty resources/templates/list result.
var resourceTemplatesResult = []byte(`{"resourceTemplates":[]}`)

// appsAnswers are the pre-encoded answers of the MCP Apps extension; none
// depends on the request or the caller (the views carry no data).
type appsAnswers struct {
	initialize    map[string][]byte // per revision, with resources and the extension declared
	toolsList     []byte            // tools/list with outputSchema and _meta.ui
	resourcesList []byte
	read          map[string][]byte // resources/read result per URI
}

// newAppsAnswers encodes the extension's answers. structuredList is the
// tools/list result served from 2025-06-18 (with outputSchema), to which
// _meta.ui is added so that everything else stays byte-identical.
func newAppsAnswers(structuredList []byte) (*appsAnswers, error) {
	a := &appsAnswers{initialize: map[string][]byte{}, read: map[string][]byte{}}
	for _, v := range supportedVersions {
		if v >= firstVersionWithApps {
			a.initialize[v] = appsInitializeResult(v)
		}
	}
	var err error
	if a.toolsList, err = toolsListWithUIMeta(structuredList); err != nil {
		return nil, err
	}
	var list []any
	for _, v := range views.All() {
		list = append(list, jsjson.NewObject(6).
			Set("uri", v.URI).
			Set("name", v.Name).
			Set("title", v.Title).
			Set("description", v.Description).
			Set("mimeType", views.MIMEType).
			Set("_meta", viewMeta()))
		content := jsjson.NewObject(4).
			Set("uri", v.URI).
			Set("mimeType", views.MIMEType).
			Set("text", v.HTML).
			Set("_meta", viewMeta())
		if a.read[v.URI], err = jsjson.Marshal(jsjson.NewObject(1).Set("contents", []any{content})); err != nil {
			return nil, err
		}
	}
	if a.resourcesList, err = jsjson.Marshal(jsjson.NewObject(1).Set("resources", list)); err != nil {
		return nil, err
	}
	return a, nil
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

// appsInitializeResult is initializeResult with the resources capability
// and the extension declared.
func appsInitializeResult(version string) []byte {
	dst := append([]byte(nil), `{"protocolVersion":`...)
	dst = jsjson.AppendString(dst, version)
	dst = append(dst, `,"serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{},"resources":{},"extensions":{`...)
	dst = jsjson.AppendString(dst, views.Extension)
	return append(dst, `:{}}}}`...)
}

// toolsListWithUIMeta adds "_meta":{"ui":{"resourceUri":…}} after the last
// key of each tool a view renders.
func toolsListWithUIMeta(list []byte) ([]byte, error) {
	v, err := jsjson.Decode(list)
	if err != nil {
		return nil, err
	}
	root, _ := v.(*jsjson.Object)
	var toolsArr []any
	if root != nil {
		toolsArr, _ = root.Array("tools")
	}
	if toolsArr == nil {
		return nil, fmt.Errorf("mcpserver: tools/list result has no tools array")
	}
	for _, t := range toolsArr {
		entry, ok := t.(*jsjson.Object)
		if !ok {
			continue
		}
		name, _ := entry.String("name")
		if uri, ok := views.ForTool(name); ok {
			entry.Set("_meta", jsjson.NewObject(1).Set("ui", jsjson.NewObject(1).Set("resourceUri", uri)))
		}
	}
	return jsjson.Marshal(root)
}

// dispatchApps answers the requests the extension changes, when the
// negotiation rules of appsOffered allow; ok is false for every other
// request, which dispatch then answers as usual.
func (s *Server) dispatchApps(cl *caller, id any, method string, params any) (resp *response, ok bool) {
	if s.apps == nil {
		return nil, false
	}
	switch method {
	case methodInitialize:
		v := s.negotiate(params)
		if appsDeclaredAtInitialize(v, params) {
			return resultResponse(id, s.apps.initialize[v]), true
		}
		return nil, false
	case methodToolsList, methodResourcesList, methodResourcesRead, methodResourceTemplatesList:
	default:
		return nil, false
	}
	if !appsOffered(cl.version, requestCapabilities(params)) {
		return nil, false
	}
	switch method {
	case methodToolsList:
		return resultResponse(id, s.apps.toolsList), true
	case methodResourcesList:
		return resultResponse(id, s.apps.resourcesList), true
	case methodResourceTemplatesList:
		// Declaring resources invites clients (the Inspector, hosts) to ask
		// for templates too; there are none.
		return resultResponse(id, resourceTemplatesResult), true
	}
	return s.readResource(id, params), true
}

// readResource answers resources/read: the view at params.uri, -32602 when
// uri is not a string, -32002 when no view has that URI.
func (s *Server) readResource(id, params any) *response {
	var uri string
	ok := false
	if p, isObj := params.(*jsjson.Object); isObj && p != nil {
		uri, ok = p.String("uri")
	}
	if !ok {
		return errorResponse(id, codeInvalidParams, "Invalid params: uri must be a string")
	}
	if body, found := s.apps.read[uri]; found {
		return resultResponse(id, body)
	}
	return errorResponse(id, codeResourceNotFound, "Resource not found")
}
