package postgreststandin

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// selectItem is one entry of a select list: a column, "*", or an embed.
type selectItem struct {
	Star  bool
	Col   string
	Alias string
	Cast  string
	Embed *embedSpec
}

// embedSpec is rel!hint!inner(items) with an optional alias.
type embedSpec struct {
	Name  string
	Alias string
	Hint  string
	Inner bool
	Items []selectItem
}

// filter is field=[not.]op.value.
type filter struct {
	Field string
	Not   bool
	Op    string
	Val   string
	List  []string // for in
}

// logicTree is and=(...)/or=(...) with PostgREST's grammar.
type logicTree struct {
	Or       bool
	Not      bool
	Children []logicNode
}

// logicNode is either a filter or a nested tree.
type logicNode struct {
	Filter *filter
	Tree   *logicTree
}

// orderTerm is col[.asc|.desc][.nullsfirst|.nullslast].
type orderTerm struct {
	Col   string
	Desc  bool
	Nulls string // "", "first", "last"
}

// nodeParams are the query parameters that apply to one level of the embed
// tree (the root or rel.rel2...).
type nodeParams struct {
	Filters []filter
	Logic   []logicTree
	Order   []orderTerm
	Limit   *rangeParam // nil when absent; see pagerange.go
	Offset  *rangeParam
}

// query is a parsed request query string.
type query struct {
	Select    []selectItem
	HasSelect bool
	Params    map[string]*nodeParams // key: embed path joined by "."; "" is the root
	Columns   []string               // ?columns= for inserts
}

// maxSelectDepth bounds nested embeds (and the parser's recursion).
const maxSelectDepth = 16

// maxListLen bounds in.(...) lists and logic trees.
const maxListLen = 10000

var supportedOps = map[string]bool{
	"eq": true, "neq": true, "gt": true, "gte": true, "lt": true, "lte": true,
	"like": true, "ilike": true, "match": true, "imatch": true, "is": true, "in": true,
}

var knownUnsupportedOps = map[string]bool{
	"isdistinct": true, "cs": true, "cd": true, "ov": true,
	"sl": true, "sr": true, "nxr": true, "nxl": true, "adj": true,
	"fts": true, "plfts": true, "phfts": true, "wfts": true,
}

// parseQuery parses every parameter of raw (the URL's RawQuery). Parameters
// are visited in a stable order so that errors are deterministic.
func parseQuery(raw string) (*query, *Error) {
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return nil, errParse("failed to parse query string", err.Error())
	}
	q := &query{Params: map[string]*nodeParams{}}
	node := func(path string) *nodeParams {
		n := q.Params[path]
		if n == nil {
			n = &nodeParams{}
			q.Params[path] = n
		}
		return n
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if s, ok := vals["select"]; ok {
		items, e := parseSelect(s[len(s)-1])
		if e != nil {
			return nil, e
		}
		q.Select, q.HasSelect = items, true
	}
	for _, k := range keys {
		for _, v := range vals[k] {
			switch k {
			case "select":
				continue
			case "columns":
				cols, e := parseColumns(v)
				if e != nil {
					return nil, e
				}
				q.Columns = cols
				continue
			case "on_conflict":
				return nil, errNotImplemented("on_conflict is not supported by this server")
			}
			segs := strings.Split(k, ".")
			last := segs[len(segs)-1]
			switch last {
			case "order":
				terms, e := parseOrder(v)
				if e != nil {
					return nil, e
				}
				n := node(strings.Join(segs[:len(segs)-1], "."))
				n.Order = append(n.Order, terms...)
			case "limit", "offset":
				// PostgREST reads these with Haskell's readMaybe; a value that
				// does not read still counts as given (pagerange.go).
				p := &rangeParam{}
				if i, ok := readInteger(v); ok {
					p.n = i
				}
				n := node(strings.Join(segs[:len(segs)-1], "."))
				if last == "limit" {
					n.Limit = p
				} else {
					n.Offset = p
				}
			case "or", "and":
				pathSegs := segs[:len(segs)-1]
				neg := false
				if len(pathSegs) > 0 && pathSegs[len(pathSegs)-1] == "not" {
					neg = true
					pathSegs = pathSegs[:len(pathSegs)-1]
				}
				t, e := parseLogicValue(last == "or", neg, v)
				if e != nil {
					return nil, e
				}
				n := node(strings.Join(pathSegs, "."))
				n.Logic = append(n.Logic, *t)
			default:
				// A root parameter whose value has no operator is an RPC
				// argument to PostgREST, i.e. ignored on tables.
				if len(segs) == 1 && !hasOperator(v) {
					continue
				}
				if strings.Contains(last, "->") {
					return nil, errNotImplemented("JSON path filters are not supported by this server")
				}
				f, e := parseFilterValue(last, v)
				if e != nil {
					return nil, e
				}
				n := node(strings.Join(segs[:len(segs)-1], "."))
				n.Filters = append(n.Filters, *f)
			}
		}
	}
	return q, nil
}

