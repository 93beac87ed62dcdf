package mcpserver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/pawtograder/mcp-gateway"

// Packages the import rules name, relative to the module.
const (
	binaryPackage   = "gateway/cmd/gateway"
	standInsDir     = "supabase/devstack"
	toolsPackage    = "functions/mcpserver/tools"
	protocolPackage = "functions/mcpserver"
)

// transportPackages are the MCP transport and its JSON-RPC layer: what the
// tools must never see (a tool gets a per-user client and its arguments,
// never a request).
var transportPackages = []string{protocolPackage, protocolPackage + "/jsonrpc"}

// importGraph maps a module-relative package directory to the
// module-relative directories its non-test files import.
type importGraph map[string][]string

// readImportGraph parses the imports of every non-test Go file of the
// module (test files wire fixtures and never ship).
func readImportGraph(t *testing.T) importGraph {
	t.Helper()
	root := repoRoot(t)
	g := importGraph{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(p, modulePath+"/"); ok && !slices.Contains(g[dir], dep) {
				g[dir] = append(g[dir], dep)
			}
		}
		if _, ok := g[dir]; !ok {
			g[dir] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// repoRoot is the module's root directory, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

func under(dir, parent string) bool { return dir == parent || strings.HasPrefix(dir, parent+"/") }

// importProblems returns every broken import rule of g, sorted.
func importProblems(g importGraph) []string {
	var problems []string
	for dir, deps := range g {
		for _, dep := range deps {
			if under(dir, "gateway") && !under(dir, "gateway/cmd") && under(dep, "functions") {
				problems = append(problems, dir+" imports "+dep+": only gateway/cmd wires the functions in")
			}
			if under(dir, toolsPackage) && slices.Contains(transportPackages, dep) {
				problems = append(problems, dir+" imports "+dep+": the tools never see the transport")
			}
		}
	}
	for dir := range productPackages(g) {
		for _, dep := range g[dir] {
			if under(dep, standInsDir) {
				problems = append(problems, dir+" imports "+dep+": the binary never links the dev stand-ins")
			}
		}
	}
	sort.Strings(problems)
	return problems
}

// productPackages are the packages linked into the binary: everything
// binaryPackage reaches through non-test imports.
func productPackages(g importGraph) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(dir string) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		for _, dep := range g[dir] {
			visit(dep)
		}
	}
	visit(binaryPackage)
	return seen
}

// TestImportDirection holds the repository's import rules: nothing under
// gateway/ but gateway/cmd imports a function; the tools never import the
// transport; the binary never links the dev stand-ins. Each rule is also
// broken on a copy of the real graph, to see it fail.
func TestImportDirection(t *testing.T) {
	g := readImportGraph(t)
	if _, ok := g[binaryPackage]; !ok {
		t.Fatalf("%s not found: the rules would check nothing", binaryPackage)
	}
	for _, p := range importProblems(g) {
		t.Error(p)
	}
	broken := map[string]func(importGraph){
		"gateway imports a function": func(g importGraph) {
			g["gateway/mcpauth"] = append(g["gateway/mcpauth"], "functions/mcptokens")
		},
		"tools import the transport": func(g importGraph) {
			g[toolsPackage] = append(g[toolsPackage], protocolPackage)
		},
		"tools import the JSON-RPC layer": func(g importGraph) {
			g[toolsPackage+"/x"] = []string{protocolPackage + "/jsonrpc"}
		},
		"product imports a stand-in through another package": func(g importGraph) {
			g["gateway/userclient"] = append(g["gateway/userclient"], "gateway/gatewaytest")
		},
	}
	for name, breakIt := range broken {
		t.Run(name, func(t *testing.T) {
			c := importGraph{}
			for k, v := range g {
				c[k] = slices.Clone(v)
			}
			breakIt(c)
			if len(importProblems(c)) == 0 {
				t.Error("the broken rule went unnoticed")
			}
		})
	}
}

// protocolLayers are the protocol core's packages from the bottom up: each
// may import only packages of lower layers (downwards), never one of its
// own layer or above.
var protocolLayers = [][]string{
	{protocolPackage + "/jsonrpc"},
	{protocolPackage + "/revision"},
	{protocolPackage + "/appsext", protocolPackage + "/skillsext", protocolPackage + "/writesext"},
	{protocolPackage + "/answers"},
	{protocolPackage},
}

// maxProtocolFiles bounds the transport package's non-test files: what
// grows belongs in a layer below.
const maxProtocolFiles = 8

// TestProtocolLayout holds the protocol core's layout: the layers import
// downwards only, and the transport package stays at most
// maxProtocolFiles non-test files.
func TestProtocolLayout(t *testing.T) {
	g := readImportGraph(t)
	layer := map[string]int{}
	for i, l := range protocolLayers {
		for _, p := range l {
			layer[p] = i
		}
	}
	for pkg, i := range layer {
		for _, dep := range g[pkg] {
			if j, ok := layer[dep]; ok && j >= i {
				t.Errorf("%s imports %s: the protocol core imports downwards only", pkg, dep)
			}
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			n++
		}
	}
	if n > maxProtocolFiles {
		t.Errorf("%s has %d non-test files, at most %d", protocolPackage, n, maxProtocolFiles)
	}
}

// maxFunctionLines bounds a product function (its declaration to its
// closing brace).
const maxFunctionLines = 80

// portedLongFunctions keep the shape of the JavaScript they port (the
// minimatch package's comment says why), so they may pass the bound.
var portedLongFunctions = map[string]bool{
	"functions/mcpserver/minimatch.expand":         true,
	"functions/mcpserver/minimatch.matchGlobstar":  true,
	"functions/mcpserver/minimatch.parseClass":     true,
	"functions/mcpserver/minimatch.toRegExpSource": true,
}

// TestProductFunctionsAreSmall: no function of a package the binary links
// passes maxFunctionLines, but the ported ones.
func TestProductFunctionsAreSmall(t *testing.T) {
	root := repoRoot(t)
	for dir := range productPackages(readImportGraph(t)) {
		for _, long := range longFunctions(t, filepath.Join(root, filepath.FromSlash(dir))) {
			if !portedLongFunctions[dir+"."+long.name] {
				t.Errorf("%s.%s is %d lines, more than %d: split it into functions with one job each", dir, long.name, long.lines, maxFunctionLines)
			}
		}
	}
}

// longFunction is a function past maxFunctionLines.
type longFunction struct {
	name  string
	lines int
}

// longFunctions lists the functions of dir's non-test files that pass
// maxFunctionLines.
func longFunctions(t *testing.T, dir string) []longFunction {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []longFunction
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFunctionLines {
				out = append(out, longFunction{fd.Name.Name, n})
			}
		}
	}
	return out
}
