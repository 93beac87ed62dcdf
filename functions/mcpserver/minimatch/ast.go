package minimatch

import "strings"

// This file is a line-by-line port of minimatch v9's ast.ts (the parser that
// turns one path segment of a glob into JavaScript regular-expression
// source). It is kept deliberately close to the original, including its
// quirks (stale parentIndex after adoption, cached toString, arrays shared by
// reference), because byte-identical regex source is what makes the matcher
// agree with npm minimatch on odd patterns.

// extglob types; 0 means "not an extglob" (JavaScript null).
const noType = 0

func isExtglobType(c rune) bool {
	switch c {
	case '!', '?', '+', '*', '@':
		return true
	}
	return false
}

var (
	adoptionMap = map[byte]string{
		'!': "@", '?': "?@", '@': "@", '*': "*+?@", '+': "+@",
	}
	adoptionWithSpaceMap = map[byte]string{
		'!': "?", '@': "?", '+': "?*",
	}
	adoptionAnyMap = map[byte]string{
		'!': "?@", '?': "?@", '@': "?@", '*': "*+?@", '+': "+@?*",
	}
	usurpMap = map[byte]map[byte]byte{
		'!': {'!': '@'},
		'?': {'*': '*', '+': '*'},
		'@': {'!': '!', '?': '?', '@': '@', '*': '*', '+': '+'},
		'+': {'?': '*', '*': '*'},
	}
)

const (
	startNoTraversal = `(?!(?:^|/)\.\.?(?:$|/))`
	startNoDot       = `(?!\.)`
	qmark            = `[^/]`
	star             = qmark + `*?`
	starNoEmpty      = qmark + `+?`
)

// partList is shared by pointer because the original shares arrays by
// reference (usurp assigns the grandchild's array to the parent).
type partList struct{ items []part }

// part is a string or a child AST (JavaScript's `string | AST`).
type part struct {
	s string
	a *ast
}

type ast struct {
	typ         byte
	root        *ast
	hasMagic    bool
	uflag       bool
	parts       *partList
	parent      *ast
	parentIndex int
	negs        []*ast // only used on the root
	filledNegs  bool
	toStr       string
	toStrSet    bool
	emptyExt    bool
}

func newAST(typ byte, parent *ast) *ast {
	a := &ast{typ: typ, parent: parent, parts: &partList{}}
	if typ != noType {
		a.hasMagic = true
	}
	if parent != nil {
		a.root = parent.root
		a.parentIndex = len(parent.parts.items)
	} else {
		a.root = a
	}
	if typ == '!' && !a.root.filledNegs {
		a.root.negs = append(a.root.negs, a)
	}
	return a
}

func (a *ast) String() string {
	if a.toStrSet {
		return a.toStr
	}
	strs := make([]string, len(a.parts.items))
	for i, p := range a.parts.items {
		if p.a == nil {
			strs[i] = p.s
		} else {
			strs[i] = p.a.String()
		}
	}
	if a.typ == noType {
		a.toStr = strings.Join(strs, "")
	} else {
		a.toStr = string(a.typ) + "(" + strings.Join(strs, "|") + ")"
	}
	a.toStrSet = true
	return a.toStr
}

func (a *ast) fillNegs() {
	if a.filledNegs {
		return
	}
	_ = a.String() // caches toString on every node, as the original does
	a.filledNegs = true
	for len(a.negs) > 0 {
		n := a.negs[len(a.negs)-1]
		a.negs = a.negs[:len(a.negs)-1]
		if n.typ != '!' {
			continue
		}
		p := n
		pp := p.parent
		for pp != nil {
			for i := p.parentIndex + 1; pp.typ == noType && i < len(pp.parts.items); i++ {
				for _, np := range n.parts.items {
					if np.a != nil {
						np.a.copyIn(pp.parts.items[i])
					}
				}
			}
			p = pp
			pp = p.parent
		}
	}
}

func (a *ast) pushString(s string) {
	if s == "" {
		return
	}
	a.parts.items = append(a.parts.items, part{s: s})
}