// hasOperator is PostgREST's test for "this parameter is a filter".
func hasOperator(v string) bool {
	parts := strings.Split(v, ".")
	switch {
	case parts[0] == "not" && len(parts) >= 2, parts[0] == "is", parts[0] == "in":
		return true
	case supportedOps[parts[0]] || knownUnsupportedOps[parts[0]]:
		return true
	}
	if op, _, ok := strings.Cut(v, "("); ok {
		switch op {
		case "fts", "plfts", "phfts", "wfts":
			return true
		}
	}
	return false
}

// parseFilterValue parses a top-level filter value: [not.]op.value, with
// PostgREST's messages ("<source>" (line 1, column N)).
func parseFilterValue(field, v string) (*filter, *Error) {
	src := "failed to parse filter (" + v + ")"
	f := &filter{Field: field}
	pos := 0
	if strings.HasPrefix(v, "not.") {
		f.Not = true
		pos = 4
	}
	rest := v[pos:]
	switch {
	case strings.HasPrefix(rest, "in."):
		// Like parsec without eof, trailing text after the list is ignored.
		list, _, ok := parseList(rest[3:])
		if !ok {
			return nil, qpError(src, pos+4, "unexpected "+unexpected(rest[3:])+" expecting \"(\"")
		}
		f.Op, f.List = "in", list
	case strings.HasPrefix(rest, "is."):
		iv, ok := isValue(rest[3:])
		if !ok {
			return nil, qpError(src, pos+4, "unexpected "+unexpected(rest[3:])+" expecting null or trilean value (unknown, true, false)")
		}
		f.Op, f.Val = "is", iv
	default:
		dot := strings.IndexByte(rest, '.')
		if dot < 0 {
			return nil, qpError(src, len(v)+1, "unexpected end of input expecting delimiter (.)")
		}
		op := rest[:dot]
		if name, _, ok := strings.Cut(op, "("); ok && knownUnsupportedOps[name] {
			return nil, errNotImplemented("the '" + name + "' operator is not supported by this server")
		}
		if knownUnsupportedOps[op] {
			return nil, errNotImplemented("the '" + op + "' operator is not supported by this server")
		}
		if !supportedOps[op] || op == "in" || op == "is" {
			return nil, qpError(src, pos+dot+2, "unknown single value operator "+op)
		}
		f.Op, f.Val = op, rest[dot+1:]
	}
	return f, nil
}

// qpError is PGRST100 with PostgREST's message: the parser's source name
// shown Haskell-style followed by the position.
func qpError(source string, col int, details string) *Error {
	return errParse(haskellShow(source)+" (line 1, column "+strconv.Itoa(col)+")", details)
}

// unexpected renders parsec's description of the next input.
func unexpected(s string) string {
	if s == "" {
		return "end of input"
	}
	r, _ := utf8.DecodeRuneInString(s)
	return haskellShow(string(r))
}

