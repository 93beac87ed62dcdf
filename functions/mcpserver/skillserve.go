package mcpserver

import (
	"context"
	"log/slog"
	"strings"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skills"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// The workflows of package skills (docs/skills.md), served where the
// negotiation rules below allow, so that a client that is not offered them
// sees no change:
//
//   - 2024-11-05 and 2025-03-26 (and the drop-in path): never.
//   - 2025-06-18 and 2025-11-25: as plain skill:// resources, listed by
//     resources/list after the MCP Apps views and read with resources/read,
//     for every request (a stateless server cannot know what initialize
//     declared; these revisions already answer the resource methods for
//     every request, apps.go); initialize declares resources to every
//     client and its instructions name the skills (useSkillInstructions).
//     The extension's methods are not served: the extension is written
//     against 2026-07-28.
//   - 2026-07-28: the extension, to a request whose capabilities declare
//     it: server/discover declares it (with resources) and points to the
//     skills in its instructions; skills/list, skills/get, and the skills
//     in resources/list and resources/read.
//
// Each caller gets only the skills it may follow: one that proposes writes
// (metadata.scope mcp:write) only when the write tools are on and the
// caller's token carries mcp:write. Lists that depend on that are
// "private" at 2026-07-28.

// Methods of the extension.
const (
	methodSkillsList = "skills/list"
	methodSkillsGet  = "skills/get"
)

// audience indexes the answers that depend on the caller: readers get the
// read skills, writers all of them.
type audience int

const (
	readers audience = iota
	writers
)

// skillAnswers are the pre-encoded answers of the skills; the *Modern
// ones are the 2026-07-28 forms.
type skillAnswers struct {
	resourcesList       [2][]byte // 2025-06-18, 2025-11-25: the views, then the skills
	resourcesModern     [2][]byte // 2026-07-28, the skills alone
	resourcesAppsModern [2][]byte // 2026-07-28, the views, then the skills
	listModern          [2][]byte // skills/list
	read                map[string][]byte
	readModern          map[string][]byte
	getModern           map[string][]byte // skills/get, by SKILL.md URI
	discover            []byte            // server/discover declaring the extension
	discoverApps        []byte            // … and MCP Apps
	listScope           string            // cacheScope of the lists
}

// skillsOffered reports whether a request made under version, from a
// client with the given capabilities, is served the skills.
func skillsOffered(version string, caps *jsjson.Object) bool {
	switch {
	case version < firstVersionWithApps:
		return false
	case version < firstVersionWithRequestCapabilities:
		return true
	}
	return declaresSkills(caps)
}

// declaresSkills reports whether client capabilities declare the extension:
// extensions["io.modelcontextprotocol/skills"] is an object.
func declaresSkills(caps *jsjson.Object) bool {
	if caps == nil {
		return false
	}
	ext, ok := caps.Object("extensions")
	if !ok || ext == nil {
		return false
	}
	sk, ok := ext.Object(skills.Extension)
	return ok && sk != nil
}

// skillsRequest reports whether a request is served the skills.
func skillsRequest(cl *caller) bool { return skillsOffered(cl.version, cl.clientCapabilities) }

// skillAudience is the caller's audience: writers when the write tools are
// on and the token carries mcp:write.
func (s *Server) skillAudience(cl *caller) audience {
	if s.tools.Writes() && cl.principal.HasScope(tools.ScopeWrite) {
		return writers
	}
	return readers
}

// newSkillAnswers encodes the skills' answers. views are the MCP Apps
// resources/list entries; writes says whether the write tools are on (the
// write skills are then listed to writers, and the lists depend on the
// caller).
func newSkillAnswers(views []any, writes bool) (*skillAnswers, error) {
	a := &skillAnswers{read: map[string][]byte{}, readModern: map[string][]byte{}, getModern: map[string][]byte{}, listScope: cacheScopePublic}
	if writes {
		a.listScope = cacheScopePrivate
	}
	for _, aud := range []audience{readers, writers} {
		served := skills.For(aud == writers)
		var resources, entries []any
		for _, sk := range served {
			resources = append(resources, skillResource(sk))
			entries = append(entries, skillEntry(sk))
		}
		var err error
		withViews := append(append([]any{}, views...), resources...)
		if a.resourcesList[aud], err = jsjson.Marshal(jsjson.NewObject(1).Set("resources", withViews)); err != nil {
			return nil, err
		}
		if a.resourcesModern[aud], err = cacheableResult("resources", resources, a.listScope); err != nil {
			return nil, err
		}
		if a.resourcesAppsModern[aud], err = cacheableResult("resources", withViews, a.listScope); err != nil {
			return nil, err
		}
		if a.listModern[aud], err = cacheableResult("skills", entries, a.listScope); err != nil {
			return nil, err
		}
	}
	for _, sk := range skills.All() {
		scope := cacheScopePublic
		if sk.Writes {
			scope = cacheScopePrivate // readable only by writers
		}
		content := jsjson.NewObject(3).Set("uri", sk.URI).Set("mimeType", skills.MIMEType).Set("text", sk.Text)
		var err error
		if a.read[sk.URI], err = jsjson.Marshal(jsjson.NewObject(1).Set("contents", []any{content})); err != nil {
			return nil, err
		}
		if a.readModern[sk.URI], err = cacheableResult("contents", []any{content}, scope); err != nil {
			return nil, err
		}
		body, err := jsjson.Marshal(jsjson.NewObject(3).Set("skill", skillEntry(sk)).Set("ttlMs", catalogueTTLMs).Set("cacheScope", scope))
		if err != nil {
			return nil, err
		}
		a.getModern[sk.URI] = modernResult(body)
	}
	instr := instructions
	if writes {
		instr = writeInstructions
	}
	instr += " " + skillsInstructions(writes, false)
	var err error
	if a.discover, err = discoverResultWith(discoverExtensions{skills: true}, instr); err != nil {
		return nil, err
	}
	if a.discoverApps, err = discoverResultWith(discoverExtensions{apps: true, skills: true}, instr); err != nil {
		return nil, err
	}
	return a, nil
}

// skillsInstructions is the sentence the instructions gain for a client
// served the skills: the URIs of the workflows (the write skills named
// apart, as only callers with mcp:write get them), served through the
// extension or, asResources, as plain resources.
func skillsInstructions(writes, asResources bool) string {
	var read, write []string
	for _, sk := range skills.All() {
		if sk.Writes {
			write = append(write, sk.URI)
		} else {
			read = append(read, sk.URI)
		}
	}
	text := "Step-by-step workflows for common tasks are served as skills; load the one that fits before starting such a task: "
	if asResources {
		text = "Step-by-step workflows for common tasks are served as skill resources; read the one that fits (resources/read) before starting such a task: "
	}
	text += strings.Join(read, ", ") + "."
	if writes {
		text += " With the mcp:write scope also " + strings.Join(write, " and ") + ", which propose writes."
	}
	return text
}

// skillResource is a skill's SKILL.md as a resources/list entry.
func skillResource(sk *skills.Skill) *jsjson.Object {
	return jsjson.NewObject(5).
		Set("uri", sk.URI).
		Set("name", sk.Name).
		Set("description", sk.Description).
		Set("mimeType", skills.MIMEType).
		Set("size", sk.Size)
}

// skillEntry is the extension's Skill entry: the SKILL.md URI, the
// frontmatter verbatim, and the manifest of its one file.
func skillEntry(sk *skills.Skill) *jsjson.Object {
	file := jsjson.NewObject(3).Set("uri", sk.URI).Set("digest", sk.Digest).Set("size", sk.Size)
	return jsjson.NewObject(3).
		Set("uri", sk.URI).
		Set("frontmatter", sk.Frontmatter).
		Set("resources", []any{file})
}

// cacheableResult encodes {key: list, ttlMs, cacheScope} in modernResult's
// shape.
func cacheableResult(key string, list []any, scope string) ([]byte, error) {
	if list == nil {
		list = []any{}
	}
	body, err := jsjson.Marshal(jsjson.NewObject(3).Set(key, list).Set("ttlMs", catalogueTTLMs).Set("cacheScope", scope))
	if err != nil {
		return nil, err
	}
	return modernResult(body), nil
}

// servedSkill returns the skill at uri when cl is served it.
func (s *Server) servedSkill(cl *caller, uri string) (*skills.Skill, bool) {
	sk, ok := skills.ByURI(uri)
	if !ok || (sk.Writes && s.skillAudience(cl) != writers) {
		return nil, false
	}
	return sk, true
}

// skillsList answers skills/list at 2026-07-28 for a client that declares
// the extension: every skill the caller is served, in one page.
func (s *Server) skillsList(_ context.Context, cl *caller, msg *jsjson.Object, _ *slog.Logger) *response {
	if !skillsRequest(cl) {
		return methodNotFound(msg)
	}
	return resultResponse(messageID(msg), s.skills.listModern[s.skillAudience(cl)])
}

// skillsGet answers skills/get at 2026-07-28 for a client that declares
// the extension: the entry of the skill whose SKILL.md is params.uri, and
// -32602 (with the URI in data) for a URI that names no skill the caller
// is served.
func (s *Server) skillsGet(_ context.Context, cl *caller, msg *jsjson.Object, _ *slog.Logger) *response {
	if !skillsRequest(cl) {
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
	if sk, found := s.servedSkill(cl, uri); found {
		return resultResponse(id, s.skills.getModern[sk.URI])
	}
	return notFoundWithURI(id, "Skill not found", uri)
}

// notFoundWithURI is -32602 with message and {"uri": uri} in data, the
// 2026-07-28 answer for an unknown resource or skill.
func notFoundWithURI(id any, message, uri string) *response {
	r := errorResponse(id, codeInvalidParams, message)
	data, err := jsjson.Marshal(jsjson.NewObject(1).Set("uri", uri))
	if err != nil { // a string always encodes
		panic(err)
	}
	r.err.data = data
	return r
}

// useSkillInstructions sets initialize's answers from 2025-06-18, where
// every request may list and read the skills as resources: the result
// declares resources and its instructions point to the skills.
func (s *Server) useSkillInstructions() {
	writes := s.tools.Writes()
	instr := instructions
	if writes {
		instr = writeInstructions
	}
	instr += " " + skillsInstructions(writes, true)
	for _, v := range supportedVersions {
		if structuredOutput(v) {
			s.initializeResults[v] = withInstructions(resourcesInitializeResult(v), instr)
			s.apps.initialize[v] = withInstructions(appsInitializeResult(v), instr)
		}
	}
}
