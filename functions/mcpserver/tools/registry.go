// Package tools holds mcp-server's tool catalogue: one declaration per tool
// (name, description, input and result schemas, required scope and
// handler) and the handlers themselves, each reading PostgREST only
// through the caller's own userclient.Client so row-level security decides
// what a tool can return.
//
// A tool is its file plus one line: the file declares everything about it
// (a Tool value: schemas, title, descriptions, annotations' facts, its
// example call, and for a staff tool its typed handler through staffTool),
// and one line of catalogue.go registers it in tools/list order. New
// checks every declaration at start-up (checkTool), and the package's
// tests enumerate the registry: each read tool also registers its test
// cases (toolcases_test.go) or they fail.
package tools

import (
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"

	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// ScopeRead is the scope every tool requires.
const ScopeRead = "mcp:read"

// Handler runs one tool call. args is the call's `arguments` object (never
// nil). The returned value is serialised with jsjson.MarshalIndent.
type Handler func(ctx context.Context, call *Call) (any, error)

// Tool declares one tool. The catalogue order is the order of the
// registrations in catalogue.go.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the tool's JSON Schema as an ordered object, so
	// tools/list prints it byte-for-byte as the original does.
	InputSchema *jsjson.Object
	// OutputSchema describes the tool's result for protocol revisions that
	// support structured output (2025-06-18, 2025-11-25: {"result": value});
	// nil when not declared.
	OutputSchema *jsjson.Object
	// ValueSchema describes the tool's value itself, its outputSchema from
	// revision 2026-07-28; nil when not declared.
	ValueSchema *jsjson.Object
	// Result is the JSON Schema of a read tool's value, as text whose
	// "#/$defs/<name>" references name the shared shapes of schemaDefs
	// (outputschema.go). New builds OutputSchema and ValueSchema from it.
	// Every read tool declares it; a write tool's schemas come from
	// writeTool.
	Result string
	// Example is the arguments (a JSON object) of a call that answers
	// with data on the seeded development stack (supabase/fixtures/SEED.md)
	// for its instructor, Alice (class 1): it shows a reader how the tool
	// is called, and the end-to-end tests call every negotiated read tool
	// with it. Required of the tools the original lacks.
	Example string
	Scope   string
	Handler Handler
	// resultType is the Go type a staff tool's handler returns
	// (staffTool); TestStaffResultTypesMatchOutputSchemas holds Result
	// against it.
	resultType reflect.Type

	// Title is the short human name hosts display, declared (as the
	// top-level title and annotations.title) from revision 2025-06-18.
	Title string
	// Summary is the description from revision 2025-06-18: what the tool
	// returns, with no instructions to the model. Empty means Description,
	// which the drop-in catalogue keeps as the original wrote it.
	Summary string
	// OpenWorld marks the tools that read outside Pawtograder's database
	// (the GitHub repositories): annotations.openWorldHint.
	OpenWorld bool
	// NegotiatedOnly marks a tool the original does not have: it is listed
	// only from revision 2025-06-18, so the drop-in catalogue and those of
	// 2024-11-05 and 2025-03-26 stay the original's.
	NegotiatedOnly bool
	// Write marks a write tool (writes.go): listed only when the registry
	// has approval.Approvals, annotated as neither read-only nor idempotent,
	// and destructive (Annotations).
	Write bool
}

// NegotiatedDescription is the description listed from revision 2025-06-18.
func (t *Tool) NegotiatedDescription() string {
	if t.Summary != "" {
		return t.Summary
	}
	return t.Description
}

