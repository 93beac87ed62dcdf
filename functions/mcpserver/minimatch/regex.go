package minimatch

import (
	"errors"
	"fmt"
	"math/bits"
	"unicode"
	"unicode/utf16"
)

// This file is a small interpreter for the subset of JavaScript regular
// expressions that minimatch generates. Go's regexp (RE2) cannot run them
// because minimatch relies on negative lookahead. Instead of backtracking,
// the matcher computes, for each (node, start position), the set of end
// positions as a bit set and memoises it, so the cost is polynomial in the
// segment length (O(nodes × n² / 64) worst case) and never exponential.
//
// Only a boolean "does it match" is needed, so greedy and lazy quantifiers
// are equivalent and lookaheads reduce to set emptiness tests.

// ErrRegexSyntax reports regular-expression source that JavaScript's RegExp
// constructor would reject (minimatch then throws) or that this interpreter
// does not support.
var ErrRegexSyntax = errors.New("minimatch: invalid regular expression")

type nodeKind uint8

const (
	kClass nodeKind = iota
	kSeq
	kAlt
	kRepeat
	kLookahead
	kBOL
	kEOL
)

// maxRepeatCount bounds {n,m} counters, which minimatch never emits itself.
const maxRepeatCount = 1000

type rnode struct {
	kind     nodeKind
	id       int
	subs     []*rnode
	min, max int // kRepeat; max < 0 means unbounded
	negate   bool
	cls      *charClass
}

type classItem struct {
	lo, hi rune
	pred   func(rune) bool // set for \p{..}, \d, \w, \s and friends
}

type charClass struct {
	items  []classItem
	negate bool
}

func (c *charClass) matches(r rune) bool {
	in := false
	for _, it := range c.items {
		if it.pred != nil {
			if it.pred(r) {
				in = true
				break
			}
		} else if r >= it.lo && r <= it.hi {
			in = true
			break
		}
	}
	return in != c.negate
}

// jsRegexp is a compiled regex over "units": UTF-16 code units without the
// u flag, code points with it (as JavaScript does).
type jsRegexp struct {
	root  *rnode
	nodes int
	uflag bool
}

type reParser struct {
	src   []rune
	pos   int
	uflag bool
	nodes int
}

func compileJSRegexp(source string, uflag bool) (*jsRegexp, error) {
	var src []rune
	if uflag {
		src = []rune(source)
	} else {
		for _, u := range utf16.Encode([]rune(source)) {
			src = append(src, rune(u))
		}
	}
	p := &reParser{src: src, uflag: uflag}
	root, err := p.parseAlt()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("%w: unmatched ')'", ErrRegexSyntax)
	}
	return &jsRegexp{root: root, nodes: p.nodes, uflag: uflag}, nil
}

func (p *reParser) node(k nodeKind) *rnode {
	n := &rnode{kind: k, id: p.nodes}
	p.nodes++
	return n
}

func (p *reParser) peek() rune {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return -1
}

func (p *reParser) parseAlt() (*rnode, error) {
	var alts []*rnode
	for {
		seq, err := p.parseSeq()
		if err != nil {
			return nil, err
		}
		alts = append(alts, seq)
		if p.peek() != '|' {
			break
		}
		p.pos++
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	n := p.node(kAlt)
	n.subs = alts
	return n, nil
}

func (p *reParser) parseSeq() (*rnode, error) {
	seq := p.node(kSeq)
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '|' || c == ')' {
			break
		}
		atom, quantifiable, err := p.parseAtom()
		if err != nil {
			return nil, err
		}
		atom, err = p.parseQuantifier(atom, quantifiable)
		if err != nil {
			return nil, err
		}
		seq.subs = append(seq.subs, atom)
	}
	return seq, nil
}

func (p *reParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRegexSyntax}, args...)...)
}