// haskellShow renders a string as Haskell's show does: double quotes,
// backslash escapes, non-ASCII as decimal escapes.
func haskellShow(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	prevNumeric := false
	for _, r := range s {
		if prevNumeric && r >= '0' && r <= '9' {
			b.WriteString(`\&`)
		}
		prevNumeric = false
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		default:
			b.WriteString(`\` + strconv.Itoa(int(r)))
			prevNumeric = true
		}
	}
	b.WriteByte('"')
	return b.String()
}

// isValue normalises the operand of is. Like PostgREST's parser (which
// does not require the end of input) it accepts a case-insensitive prefix.
func isValue(v string) (string, bool) {
	for _, w := range []string{"null", "unknown", "true", "false"} {
		if len(v) >= len(w) && strings.EqualFold(v[:len(w)], w) {
			return strings.ToUpper(w), true
		}
	}
	return "", false
}

// parseList parses "(a,"b,c",d)" at the start of s and returns the
// elements and the number of bytes consumed.
func parseList(s string) ([]string, int, bool) {
	if !strings.HasPrefix(s, "(") {
		return nil, 0, false
	}
	i := 1
	var out []string
	if i < len(s) && s[i] == ')' {
		return []string{}, i + 1, true
	}
	for {
		if len(out) >= maxListLen {
			return nil, 0, false
		}
		el, n := parseElement(s[i:])
		out = append(out, el)
		i += n
		if i >= len(s) {
			return nil, 0, false
		}
		if s[i] == ',' {
			i++
			continue
		}
		if s[i] == ')' {
			return out, i + 1, true
		}
		return nil, 0, false
	}
}

// parseElement reads one list/logic value: a double-quoted string (with \x
// escapes) when it is followed by ',' or ')', otherwise raw text up to ',' or
// ')'. It returns the value and the bytes consumed.
func parseElement(s string) (string, int) {
	if strings.HasPrefix(s, `"`) {
		if v, n, ok := parseQuoted(s); ok && (n == len(s) || s[n] == ',' || s[n] == ')') {
			return v, n
		}
	}
	n := strings.IndexAny(s, ",)")
	if n < 0 {
		n = len(s)
	}
	return s[:n], n
}

// parseQuoted reads "..." with backslash escapes at the start of s.
func parseQuoted(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 >= len(s) {
				return "", 0, false
			}
			i++
			b.WriteByte(s[i])
		case '"':
			return b.String(), i + 1, true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, false
}

// parseLogicValue parses the value of or=/and=: "(cond,cond,...)".
func parseLogicValue(or, neg bool, v string) (*logicTree, *Error) {
	p := &logicParser{s: v}
	t, ok := p.tree(or, neg, 0)
	if !ok || p.i != len(p.s) {
		// PostgREST parses "<op><value>", so columns count the operator.
		op := "or"
		if !or {
			op = "and"
		}
		if neg {
			op = "not." + op
		}
		return nil, qpError("failed to parse logic tree ("+v+")", len(op)+p.i+1, p.detail(op))
	}
	return t, nil
}

type logicParser struct {
	s     string
	i     int
	err   string
	count int
}

func (p *logicParser) detail(string) string {
	if p.err != "" {
		return p.err
	}
	return "unexpected " + unexpected(p.s[min(p.i, len(p.s)):])
}

// tree parses "(node,node,...)" at p.i.
func (p *logicParser) tree(or, neg bool, depth int) (*logicTree, bool) {
	if depth > maxSelectDepth {
		p.err = "logic tree nested too deeply"
		return nil, false
	}
	if p.i >= len(p.s) || p.s[p.i] != '(' {
		return nil, false
	}
	p.i++
	t := &logicTree{Or: or, Not: neg}
	for {
		p.count++
		if p.count > maxListLen {
			p.err = "logic tree too long"
			return nil, false
		}
		n, ok := p.node(depth)
		if !ok {
			return nil, false
		}
		t.Children = append(t.Children, n)
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ')':
			p.i++
			return t, true
		default:
			return nil, false
		}
	}
}