func (a *ast) pushAST(c *ast) {
	a.parts.items = append(a.parts.items, part{a: c})
}

func (a *ast) copyIn(p part) {
	if p.a == nil {
		a.pushString(p.s)
	} else {
		a.pushAST(p.a.clone(a))
	}
}

func (a *ast) clone(parent *ast) *ast {
	c := newAST(a.typ, parent)
	for _, p := range a.parts.items {
		c.copyIn(p)
	}
	return c
}

func (a *ast) isStart() bool {
	if a.root == a {
		return true
	}
	if !a.parent.isStart() {
		return false
	}
	if a.parentIndex == 0 {
		return true
	}
	p := a.parent
	for i := 0; i < a.parentIndex; i++ {
		if i >= len(p.parts.items) {
			return false
		}
		pp := p.parts.items[i]
		if pp.a == nil || pp.a.typ != '!' {
			return false
		}
	}
	return true
}

func (a *ast) isEnd() bool {
	if a.root == a {
		return true
	}
	if a.parent.typ == '!' {
		return true
	}
	if !a.parent.isEnd() {
		return false
	}
	if a.typ == noType {
		return a.parent.isEnd()
	}
	return a.parentIndex == len(a.parent.parts.items)-1
}

// maxExtglobRecursion is minimatch's default for options.maxExtglobRecursion.
const maxExtglobRecursion = 2

// parseAST works on runes; positions are rune indexes. (The original works on
// UTF-16 code units; the two only differ for astral-plane characters.)
func parseAST(str []rune, a *ast, pos int, extDepth int) int {
	var lit literalScan
	if a.typ == noType {
		i := pos
		var acc strings.Builder
		for i < len(str) {
			c := str[i]
			i++
			if lit.consume(c, i) {
				acc.WriteRune(c)
				continue
			}
			if isExtglobType(c) && i < len(str) && str[i] == '(' && extDepth <= maxExtglobRecursion {
				a.pushString(acc.String())
				acc.Reset()
				ext := newAST(byte(c), a)
				i = parseAST(str, ext, i, extDepth+1)
				a.pushAST(ext)
				continue
			}
			acc.WriteRune(c)
		}
		a.pushString(acc.String())
		return i
	}
	// some kind of extglob, pos is at the (
	i := pos + 1
	pt := newAST(noType, a)
	var parts []*ast
	var acc strings.Builder
	for i < len(str) {
		c := str[i]
		i++
		if lit.consume(c, i) {
			acc.WriteRune(c)
			continue
		}
		if isExtglobType(c) && i < len(str) && str[i] == '(' &&
			(extDepth <= maxExtglobRecursion || a.canAdoptType(byte(c), adoptionAnyMap)) {
			depthAdd := 1
			if a.canAdoptType(byte(c), adoptionAnyMap) {
				depthAdd = 0
			}
			pt.pushString(acc.String())
			acc.Reset()
			ext := newAST(byte(c), pt)
			pt.pushAST(ext)
			i = parseAST(str, ext, i, extDepth+depthAdd)
			continue
		}
		if c == '|' {
			pt.pushString(acc.String())
			acc.Reset()
			parts = append(parts, pt)
			pt = newAST(noType, a)
			continue
		}
		if c == ')' {
			if acc.Len() == 0 && len(a.parts.items) == 0 {
				a.emptyExt = true
			}
			pt.pushString(acc.String())
			acc.Reset()
			for _, p := range parts {
				a.pushAST(p)
			}
			a.pushAST(pt)
			return i
		}
		acc.WriteRune(c)
	}
	// unfinished extglob: not an extglob after all, just literal text.
	a.typ = noType
	a.hasMagic = false
	a.parts = &partList{items: []part{{s: string(str[pos-1:])}}}
	return i
}

func (a *ast) canAdoptWithSpace(child part) bool {
	return a.canAdopt(child, adoptionWithSpaceMap)
}

