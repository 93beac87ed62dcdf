// Package minimatch matches slash-separated paths against glob patterns with
// the exact semantics of npm minimatch v9 called as minimatch(path, pattern)
// with default options: no matchBase, dot off, "**" segments, brace
// expansion ({a,b}, {1..3}), extglobs (+(a|b), !(x), @(), *(), ?()), POSIX
// classes ([[:alpha:]]), leading "!" negation, "#" comments, case-sensitive,
// "/" as the only separator.
//
// It is a port rather than a translation to Go regexps: minimatch compiles
// each path segment to a JavaScript regular expression that relies on
// negative lookahead, which RE2 lacks. This package ports minimatch's
// segment compiler verbatim and runs the resulting expressions on a small
// memoising interpreter (regex.go) whose cost is polynomial, so no pattern
// can cause catastrophic backtracking. The ported functions (expand,
// matchGlobstar, parseClass, toRegExpSource) keep minimatch's and
// brace-expansion's shape, one Go function per JavaScript one, although
// four of them pass 80 lines: a reader checks the port against upstream
// side by side, which splitting them would make harder.
//
// Known divergences, all outside what real path globs use: astral-plane
// characters (outside the Basic Multilingual Plane) inside bracket
// expressions are treated as one character (minimatch sees two UTF-16
// halves), JavaScript regex escapes that minimatch never generates from a
// glob (\b, \1, \c…, \u…) are rejected, and the caps below apply (a
// pattern over a cap is an error; a segment test that exceeds the
// interpreter's work budget reports no match).
package minimatch

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Caps. minimatch itself allows patterns of 65 536 UTF-16 units and brace
// expansion up to 100 000 results / 4 000 000 characters (brace-expansion's
// defaults). Tool arguments never need that much, and every expansion is
// compiled, so the caps here are tighter; a pattern over a cap is an error
// from Compile and never matches in Match.
const (
	// MaxPatternLength is the longest accepted pattern, in bytes.
	MaxPatternLength = 4096
	// MaxExpansions is the most patterns brace expansion may produce.
	MaxExpansions = 1024
	// MaxExpandedLength caps the total bytes of all brace expansions.
	MaxExpandedLength = 256 * 1024
	// MaxPathLength is the longest path Match considers; longer paths
	// never match (GitHub paths are far shorter).
	MaxPathLength = 4096
	// maxMatchSteps bounds the interpreter's work for one segment test.
	maxMatchSteps = 1 << 22
	// maxGlobstarRecursion is minimatch's options.maxGlobstarRecursion default.
	maxGlobstarRecursion = 200
)

// Errors returned by Compile.
var (
	// ErrPatternTooLong reports a pattern longer than MaxPatternLength.
	ErrPatternTooLong = errors.New("minimatch: pattern is too long")
	// ErrTooManyExpansions reports brace expansion beyond MaxExpansions or
	// MaxExpandedLength.
	ErrTooManyExpansions = errors.New("minimatch: brace expansion too large")
)

type segKind uint8

const (
	segLiteral segKind = iota
	segGlobstar
	segRegex
)

// segment is one element of minimatch's `set`: a string, GLOBSTAR or a
// RegExp (possibly with a fast test replacing RegExp.test).
type segment struct {
	kind segKind
	lit  string
	re   *jsRegexp
	fast func(string) bool
}

// Matcher is a compiled pattern; it is immutable and safe for concurrent use.
type Matcher struct {
	pattern string
	negate  bool
	comment bool
	empty   bool
	set     [][]segment
}

// Match reports whether path matches pattern, exactly like
// minimatch(path, pattern) from npm minimatch v9 with default options.
// Patterns that minimatch would reject with an exception, and patterns or
// paths beyond the caps, do not match.
func Match(path, pattern string) bool {
	m, err := Compile(pattern)
	if err != nil {
		return false
	}
	return m.Match(path)
}

// String returns the pattern the Matcher was compiled from.
func (m *Matcher) String() string { return m.pattern }

// Compile parses pattern once so that many paths can be matched against it.
// The error wraps ErrPatternTooLong, ErrTooManyExpansions or ErrRegexSyntax
// (a pattern for which minimatch's RegExp constructor would throw).
func Compile(pattern string) (*Matcher, error) {
	if len(pattern) > MaxPatternLength {
		return nil, ErrPatternTooLong
	}
	m := &Matcher{pattern: pattern}
	if strings.HasPrefix(pattern, "#") {
		m.comment = true
		return m, nil
	}
	if pattern == "" {
		m.empty = true
		return m, nil
	}
	// parseNegate
	p := pattern
	for strings.HasPrefix(p, "!") {
		m.negate = !m.negate
		p = p[1:]
	}
	globSet, err := braceExpand(p)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(globSet))
	for _, g := range globSet {
		if seen[g] {
			continue
		}
		seen[g] = true
		parts := levelOneOptimize(slashSplit(g))
		segs := make([]segment, len(parts))
		for i, part := range parts {
			s, err := parseSegment(part)
			if err != nil {
				return nil, fmt.Errorf("pattern %q: %w", pattern, err)
			}
			segs[i] = s
		}
		m.set = append(m.set, segs)
	}
	return m, nil
}

