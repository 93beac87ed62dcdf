package mcpauth

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	modulePath    = "github.com/pawtograder/mcp-gateway"
	postgrestPath = modulePath + "/gateway/postgrest"
)

// postgrestAllowedInFunctions are the names of package postgrest that
// function code may use: request and result types it gets from a
// userclient.Client. Anything that builds or holds a client (New, Options,
// Client) would let a function choose its own key, so it is refused.
var postgrestAllowedInFunctions = map[string]bool{
	"Query": true, "Error": true, "IsNoRows": true, "CodeNoRows": true, "QuoteValue": true,
	"Return": true, "ReturnMinimal": true, "ReturnRows": true, "ReturnSingle": true,
	"ErrBodyTooLarge": true,
}

// serviceKeyAllowed are the directories whose non-test code may name the
// service-role key: the authentication layer, configuration, the main
// wiring, and the local stack (test infrastructure that is never linked
// into the binary).
//
// The OAuth server's and the approval pages' stores keep tables closed to
// every role but the service role; they are handed a client built by
// mcpauth.ServiceClient and never name the key.
//
// deploy/ holds deployment tooling (the Helm post-renderer writes the
// variable's name into manifests); none of it is linked into the binary.
var serviceKeyAllowed = []string{
	"deploy/",
	"gateway/mcpauth",
	"gateway/config",
	"gateway/cmd/",
	"gateway/gatewaytest",
	"supabase/devstack",
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module "+modulePath) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root not found above the test's directory")
		}
		dir = parent
	}
}

func allowedDir(rel string, allowed []string) bool {
	for _, a := range allowed {
		if rel == strings.TrimSuffix(a, "/") || strings.HasPrefix(rel, strings.TrimSuffix(a, "/")+"/") {
			return true
		}
	}
	return false
}

// TestServiceRoleBoundary enforces the import rules of the style guide:
// function packages never build their own PostgREST client, and only the
// authentication layer (plus configuration and wiring) names the service
// role key. Test files are exempt: they wire fixtures and never ship.
func TestServiceRoleBoundary(t *testing.T) {
	root := moduleRoot(t)
	var problems []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			problems = append(problems, rel+": "+err.Error())
			return nil
		}
		problems = append(problems, checkFile(fset, f, rel, dir)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// checkFile returns the boundary violations in one parsed non-test file
// whose module-relative directory is dir.
func checkFile(fset *token.FileSet, f *ast.File, rel, dir string) []string {
	var problems []string
	inFunctions := dir == "functions" || strings.HasPrefix(dir, "functions/")
	pgName := ""
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == postgrestPath {
			pgName = "postgrest"
			if imp.Name != nil {
				pgName = imp.Name.Name
			}
			if inFunctions && (pgName == "." || pgName == "_") {
				problems = append(problems, rel+": imports gateway/postgrest as "+pgName)
			}
		}
	}
	keyAllowed := allowedDir(dir, serviceKeyAllowed)
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if inFunctions && pgName != "" {
				if id, ok := x.X.(*ast.Ident); ok && id.Name == pgName && !postgrestAllowedInFunctions[x.Sel.Name] {
					problems = append(problems, fset.Position(x.Pos()).String()+": function code uses postgrest."+x.Sel.Name+" (only userclient may build PostgREST clients)")
				}
			}
		case *ast.Ident:
			if !keyAllowed && strings.Contains(strings.ToLower(x.Name), "servicerolekey") {
				problems = append(problems, fset.Position(x.Pos()).String()+": names the service-role key ("+x.Name+")")
			}
		case *ast.BasicLit:
			if !keyAllowed && x.Kind == token.STRING && strings.Contains(x.Value, "SUPABASE_SERVICE_ROLE_KEY") {
				problems = append(problems, fset.Position(x.Pos()).String()+": mentions SUPABASE_SERVICE_ROLE_KEY")
			}
		}
		return true
	})
	return problems
}

// TestServiceRoleBoundaryDetects runs the detector on synthetic files so a
// silently broken walker cannot pass.
func TestServiceRoleBoundaryDetects(t *testing.T) {
	src := `package x
import pg "` + postgrestPath + `"
var c, _ = pg.New(pg.Options{})
var q *pg.Query
var k = "SUPABASE_SERVICE_ROLE_KEY"
type O struct{ ServiceRoleKey string }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := checkFile(fset, f, "functions/x/x.go", "functions/x")
	want := []string{
		"x.go:3:12: function code uses postgrest.New (only userclient may build PostgREST clients)",
		"x.go:3:19: function code uses postgrest.Options (only userclient may build PostgREST clients)",
		"x.go:5:9: mentions SUPABASE_SERVICE_ROLE_KEY",
		"x.go:6:16: names the service-role key (ServiceRoleKey)",
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if got := checkFile(fset, f, "gateway/mcpauth/x.go", "gateway/mcpauth"); len(got) != 0 {
		t.Errorf("mcpauth may name the key and build clients: %v", got)
	}
	if !allowedDir("gateway/cmd/gateway", serviceKeyAllowed) || allowedDir("gateway/mcpauthx", serviceKeyAllowed) || allowedDir("functions/mcptokens", serviceKeyAllowed) ||
		!allowedDir("gateway/config", serviceKeyAllowed) || allowedDir("gateway/configx", serviceKeyAllowed) || allowedDir("functions/mcpserver", serviceKeyAllowed) ||
		allowedDir("gateway/oauthserver", serviceKeyAllowed) || allowedDir("functions/mcpserver/approval", serviceKeyAllowed) {
		t.Error("allowedDir is wrong")
	}
}