// Annotations returns the tool's ToolAnnotations (MCP 2025-06-18 and
// later). A read is read-only, non-destructive and idempotent; only the
// repository tools reach an open world (GitHub).
//
// Every write tool is destructive, one decision for all of them
// (docs/directories.md, "destructiveHint"): once approved, each posts text
// students can read at once, which cannot be taken back, or replaces a
// status, points or a review's total, so none is the "only
// additive update" the MCP specification reserves destructiveHint false
// for, and Claude's directory guide marks every tool that creates,
// updates or sends as destructive. That a call only proposes, and the
// approval page is the real gate, does not change what the approved
// write does: a host that asks before running a destructive tool adds one
// confirmation, never a wrong one.
func (t *Tool) Annotations() *jsjson.Object {
	if t.Write {
		// A write changes Pawtograder's own data only, and every call
		// proposes a new action, so none is idempotent.
		return jsjson.NewObject(5).
			Set("title", t.Title).
			Set("readOnlyHint", false).
			Set("destructiveHint", true).
			Set("idempotentHint", false).
			Set("openWorldHint", false)
	}
	return jsjson.NewObject(5).
		Set("title", t.Title).
		Set("readOnlyHint", true).
		Set("destructiveHint", false).
		Set("idempotentHint", true).
		Set("openWorldHint", t.OpenWorld)
}

// Call is what a handler receives: the caller's database client, the
// arguments and the registry's shared, bounded caches and clients.
type Call struct {
	DB   *userclient.Client
	Args *jsjson.Object
	reg  *Registry
	// scopes are the caller's: a write tool's preview carries
	// student-written text only for a caller who may read it.
	scopes []string
	// reads records a failed read, for the tools whose failed reads are
	// errors (strictReads); nil for the others.
	reads *readFailures
}

// Logger returns the registry's logger.
func (c *Call) Logger() *slog.Logger { return c.reg.logger }

// Repos returns the registry's GitHub repository client, or nil when none
// is configured.
func (c *Call) Repos() *repofiles.Client { return c.reg.repos }

// Options configures a Registry.
type Options struct {
	Logger *slog.Logger
	// Now is the clock for cache freshness; defaults to time.Now.
	Now func() time.Time
	// ProfileCacheEntries bounds the profile caches; 0 means a default.
	ProfileCacheEntries int
	// Repos reads grader and handout repositories from GitHub; nil makes
	// the four repository tools answer their empty result.
	Repos *repofiles.Client
	// Approvals stores the write tools' pending actions; nil (the default,
	// GATEWAY_WRITE_TOOLS=off) leaves the write tools out of the catalogue.
	Approvals approval.Approvals
}

// Registry is the tool catalogue plus the state tools share across calls.
type Registry struct {
	tools  []*Tool
	byName map[string]*Tool
	logger *slog.Logger
	now    func() time.Time
	caches *caches
	repos  *repofiles.Client
	// approvals is Options.Approvals (nil: no write tools).
	approvals approval.Approvals
}

// New returns the registry with every tool of the catalogue.
func New(opts Options) *Registry {
	r := &Registry{
		byName:    map[string]*Tool{},
		logger:    opts.Logger,
		now:       opts.Now,
		repos:     opts.Repos,
		approvals: opts.Approvals,
	}
	r.tools = slices.Clone(readCatalogue())
	if r.approvals != nil {
		r.tools = append(r.tools, writeCatalogue()...)
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	}
	for _, t := range r.tools {
		if _, dup := r.byName[t.Name]; dup {
			panic("tools: duplicate tool " + t.Name)
		}
		r.byName[t.Name] = t
	}
	r.caches = newCaches(opts.ProfileCacheEntries, r.now)
	return r
}

// readCatalogue is catalogue() with each declaration checked and its
// output schemas built, once: the declarations are package variables
// shared by every Registry.
var readCatalogue = sync.OnceValue(func() []*Tool {
	all := catalogue()
	for _, t := range all {
		if err := checkTool(t); err != nil {
			panic("tools: " + err.Error()) // a declaration bug, found at start-up
		}
		t.OutputSchema, t.ValueSchema = outputSchema(t.Result), valueSchema(t.Result)
	}
	return all
})

