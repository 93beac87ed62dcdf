package answers

import (
	"fmt"
	"slices"
	"sync"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
)

// Key is what an answer depends on besides the catalogue: the request's
// revision, the extensions its client declares, and whether the caller may
// follow the write skills. Table.Row normalises a key, so requests that get
// the same answers share a row.
type Key struct {
	Revision string
	// Apps: the request declares the MCP Apps extension with the view MIME
	// type (in _meta at a revision with per-request capabilities; the
	// extensions are declared and served to every client, so only
	// tools/list's _meta.ui depends on it).
	Apps bool
	// Writer: the write tools are on and the caller's token carries
	// mcp:write.
	Writer bool
}

// Row is every cached answer for one Key, as result JSON. A nil list means
// the method is not served for the key (-32601).
type Row struct {
	Initialize    []byte // nil at a stateless revision
	ToolsList     []byte
	Discover      []byte
	ResourcesList []byte
	Templates     []byte
	SkillsList    []byte
	// Read and SkillsGet are by URI: what the key is served.
	Read      map[string][]byte
	SkillsGet map[string][]byte
}

// Table is the answers of every key, each row built on first use and kept.
// It is safe for concurrent use.
type Table struct {
	reg       *tools.Registry
	revisions []string // revision.Served() when the table was made
	cells     []cell   // len(revisions) × 4, by index
}

type cell struct {
	once sync.Once
	row  *Row
	err  error
}

// New returns the table of reg's catalogue. It builds the row of every
// revision for a client that declares nothing, so a catalogue that cannot
// be encoded stops start-up.
func New(reg *tools.Registry) (*Table, error) {
	t := &Table{reg: reg, revisions: slices.Clone(revision.Served())}
	t.cells = make([]cell, len(t.revisions)*4)
	for _, v := range t.revisions {
		if _, err := t.Row(Key{Revision: v}); err != nil {
			return nil, fmt.Errorf("answers: revision %s: %w", v, err)
		}
	}
	return t, nil
}

// Row returns the answers for k, building them on first use.
func (t *Table) Row(k Key) (*Row, error) {
	k = t.normalise(k)
	i := slices.Index(t.revisions, k.Revision)
	if i < 0 {
		return nil, fmt.Errorf("answers: revision %q is not served", k.Revision)
	}
	c := &t.cells[i*4+b2i(k.Apps)*2+b2i(k.Writer)]
	c.once.Do(func() { c.row, c.err = build(t.reg, k) })
	return c.row, c.err
}

// normalise drops what cannot change k's answers: only tools/list's
// _meta.ui at a revision with per-request capabilities depends on a
// declaration, and without the write tools (or on the drop-in path) no
// caller is a writer.
func (t *Table) normalise(k Key) Key {
	if !t.reg.Writes() || !revision.Negotiated(k.Revision) {
		k.Writer = false
	}
	if !revision.RequestCapabilities(k.Revision) {
		k.Apps = false
	}
	return k
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
