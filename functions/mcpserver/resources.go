package mcpserver

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// codeResourceNotFound is the resources specification's error for an
// unknown URI from 2025-06-18 to 2025-11-25; 2026-07-28 answers -32602
// with the URI in data instead (server/resources, "Error Handling").
const codeResourceNotFound = -32002

// resourceTemplatesResult is the empty resources/templates/list result.
var resourceTemplatesResult = []byte(`{"resourceTemplates":[]}`)

// appsAnswers are the pre-encoded answers of the MCP Apps extension; none
// depends on the request or the caller (the views carry no data). The
// *Modern answers are the 2026-07-28 forms: resultType, the server's
// identity, and the caching hints (resourcesCacheScope).
type appsAnswers struct {
	initialize          map[string][]byte // per revision, with resources and the extension declared
	toolsList           []byte            // tools/list with outputSchema and _meta.ui
	toolsListModern     []byte            // the 2026-07-28 tools/list with _meta.ui
	discover            []byte            // server/discover declaring resources and the extension
	viewEntries         []any             // the views' resources/list entries (skillserve.go lists them with the skills)
	read                map[string][]byte // resources/read result per URI
	resourcesListModern []byte
	readModern          map[string][]byte
	templatesModern     []byte
}

// resourcesCacheScope is the cacheScope of resources/list,
// resources/templates/list and resources/read at 2026-07-28: "public".
// The caching page reserves "private" for results that depend on the
// authenticated user; the views are documents compiled into the binary,
// identical for every caller, holding no course data (a view gets its data
// from tool calls the host makes with the user's own token, which stay
// per user). They change only with a deploy, like the catalogue, so they
// share its TTL (catalogueTTLMs).
const resourcesCacheScope = cacheScopePublic

// newAppsAnswers encodes the extension's answers. structuredList is the
// tools/list result served from 2025-06-18 (with outputSchema) and
// modernList the one served at 2026-07-28, to which _meta.ui is added so
// that everything else stays byte-identical.
func newAppsAnswers(structuredList, modernList []byte) (*appsAnswers, error) {
	a := &appsAnswers{initialize: map[string][]byte{}, read: map[string][]byte{}, readModern: map[string][]byte{}}
	for _, v := range supportedVersions {
		if v >= firstVersionWithApps {
			a.initialize[v] = appsInitializeResult(v)
		}
	}
	var err error
	if a.toolsList, err = toolsListWithUIMeta(structuredList); err != nil {
		return nil, err
	}
	if a.toolsListModern, err = toolsListWithUIMeta(modernList); err != nil {
		return nil, err
	}
	if a.discover, err = discoverResult(true, instructions); err != nil {
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
		if a.readModern[v.URI], err = cacheableModern(jsjson.NewObject(3).Set("contents", []any{content})); err != nil {
			return nil, err
		}
	}
	a.viewEntries = list
	if a.resourcesListModern, err = cacheableModern(jsjson.NewObject(3).Set("resources", list)); err != nil {
		return nil, err
	}
	if a.templatesModern, err = cacheableModern(jsjson.NewObject(3).Set("resourceTemplates", []any{})); err != nil {
		return nil, err
	}
	return a, nil
}

// cacheableModern encodes a resources result at 2026-07-28: its members,
// then ttlMs and cacheScope, in modernResult's shape.
func cacheableModern(result *jsjson.Object) ([]byte, error) {
	body, err := jsjson.Marshal(result.Set("ttlMs", catalogueTTLMs).Set("cacheScope", resourcesCacheScope))
	if err != nil {
		return nil, err
	}
	return modernResult(body), nil
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

// appsRequest reports whether a request gets the views (appsOffered with
// the capabilities serveModern put on the caller).
func appsRequest(cl *caller) bool { return appsOffered(cl.version, cl.clientCapabilities) }

// methodNotFound is dispatch's answer to a method it does not serve.
func methodNotFound(msg *jsjson.Object) *response {
	m, present := msg.Get("method")
	return errorResponse(messageID(msg), codeMethodNotFound, "Method not found: "+jsString(m, present))
}

// resourcesList answers resources/list where the views or the skills are
// offered (skillserve.go): at 2025-06-18 and 2025-11-25 both, the views
// first; at 2026-07-28 what the request declares.
func (s *Server) resourcesList(_ context.Context, cl *caller, msg *jsjson.Object, _ *slog.Logger) *response {
	apps, sk := appsRequest(cl), skillsRequest(cl)
	switch {
	case !apps && !sk:
		return methodNotFound(msg)
	case cl.version != versionModern:
		return resultResponse(messageID(msg), s.skills.resourcesList[s.skillAudience(cl)])
	case apps && sk:
		return resultResponse(messageID(msg), s.skills.resourcesAppsModern[s.skillAudience(cl)])
	case sk:
		return resultResponse(messageID(msg), s.skills.resourcesModern[s.skillAudience(cl)])
	}
	return resultResponse(messageID(msg), s.apps.resourcesListModern)
}

// resourceTemplatesList answers resources/templates/list where the views
// or the skills are offered: declaring resources invites clients (the
// Inspector, hosts) to ask for templates too; there are none.
func (s *Server) resourceTemplatesList(_ context.Context, cl *caller, msg *jsjson.Object, _ *slog.Logger) *response {
	switch {
	case !appsRequest(cl) && !skillsRequest(cl):
		return methodNotFound(msg)
	case cl.version == versionModern:
		return resultResponse(messageID(msg), s.apps.templatesModern)
	}
	return resultResponse(messageID(msg), resourceTemplatesResult)
}

// resourcesRead answers resources/read where the views or the skills are
// offered: the view or the SKILL.md at params.uri (each only where it is
// offered, a write skill only to writers), -32602 when uri is not a
// string, and for an unknown URI -32002 (2025-06-18, 2025-11-25) or
// -32602 with the URI in data (2026-07-28).
func (s *Server) resourcesRead(_ context.Context, cl *caller, msg *jsjson.Object, _ *slog.Logger) *response {
	apps, sk := appsRequest(cl), skillsRequest(cl)
	if !apps && !sk {
		return methodNotFound(msg)
	}
	id := messageID(msg)
	var uri string
	ok := false
	if p, isObj := msg.Value("params").(*jsjson.Object); isObj && p != nil {
		uri, ok = p.String("uri")
	}
	if !ok {
		return errorResponse(id, codeInvalidParams, "Invalid params: uri must be a string")
	}
	if cl.version != versionModern {
		if body, found := s.resourceBody(cl, uri, apps, sk, s.apps.read, s.skills.read); found {
			return resultResponse(id, body)
		}
		return errorResponse(id, codeResourceNotFound, "Resource not found")
	}
	if body, found := s.resourceBody(cl, uri, apps, sk, s.apps.readModern, s.skills.readModern); found {
		return resultResponse(id, body)
	}
	return notFoundWithURI(id, "Resource not found", uri)
}

// resourceBody is the pre-encoded resources/read result for uri: a view when
// apps, a skill the caller is served when sk.
func (s *Server) resourceBody(cl *caller, uri string, apps, sk bool, views, skillReads map[string][]byte) ([]byte, bool) {
	if apps {
		if body, found := views[uri]; found {
			return body, true
		}
	}
	if sk {
		if skill, found := s.servedSkill(cl, uri); found {
			return skillReads[skill.URI], true
		}
	}
	return nil, false
}
