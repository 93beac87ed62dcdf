package minimatch

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// featureCases pin minimatch v9 behaviour per feature. Every case is also
// checked against npm minimatch by TestFeatureTableAgainstNode.
var featureCases = []struct {
	feature string
	pattern string
	match   []string
	noMatch []string
}{
	{"star stays in a segment", "*.java",
		[]string{"Main.java", ".java.java"[1:]},
		[]string{"src/Main.java", ".Main.java", "Main.jav", ""}},
	{"star alone needs a character", "*",
		[]string{"a", "a.b"},
		[]string{"", ".a", "a/b", "a/"[2:]}},
	{"question mark is one UTF-16 unit", "?.txt",
		[]string{"a.txt", "é.txt"},
		[]string{".txt", "ab.txt", "😀.txt", "/.txt"}},
	{"globstar matches zero or more directories", "src/**/*.py",
		[]string{"src/a.py", "src/x/a.py", "src/x/y/a.py"},
		[]string{"a.py", "src/.x/a.py", "src/x/.a.py", "other/src/a.py"}},
	{"globstar alone (also matches the empty path)", "**",
		[]string{"a", "a/b/c", ""},
		[]string{".a", "a/.b/c"}},
	{"globstar needs a whole segment", "a**b",
		[]string{"ab", "axxb"},
		[]string{"a/b", "ax/yb"}},
	{"trailing globstar needs something", "a/**",
		[]string{"a/b", "a/b/c"},
		[]string{"a", "a/.b"}},
	{"dot files need a literal dot", ".*",
		[]string{".gitignore", ".a"},
		[]string{"a", ".", ".."}},
	{"dot segment in pattern", "src/.config/*",
		[]string{"src/.config/x"},
		[]string{"src/config/x"}},
	{"brace list", "{src,test}/*.{js,ts}",
		[]string{"src/a.js", "test/b.ts"},
		[]string{"lib/a.js", "src/a.jsx"}},
	{"brace numeric sequence", "file{1..3}.txt",
		[]string{"file1.txt", "file3.txt"},
		[]string{"file4.txt", "file{1..3}.txt"}},
	{"brace padded and stepped", "x{01..10..3}",
		[]string{"x01", "x04", "x10"},
		[]string{"x1", "x02"}},
	{"brace alpha sequence", "{a..c}",
		[]string{"a", "b", "c"},
		[]string{"d", "{a..c}"}},
	{"single brace item is literal", "{a}",
		[]string{"{a}"},
		[]string{"a"}},
	{"extglob one or more", "+(a|b).txt",
		[]string{"a.txt", "abba.txt"},
		[]string{".txt", "c.txt"}},
	{"extglob zero or more", "x*(a|b)",
		[]string{"x", "xab"},
		[]string{"xc"}},
	{"extglob zero or one", "x?(a)",
		[]string{"x", "xa"},
		[]string{"xaa"}},
	{"extglob exactly one", "@(foo|bar).c",
		[]string{"foo.c", "bar.c"},
		[]string{"foobar.c", ".c"}},
	// A leading "!" negates the whole pattern, so an extglob negation is
	// tested after a directory.
	{"extglob negation", "lib/!(*.test).js",
		[]string{"lib/a.js", "lib/b.spec.js"},
		[]string{"lib/a.test.js", "lib/.a.js", "lib/a.ts"}},
	{"leading !( is pattern negation", "!(*.test).js",
		[]string{"a.ts", "a/b.js"},
		[]string{"(a.test).js"}},
	{"extglob negation whole segment", "src/!(vendor)/*.c",
		[]string{"src/lib/a.c", "src/vendors/a.c"},
		[]string{"src/vendor/a.c", "src/.git/a.c"}},
	{"posix alpha is Unicode", "[[:alpha:]]*",
		[]string{"abc", "épée"},
		[]string{"1abc", "_x"}},
	{"posix digit and upper", "[[:upper:]][[:digit:]]",
		[]string{"A1"},
		[]string{"a1", "AA"}},
	{"posix space and punct", "[[:space:]][[:punct:]]",
		[]string{" !", "\t."},
		[]string{"x!", " x"}},
	{"bracket range and negation", "[a-c][!x]",
		[]string{"ay", "cz"},
		[]string{"dy", "ax", "a/"}},
	{"reversed range matches nothing", "[z-a]",
		nil,
		[]string{"a", "z", "[z-a]"}},
	{"unclosed bracket is literal", "a[b",
		[]string{"a[b"},
		[]string{"ab"}},
	{"escapes", `\*\?.txt`,
		[]string{"*?.txt"},
		[]string{"a?.txt", "ab.txt"}},
	{"negated pattern", "!*.md",
		[]string{"a.txt", "docs/a.md", ".md"},
		[]string{"README.md"}},
	{"double negation", "!!*.md",
		[]string{"README.md"},
		[]string{"a.txt"}},
	{"comment matches nothing", "#*.md",
		nil,
		[]string{"#a.md", "a.md", ""}},
	{"case-sensitive", "README.md",
		[]string{"README.md"},
		[]string{"readme.md"}},
	{"slashes collapse", "a//b",
		[]string{"a/b", "a//b"},
		[]string{"ab"}},
	{"dot-dot resolves in the pattern", "a/../b",
		[]string{"b"},
		[]string{"a/../b"}},
	{"leading slash", "/a",
		[]string{"/a"},
		[]string{"a"}},
	{"empty pattern matches only the empty path", "",
		[]string{""},
		[]string{"a"}},
}