func (a *ast) canAdopt(child part, m map[byte]string) bool {
	if child.a == nil || child.a.typ != noType || len(child.a.parts.items) != 1 || a.typ == noType {
		return false
	}
	gc := child.a.parts.items[0]
	if gc.a == nil || gc.a.typ == noType {
		return false
	}
	return a.canAdoptType(gc.a.typ, m)
}

func (a *ast) canAdoptType(c byte, m map[byte]string) bool {
	return strings.IndexByte(m[a.typ], c) >= 0
}

func (a *ast) adoptWithSpace(child *ast, index int) {
	gc := child.parts.items[0].a
	blank := newAST(noType, gc)
	blank.parts.items = append(blank.parts.items, part{s: ""})
	gc.pushAST(blank)
	a.adopt(child, index)
}

func (a *ast) adopt(child *ast, index int) {
	gc := child.parts.items[0].a
	items := make([]part, 0, len(a.parts.items)-1+len(gc.parts.items))
	items = append(items, a.parts.items[:index]...)
	items = append(items, gc.parts.items...)
	items = append(items, a.parts.items[index+1:]...)
	a.parts.items = items
	for _, p := range gc.parts.items {
		if p.a != nil {
			p.a.parent = a
		}
	}
	a.toStrSet = false
}

func (a *ast) canUsurp(child part) bool {
	if child.a == nil || child.a.typ != noType || len(child.a.parts.items) != 1 || a.typ == noType || len(a.parts.items) != 1 {
		return false
	}
	gc := child.a.parts.items[0]
	if gc.a == nil || gc.a.typ == noType {
		return false
	}
	_, ok := usurpMap[a.typ][gc.a.typ]
	return ok
}

func (a *ast) usurp(child *ast) {
	gc := child.parts.items[0].a
	nt, ok := usurpMap[a.typ][gc.typ]
	if !ok {
		return
	}
	a.parts = gc.parts
	for _, p := range a.parts.items {
		if p.a != nil {
			p.a.parent = a
		}
	}
	a.typ = nt
	a.toStrSet = false
	a.emptyExt = false
}

func (a *ast) flatten() {
	if a.typ == noType {
		for _, p := range a.parts.items {
			if p.a != nil {
				p.a.flatten()
			}
		}
	} else {
		iterations := 0
		for {
			done := true
			for i := 0; i < len(a.parts.items); i++ {
				c := a.parts.items[i]
				if c.a == nil {
					continue
				}
				c.a.flatten()
				if a.canAdopt(c, adoptionMap) {
					done = false
					a.adopt(c.a, i)
				} else if a.canAdoptWithSpace(c) {
					done = false
					a.adoptWithSpace(c.a, i)
				} else if a.canUsurp(c) {
					done = false
					a.usurp(c.a)
				}
			}
			iterations++
			if done || iterations >= 10 {
				break
			}
		}
	}
	a.toStrSet = false
}

func fromGlob(pattern string) *ast {
	a := newAST(noType, nil)
	parseAST([]rune(pattern), a, 0, 0)
	return a
}

// mmPattern is what toMMPattern returns: a literal string, or regex source
// (minimatch's _src, without the ^…$ it wraps it in) plus whether the
// JavaScript u flag is set.
type mmPattern struct {
	literal string
	isRegex bool
	source  string
	uflag   bool
}

func (a *ast) toMMPattern() mmPattern {
	re, body, hasMagic, uflag := a.toRegExpSource(dotUnset)
	if !hasMagic && !a.hasMagic {
		return mmPattern{literal: body}
	}
	return mmPattern{isRegex: true, source: re, uflag: uflag}
}

// allowDot is JavaScript's `boolean | undefined`.
type allowDot int8

const (
	dotUnset allowDot = iota
	dotFalse
	dotTrue
)

func (d allowDot) truthy() bool { return d == dotTrue }