// checkTool reports what a read tool's declaration lacks: a name, a
// title, a scope, a handler, a result schema that parses and names only
// known shared shapes, and, for a tool the original lacks, its typed
// handler (staffTool) and example call.
func checkTool(t *Tool) error {
	switch {
	case t.Name == "" || t.Title == "" || t.Scope == "" || t.Handler == nil:
		return fmt.Errorf("%q: a tool needs a name, a title, a scope and a handler", t.Name)
	case t.Result == "":
		return fmt.Errorf("%s: no Result schema", t.Name)
	case t.NegotiatedOnly && t.resultType == nil:
		return fmt.Errorf("%s: a tool the original lacks is declared with staffTool (a typed result)", t.Name)
	case t.NegotiatedOnly && t.Example == "":
		return fmt.Errorf("%s: no Example call", t.Name)
	}
	if _, err := jsjson.Decode([]byte(t.Example)); t.Example != "" && err != nil {
		return fmt.Errorf("%s: Example is not JSON: %v", t.Name, err)
	}
	for _, name := range schemaRefs(t.Result) {
		if _, ok := schemaDefs[name]; !ok {
			return fmt.Errorf("%s: Result refers to #/$defs/%s, which schemaDefs lacks", t.Name, name)
		}
	}
	return nil
}

// staffTool completes the declaration of a read tool the original lacks
// (a staff tool): listed only from revision 2025-06-18, scope mcp:read,
// its failed reads errors (strictReads), and its answer the Go type T its
// handler returns, converted by typedHandler and held against t.Result by
// TestStaffResultTypesMatchOutputSchemas.
func staffTool[T any](handler func(context.Context, *Call) (T, error), t Tool) Tool {
	t.NegotiatedOnly = true
	t.Scope = ScopeRead
	t.Handler = typedHandler(handler)
	t.resultType = reflect.TypeFor[T]()
	return t
}

// Tools returns the catalogue in tools/list order: the original's tools,
// then those listed only on negotiated revisions (Tool.NegotiatedOnly).
func (r *Registry) Tools() []*Tool { return r.tools }

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// UnknownToolError is returned for a name that is not in the catalogue.
type UnknownToolError struct{ Name string }

func (e *UnknownToolError) Error() string { return "Unknown tool: " + e.Name }

// MissingScopeError is returned when the caller lacks the tool's scope.
type MissingScopeError struct{ Scope string }

func (e *MissingScopeError) Error() string { return "Missing required scope: " + e.Scope }

// InvalidParamsError is returned when arguments do not satisfy the tool's
// input schema (JSON-RPC -32602).
type InvalidParamsError struct{ Message string }

func (e *InvalidParamsError) Error() string { return e.Message }

// Call runs the tool called name for a caller holding scopes. name is the
// JavaScript string form of params.name (so a missing name is "undefined").
// Errors are *UnknownToolError, *MissingScopeError, *InvalidParamsError, or
// a failure inside the tool.
func (r *Registry) Call(ctx context.Context, db *userclient.Client, scopes []string, name string, args *jsjson.Object) (any, error) {
	t, ok := r.byName[name]
	if !ok {
		return nil, &UnknownToolError{Name: name}
	}
	if !slices.Contains(scopes, t.Scope) {
		return nil, &MissingScopeError{Scope: t.Scope}
	}
	if args == nil {
		args = jsjson.NewObject(0)
	}
	if err := validateArgs(t, args); err != nil {
		return nil, err
	}
	c := &Call{DB: db, Args: args, reg: r, scopes: scopes}
	if !strictReads(t) {
		return t.Handler(ctx, c)
	}
	c.reads = &readFailures{}
	v, err := t.Handler(ctx, c)
	if err == nil {
		err = c.reads.failure()
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// strictReads reports whether a failed read of t is an error: for the
// read tools offered only on negotiated revisions, which no original
// client knows, an answer built around a failed read would present part of
// the data as the whole. The original's tools keep its rule.
func strictReads(t *Tool) bool { return t.NegotiatedOnly && !t.Write }

// mustSchema parses a schema literal at start-up; a malformed literal is a
// programming error.
func mustSchema(text string) *jsjson.Object {
	v, err := jsjson.Decode([]byte(text))
	if err != nil {
		panic(fmt.Sprintf("tools: bad schema literal: %v", err))
	}
	o, ok := v.(*jsjson.Object)
	if !ok {
		panic("tools: schema literal is not an object")
	}
	return o
}
