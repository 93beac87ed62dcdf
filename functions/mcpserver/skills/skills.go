// Package skills holds the workflows mcp-server serves as Agent Skills
// (the MCP Skills extension, io.modelcontextprotocol/skills, and plain
// skill:// resources; docs/skills.md): one directory per skill with its
// SKILL.md, compiled into the binary. Each is written from what the
// platform's AI Help prompts intend and names only tools and glob patterns
// that tests hold against the catalogue and the seeded stack.
package skills

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Extension is the extension's identifier, the key clients and servers
// declare it under in capabilities.extensions.
const Extension = "io.modelcontextprotocol/skills"

// MIMEType is the media type of every SKILL.md resource.
const MIMEType = "text/markdown"

// prefix is the organisational prefix of every skill URI:
// skill://pawtograder/<name>/SKILL.md.
const prefix = "pawtograder"

// Scopes a skill's metadata.scope may name: a skill whose steps propose
// writes carries ScopeWrite and is served only to callers who may call the
// write tools.
const (
	ScopeRead  = "mcp:read"
	ScopeWrite = "mcp:write"
)

//go:embed */SKILL.md
var files embed.FS

// Skill is one served skill: its SKILL.md and what the extension's entry
// says of it.
type Skill struct {
	// Name is frontmatter.name, the final segment of URI's skill path.
	Name string
	// Description is frontmatter.description.
	Description string
	// URI is skill://pawtograder/<name>/SKILL.md.
	URI string
	// Text is SKILL.md, byte for byte.
	Text string
	// Frontmatter is the YAML frontmatter as a JSON object, in the
	// author's key order.
	Frontmatter *jsjson.Object
	// Digest is "sha256:" and the lowercase hex SHA-256 of Text; Size is
	// its length in bytes.
	Digest string
	Size   int
	// Writes is set when metadata.scope is ScopeWrite.
	Writes bool
}

// all is every skill, by name, parsed once.
var all = mustLoad()

// All returns every skill in name order.
func All() []*Skill { return all }

// For returns the skills a caller is served, in name order: every read
// skill, and the write skills only when writer (the write tools are on
// and the caller's token carries mcp:write).
func For(writer bool) []*Skill {
	out := make([]*Skill, 0, len(all))
	for _, s := range all {
		if !s.Writes || writer {
			out = append(out, s)
		}
	}
	return out
}

// ByURI returns the skill whose SKILL.md is at uri.
func ByURI(uri string) (*Skill, bool) {
	for _, s := range all {
		if s.URI == uri {
			return s, true
		}
	}
	return nil, false
}

func mustLoad() []*Skill {
	list, err := load(files)
	if err != nil {
		panic(err) // the files are compiled in: a bad one fails every test
	}
	return list
}

// namePattern is the Agent Skills specification's rule for name: 1-64
// lowercase letters, digits and single hyphens, not at either end.
var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// load reads every <dir>/SKILL.md of fsys.
func load(fsys fs.FS) ([]*Skill, error) {
	paths, err := fs.Glob(fsys, "*/SKILL.md")
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	list := make([]*Skill, 0, len(paths))
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		s, err := parse(path.Dir(p), data)
		if err != nil {
			return nil, fmt.Errorf("skills: %s: %w", p, err)
		}
		list = append(list, s)
	}
	return list, nil
}

// parse reads one SKILL.md found in directory dir.
func parse(dir string, data []byte) (*Skill, error) {
	yamlText, err := frontmatterText(data)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(yamlText, &doc); err != nil {
		return nil, fmt.Errorf("frontmatter: %w", err)
	}
	if len(doc.Content) != 1 {
		return nil, fmt.Errorf("frontmatter must be one mapping")
	}
	v, err := nodeValue(doc.Content[0])
	if err != nil {
		return nil, fmt.Errorf("frontmatter: %w", err)
	}
	fm, ok := v.(*jsjson.Object)
	if !ok {
		return nil, fmt.Errorf("frontmatter must be a mapping")
	}
	name, _ := fm.String("name")
	desc, _ := fm.String("description")
	meta, _ := fm.Object("metadata")
	var scope string
	if meta != nil {
		scope, _ = meta.String("scope")
	}
	switch {
	case name != dir || len(name) > 64 || !namePattern.MatchString(name):
		return nil, fmt.Errorf("name %q must equal the directory name and follow the Agent Skills naming rules", name)
	case desc == "" || len(desc) > 1024:
		return nil, fmt.Errorf("description must have 1 to 1024 characters")
	case scope != ScopeRead && scope != ScopeWrite:
		return nil, fmt.Errorf("metadata.scope must be %q or %q", ScopeRead, ScopeWrite)
	}
	sum := sha256.Sum256(data)
	return &Skill{
		Name:        name,
		Description: desc,
		URI:         "skill://" + prefix + "/" + name + "/SKILL.md",
		Text:        string(data),
		Frontmatter: fm,
		Digest:      "sha256:" + hex.EncodeToString(sum[:]),
		Size:        len(data),
		Writes:      scope == ScopeWrite,
	}, nil
}

// frontmatterText returns the YAML between SKILL.md's opening "---" line
// and the next "---" line.
func frontmatterText(data []byte) ([]byte, error) {
	const open = "---\n"
	if !bytes.HasPrefix(data, []byte(open)) {
		return nil, fmt.Errorf(`SKILL.md must begin with a "---" line`)
	}
	rest := data[len(open):]
	end := bytes.Index(rest, []byte("\n---\n"))
	if end < 0 {
		return nil, fmt.Errorf(`frontmatter has no closing "---" line`)
	}
	return rest[:end+1], nil
}

// nodeValue turns a YAML node into the JSON value the extension's entry
// carries: mappings as objects in key order, sequences as arrays, and
// scalars as strings (line numbers count from the top of SKILL.md,
// whose first line is the opening "---"). Only strings are allowed as scalars, so that every
// reader types the frontmatter alike.
func nodeValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		obj := jsjson.NewObject(len(n.Content) / 2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
				return nil, fmt.Errorf("line %d: keys must be strings", k.Line+1)
			}
			if _, dup := obj.Get(k.Value); dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", k.Line+1, k.Value)
			}
			v, err := nodeValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			obj.Set(k.Value, v)
		}
		return obj, nil
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := nodeValue(c)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.ScalarNode:
		if n.Tag != "!!str" {
			return nil, fmt.Errorf("line %d: %q is not a string; quote it", n.Line+1, n.Value)
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: anchors, aliases and other nodes are not supported", n.Line+1)
}
