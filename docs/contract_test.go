package docs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// This file is excluded from the scan: its test cases cite sections that do
// not exist on purpose. They spell the references the scan refuses through
// expand, so that a plain git grep for stray references finds nothing here
// either.
const selfPath = "docs/contract_test.go"

// contractDocs are the documents code cites, without their extension.
var contractDocs = []string{"protocol", "tools", "schema", "github", "callers"}

// expand writes out the placeholders of TestChecker's cases.
var expand = strings.NewReplacer(
	"{tools}", "tools"+".md",
	"{protocol}", "protocol"+".md",
	"{old home}", "/wor"+"k/shared"+"/spec",
	"{parent}", "../sha"+"red",
).Replace

// contractDir holds the behaviour contract; code cites its five documents
// as "docs/contract/<name> <section>".
const contractDir = "docs/contract"

// TestReferencesStayInRepository scans every tracked text file (Go, SQL,
// Markdown, scripts, YAML; testdata and node_modules excepted, since they
// hold inputs and outputs rather than references) and fails on:
//
//   - a contract document named without a path that reaches it (a bare
//     document name in Go code), or any path to one that does not exist;
//   - a path of a developer's machine or of the contract's old home
//     outside the repository;
//   - a citation "docs/contract/<doc> <section>" whose section (A7, Part D,
//     §2.14, "§4 quirk 9", ranges and lists of them) is not a heading, or
//     quirk, of that document;
//   - a bare "§N" in a file that names no contract document, or whose
//     section exists in none of the documents the file names (standards are
//     exempt when cited with their number, as in "RFC 6750 §3.1");
//   - a relative Markdown link to a missing file or a missing heading.
func TestReferencesStayInRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found above docs/: %v", err)
	}
	files := listFiles(t, root)
	for _, name := range append([]string{"README"}, contractDocs...) {
		if _, ok := files[contractDir+"/"+name+".md"]; !ok {
			t.Errorf("%s/%s.md is missing", contractDir, name)
		}
	}
	c := newChecker(files, func(rel string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	})
	scanned := 0
	for _, rel := range sortedKeys(files) {
		if rel == selfPath || !scannable(rel) {
			continue
		}
		content, err := c.read(rel)
		if err != nil || bytes.IndexByte(content, 0) >= 0 {
			continue // deleted in the work tree, or binary
		}
		scanned++
		for _, p := range c.check(rel, content) {
			t.Errorf("%s:%d: %s", rel, p.line, p.msg)
		}
	}
	if scanned < 100 {
		t.Errorf("scanned only %d files; the file listing is broken", scanned)
	}
}