// hasBraceSet is minimatch's pre-check /\{(?:(?!\{).)*\}/: a '{' followed by
// a '}' with neither '{' nor a line terminator in between.
func hasBraceSet(s string) bool {
	open := false
	for _, c := range s {
		switch {
		case c == '{':
			open = true
		case isLineTerminator(c):
			open = false
		case c == '}' && open:
			return true
		}
	}
	return false
}

func braceExpand(p string) ([]string, error) {
	if !hasBraceSet(p) {
		return []string{p}, nil
	}
	// minimatch truncates oversized expansions silently; refusing is safer
	// than matching against an arbitrary prefix of the set.
	out, truncated := expandBraces(p, MaxExpansions, MaxExpandedLength)
	if truncated {
		return nil, ErrTooManyExpansions
	}
	return out, nil
}

func slashSplit(p string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		parts = append(parts, p[start:i])
		for i+1 < len(p) && p[i+1] == '/' {
			i++
		}
		start = i + 1
	}
	return append(parts, p[start:])
}

// levelOneOptimize drops adjacent ** and resolves <p>/.. portions.
func levelOneOptimize(parts []string) []string {
	var set []string
	for _, part := range parts {
		prev := ""
		hasPrev := len(set) > 0
		if hasPrev {
			prev = set[len(set)-1]
		}
		if part == "**" && hasPrev && prev == "**" {
			continue
		}
		if part == ".." && prev != "" && prev != ".." && prev != "." && prev != "**" {
			set = set[:len(set)-1]
			continue
		}
		set = append(set, part)
	}
	if len(set) == 0 {
		return []string{""}
	}
	return set
}

var (
	starRE        = regexp.MustCompile(`^\*+$`)
	starDotExtRE  = regexp.MustCompile(`^\*+([^+@!?*\[(]*)$`)
	qmarksRE      = regexp.MustCompile(`^\?+([^+@!?*\[(]*)?$`)
	starDotStarRE = regexp.MustCompile(`^\*+\.\*+$`)
	dotStarRE     = regexp.MustCompile(`^\.\*+$`)
)

// fastTest mirrors minimatch's shortcut tests, which replace RegExp.test for
// the commonest segment shapes (and differ from the regex on a few inputs,
// e.g. a backslash in the extension is compared literally).
func fastTest(pattern string) func(string) bool {
	if starRE.MatchString(pattern) {
		return func(f string) bool { return f != "" && !strings.HasPrefix(f, ".") }
	}
	if m := starDotExtRE.FindStringSubmatch(pattern); m != nil {
		ext := m[1]
		return func(f string) bool { return !strings.HasPrefix(f, ".") && strings.HasSuffix(f, ext) }
	}
	if m := qmarksRE.FindStringSubmatch(pattern); m != nil {
		n, ext := jsLen(m[0]), m[1]
		return func(f string) bool {
			return jsLen(f) == n && !strings.HasPrefix(f, ".") && (ext == "" || strings.HasSuffix(f, ext))
		}
	}
	if starDotStarRE.MatchString(pattern) {
		return func(f string) bool { return !strings.HasPrefix(f, ".") && strings.Contains(f, ".") }
	}
	if dotStarRE.MatchString(pattern) {
		return func(f string) bool { return f != "." && f != ".." && strings.HasPrefix(f, ".") }
	}
	return nil
}

func parseSegment(pattern string) (segment, error) {
	if pattern == "**" {
		return segment{kind: segGlobstar}, nil
	}
	if pattern == "" {
		return segment{kind: segLiteral}, nil
	}
	mm := fromGlob(pattern).toMMPattern()
	if !mm.isRegex {
		return segment{kind: segLiteral, lit: mm.literal}, nil
	}
	// minimatch constructs the RegExp even when a fast test replaces it,
	// so invalid source is an error either way.
	re, err := compileJSRegexp("^"+mm.source+"$", mm.uflag)
	if err != nil {
		return segment{}, err
	}
	return segment{kind: segRegex, re: re, fast: fastTest(pattern)}, nil
}

func (s segment) test(f string) bool {
	switch s.kind {
	case segLiteral:
		return f == s.lit
	case segRegex:
		if s.fast != nil {
			return s.fast(f)
		}
		return s.re.test(f)
	}
	return false
}