// quantifierAt reports whether a {n}, {n,} or {n,m} quantifier starts at pos
// and returns its bounds and length.
func (p *reParser) quantifierAt(pos int) (lo, hi, length int, ok bool) {
	i := pos
	if i >= len(p.src) || p.src[i] != '{' {
		return 0, 0, 0, false
	}
	i++
	readInt := func() (int, bool) {
		start := i
		v := 0
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			if v <= maxRepeatCount*10 {
				v = v*10 + int(p.src[i]-'0')
			}
			i++
		}
		return v, i > start
	}
	lo, ok = readInt()
	if !ok {
		return 0, 0, 0, false
	}
	hi = lo
	if i < len(p.src) && p.src[i] == ',' {
		i++
		if v, ok2 := readInt(); ok2 {
			hi = v
		} else {
			hi = -1
		}
	}
	if i >= len(p.src) || p.src[i] != '}' {
		return 0, 0, 0, false
	}
	return lo, hi, i + 1 - pos, true
}

func (p *reParser) parseQuantifier(atom *rnode, quantifiable bool) (*rnode, error) {
	c := p.peek()
	lo, hi := 0, 0
	switch c {
	case '*':
		lo, hi = 0, -1
		p.pos++
	case '+':
		lo, hi = 1, -1
		p.pos++
	case '?':
		lo, hi = 0, 1
		p.pos++
	case '{':
		l, h, n, ok := p.quantifierAt(p.pos)
		if !ok {
			return atom, nil // literal '{' handled by the next parseAtom
		}
		if h >= 0 && h < l {
			return nil, p.errorf("numbers out of order in {} quantifier")
		}
		if l > maxRepeatCount || h > maxRepeatCount {
			return nil, p.errorf("repeat count above %d", maxRepeatCount)
		}
		lo, hi = l, h
		p.pos += n
	default:
		return atom, nil
	}
	if !quantifiable {
		return nil, p.errorf("nothing to repeat")
	}
	if p.peek() == '?' {
		p.pos++ // lazy: irrelevant for a boolean match
	}
	switch p.peek() {
	case '*', '+', '?':
		return nil, p.errorf("nothing to repeat")
	case '{':
		if _, _, _, ok := p.quantifierAt(p.pos); ok {
			return nil, p.errorf("nothing to repeat")
		}
	}
	n := p.node(kRepeat)
	n.subs = []*rnode{atom}
	n.min, n.max = lo, hi
	return n, nil
}

func (p *reParser) single(r rune) *rnode {
	n := p.node(kClass)
	n.cls = &charClass{items: []classItem{{lo: r, hi: r}}}
	return n
}

// parseAtom returns the atom and whether a quantifier may follow it.
func (p *reParser) parseAtom() (*rnode, bool, error) {
	c := p.src[p.pos]
	switch c {
	case '^':
		p.pos++
		return p.node(kBOL), false, nil
	case '$':
		p.pos++
		return p.node(kEOL), false, nil
	case '.':
		p.pos++
		n := p.node(kClass)
		n.cls = &charClass{negate: true, items: []classItem{{pred: isLineTerminator}}}
		return n, true, nil
	case '*', '+', '?':
		return nil, false, p.errorf("nothing to repeat")
	case '{':
		if p.uflag {
			return nil, false, p.errorf("lone quantifier brackets")
		}
		if _, _, _, ok := p.quantifierAt(p.pos); ok {
			return nil, false, p.errorf("nothing to repeat")
		}
		p.pos++
		return p.single('{'), true, nil
	case '}', ']':
		if p.uflag {
			return nil, false, p.errorf("lone quantifier brackets")
		}
		p.pos++
		return p.single(c), true, nil
	case '(':
		return p.parseGroup()
	case '[':
		return p.parseClass()
	case '\\':
		it, err := p.parseEscape(false)
		if err != nil {
			return nil, false, err
		}
		n := p.node(kClass)
		n.cls = &charClass{items: []classItem{it}}
		return n, true, nil
	}
	p.pos++
	return p.single(c), true, nil
}

func (p *reParser) parseGroup() (*rnode, bool, error) {
	p.pos++ // (
	kind := kSeq
	negate := false
	if p.peek() == '?' {
		if p.pos+1 >= len(p.src) {
			return nil, false, p.errorf("invalid group")
		}
		switch p.src[p.pos+1] {
		case ':':
		case '=':
			kind = kLookahead
		case '!':
			kind = kLookahead
			negate = true
		default:
			return nil, false, p.errorf("unsupported group")
		}
		p.pos += 2
	}
	inner, err := p.parseAlt()
	if err != nil {
		return nil, false, err
	}
	if p.peek() != ')' {
		return nil, false, p.errorf("unterminated group")
	}
	p.pos++
	if kind == kLookahead {
		n := p.node(kLookahead)
		n.subs = []*rnode{inner}
		n.negate = negate
		// Annex B allows quantified lookaheads only without the u flag.
		return n, !p.uflag, nil
	}
	return inner, true, nil
}