func (p *logicParser) node(depth int) (logicNode, bool) {
	rest := p.s[p.i:]
	neg := false
	if strings.HasPrefix(rest, "not.") && (strings.HasPrefix(rest[4:], "or(") || strings.HasPrefix(rest[4:], "and(")) {
		neg = true
		p.i += 4
		rest = rest[4:]
	}
	if strings.HasPrefix(rest, "or(") || strings.HasPrefix(rest, "and(") {
		or := strings.HasPrefix(rest, "or(")
		if or {
			p.i += 2
		} else {
			p.i += 3
		}
		t, ok := p.tree(or, neg, depth+1)
		if !ok {
			return logicNode{}, false
		}
		return logicNode{Tree: t}, true
	}
	// field.[not.]op.value
	dot := strings.IndexByte(rest, '.')
	if dot <= 0 {
		return logicNode{}, false
	}
	f := &filter{Field: rest[:dot]}
	if strings.ContainsAny(f.Field, ",()\"") {
		return logicNode{}, false
	}
	if strings.Contains(f.Field, "->") {
		p.err = "JSON path filters are not supported by this server"
		return logicNode{}, false
	}
	p.i += dot + 1
	rest = p.s[p.i:]
	if strings.HasPrefix(rest, "not.") {
		f.Not = true
		p.i += 4
		rest = rest[4:]
	}
	dot = strings.IndexByte(rest, '.')
	if dot <= 0 {
		return logicNode{}, false
	}
	op := rest[:dot]
	if !supportedOps[op] {
		if knownUnsupportedOps[op] {
			p.err = "the '" + op + "' operator is not supported by this server"
		} else {
			p.err = fmt.Sprintf("unexpected %q expecting operator (eq, gt, ...)", op)
		}
		return logicNode{}, false
	}
	f.Op = op
	p.i += dot + 1
	rest = p.s[p.i:]
	switch op {
	case "in":
		list, n, ok := parseList(rest)
		if !ok {
			return logicNode{}, false
		}
		f.List = list
		p.i += n
	default:
		val, n := pgArrayValue(rest)
		if n == 0 {
			val, n = parseElement(rest)
		}
		if op == "is" {
			iv, ok := isValue(val)
			if !ok {
				p.err = fmt.Sprintf("unexpected %q expecting null or trilean value (unknown, true, false)", val)
				return logicNode{}, false
			}
			val = iv
		}
		f.Val = val
		p.i += n
	}
	return logicNode{Filter: f}, true
}

// parseOrder parses order=term,term.
func parseOrder(v string) ([]orderTerm, *Error) {
	offset := 0
	fail := func(col int, d string) *Error { return qpError("failed to parse order ("+v+")", offset+col, d) }
	var out []orderTerm
	for i, raw := range strings.Split(v, ",") {
		if i > 0 {
			offset += len(strings.Split(v, ",")[i-1]) + 1
		}
		if strings.ContainsAny(raw, "()") {
			return nil, errNotImplemented("ordering by related resources is not supported by this server")
		}
		if strings.Contains(raw, "->") {
			return nil, errNotImplemented("ordering by JSON paths is not supported by this server")
		}
		parts := strings.Split(raw, ".")
		t := orderTerm{Col: parts[0]}
		if t.Col == "" {
			return nil, fail(1, "unexpected "+unexpected(raw)+" expecting field name (* or [a..z0..9_$])")
		}
		rest := parts[1:]
		if len(rest) > 0 && (rest[0] == "asc" || rest[0] == "desc") {
			t.Desc = rest[0] == "desc"
			rest = rest[1:]
		}
		if len(rest) > 0 && (rest[0] == "nullsfirst" || rest[0] == "nullslast") {
			t.Nulls = strings.TrimPrefix(rest[0], "nulls")
			rest = rest[1:]
		}
		if len(rest) > 0 {
			col := len(raw) - len(strings.Join(rest, ".")) + 1
			expect := `"asc", "desc", "nullsfirst" or "nullslast"`
			if len(rest) < len(parts)-1 {
				expect = `"nullsfirst" or "nullslast"`
			}
			return nil, fail(col, "unexpected "+unexpected(rest[0])+" expecting "+expect)
		}
		out = append(out, t)
	}
	return out, nil
}

// parseSelect parses a select list.
func parseSelect(v string) ([]selectItem, *Error) {
	p := &selectParser{s: v}
	items, ok := p.items(0)
	if ok && p.i != len(p.s) {
		ok = false
	}
	if p.notImpl != "" {
		return nil, errNotImplemented(p.notImpl)
	}
	if !ok {
		d := "unexpected " + unexpected(p.s[min(p.i, len(p.s)):])
		if p.err != "" {
			d = p.err
		}
		return nil, qpError("failed to parse select parameter ("+v+")", p.i+1, d)
	}
	return items, nil
}

type selectParser struct {
	s       string
	i       int
	err     string
	notImpl string
}

func (p *selectParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *selectParser) items(depth int) ([]selectItem, bool) {
	if depth > maxSelectDepth {
		p.err = "select nested too deeply"
		return nil, false
	}
	var out []selectItem
	for {
		p.skipSpace()
		it, ok := p.item(depth)
		if !ok {
			return nil, false
		}
		out = append(out, it)
		if len(out) > maxListLen {
			p.err = "select list too long"
			return nil, false
		}
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		return out, true
	}
}