// Match reports whether path matches the compiled pattern.
func (m *Matcher) Match(path string) bool {
	if m.comment {
		return false
	}
	if m.empty {
		return path == ""
	}
	if len(path) > MaxPathLength {
		return false
	}
	file := slashSplit(path)
	for _, pattern := range m.set {
		if matchOne(file, pattern) {
			return !m.negate
		}
	}
	return m.negate
}

func hasGlobstar(pattern []segment) bool {
	for _, s := range pattern {
		if s.kind == segGlobstar {
			return true
		}
	}
	return false
}

func matchOne(file []string, pattern []segment) bool {
	if hasGlobstar(pattern) {
		return matchGlobstar(file, pattern)
	}
	return matchParts(file, pattern, 0, 0)
}

// isHiddenOrTraversal is the check ** applies to each segment it swallows.
func isHiddenOrTraversal(f string) bool {
	return f == "." || f == ".." || strings.HasPrefix(f, ".")
}

func matchGlobstar(file []string, pattern []segment) bool {
	firstgs, lastgs := -1, -1
	for i, s := range pattern {
		if s.kind == segGlobstar {
			if firstgs < 0 {
				firstgs = i
			}
			lastgs = i
		}
	}
	head := pattern[:firstgs]
	var body []segment
	if lastgs > firstgs {
		body = pattern[firstgs+1 : lastgs]
	}
	tail := pattern[lastgs+1:]
	fileIndex := 0
	if len(head) > 0 {
		end := min(fileIndex+len(head), len(file))
		if !matchParts(file[fileIndex:end], head, 0, 0) {
			return false
		}
		fileIndex += len(head)
	}
	fileTailMatch := 0
	if len(tail) > 0 {
		if len(tail)+fileIndex > len(file) {
			return false
		}
		tailStart := len(file) - len(tail)
		if matchParts(file, tail, tailStart, 0) {
			fileTailMatch = len(tail)
		} else {
			if file[len(file)-1] != "" || fileIndex+len(tail) == len(file) {
				return false
			}
			tailStart--
			if !matchParts(file, tail, tailStart, 0) {
				return false
			}
			fileTailMatch = len(tail) + 1
		}
	}
	if len(body) == 0 {
		sawSome := fileTailMatch != 0
		for i := fileIndex; i < len(file)-fileTailMatch; i++ {
			sawSome = true
			if isHiddenOrTraversal(file[i]) {
				return false
			}
		}
		return sawSome
	}
	type bodySeg struct {
		parts []segment
		after int
	}
	segs := []*bodySeg{{}}
	cur := segs[0]
	nonGs := 0
	sums := []int{0}
	for _, b := range body {
		if b.kind == segGlobstar {
			sums = append(sums, nonGs)
			cur = &bodySeg{}
			segs = append(segs, cur)
		} else {
			cur.parts = append(cur.parts, b)
			nonGs++
		}
	}
	i := len(segs) - 1
	fileLength := len(file) - fileTailMatch
	for _, b := range segs {
		b.after = fileLength - (sums[i] + len(b.parts))
		i--
	}
	var sections func(fileIndex, bodyIndex, depth int, sawTail bool) int8
	// sections returns 1 (true), 0 (false) or -1 (JavaScript null: no
	// match, but stop searching).
	sections = func(fileIndex, bodyIndex, depth int, sawTail bool) int8 {
		if bodyIndex >= len(segs) {
			for i := fileIndex; i < len(file); i++ {
				sawTail = true
				if isHiddenOrTraversal(file[i]) {
					return 0
				}
			}
			if sawTail {
				return 1
			}
			return 0
		}
		bs := segs[bodyIndex]
		for fileIndex <= bs.after {
			end := min(fileIndex+len(bs.parts), len(file))
			if matchParts(file[:end], bs.parts, fileIndex, 0) && depth < maxGlobstarRecursion {
				if sub := sections(fileIndex+len(bs.parts), bodyIndex+1, depth+1, sawTail); sub != 0 {
					return sub
				}
			}
			if fileIndex >= len(file) || isHiddenOrTraversal(file[fileIndex]) {
				return 0
			}
			fileIndex++
		}
		return -1
	}
	return sections(fileIndex, 0, 0, fileTailMatch != 0) == 1
}

// matchParts is minimatch's #matchOne with partial off.
func matchParts(file []string, pattern []segment, fi, pi int) bool {
	fl, pl := len(file), len(pattern)
	for ; fi < fl && pi < pl; fi, pi = fi+1, pi+1 {
		p := pattern[pi]
		if p.kind == segGlobstar || !p.test(file[fi]) {
			return false
		}
	}
	switch {
	case fi == fl && pi == pl:
		return true
	case fi == fl:
		return false
	default: // pi == pl
		return fi == fl-1 && file[fi] == ""
	}
}
