package answers

import (
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/appsext"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skills"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skillsext"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/writesext"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// The caching hints of a stateless revision.
const (
	// catalogueTTLMs is the freshness of everything in the table: it is
	// compiled into the binary and changes only with a deploy, so an hour
	// bounds how long a client keeps a catalogue from before one. A client
	// still re-fetches early when a call fails as unknown.
	catalogueTTLMs = 3600000
	// ScopePublic: the same for every caller (scopes and row-level
	// security apply when a tool is called, never to the lists; the views
	// hold no course data), so a shared cache may serve it.
	ScopePublic = "public"
	// ScopePrivate: depends on the caller (the skills a caller is served
	// depend on its token's scopes).
	ScopePrivate = "private"
)

// Instructions is the guidance for the model: what the server is for and
// what every tool needs, without repeating the tool descriptions.
const Instructions = "Read-only access to Pawtograder course data for instructors and graders: " +
	"assignments, submissions with their files, test results and build output, help requests, " +
	"discussion threads, and the grader and handout repositories. Every tool needs the class_id " +
	"of the course; results only ever contain what the signed-in user may see in Pawtograder."

// builder builds the row of one normalised key.
type builder struct {
	reg    *tools.Registry
	k      Key
	writes bool
	// apps and sk: the views and the skills are offered to the key.
	apps, sk bool
}

// build is the one function that makes a row: every answer of k from
// typed values, through Encode.
func build(reg *tools.Registry, k Key) (*Row, error) {
	b := &builder{reg: reg, k: k, writes: reg.Writes(),
		apps: appsext.Offered(k.Revision), sk: skillsext.Offered(k.Revision)}
	row := &Row{Read: map[string][]byte{}, SkillsGet: map[string][]byte{}}
	var e encoder
	if !revision.Stateless(k.Revision) {
		row.Initialize = e.encode(k.Revision, b.initialize(), nil)
	}
	row.ToolsList = e.encode(k.Revision, List{"tools", b.tools()}, b.cache(ScopePublic))
	row.Discover = e.encode(discoverRevision(k.Revision), b.discover(), &Cache{catalogueTTLMs, ScopePublic})
	if b.apps || b.sk {
		row.ResourcesList = e.encode(k.Revision, List{"resources", b.resources()}, b.cache(b.listScope()))
		row.Templates = e.encode(k.Revision, List{"resourceTemplates", nil}, b.cache(ScopePublic))
		b.reads(&e, row.Read)
	}
	if skillsext.Methods(k.Revision) {
		var entries []any
		for _, sk := range b.skills() {
			entries = append(entries, skillsext.Entry{Skill: sk}.Object())
			row.SkillsGet[sk.URI] = e.encode(k.Revision, SkillGet{skillsext.Entry{Skill: sk}.Object()}, b.cache(skillScope(sk)))
		}
		row.SkillsList = e.encode(k.Revision, List{"skills", entries}, b.cache(b.listScope()))
	}
	return row, e.err
}

// encoder is Encode keeping the first error, so build reads as a list.
type encoder struct{ err error }

func (e *encoder) encode(rev string, r Result, c *Cache) []byte {
	out, err := Encode(rev, r, c)
	if e.err == nil {
		e.err = err
	}
	return out
}

// discoverRevision is the shape server/discover answers in: it belongs to
// the stateless revisions, and a client probing at a handshake revision
// gets the same result.
func discoverRevision(rev string) string {
	if revision.Stateless(rev) {
		return rev
	}
	return revision.Modern
}

// cache is the caching hints with scope at a stateless revision.
func (b *builder) cache(scope string) *Cache { return &Cache{catalogueTTLMs, scope} }

// listScope is the cacheScope of lists that hold the skills: they depend
// on the caller once the write skills are listed to writers.
func (b *builder) listScope() string {
	if b.sk && b.writes {
		return ScopePrivate
	}
	return ScopePublic
}

// skillScope: a write skill is readable only by writers.
func skillScope(sk *skills.Skill) string {
	if sk.Writes {
		return ScopePrivate
	}
	return ScopePublic
}

// baseInstructions are the instructions before any extension's sentence.
func (b *builder) baseInstructions() string {
	if b.writes {
		return writesext.Instructions
	}
	return Instructions
}

// initialize: the original's answer on the drop-in path; from 2025-06-18
// the resources capability (the views and skills are resources), the MCP
// Apps extension, whoever asks, and the instructions pointing to the
// skills.
func (b *builder) initialize() Initialize {
	r := Initialize{Version: b.k.Revision}
	if !revision.Negotiated(b.k.Revision) {
		return r
	}
	r.Resources = true
	r.Instructions = b.baseInstructions() + " " + skillsext.Instructions(b.writes, true)
	r.Extensions = []string{appsext.Extension}
	return r
}

// discover: every revision served, resources and every extension the
// revision offers (whatever the client declares: capabilities describe the
// server), and the instructions.
func (b *builder) discover() Discover {
	r := Discover{Versions: revision.Served(), Instructions: b.baseInstructions()}
	if b.apps {
		r.Extensions = append(r.Extensions, appsext.Extension)
	}
	if skillsext.Methods(b.k.Revision) {
		r.Extensions = append(r.Extensions, skillsext.Extension)
		r.Instructions += " " + skillsext.Instructions(b.writes, false)
	}
	r.Resources = len(r.Extensions) > 0
	return r
}

// skills are the skills the key's audience is served.
func (b *builder) skills() []*skills.Skill { return skills.For(b.k.Writer) }

// resources: the views, then the skills, as the key is offered them.
func (b *builder) resources() []any {
	var list []any
	if b.apps {
		for _, v := range views.All() {
			list = append(list, appsext.Resource{View: v}.Object())
		}
	}
	if b.sk {
		for _, sk := range b.skills() {
			list = append(list, skillsext.Resource{Skill: sk}.Object())
		}
	}
	return list
}

// reads fills resources/read's results by URI.
func (b *builder) reads(e *encoder, read map[string][]byte) {
	if b.apps {
		for _, v := range views.All() {
			read[v.URI] = e.encode(b.k.Revision, List{"contents", []any{appsext.Contents{View: v}.Object()}}, b.cache(ScopePublic))
		}
	}
	if b.sk {
		for _, sk := range b.skills() {
			read[sk.URI] = e.encode(b.k.Revision, List{"contents", []any{skillsext.Contents{Skill: sk}.Object()}}, b.cache(skillScope(sk)))
		}
	}
}

// tools is tools/list's list in catalogue order (deterministic, as the
// revisions ask, so clients and prompt caches can reuse it).
func (b *builder) tools() []any {
	list := make([]any, 0, len(b.reg.Tools()))
	for _, t := range b.reg.Tools() {
		if e := b.tool(t); e != nil {
			list = append(list, e)
		}
	}
	return list
}

// tool is one tools/list entry. On the drop-in path the original's tools
// with name, description and inputSchema only; from 2025-06-18 every
// tool, titled, with its outputSchema (describing structuredContent's
// {"result": …} wrapper before 2026-07-28 and the value itself after),
// annotations, and _meta.ui where a view renders it.
func (b *builder) tool(t *tools.Tool) *jsjson.Object {
	in := t.InputSchema
	if in == nil {
		in = jsjson.NewObject(0)
	}
	if !revision.Structured(b.k.Revision) {
		if t.NegotiatedOnly {
			return nil
		}
		return jsjson.NewObject(3).Set("name", t.Name).Set("description", t.Description).Set("inputSchema", in)
	}
	e := jsjson.NewObject(7).Set("name", t.Name).Set("title", t.Title).
		Set("description", t.NegotiatedDescription()).Set("inputSchema", in)
	out := t.OutputSchema
	if revision.Stateless(b.k.Revision) {
		out = t.ValueSchema
	}
	if out != nil {
		e.Set("outputSchema", out)
	}
	e.Set("annotations", t.Annotations())
	if m := appsext.ToolMeta(t.Name); m != nil && appsext.ToolMetaOffered(b.k.Revision, b.k.Apps) {
		e.Set("_meta", m)
	}
	return e
}
