package tools

// The repository tools (docs/contract/tools.md §1.9, §2.9–§2.12): files of an
// assignment's grader (solution) repository and of its handout (template)
// repository, read from GitHub through repofiles.

import (
	"context"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/minimatch"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// maxRepoFiles is the original's MAX_FILES: at most this many files have
// their contents fetched per call.
const maxRepoFiles = 100

// graderRepoSelect reads the grader repository together with its
// assignment's class. The original filtered autograder by id only and
// ignored class_id; the inner embed plus the class filter below makes an
// assignment of another class read as "no repository".
const graderRepoSelect = "grader_repo,assignments!grader_configs_id_fkey!inner(class_id)"

// repoLocator finds the org and repo of a call's repository; ok is false
// when there is none (or it is not visible to the caller).
type repoLocator func(ctx context.Context, c *Call) (org, repo string, ok bool)

// graderRepo locates the grader repository (§1.9 "Grader repo location",
// scoped to the class). org and repo are the first two `/`-separated parts
// of grader_repo, verbatim.
func graderRepo(ctx context.Context, c *Call) (string, string, bool) {
	raw, err := c.DB.From("autograder").Select(graderRepoSelect).
		Eq("id", arg(c.Args, "assignment_id")).
		Eq("assignments.class_id", arg(c.Args, "class_id")).
		Single(ctx)
	row := c.pgObject(ctx, raw, err)
	if row == nil {
		return "", "", false
	}
	s, _ := row.String("grader_repo")
	if s == "" {
		return "", "", false
	}
	return repofiles.SplitGraderRepo(s)
}

// handoutRepo locates the handout repository (§1.9 "Handout repo
// location"): the assignment's template_repo, normalised.
func handoutRepo(ctx context.Context, c *Call) (string, string, bool) {
	raw, err := c.DB.From("assignments").Select("template_repo").
		Eq("id", arg(c.Args, "assignment_id")).
		Eq("class_id", arg(c.Args, "class_id")).
		Single(ctx)
	row := c.pgObject(ctx, raw, err)
	if row == nil {
		return "", "", false
	}
	s, _ := row.String("template_repo")
	if s == "" {
		return "", "", false
	}
	return repofiles.NormalizeTemplateRepo(s)
}

// listRepoFiles lists a repository's eligible files; ok is false when the
// repository cannot be located or listed (any GitHub failure), which the
// tools report as the empty result.
func (c *Call) listRepoFiles(ctx context.Context, locate repoLocator, kind repofiles.Kind) (org, repo string, files []repofiles.File, ok bool) {
	client := c.Repos()
	if client == nil {
		return "", "", nil, false
	}
	org, repo, ok = locate(ctx, c)
	if !ok {
		return "", "", nil, false
	}
	files, err := client.List(ctx, org, repo, kind)
	if err != nil {
		c.Logger().DebugContext(ctx, "repository listing failed", "kind", int(kind), "error", err.Error())
		return "", "", nil, false
	}
	return org, repo, files, true
}

// listRepoTool is list_grader_files / list_handout_files.
func listRepoTool(locate repoLocator, kind repofiles.Kind) Handler {
	return func(ctx context.Context, c *Call) (any, error) {
		_, _, files, _ := c.listRepoFiles(ctx, locate, kind)
		out := make([]any, 0, len(files))
		for _, f := range files {
			out = append(out, jsjson.NewObject(2).Set("name", f.Path).Set("size", float64(f.Size)))
		}
		return jsjson.NewObject(2).Set("files", out).Set("total_count", float64(len(out))), nil
	}
}

// getRepoTool is get_grader_files / get_handout_files: list, glob filter,
// first maxRepoFiles in listing order, then fetch. repofiles.Fetch returns
// the contents in path order (the original used completion order, which
// is not deterministic) and skips files it could not read, so
// matched_count counts the files returned, as in the original.
func getRepoTool(locate repoLocator, kind repofiles.Kind) Handler {
	return func(ctx context.Context, c *Call) (any, error) {
		empty := func() any { return jsjson.NewObject(2).Set("files", []any{}).Set("matched_count", float64(0)) }
		org, repo, files, ok := c.listRepoFiles(ctx, locate, kind)
		if !ok {
			return empty(), nil
		}
		var m *minimatch.Matcher
		if pattern, _ := c.Args.String("glob_pattern"); pattern != "" {
			var err error
			if m, err = minimatch.Compile(pattern); err != nil {
				// The original's filter ran inside the same try block as the
				// listing, so a pattern minimatch rejects gives the empty result.
				return empty(), nil
			}
		}
		paths := make([]string, 0, min(len(files), maxRepoFiles))
		for _, f := range files {
			if len(paths) == maxRepoFiles {
				break
			}
			if m == nil || m.Match(f.Path) {
				paths = append(paths, f.Path)
			}
		}
		contents := c.Repos().Fetch(ctx, org, repo, paths)
		out := make([]any, 0, len(contents))
		for _, f := range contents {
			out = append(out, jsjson.NewObject(2).Set("name", f.Name).Set("contents", f.Contents))
		}
		return jsjson.NewObject(2).Set("files", out).Set("matched_count", float64(len(out))), nil
	}
}

var listGraderFilesTool = Tool{
	Name:        "list_grader_files",
	Title:       "List grader files",
	Summary:     "Returns the names and sizes of the files in an assignment's grader (solution) repository, without contents.",
	OpenWorld:   true,
	Description: "List all files in the grader/solution repository (where instructor tests and mutants are stored) with names and sizes (no contents). Use get_grader_files to fetch contents filtered by glob pattern.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"assignment_id":{"type":"number","description":"The ID of the assignment"},
		"class_id":{"type":"number","description":"The class ID where the assignment exists"}},
		"required":["assignment_id","class_id"]}`),
	Result:  listGraderFilesSchema,
	Scope:   ScopeRead,
	Handler: listRepoTool(graderRepo, repofiles.Grader),
}

var getGraderFilesTool = Tool{
	Name:        "get_grader_files",
	Title:       "Get grader files",
	Summary:     "Returns the contents of the grader (solution) repository's files whose paths match a glob pattern: instructor tests, mutants, solution code.",
	OpenWorld:   true,
	Description: "Get file contents from the grader/solution repository (instructor tests, mutants, solution code). Use glob_pattern to filter files (e.g., '*.java', 'src/**/*.py', 'mutants/*').",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"assignment_id":{"type":"number","description":"The ID of the assignment"},
		"class_id":{"type":"number","description":"The class ID where the assignment exists"},
		"glob_pattern":{"type":"string","description":"Glob pattern to filter files (e.g., '*.java', 'mutants/**/*', 'src/**/*.py')"}},
		"required":["assignment_id","class_id"]}`),
	Result:  getGraderFilesSchema,
	Scope:   ScopeRead,
	Handler: getRepoTool(graderRepo, repofiles.Grader),
}