func (p *reParser) parseClass() (*rnode, bool, error) {
	p.pos++ // [
	cls := &charClass{}
	if p.peek() == '^' {
		cls.negate = true
		p.pos++
	}
	for {
		if p.pos >= len(p.src) {
			return nil, false, p.errorf("unterminated character class")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			break
		}
		a, err := p.classAtom()
		if err != nil {
			return nil, false, err
		}
		if p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			p.pos++
			b, err := p.classAtom()
			if err != nil {
				return nil, false, err
			}
			if a.pred != nil || b.pred != nil {
				if p.uflag {
					return nil, false, p.errorf("invalid character class")
				}
				cls.items = append(cls.items, a, classItem{lo: '-', hi: '-'}, b)
				continue
			}
			if a.lo > b.lo {
				return nil, false, p.errorf("range out of order in character class")
			}
			cls.items = append(cls.items, classItem{lo: a.lo, hi: b.lo})
			continue
		}
		cls.items = append(cls.items, a)
	}
	n := p.node(kClass)
	n.cls = cls
	return n, true, nil
}

func (p *reParser) classAtom() (classItem, error) {
	if p.src[p.pos] == '\\' {
		return p.parseEscape(true)
	}
	c := p.src[p.pos]
	p.pos++
	return classItem{lo: c, hi: c}, nil
}

func isSyntaxChar(c rune) bool {
	switch c {
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
		return true
	}
	return false
}

func hexVal(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }
func isWordChar(r rune) bool {
	return r == '_' || isDigit(r) || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
}

func not(f func(rune) bool) func(rune) bool { return func(r rune) bool { return !f(r) } }

// parseEscape parses a backslash escape (p.pos at the backslash).
func (p *reParser) parseEscape(inClass bool) (classItem, error) {
	p.pos++
	if p.pos >= len(p.src) {
		return classItem{}, p.errorf(`\ at end of pattern`)
	}
	c := p.src[p.pos]
	p.pos++
	lit := func(r rune) (classItem, error) { return classItem{lo: r, hi: r}, nil }
	switch c {
	case 't':
		return lit('\t')
	case 'n':
		return lit('\n')
	case 'r':
		return lit('\r')
	case 'v':
		return lit('\v')
	case 'f':
		return lit('\f')
	case 'd':
		return classItem{pred: isDigit}, nil
	case 'D':
		return classItem{pred: not(isDigit)}, nil
	case 'w':
		return classItem{pred: isWordChar}, nil
	case 'W':
		return classItem{pred: not(isWordChar)}, nil
	case 's':
		return classItem{pred: isJSSpace}, nil
	case 'S':
		return classItem{pred: not(isJSSpace)}, nil
	case 'x':
		if p.pos+1 < len(p.src) && hexVal(p.src[p.pos]) >= 0 && hexVal(p.src[p.pos+1]) >= 0 {
			v := hexVal(p.src[p.pos])*16 + hexVal(p.src[p.pos+1])
			p.pos += 2
			return lit(rune(v))
		}
		if p.uflag {
			return classItem{}, p.errorf("invalid escape")
		}
		return lit('x')
	case 'p', 'P':
		if !p.uflag {
			return lit(c)
		}
		if p.peek() != '{' {
			return classItem{}, p.errorf("invalid property name")
		}
		end := p.pos + 1
		for end < len(p.src) && p.src[end] != '}' {
			end++
		}
		if end >= len(p.src) {
			return classItem{}, p.errorf("invalid property name")
		}
		name := string(p.src[p.pos+1 : end])
		p.pos = end + 1
		pred, ok := unicodeCategory(name)
		if !ok {
			return classItem{}, p.errorf("unsupported property %q", name)
		}
		if c == 'P' {
			pred = not(pred)
		}
		return classItem{pred: pred}, nil
	case 'b', 'B', 'c', 'k', 'u', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if inClass && c == 'b' {
			return lit('\b')
		}
		// Word boundaries, control escapes, back-references and friends are
		// never produced by minimatch from a glob; refuse rather than guess.
		return classItem{}, p.errorf("unsupported escape \\%c", c)
	}
	if p.uflag && !isSyntaxChar(c) && !(inClass && c == '-') {
		return classItem{}, p.errorf("invalid escape")
	}
	return lit(c)
}

