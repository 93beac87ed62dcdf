package minimatch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The differential test compares Match with npm minimatch (pinned in
// testdata/node/package-lock.json) on deterministic, seeded pairs.

const diffPairs = 8000

type pair struct{ pattern, path string }

// token is one glob fragment together with a generator of text it may match,
// so that generated paths hit as well as miss.
type token struct {
	glob string
	text []string
}

var segTokens = []token{
	{"a", []string{"a"}}, {"b", []string{"b"}}, {"x", []string{"x"}},
	{".", []string{"."}}, {"-", []string{"-"}}, {"_", []string{"_"}},
	{"js", []string{"js"}}, {".js", []string{".js"}}, {"1", []string{"1"}},
	{"*", []string{"", "a", "ab", ".a", "x.js", "é"}},
	{"?", []string{"a", ".", "1", "é", "😀"}},
	{"[abc]", []string{"a", "c", "d"}},
	{"[!a]", []string{"a", "b", "."}},
	{"[^a-c]", []string{"b", "z", "^"}},
	{"[a-c]", []string{"b", "-", "d"}},
	{"[[:alpha:]]", []string{"a", "é", "1"}},
	{"[[:digit:]]", []string{"1", "a"}},
	{"[[:upper:][:digit:]]", []string{"A", "1", "a"}},
	{"[]a]", []string{"]", "a"}},
	{"[a-]", []string{"-", "a"}},
	{"[z-a]", []string{"z"}},
	{"[\\]]", []string{"]"}},
	{"[", []string{"["}},
	{"]", []string{"]"}},
	{"{a,b}", []string{"a", "b"}},
	{"{a,}", []string{"a", ""}},
	{"{1..3}", []string{"1", "2", "4"}},
	{"{a..c}", []string{"b"}},
	{"{01..03}", []string{"02", "2"}},
	{"{x,y{1,2}}", []string{"x", "y2"}},
	{"{a}", []string{"{a}", "a"}},
	{"+(a|b)", []string{"a", "abba", ""}},
	{"!(a)", []string{"a", "b", "ab", ""}},
	{"!(*.js)", []string{"a.js", "a.ts"}},
	{"@(a|x)", []string{"a", "x", "ax"}},
	{"*(a|b)", []string{"", "ab", "c"}},
	{"?(a)", []string{"", "a", "aa"}},
	{"+(a|.b)", []string{".b", "a.b"}},
	{"@(", []string{"@("}},
	{"!()", []string{"", "a"}},
	{"\\*", []string{"*", "a"}},
	{"\\[", []string{"["}},
	{"\\", []string{"\\"}},
	{"(", []string{"("}},
	{"|", []string{"|"}},
	{" ", []string{" "}},
	{",", []string{","}},
	{"$", []string{"$"}},
	{"é", []string{"é"}},
}

var wholeSegTokens = []token{
	{"**", []string{"", "a", "a/b", ".a", "a/.b"}},
	{".", []string{"."}},
	{"..", []string{".."}},
	{"", []string{""}},
}

func genPattern(r *rand.Rand) (string, []string) {
	nseg := 1 + r.IntN(4)
	var pat, txt []string
	for range nseg {
		if r.IntN(6) == 0 {
			t := wholeSegTokens[r.IntN(len(wholeSegTokens))]
			pat = append(pat, t.glob)
			txt = append(txt, t.text[r.IntN(len(t.text))])
			continue
		}
		ntok := 1 + r.IntN(3)
		var pb, tb strings.Builder
		for range ntok {
			t := segTokens[r.IntN(len(segTokens))]
			pb.WriteString(t.glob)
			tb.WriteString(t.text[r.IntN(len(t.text))])
		}
		pat = append(pat, pb.String())
		txt = append(txt, tb.String())
	}
	p := strings.Join(pat, "/")
	switch r.IntN(20) {
	case 0:
		p = "!" + p
	case 1:
		p = "#" + p
	case 2:
		p = "/" + p
	case 3:
		p = "!!" + p
	}
	return p, txt
}

var pathSegs = []string{"a", "b", "x", "ab", ".a", "a.js", "x.ts", "1", "", ".", "..", "é", "a b"}

func genPairs(seed uint64, n int) []pair {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []pair
	for len(out) < n {
		p, txt := genPattern(r)
		// a path instantiated from the pattern, and a mutated one
		out = append(out, pair{p, strings.Join(txt, "/")})
		m := append([]string(nil), txt...)
		m[r.IntN(len(m))] = pathSegs[r.IntN(len(pathSegs))]
		if r.IntN(3) == 0 {
			m = append(m, pathSegs[r.IntN(len(pathSegs))])
		}
		out = append(out, pair{p, strings.Join(m, "/")})
		// an unrelated path
		k := 1 + r.IntN(3)
		var rp []string
		for range k {
			rp = append(rp, pathSegs[r.IntN(len(pathSegs))])
		}
		out = append(out, pair{p, strings.Join(rp, "/")})
	}
	return out[:n]
}

// soupChars is a glob-heavy alphabet for the "character soup" generator,
// which stresses parser corner cases the token generator never assembles.
var soupChars = []rune("ab.*?[]!^-{},|()@+\\/:1 é")

func genSoup(seed uint64, n int) []pair {
	r := rand.New(rand.NewPCG(seed, ^seed))
	pathChars := []rune("ab./{}()[]*!-1é")
	var out []pair
	for range n {
		var pb, fb strings.Builder
		for range 1 + r.IntN(14) {
			pb.WriteRune(soupChars[r.IntN(len(soupChars))])
		}
		if r.IntN(2) == 0 {
			// the pattern's own text with some characters replaced
			for _, c := range pb.String() {
				if r.IntN(3) == 0 {
					c = pathChars[r.IntN(len(pathChars))]
				}
				fb.WriteRune(c)
			}
		} else {
			for range r.IntN(8) {
				fb.WriteRune(pathChars[r.IntN(len(pathChars))])
			}
		}
		out = append(out, pair{pb.String(), fb.String()})
	}
	return out
}

// genTree builds nested globs from a small grammar (extglobs inside
// extglobs inside braces), with a text the glob is likely to match. It
// exercises minimatch's extglob flattening and negation plumbing.
func genTree(r *rand.Rand, depth int) (glob, text string) {
	choice := r.IntN(10)
	if depth <= 0 && choice >= 5 {
		choice = r.IntN(5)
	}
	switch choice {
	case 0:
		s := []string{"a", "b", ".", "x", "ab", "-"}[r.IntN(6)]
		return s, s
	case 1:
		return "*", []string{"", "a", "ba", "."}[r.IntN(4)]
	case 2:
		return "?", []string{"a", "."}[r.IntN(2)]
	case 3:
		return "[ab.]", []string{"a", ".", "c"}[r.IntN(3)]
	case 4:
		g1, t1 := genTree(r, depth-1)
		g2, t2 := genTree(r, depth-1)
		return g1 + g2, t1 + t2
	case 5, 6, 7, 8:
		typ := "!?+*@"[r.IntN(5)]
		n := 1 + r.IntN(3)
		var alts []string
		var text string
		for i := range n {
			g, t := genTree(r, depth-1)
			if r.IntN(8) == 0 {
				g, t = "", ""
			}
			alts = append(alts, g)
			if i == 0 || r.IntN(2) == 0 {
				text += t
			}
		}
		return string(typ) + "(" + strings.Join(alts, "|") + ")", text
	default:
		g1, t1 := genTree(r, depth-1)
		g2, _ := genTree(r, depth-1)
		return "{" + g1 + "," + g2 + "}", t1
	}
}

func genTrees(seed uint64, n int) []pair {
	r := rand.New(rand.NewPCG(seed, seed*31+7))
	var out []pair
	for len(out) < n {
		nseg := 1 + r.IntN(2)
		var gs, ts []string
		for range nseg {
			g, t := genTree(r, 3)
			gs = append(gs, g)
			ts = append(ts, t)
		}
		g := strings.Join(gs, "/")
		if r.IntN(4) == 0 {
			g = "x" + g // avoid a leading "!" reading as pattern negation
			ts[0] = "x" + ts[0]
		}
		out = append(out, pair{g, strings.Join(ts, "/")})
		mut := []rune(strings.Join(ts, "/"))
		if len(mut) > 0 {
			mut[r.IntN(len(mut))] = []rune("ab./x")[r.IntN(5)]
		}
		out = append(out, pair{g, string(mut)})
	}
	return out[:n]
}

// nodeOracle runs testdata/node/oracle.js once in the given mode, feeding
// every input as one JSON line, and returns its output lines.
func nodeOracle(t *testing.T, mode string, inputs []any) []string {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Fatal("node and npm are not on PATH: the differential test runs npm minimatch (scripts/install-deps installs them)")
	}
	dir := filepath.Join("testdata", "node")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "minimatch")); err != nil {
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, v := range inputs {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(ctx, node, "oracle.js", mode)
	cmd.Dir = dir
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node oracle: %v\n%s", err, stderr.String())
	}
	var results []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		results = append(results, sc.Text())
	}
	if len(results) != len(inputs) {
		t.Fatalf("node oracle returned %d results for %d inputs", len(results), len(inputs))
	}
	return results
}