// TestChecker pins what the scan accepts and refuses, so a regression in
// the checker cannot pass silently as "no problems found".
func TestChecker(t *testing.T) {
	docs := map[string]string{
		"docs/contract/{protocol}": "# P\n## Part A — x\n### A7. Auth\n#### A3.1 Methods\n## Part D — y\n",
		"docs/contract/{tools}":    "# T\n## 1. Shared\n### 1.9 Repos\n### 2.14 `get_assignment`\n## 4. Quirks\n| # | q |\n|---|---|\n| 9 | order |\n```sh\n# not a heading\n```\n",
		"docs/contract/README.md":  "# Contract\nSee [tools]({tools}#19-repos) and [P]({protocol}#a7-auth).\n",
		"docs/other.md":            "x",
	}
	files := map[string]bool{"go.mod": true, "docs/other.md": true, "gateway/x.go": true}
	for p := range docs {
		files[expand(p)] = true
	}
	c := newChecker(files, func(rel string) ([]byte, error) {
		for p, s := range docs {
			if expand(p) == rel {
				return []byte(expand(s)), nil
			}
		}
		return nil, fs.ErrNotExist
	})
	cases := []struct {
		name, file, text string
		want             []string // substrings of the problems, in order
	}{
		{"in-repo citation", "gateway/x.go", "// see docs/contract/{protocol} A7 steps 1–2", nil},
		{"lists and ranges", "gateway/x.go", "// docs/contract/{tools} §1.9, §2.14 and §1–§4; docs/contract/{protocol} A7, A3.1, Part D", nil},
		{"range without second §", "x.sql", "-- (docs/contract/{tools} §1.9–2.14)", nil},
		{"quirk", "gateway/x.go", "// docs/contract/{tools} §4 quirk 9", nil},
		{"whole document", "gateway/x.go", "// (docs/contract/{tools}, docs/contract/{protocol})", nil},
		{"bare name", "gateway/x.go", "// see {tools} §1.9", []string{`"{tools}" is not in the repository`}},
		{"wrong prefix", "gateway/x.go", "// see contract/{tools}", []string{`"contract/{tools}" is not in the repository`}},
		{"missing section", "gateway/x.go", "// docs/contract/{tools} §3", []string{"docs/contract/{tools} has no section §3"}},
		{"missing protocol section", "gateway/x.go", "// docs/contract/{protocol} A7, A99", []string{"docs/contract/{protocol} has no section A99"}},
		{"missing quirk", "gateway/x.go", "// docs/contract/{tools} §4 quirks 9 and 17", []string{"docs/contract/{tools} has no section quirk 17"}},
		{"machine path", "scripts/x.sh", "# cat {old home}/{tools}", []string{"outside the repository", `"{old home}/{tools}"`}},
		{"parent path", "gateway/x.go", "// {parent}/notes", []string{"outside the repository"}},
		{"bare § with a document", "gateway/x.go", "// docs/contract/{tools} §1.9\n// then §2.14", nil},
		{"bare § missing", "gateway/x.go", "// docs/contract/{tools} §1.9\n// then §7.7", []string{"§7.7 is not a section of docs/contract/{tools}"}},
		{"bare § without a document", "gateway/x.go", "// as §2.14 says", []string{"§2.14 names no document"}},
		{"standards are exempt", "gateway/x.go", "// RFC 6750 §3.1 and JSON-RPC 2.0 §5.1", nil},
		{"sibling links in the contract", "docs/contract/README.md", "[t]({tools}#214-get_assignment) [p](./{protocol}) [o](../other.md) [w](https://example.com/x.md)", nil},
		{"sibling bare § in the contract", "docs/contract/{tools}", "see §2.14 and [{protocol} A3.1]({protocol}#a31-methods)", nil},
		{"broken anchor", "docs/contract/README.md", "[t]({tools}#3-nothing)", []string{`no heading "#3-nothing"`}},
		{"code-fence comment is no heading", "docs/contract/README.md", "[t]({tools}#not-a-heading)", []string{`no heading "#not-a-heading"`}},
		{"missing link target", "docs/other.md", "[x](missing.md)", []string{`link "missing.md": docs/missing.md is not in the repository`}},
		{"link out of the repository", "docs/other.md", "[x](../../elsewhere.md)", []string{"outside the repository"}},
		{"same-file anchor", "docs/contract/README.md", "# Contract\n[here](#contract)", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range c.check(expand(tc.file), []byte(expand(tc.text))) {
				got = append(got, p.msg)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems = %q, want %d matching %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if w = expand(w); !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"A6.1 GET: the server-to-client stream": "a61-get-the-server-to-client-stream",
		"2.14 `get_assignment`":                 "214-get_assignment",
		"Part A — mcp-server":                   "part-a--mcp-server",
		"Database (`supabase/migrations`)":      "database-supabasemigrations",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// listFiles returns the repository's files (tracked plus untracked but not
// ignored, so a new document counts before it is committed) and the
// directories holding them. Without git (an exported tree) it walks.
func listFiles(t *testing.T, root string) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err == nil {
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files[f] = true
			}
		}
	} else {
		t.Logf("git ls-files: %v; walking the tree instead", err)
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				files[filepath.ToSlash(rel)] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// scannable reports whether rel is a text file that may carry references.
func scannable(rel string) bool {
	if strings.Contains("/"+rel, "/testdata/") || strings.Contains("/"+rel, "/node_modules/") {
		return false
	}
	switch path.Base(rel) {
	case "go.sum", "package-lock.json":
		return false
	case "Dockerfile":
		return true
	}
	switch path.Ext(rel) {
	case ".go", ".md", ".sql", ".sh", ".yaml", ".yml", ".toml", ".json", ".js", ".mjs", ".ts", ".txt", ".conf", ".env", ".example":
		return true
	case "":
		return true // scripts such as scripts/dev and .ci/run; binaries are skipped by content
	}
	return false
}

type problem struct {
	line int
	msg  string
}

// document is a contract document's citable sections and a Markdown
// file's heading anchors.
type document struct {
	ids     map[string]bool // "A7", "Part D", "§2.14", "quirk 9"
	anchors map[string]bool // GitHub heading slugs
}

type checker struct {
	files map[string]bool // repository files
	dirs  map[string]bool // and their directories
	read  func(rel string) ([]byte, error)
	docs  map[string]*document
}

func newChecker(files map[string]bool, read func(string) ([]byte, error)) *checker {
	dirs := map[string]bool{".": true}
	for f := range files {
		for d := path.Dir(f); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	return &checker{files: files, dirs: dirs, read: read, docs: map[string]*document{}}
}

func (c *checker) exists(rel string) bool { return c.files[rel] || c.dirs[rel] }

// doc parses (once) the Markdown file rel; nil when it cannot be read.
func (c *checker) doc(rel string) *document {
	if d, ok := c.docs[rel]; ok {
		return d
	}
	var d *document
	if content, err := c.read(rel); err == nil {
		d = parseDocument(string(content))
	}
	c.docs[rel] = d
	return d
}

var (
	headingRe  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	partRe     = regexp.MustCompile(`^Part ([A-Z])\b`)
	letterIDRe = regexp.MustCompile(`^([A-Z]\d+(?:\.\d+)?)\b`)
	numberIDRe = regexp.MustCompile(`^(\d+(?:\.\d+)*)\.?(?:\s|$)`)
	quirkRowRe = regexp.MustCompile(`^\|\s*(\d+)\s*\|`)
)

func parseDocument(content string) *document {
	d := &document{ids: map[string]bool{}, anchors: map[string]bool{}}
	seen := map[string]int{}
	fenced, inQuirks := false, false
	for _, line := range strings.Split(content, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := headingRe.FindStringSubmatch(line); m != nil {
			text := m[1]
			s := slug(text)
			if n := seen[s]; n > 0 {
				d.anchors[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				d.anchors[s] = true
			}
			seen[s]++
			switch {
			case partRe.MatchString(text):
				d.ids["Part "+partRe.FindStringSubmatch(text)[1]] = true
			case letterIDRe.MatchString(text):
				d.ids[letterIDRe.FindStringSubmatch(text)[1]] = true
			case numberIDRe.MatchString(text):
				d.ids["§"+numberIDRe.FindStringSubmatch(text)[1]] = true
			}
			inQuirks = strings.Contains(strings.ToLower(text), "quirk")
			continue
		}
		if m := quirkRowRe.FindStringSubmatch(line); inQuirks && m != nil {
			d.ids["quirk "+m[1]] = true
		}
	}
	return d
}

// slug is GitHub's heading anchor: lower case, spaces to hyphens, every
// character but letters, digits, "-" and "_" dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	// A path-like token ending in one of the contract's document names.
	docRefRe = regexp.MustCompile(`[\w./-]*(?:protocol|tools|schema|github|callers)\.md\b`)
	// Places that are not in the repository: the contract's old home and
	// developers' machines.
	outsideRe = regexp.MustCompile(`(?:\.\./)+shared\b[\w./-]*|[\w./-]*\bshared/spe[c]\b[\w./-]*|(?:^|[^\w.-])(/wor[k]/[\w./-]*)|/Users/\w[\w./-]*|file:///[\w./-]*`)
	sectionRe = regexp.MustCompile(`^(?:Part [A-Z]\b|[A-Z]\d+(?:\.\d+)?\b|§\s?\d+(?:\.\d+)*)`)
	rangeEnd  = regexp.MustCompile(`^\d+(?:\.\d+)*`)
	sepRe     = regexp.MustCompile(`^(?:,\s*|\s+and\s+|\s*[–/]\s*|\s*-\s*)`)
	quirkRe   = regexp.MustCompile(`^\s+quirks?\s+(\d+)((?:(?:,\s*|\s+and\s+|\s*[–-]\s*)\d+)*)`)
	numbersRe = regexp.MustCompile(`\d+`)
	bareSecRe = regexp.MustCompile(`§\s?(\d+(?:\.\d+)*)`)
	linkRe    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	schemeRe  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

type span struct{ from, to int }

// check returns the problems of one file.
func (c *checker) check(rel string, content []byte) []problem {
	var out []problem
	lines := strings.Split(string(content), "\n")
	dir := path.Dir(rel)
	inContract := path.Dir(rel) == contractDir

	// First pass: which contract documents the file names, for bare §.
	scope := map[string]bool{}
	if inContract && path.Base(rel) != "README.md" {
		scope[rel] = true
	}
	for _, line := range lines {
		for _, m := range docRefRe.FindAllString(line, -1) {
			if target := c.resolve(dir, m); strings.HasPrefix(target, contractDir+"/") {
				scope[target] = true
			}
		}
	}

	for i, line := range lines {
		n := i + 1
		var cited []span
		for _, loc := range outsideRe.FindAllStringSubmatchIndex(line, -1) {
			from, to := loc[0], loc[1]
			if loc[2] >= 0 {
				from, to = loc[2], loc[3]
			}
			out = append(out, problem{n, fmt.Sprintf("%q points outside the repository; cite the in-repository copy (docs/contract/…)", line[from:to])})
		}
		for _, loc := range docRefRe.FindAllStringIndex(line, -1) {
			ref := line[loc[0]:loc[1]]
			if loc[0] > 0 && line[loc[0]-1] == '/' {
				continue // the tail of a URL or path already reported above
			}
			target := c.resolve(dir, ref)
			ids, end := parseSections(line[loc[1]:])
			cited = append(cited, span{loc[0], loc[1] + end})
			if target == "" {
				out = append(out, problem{n, fmt.Sprintf("%q is not in the repository; cite %s/%s", ref, contractDir, path.Base(ref))})
				continue
			}
			if !strings.HasPrefix(target, contractDir+"/") {
				continue
			}
			d := c.doc(target)
			for _, id := range ids {
				if d == nil || !d.ids[id] {
					out = append(out, problem{n, fmt.Sprintf("%s has no section %s", target, id)})
				}
			}
		}
		for _, loc := range bareSecRe.FindAllStringSubmatchIndex(line, -1) {
			if within(cited, loc[0]) || standardBefore(line[:loc[0]]) {
				continue
			}
			id := "§" + line[loc[2]:loc[3]]
			if len(scope) == 0 {
				out = append(out, problem{n, fmt.Sprintf("%s names no document; write docs/contract/<doc>.md %s (or the standard's name and number)", id, id)})
				continue
			}
			found := false
			for target := range scope {
				if d := c.doc(target); d != nil && d.ids[id] {
					found = true
				}
			}
			if !found {
				out = append(out, problem{n, fmt.Sprintf("%s is not a section of %s", id, strings.Join(sortedKeys(scope), " or "))})
			}
		}
		if path.Ext(rel) == ".md" {
			out = append(out, c.checkLinks(rel, dir, content, line, n)...)
		}
	}
	return out
}

// checkLinks checks the relative Markdown links of one line.
func (c *checker) checkLinks(rel, dir string, content []byte, line string, n int) []problem {
	var out []problem
	for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
		target := m[1]
		if schemeRe.MatchString(target) {
			continue
		}
		file, anchor, _ := strings.Cut(target, "#")
		resolved := rel
		if file != "" {
			resolved = path.Join(dir, file)
			if resolved == ".." || strings.HasPrefix(resolved, "../") || path.IsAbs(file) {
				out = append(out, problem{n, fmt.Sprintf("link %q points outside the repository", target)})
				continue
			}
			if !c.exists(resolved) {
				out = append(out, problem{n, fmt.Sprintf("link %q: %s is not in the repository", target, resolved)})
				continue
			}
		}
		if anchor == "" || path.Ext(resolved) != ".md" {
			continue
		}
		var d *document
		if file == "" {
			d = parseDocument(string(content))
		} else {
			d = c.doc(resolved)
		}
		if d == nil || !d.anchors[anchor] {
			out = append(out, problem{n, fmt.Sprintf("link %q: %s has no heading %q", target, resolved, "#"+anchor)})
		}
	}
	return out
}

// resolve maps a reference to a repository file, relative to the
// repository root or to the citing file's directory; "" when neither holds
// it.
func (c *checker) resolve(dir, ref string) string {
	if path.IsAbs(ref) {
		return ""
	}
	for _, p := range []string{path.Clean(ref), path.Join(dir, ref)} {
		if !strings.HasPrefix(p, "../") && c.files[p] {
			return p
		}
	}
	return ""
}

// parseSections reads the section ids that follow a document name: "A7",
// "§2.14", "Part D", lists ("A7, A11", "§1 and §2"), ranges ("§1.1–§1.5",
// "§2.1–2.2") and "§4 quirk 9". It returns the ids and how many bytes of
// rest they span.
func parseSections(rest string) ([]string, int) {
	i := 0
	if strings.HasPrefix(rest, "`") {
		i++
	}
	ws := len(rest[i:]) - len(strings.TrimLeft(rest[i:], " "))
	if ws == 0 {
		return nil, 0
	}
	var ids []string
	pos, end := i+ws, 0
	afterRange := false
	for {
		var id string
		if m := sectionRe.FindString(rest[pos:]); m != "" {
			id = strings.Replace(m, "§ ", "§", 1)
			pos += len(m)
		} else if m := rangeEnd.FindString(rest[pos:]); m != "" && afterRange {
			id = "§" + m
			pos += len(m)
		} else {
			break
		}
		ids = append(ids, id)
		end = pos
		if strings.HasPrefix(id, "§") {
			if q := quirkRe.FindStringSubmatch(rest[pos:]); q != nil {
				for _, num := range numbersRe.FindAllString(q[1]+" "+q[2], -1) {
					ids = append(ids, "quirk "+num)
				}
				pos += len(q[0])
				end = pos
			}
		}
		sep := sepRe.FindString(rest[pos:])
		if sep == "" {
			break
		}
		afterRange = strings.ContainsAny(sep, "–-") && strings.HasPrefix(id, "§")
		pos += len(sep)
	}
	return ids, end
}

// standardBefore reports whether the text before a "§" ends with a number,
// as in "RFC 6750 §3.1", "JSON-RPC 2.0 §5.1": a standard, not the contract.
func standardBefore(before string) bool {
	before = strings.TrimRight(before, " ")
	return before != "" && unicode.IsDigit(rune(before[len(before)-1]))
}

func within(spans []span, at int) bool {
	for _, s := range spans {
		if at >= s.from && at < s.to {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