func (a *ast) toRegExpSource(allow allowDot) (string, string, bool, bool) {
	// options.dot is always false here.
	dot := allow.truthy()
	if a.root == a {
		a.flatten()
		a.fillNegs()
	}
	if a.typ == noType {
		noEmpty := a.isStart() && a.isEnd()
		var src strings.Builder
		for _, p := range a.parts.items {
			var re string
			var hasMagic, uflag bool
			if p.a == nil {
				re, _, hasMagic, uflag = parseGlob(p.s, a.hasMagic, noEmpty)
			} else {
				re, _, hasMagic, uflag = p.a.toRegExpSource(allow)
			}
			a.hasMagic = a.hasMagic || hasMagic
			a.uflag = a.uflag || uflag
			src.WriteString(re)
		}
		s := src.String()
		start := ""
		if a.isStart() && len(a.parts.items) > 0 && a.parts.items[0].a == nil {
			dotTravAllowed := len(a.parts.items) == 1 && (a.parts.items[0].s == "." || a.parts.items[0].s == "..")
			if !dotTravAllowed {
				needNoTrav := (dot && addPatternStart(charAt(s, 0))) ||
					(strings.HasPrefix(s, `\.`) && addPatternStart(charAt(s, 2))) ||
					(strings.HasPrefix(s, `\.\.`) && addPatternStart(charAt(s, 4)))
				needNoDot := !dot && !allow.truthy() && addPatternStart(charAt(s, 0))
				if needNoTrav {
					start = startNoTraversal
				} else if needNoDot {
					start = startNoDot
				}
			}
		}
		end := ""
		if a.isEnd() && a.root.filledNegs && a.parent != nil && a.parent.typ == '!' {
			end = `(?:$|\/)`
		}
		return start + s + end, unescape(s), a.hasMagic, a.uflag
	}

	repeated := a.typ == '*' || a.typ == '+'
	start := "(?:"
	if a.typ == '!' {
		start = "(?:(?!(?:"
	}
	body := a.partsToRegExp(dot)
	if a.isStart() && a.isEnd() && body == "" && a.typ != '!' {
		// invalid extglob: it has to match something when it is the whole
		// path portion, so it becomes literal text (and raw regex source).
		s := a.String()
		a.parts = &partList{items: []part{{s: s}}}
		a.typ = noType
		a.hasMagic = false
		return s, unescape(a.String()), false, false
	}
	bodyDotAllowed := ""
	if repeated && !allow.truthy() && !dot {
		bodyDotAllowed = a.partsToRegExp(true)
	}
	if bodyDotAllowed == body {
		bodyDotAllowed = ""
	}
	if bodyDotAllowed != "" {
		body = "(?:" + body + ")(?:" + bodyDotAllowed + ")*?"
	}
	var final string
	if a.typ == '!' && a.emptyExt {
		if a.isStart() && !dot {
			final = startNoDot
		}
		final += starNoEmpty
	} else {
		var closing string
		switch {
		case a.typ == '!':
			closing = "))"
			if a.isStart() && !dot && !allow.truthy() {
				closing += startNoDot
			}
			closing += star + ")"
		case a.typ == '@':
			closing = ")"
		case a.typ == '?':
			closing = ")?"
		case a.typ == '+' && bodyDotAllowed != "":
			closing = ")"
		case a.typ == '*' && bodyDotAllowed != "":
			closing = ")?"
		default:
			closing = ")" + string(a.typ)
		}
		final = start + body + closing
	}
	return final, unescape(body), a.hasMagic, a.uflag
}

func (a *ast) partsToRegExp(dot bool) string {
	allow := dotFalse
	if dot {
		allow = dotTrue
	}
	startEnd := a.isStart() && a.isEnd()
	var out []string
	for _, p := range a.parts.items {
		if p.a == nil {
			continue // cannot happen: extglob parts are ASTs
		}
		re, _, _, uflag := p.a.toRegExpSource(allow)
		a.uflag = a.uflag || uflag
		if startEnd && re == "" {
			continue
		}
		out = append(out, re)
	}
	return strings.Join(out, "|")
}

func charAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func addPatternStart(c byte) bool { return c == '[' || c == '.' }

const reSpecials = `().*{}+?[]^$\!`

