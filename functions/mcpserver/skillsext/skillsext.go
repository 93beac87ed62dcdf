// Package skillsext is the Skills extension (io.modelcontextprotocol/skills)
// as this server negotiates it: who is served the workflows of package
// skills, and a skill as a resources/list entry, a resources/read content
// and the extension's Skill entry (docs/skills.md).
//
//   - the drop-in path: never.
//   - 2025-06-18 and 2025-11-25: as plain skill:// resources, for every
//     request (a stateless server cannot know what initialize declared);
//     the extension's own methods are written against 2026-07-28.
//   - from 2026-07-28: the extension, declared to every client (so
//     capabilities describe the server whoever asks): skills/list,
//     skills/get, and the skills in the resource methods.
//
// A caller gets only the skills it may follow: one that proposes writes
// (metadata.scope mcp:write) only when the write tools are on and the
// caller's token carries mcp:write.
package skillsext

import (
	"strings"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skills"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Extension is the extension's identifier in capabilities.
const Extension = skills.Extension

// Methods of the extension.
const (
	MethodList = "skills/list"
	MethodGet  = "skills/get"
)

// Offered reports whether a request made under version is served the
// skills as resources: at every negotiated revision.
func Offered(version string) bool { return revision.Negotiated(version) }

// Methods reports whether the extension is declared and its own methods
// answer a request made under version: from 2026-07-28, the revision it is
// written against.
func Methods(version string) bool { return revision.RequestCapabilities(version) }

// Declared reports whether client capabilities declare the extension:
// extensions["io.modelcontextprotocol/skills"] is an object.
func Declared(caps *jsjson.Object) bool { return revision.DeclaredExtension(caps, Extension) != nil }

// Served returns the skill at uri when a caller (a writer or not) is
// served it.
func Served(uri string, writer bool) (*skills.Skill, bool) {
	sk, ok := skills.ByURI(uri)
	if !ok || (sk.Writes && !writer) {
		return nil, false
	}
	return sk, true
}

// Resource is a skill's SKILL.md as a resources/list entry.
type Resource struct{ Skill *skills.Skill }

// Object is the entry: uri, name, description, mimeType, size.
func (r Resource) Object() *jsjson.Object {
	return jsjson.NewObject(5).
		Set("uri", r.Skill.URI).
		Set("name", r.Skill.Name).
		Set("description", r.Skill.Description).
		Set("mimeType", skills.MIMEType).
		Set("size", r.Skill.Size)
}

// Contents is a SKILL.md as a resources/read content.
type Contents struct{ Skill *skills.Skill }

// Object is the content: uri, mimeType, text.
func (c Contents) Object() *jsjson.Object {
	return jsjson.NewObject(3).Set("uri", c.Skill.URI).Set("mimeType", skills.MIMEType).Set("text", c.Skill.Text)
}

// Entry is the extension's Skill entry: the SKILL.md URI, the frontmatter
// verbatim, and the manifest of its one file.
type Entry struct{ Skill *skills.Skill }

// Object is the entry: uri, frontmatter, resources.
func (e Entry) Object() *jsjson.Object {
	sk := e.Skill
	file := jsjson.NewObject(3).Set("uri", sk.URI).Set("digest", sk.Digest).Set("size", sk.Size)
	return jsjson.NewObject(3).
		Set("uri", sk.URI).
		Set("frontmatter", sk.Frontmatter).
		Set("resources", []any{file})
}

// Instructions is the sentence the instructions gain for a client served
// the skills: the URIs of the workflows (the write skills named apart, as
// only callers with mcp:write get them), served through the extension or,
// asResources, as plain resources.
func Instructions(writes, asResources bool) string {
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