var listHandoutFilesTool = Tool{
	Name:        "list_handout_files",
	Title:       "List handout files",
	Summary:     "Returns the names and sizes of the files in an assignment's handout (template) repository, without contents.",
	OpenWorld:   true,
	Description: "List all files in the template/handout repository (starter code) with names and sizes (no contents). Use get_handout_files to fetch contents filtered by glob pattern.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"assignment_id":{"type":"number","description":"The ID of the assignment"},
		"class_id":{"type":"number","description":"The class ID where the assignment exists"}},
		"required":["assignment_id","class_id"]}`),
	Result:  listHandoutFilesSchema,
	Scope:   ScopeRead,
	Handler: listRepoTool(handoutRepo, repofiles.Handout),
}

var getHandoutFilesTool = Tool{
	Name:        "get_handout_files",
	Title:       "Get handout files",
	Summary:     "Returns the contents of the handout (template) repository's files whose paths match a glob pattern: the starter code.",
	OpenWorld:   true,
	Description: "Get file contents from the template/handout repository (starter code). Use glob_pattern to filter files (e.g., '*.java', 'src/**/*.py').",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"assignment_id":{"type":"number","description":"The ID of the assignment"},
		"class_id":{"type":"number","description":"The class ID where the assignment exists"},
		"glob_pattern":{"type":"string","description":"Glob pattern to filter files (e.g., '*.java', 'src/**/*.py')"}},
		"required":["assignment_id","class_id"]}`),
	Result:  getHandoutFilesSchema,
	Scope:   ScopeRead,
	Handler: getRepoTool(handoutRepo, repofiles.Handout),
}