func matchOracle(t *testing.T, pairs []pair) []string {
	t.Helper()
	inputs := make([]any, len(pairs))
	for i, p := range pairs {
		inputs[i] = []string{p.pattern, p.path}
	}
	return nodeOracle(t, "match", inputs)
}

func goResult(p pair) string {
	m, err := Compile(p.pattern)
	if err != nil {
		return `"error"`
	}
	return fmt.Sprint(m.Match(p.path))
}

func TestDifferentialAgainstNodeMinimatch(t *testing.T) {
	pairs := genPairs(20260130, diffPairs)
	pairs = append(pairs, genPairs(7, diffPairs)...)
	pairs = append(pairs, genSoup(42, diffPairs)...)
	pairs = append(pairs, genTrees(5, diffPairs)...)
	pairs = append(pairs, handPairs...)
	want := matchOracle(t, pairs)
	mismatches := 0
	counts := map[string]int{}
	for _, w := range want {
		counts[w]++
	}
	t.Logf("minimatch results over %d pairs: %v", len(pairs), counts)
	if counts["true"] < len(pairs)/10 || counts["false"] < len(pairs)/10 {
		t.Errorf("generator is unbalanced: %v", counts)
	}
	for i, p := range pairs {
		if got := goResult(p); got != want[i] {
			mismatches++
			if mismatches <= 50 {
				t.Errorf("Match(%q, %q) = %s, minimatch says %s", p.path, p.pattern, got, want[i])
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d of %d pairs differ from minimatch", mismatches, len(pairs))
	}
}

// handPairs are fixed cases worth checking against node on every run.
var handPairs = []pair{
	{"*.java", "Main.java"}, {"*.java", "src/Main.java"},
	{"src/**/*.py", "src/a.py"}, {"src/**/*.py", "src/x/y/a.py"},
	{"**", ".github/workflows/x.yml"}, {"**/*.md", "docs/.hidden/a.md"},
	{".*", ".gitignore"}, {"*", ".gitignore"}, {"a/**", "a"}, {"a/**", "a/"},
	{"**/x/**/.eslintrc", "a/x/b/.eslintrc"}, {"**/.eslintrc", "a/.eslintrc"},
	{"a/../b", "b"}, {"a/./b", "a/b"}, {"a//b", "a/b"},
	{"{a,b}/{c,d}", "b/c"}, {"{1..10..3}", "7"}, {"{a,b{,c}", "a"},
	{"${a,b}", "${a,b}"}, {"{},a}b", "{},a}b"}, {"a{},b}c", "a}c"},
	{"!(*.test).js", "a.js"}, {"!(*.test).js", "a.test.js"},
	{"[[:alpha:]]*", "éa"}, {"[[:space:]]", " "}, {"[[:punct:]]", "!"},
	{"[[:xdigit:]]", "f"}, {"[[:graph:]]", "a"}, {"[[:print:]]", "a"},
	{"@()", "@()"}, {"*()", "*()"}, {"?()", "?()"}, {"a*()", "a"},
	{"+(*)", ".a"}, {"*(?)", "x.y"}, {"!(!(a))", "a"}, {"@(!(a))", "b"},
	{"?", "😀"}, {"??", "😀"}, {"[[:alpha:]]", "😀"},
	{"\\", "\\"}, {"a\\", "a\\"}, {"[\\^a]", "b"},
	{"#", ""}, {"", ""}, {"!", ""}, {"!", "a"},
}

// segmentResult renders toMMPattern's result the way oracle.js does.
func segmentResult(glob string) string {
	mm := fromGlob(glob).toMMPattern()
	var v any
	switch {
	case !mm.isRegex:
		v = map[string]string{"lit": mm.literal}
	default:
		if _, err := compileJSRegexp("^"+mm.source+"$", mm.uflag); err != nil {
			return `"error"`
		}
		v = struct {
			Re string `json:"re"`
			U  bool   `json:"u"`
		}{mm.source, mm.uflag}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// TestSegmentCompilerAgainstNode checks that the ported segment compiler
// emits byte-identical regular-expression source to minimatch's.
func TestSegmentCompilerAgainstNode(t *testing.T) {
	seen := map[string]bool{}
	var globs []string
	add := func(g string) {
		for _, seg := range strings.Split(g, "/") {
			if seg != "" && !seen[seg] {
				seen[seg] = true
				globs = append(globs, seg)
			}
		}
	}
	for _, p := range genPairs(99, 6000) {
		add(p.pattern)
	}
	for _, p := range genSoup(100, 6000) {
		add(p.pattern)
	}
	for _, p := range genTrees(101, 6000) {
		add(p.pattern)
	}
	for _, p := range handPairs {
		add(p.pattern)
	}
	for _, tc := range featureCases {
		add(tc.pattern)
	}
	inputs := make([]any, len(globs))
	for i, g := range globs {
		inputs[i] = g
	}
	want := nodeOracle(t, "segment", inputs)
	mismatches := 0
	for i, g := range globs {
		got := segmentResult(g)
		// JSON from node escapes non-ASCII differently only for lone
		// surrogates, which Go strings cannot hold; compare decoded values.
		var gv, wv any
		_ = json.Unmarshal([]byte(got), &gv)
		_ = json.Unmarshal([]byte(want[i]), &wv)
		if diff := cmp.Diff(wv, gv); diff != "" {
			mismatches++
			if mismatches <= 30 {
				t.Errorf("segment %q: got %s, minimatch %s", g, got, want[i])
			}
		}
	}
	t.Logf("compared %d segment globs", len(globs))
}