// regExpEscape escapes like minimatch's /[-[\]{}()*+?.,\\^$|#\s]/g.
func regExpEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`-[]{}()*+?.,\^$|#`, c) || isJSSpace(c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// isJSSpace is JavaScript's \s: WhiteSpace and LineTerminator.
func isJSSpace(c rune) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return c >= 0x2000 && c <= 0x200a
}

func parseGlob(glob string, hasMagic, noEmpty bool) (string, string, bool, bool) {
	g := []rune(glob)
	escaping := false
	var re strings.Builder
	uflag := false
	inStar := false
	allStars := len(g) > 0 && strings.Trim(glob, "*") == ""
	for i := 0; i < len(g); i++ {
		c := g[i]
		if escaping {
			escaping = false
			if strings.ContainsRune(reSpecials, c) {
				re.WriteByte('\\')
			}
			re.WriteRune(c)
			inStar = false
			continue
		}
		if c == '\\' {
			if i == len(g)-1 {
				re.WriteString(`\\`)
			} else {
				escaping = true
			}
			continue
		}
		if c == '[' {
			src, needU, consumed, magic := parseClass(g, i)
			if consumed != 0 {
				re.WriteString(src)
				uflag = uflag || needU
				i += consumed - 1
				hasMagic = hasMagic || magic
				inStar = false
				continue
			}
		}
		if c == '*' {
			if inStar {
				continue
			}
			inStar = true
			if noEmpty && allStars {
				re.WriteString(starNoEmpty)
			} else {
				re.WriteString(star)
			}
			hasMagic = true
			continue
		}
		inStar = false
		if c == '?' {
			re.WriteString(qmark)
			hasMagic = true
			continue
		}
		re.WriteString(regExpEscape(string(c)))
	}
	return re.String(), unescape(glob), hasMagic, uflag
}

// unescape ports minimatch's unescape (windowsPathsNoEscape off):
// s.replace(/((?!\\).|^)\[([^\/\\])\]/g, '$1$2').replace(/\\([^\/])/g, '$1').
func unescape(s string) string {
	r := []rune(s)
	// first pass: [x] -> x unless preceded by a backslash. The JS regex
	// consumes the preceding character, so matches cannot overlap it.
	var b []rune
	i := 0
	for i < len(r) {
		// try a match starting at i: either ^ (i==0, empty prefix) or one
		// char that is not '\' (not a line terminator: '.' excludes them).
		if i+3 < len(r) && r[i] != '\\' && !isLineTerminator(r[i]) && r[i+1] == '[' && r[i+2] != '/' && r[i+2] != '\\' && r[i+3] == ']' {
			b = append(b, r[i], r[i+2])
			i += 4
			continue
		}
		if i == 0 && len(r) >= 3 && r[0] == '[' && r[1] != '/' && r[1] != '\\' && r[2] == ']' {
			b = append(b, r[1])
			i = 3
			continue
		}
		b = append(b, r[i])
		i++
	}
	// second pass: \x -> x for any x but '/'.
	out := make([]rune, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) && b[i+1] != '/' {
			out = append(out, b[i+1])
			i++
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

func isLineTerminator(c rune) bool {
	return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029
}

// literalScan follows the escapes and [...] classes of a pattern while
// parseAST looks for extglobs: characters inside them are literal to the
// AST. Both of parseAST's loops (minimatch's two copies of this code) share
// it, so they cannot drift apart.
type literalScan struct {
	escaping   bool
	inBrace    bool
	braceStart int
	braceNeg   bool
}

// consume reports whether c, read just before index i, belongs to an
// escape or a class and must be copied as is.
func (l *literalScan) consume(c rune, i int) bool {
	if l.escaping || c == '\\' {
		l.escaping = !l.escaping
		return true
	}
	if l.inBrace {
		if i == l.braceStart+1 {
			if c == '^' || c == '!' {
				l.braceNeg = true
			}
		} else if c == ']' && !(i == l.braceStart+2 && l.braceNeg) {
			l.inBrace = false
		}
		return true
	}
	if c == '[' {
		l.inBrace = true
		l.braceStart = i
		l.braceNeg = false
		return true
	}
	return false
}