// ident reads a field name: a double-quoted name or a run of characters
// other than the select grammar's delimiters ("-" only when not "->").
func (p *selectParser) ident() (string, bool) {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		v, n, ok := parseQuoted(p.s[p.i:])
		if !ok {
			return "", false
		}
		p.i += n
		return v, true
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if strings.IndexByte(",:()!.\"' \n\t\r", c) >= 0 {
			break
		}
		if c == '-' && p.i+1 < len(p.s) && p.s[p.i+1] == '>' {
			break
		}
		p.i++
	}
	return p.s[start:p.i], p.i > start
}

func (p *selectParser) item(depth int) (selectItem, bool) {
	if p.i < len(p.s) && p.s[p.i] == '*' {
		p.i++
		return selectItem{Star: true}, true
	}
	if strings.HasPrefix(p.s[p.i:], "...") {
		p.notImpl = "spread embeds (...) are not supported by this server"
		return selectItem{}, false
	}
	name, ok := p.ident()
	if !ok {
		return selectItem{}, false
	}
	alias := ""
	if p.i < len(p.s) && p.s[p.i] == ':' && !strings.HasPrefix(p.s[p.i:], "::") {
		p.i++
		alias = name
		if name, ok = p.ident(); !ok {
			return selectItem{}, false
		}
	}
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "->"):
		p.notImpl = "JSON paths in select are not supported by this server"
		return selectItem{}, false
	case strings.HasPrefix(rest, "!") || strings.HasPrefix(rest, "("):
		e := &embedSpec{Name: name, Alias: alias}
		for p.i < len(p.s) && p.s[p.i] == '!' {
			p.i++
			h, ok := p.ident()
			if !ok {
				return selectItem{}, false
			}
			switch h {
			case "inner":
				e.Inner = true
			case "left":
				e.Inner = false
			default:
				if e.Hint != "" {
					p.err = "more than one embed hint"
					return selectItem{}, false
				}
				e.Hint = h
			}
		}
		if p.i >= len(p.s) || p.s[p.i] != '(' {
			return selectItem{}, false
		}
		p.i++
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ')' {
			p.i++
			e.Items = []selectItem{}
			return selectItem{Embed: e}, true
		}
		items, ok := p.items(depth + 1)
		if !ok {
			return selectItem{}, false
		}
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return selectItem{}, false
		}
		p.i++
		e.Items = items
		return selectItem{Embed: e}, true
	case strings.HasPrefix(rest, "."):
		p.notImpl = "aggregate functions are not supported by this server"
		return selectItem{}, false
	}
	it := selectItem{Col: name, Alias: alias}
	if strings.HasPrefix(p.s[p.i:], "::") {
		p.i += 2
		start := p.i
		for p.i < len(p.s) && (isAlnum(p.s[p.i]) || p.s[p.i] == '_' || p.s[p.i] == ' ' && false) {
			p.i++
		}
		if p.i == start {
			return selectItem{}, false
		}
		it.Cast = p.s[start:p.i]
	}
	return it, true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pgArrayValue reads a PostgreSQL array literal "{...}" (no nested braces)
// at the start of s, as PostgREST's pPgArray does; n is 0 when there is none.
func pgArrayValue(s string) (string, int) {
	if !strings.HasPrefix(s, "{") {
		return "", 0
	}
	end := strings.IndexAny(s[1:], "{}")
	if end < 0 || s[1+end] != '}' {
		return "", 0
	}
	return s[:end+2], end + 2
}

// parseColumns parses columns=a,"b c" (postgrest-js quotes every name).
func parseColumns(v string) ([]string, *Error) {
	p := &selectParser{s: v}
	var out []string
	for {
		p.skipSpace()
		name, ok := p.ident()
		if !ok {
			return nil, qpError("failed to parse columns parameter ("+v+")", p.i+1, "unexpected "+unexpected(p.s[min(p.i, len(p.s)):])+" expecting field name (* or [a..z0..9_$])")
		}
		out = append(out, strings.TrimSpace(name))
		if len(out) > maxListLen {
			return nil, errParse("failed to parse columns parameter", "too many columns")
		}
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i != len(p.s) {
			return nil, qpError("failed to parse columns parameter ("+v+")", p.i+1, "unexpected "+unexpected(p.s[p.i:])+" expecting \",\" or end of input")
		}
		return out, nil
	}
}