// unicodeCategory maps a JavaScript \p{…} general category to a predicate.
// JavaScript's C also contains unassigned code points (Cn), which Go's
// unicode.C lacks.
func unicodeCategory(name string) (func(rune) bool, bool) {
	if name == "C" || name == "Cn" {
		onlyCn := name == "Cn"
		return func(r rune) bool {
			if !onlyCn && unicode.Is(unicode.C, r) {
				return true
			}
			for _, cat := range []*unicode.RangeTable{unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C} {
				if unicode.Is(cat, r) {
					return false
				}
			}
			return true
		}, true
	}
	t, ok := unicode.Categories[name]
	if !ok {
		return nil, false
	}
	return func(r rune) bool { return unicode.Is(t, r) }, true
}

// bitset is a set of positions 0..n.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+64)/64) }

func (b bitset) set(i int) { b[i/64] |= 1 << (uint(i) % 64) }
func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}
func (b bitset) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}
func (b bitset) each(f func(int)) {
	for wi, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			f(wi*64 + t)
			w &^= 1 << uint(t)
		}
	}
}

type matchState struct {
	in        []rune
	memo      map[int]bitset
	re        *jsRegexp
	steps     int
	exhausted bool
}

// test is RegExp.prototype.test: a match starting anywhere.
func (re *jsRegexp) test(s string) bool {
	var in []rune
	if re.uflag {
		in = []rune(s)
	} else {
		for _, u := range utf16.Encode([]rune(s)) {
			in = append(in, rune(u))
		}
	}
	st := &matchState{in: in, memo: make(map[int]bitset), re: re}
	for start := 0; start <= len(in); start++ {
		if !st.ends(re.root, start).empty() && !st.exhausted {
			return true
		}
		if st.exhausted {
			return false // over the work budget: report no match
		}
	}
	return false
}

func (st *matchState) ends(n *rnode, pos int) bitset {
	key := n.id*(len(st.in)+1) + pos
	if b, ok := st.memo[key]; ok {
		return b
	}
	st.steps++
	if st.steps > maxMatchSteps {
		st.exhausted = true
	}
	if st.exhausted {
		return newBitset(len(st.in))
	}
	b := st.compute(n, pos)
	st.memo[key] = b
	return b
}

func (st *matchState) step(n *rnode, from bitset) bitset {
	out := newBitset(len(st.in))
	from.each(func(p int) { out.or(st.ends(n, p)) })
	return out
}

func (st *matchState) compute(n *rnode, pos int) bitset {
	size := len(st.in)
	out := newBitset(size)
	switch n.kind {
	case kClass:
		if pos < size && n.cls.matches(st.in[pos]) {
			out.set(pos + 1)
		}
	case kBOL:
		if pos == 0 {
			out.set(pos)
		}
	case kEOL:
		if pos == size {
			out.set(pos)
		}
	case kSeq:
		out.set(pos)
		for _, sub := range n.subs {
			out = st.step(sub, out)
			if out.empty() {
				break
			}
		}
	case kAlt:
		for _, sub := range n.subs {
			out.or(st.ends(sub, pos))
		}
	case kLookahead:
		if st.ends(n.subs[0], pos).empty() == n.negate {
			out.set(pos)
		}
	case kRepeat:
		cur := newBitset(size)
		cur.set(pos)
		for i := 0; i < n.min; i++ {
			cur = st.step(n.subs[0], cur)
			if cur.empty() {
				return out
			}
		}
		out.or(cur)
		frontier := cur
		for i := n.min; n.max < 0 || i < n.max; i++ {
			next := st.step(n.subs[0], frontier)
			if n.max < 0 {
				// unbounded: only positions not seen yet can lead anywhere new.
				for w := range next {
					next[w] &^= out[w]
				}
			}
			if next.empty() {
				break
			}
			out.or(next)
			if n.max >= 0 && equalBits(next, frontier) {
				break // fixed point: further levels add nothing
			}
			frontier = next
		}
	}
	return out
}

func equalBits(a, b bitset) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
