// Package answers is what the server answers for everything that depends
// only on the catalogue, the request's revision and extensions, and the
// caller's audience: initialize, tools/list, resources/list and /read,
// resources/templates/list, server/discover, skills/list and skills/get.
// One table holds them (Table), one function builds a row of it from typed
// values (build), and one encoder (Encode) prints every result, tool call
// results included. Adding a revision or an extension is a row of package
// revision and its types, never a copy of this table.
package answers

import (
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// serverName and serverVersion identify the server, as the original's
// initialize result does.
const (
	serverName    = "pawtograder"
	serverVersion = "0.1.0"
)

// Result is one method's result as a Go value: Members sets its members on
// o in the order clients expect (the original's key order where it has the
// method).
type Result interface {
	Members(o *jsjson.Object)
}

// typedResult is a Result whose resultType at a stateless revision is not
// "complete" (an input_required result).
type typedResult interface {
	ResultType() string
}

// Cache are the caching hints of a stateless revision
// (server/utilities/caching): how long a client may treat a result as fresh,
// and whether a shared cache may serve it to other callers.
type Cache struct {
	TTLMs int
	Scope string
}

// Encode is the one encoder of results: r's members, at a stateless
// revision with "resultType" first, then the caching hints when cache is
// set, then the server's identity in _meta (there is no handshake to carry
// it). Earlier revisions get the members alone.
func Encode(rev string, r Result, cache *Cache) ([]byte, error) {
	stateless := revision.Stateless(rev)
	o := jsjson.NewObject(8)
	if stateless {
		rt := "complete"
		if t, ok := r.(typedResult); ok {
			rt = t.ResultType()
		}
		o.Set("resultType", rt)
	}
	r.Members(o)
	if stateless && cache != nil {
		o.Set("ttlMs", cache.TTLMs).Set("cacheScope", cache.Scope)
	}
	if stateless {
		o.Set("_meta", ServerInfoMeta())
	}
	return jsjson.Marshal(o)
}

// ServerInfoMeta is the _meta of every result at a stateless revision.
func ServerInfoMeta() *jsjson.Object {
	return jsjson.NewObject(1).Set(revision.MetaServerInfo, serverInfo())
}

func serverInfo() *jsjson.Object {
	return jsjson.NewObject(2).Set("name", serverName).Set("version", serverVersion)
}

// marshal is MarshalJSON for every result type: its handshake form.
func marshal(r Result) ([]byte, error) { return Encode("", r, nil) }

// Initialize is initialize's result.
type Initialize struct {
	Version      string
	Resources    bool     // declare the resources capability
	Extensions   []string // declared under capabilities.extensions
	Instructions string   // "" for none
}

func (r Initialize) MarshalJSON() ([]byte, error) { return marshal(r) }

// Members are protocolVersion, serverInfo, capabilities, instructions.
func (r Initialize) Members(o *jsjson.Object) {
	o.Set("protocolVersion", r.Version).
		Set("serverInfo", serverInfo()).
		Set("capabilities", capabilities(r.Resources, r.Extensions))
	if r.Instructions != "" {
		o.Set("instructions", r.Instructions)
	}
}

// capabilities are tools (the catalogue never changes while the process
// runs: no listChanged), then resources and the extensions when declared.
func capabilities(resources bool, extensions []string) *jsjson.Object {
	caps := jsjson.NewObject(3).Set("tools", jsjson.NewObject(0))
	if resources {
		caps.Set("resources", jsjson.NewObject(0))
	}
	if len(extensions) > 0 {
		ext := jsjson.NewObject(len(extensions))
		for _, e := range extensions {
			ext.Set(e, jsjson.NewObject(0))
		}
		caps.Set("extensions", ext)
	}
	return caps
}

// Discover is server/discover's result.
type Discover struct {
	Versions     []string
	Resources    bool
	Extensions   []string
	Instructions string
}

func (r Discover) MarshalJSON() ([]byte, error) { return marshal(r) }

// Members are supportedVersions, capabilities, instructions.
func (r Discover) Members(o *jsjson.Object) {
	versions := make([]any, len(r.Versions))
	for i, v := range r.Versions {
		versions[i] = v
	}
	o.Set("supportedVersions", versions).
		Set("capabilities", capabilities(r.Resources, r.Extensions)).
		Set("instructions", r.Instructions)
}

// List is a result holding one list under Key: tools, resources,
// resourceTemplates, contents or skills.
type List struct {
	Key   string
	Items []any
}

func (r List) MarshalJSON() ([]byte, error) { return marshal(r) }

// Members is the list; a nil list is printed as [].
func (r List) Members(o *jsjson.Object) {
	items := r.Items
	if items == nil {
		items = []any{}
	}
	o.Set(r.Key, items)
}

// SkillGet is skills/get's result: the skill's entry.
type SkillGet struct{ Skill *jsjson.Object }

func (r SkillGet) MarshalJSON() ([]byte, error) { return marshal(r) }

// Members is skill.
func (r SkillGet) Members(o *jsjson.Object) { o.Set("skill", r.Skill) }

// ToolCall is a tools/call result: the value as indented text, and from
// 2025-06-18 as structuredContent; or a tool execution error.
type ToolCall struct {
	Text          string
	Structured    any
	HasStructured bool
	IsError       bool
}

func (r ToolCall) MarshalJSON() ([]byte, error) { return marshal(r) }

// Members are content, then structuredContent or isError.
func (r ToolCall) Members(o *jsjson.Object) {
	o.Set("content", []any{jsjson.NewObject(2).Set("type", "text").Set("text", r.Text)})
	if r.HasStructured {
		o.Set("structuredContent", r.Structured)
	}
	if r.IsError {
		o.Set("isError", true)
	}
}