func TestFeatures(t *testing.T) {
	for _, tc := range featureCases {
		t.Run(tc.feature, func(t *testing.T) {
			m, err := Compile(tc.pattern)
			if err != nil {
				t.Fatalf("Compile(%q): %v", tc.pattern, err)
			}
			var gotMatch, gotNoMatch []string
			for _, p := range append(append([]string(nil), tc.match...), tc.noMatch...) {
				if m.Match(p) {
					gotMatch = append(gotMatch, p)
				} else {
					gotNoMatch = append(gotNoMatch, p)
				}
				if Match(p, tc.pattern) != m.Match(p) {
					t.Errorf("Match and Compile disagree on %q", p)
				}
			}
			if diff := cmp.Diff(tc.match, gotMatch); diff != "" {
				t.Errorf("pattern %q matches (-want +got):\n%s", tc.pattern, diff)
			}
			if diff := cmp.Diff(tc.noMatch, gotNoMatch); diff != "" {
				t.Errorf("pattern %q non-matches (-want +got):\n%s", tc.pattern, diff)
			}
		})
	}
}

func TestFeatureTableAgainstNode(t *testing.T) {
	var pairs []pair
	var want []string
	for _, tc := range featureCases {
		for _, p := range tc.match {
			pairs = append(pairs, pair{tc.pattern, p})
			want = append(want, "true")
		}
		for _, p := range tc.noMatch {
			pairs = append(pairs, pair{tc.pattern, p})
			want = append(want, "false")
		}
	}
	got := matchOracle(t, pairs)
	for i, p := range pairs {
		if got[i] != want[i] {
			t.Errorf("table says Match(%q, %q) = %s but minimatch says %s", p.path, p.pattern, want[i], got[i])
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		want    error
	}{
		{"too long", strings.Repeat("a", MaxPatternLength+1), ErrPatternTooLong},
		{"too many expansions", strings.Repeat("{a,b}", 11), ErrTooManyExpansions},
		{"too long a sequence", "{1..5000}", ErrTooManyExpansions},
		// minimatch throws: the u flag (from a POSIX class) rejects \-.
		{"invalid regex under u flag", "[[:alpha:]]-x", ErrRegexSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.pattern)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Compile error = %v, want %v", err, tt.want)
			}
			if Match("a", tt.pattern) {
				t.Errorf("Match with an invalid pattern = true")
			}
		})
	}
	if _, err := Compile(strings.Repeat("a", MaxPatternLength)); err != nil {
		t.Errorf("pattern at the length cap: %v", err)
	}
	if _, err := Compile(strings.Repeat("{a,b}", 10)); err != nil {
		t.Errorf("1024 expansions (the cap): %v", err)
	}
}

func TestLongPathNeverMatches(t *testing.T) {
	long := strings.Repeat("a/", MaxPathLength/2) + "x"
	if Match(long, "**") {
		t.Errorf("a path over MaxPathLength matched")
	}
}

// hangDeadline is how long a single match may take before a test calls it
// a hang. The inputs below need far more than 2^30 steps in a backtracking
// engine (never finishing in practice) and milliseconds in this one, so the
// deadline only has to sit between the two, with room for a busy machine
// under -race.
const hangDeadline = time.Minute

// TestPathologicalPatternsAreFast guards against catastrophic matching:
// each of these takes exponential time in a backtracking engine.
func TestPathologicalPatternsAreFast(t *testing.T) {
	tests := []struct{ pattern, path string }{
		{strings.Repeat("*a", 30) + "b", strings.Repeat("a", 200)},
		{strings.Repeat("+(a|aa)", 10) + "b", strings.Repeat("a", 200)},
		{"*(*(*(a|b)))c", strings.Repeat("ab", 100)},
		{strings.Repeat("!(a)", 10), strings.Repeat("a", 100)},
		{strings.Repeat("**/a/", 40) + "b", strings.Repeat("a/", 200) + "c"},
	}
	for _, tt := range tests {
		done := make(chan struct{})
		go func() {
			defer close(done)
			Match(tt.path, tt.pattern)
		}()
		select {
		case <-done:
		case <-time.After(hangDeadline):
			t.Fatalf("Match(%d-char path, %q) did not finish within %v", len(tt.path), tt.pattern, hangDeadline)
		}
	}
}

func FuzzMatch(f *testing.F) {
	for _, tc := range featureCases {
		for _, p := range append(tc.match, tc.noMatch...) {
			f.Add(tc.pattern, p)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 256 || len(path) > 256 {
			return // keep each input fast; caps are tested separately
		}
		start := time.Now()
		m, err := Compile(pattern)
		if err == nil {
			got := m.Match(path)
			if got != Match(path, pattern) {
				t.Fatalf("Compile(%q).Match(%q) and Match disagree", pattern, path)
			}
			if again := m.Match(path); again != got {
				t.Fatalf("Match(%q, %q) is not deterministic", path, pattern)
			}
		}
		if d := time.Since(start); d > hangDeadline {
			t.Fatalf("Match(%q, %q) took %v", path, pattern, d)
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	paths := []string{"src/main/java/App.java", "src/test/AppTest.java", "README.md", "build/classes/App.class", ".github/workflows/ci.yml"}
	for _, pattern := range []string{"**/*.java", "src/{main,test}/**/*.java", "!(build)/**", "**/[[:upper:]]*.md"} {
		m, err := Compile(pattern)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(pattern, func(b *testing.B) {
			for b.Loop() {
				for _, p := range paths {
					m.Match(p)
				}
			}
		})
	}
}
