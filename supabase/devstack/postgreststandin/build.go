package postgreststandin

import (
	"strconv"
	"strings"
)

// builder accumulates SQL parameters and unique aliases for one statement.
type builder struct {
	args   []any
	nAlias int
	schema string
	sc     *schemaCache
	params map[string]*nodeParams
	used   map[string]bool // parameter paths consumed by the plan
}

// arg binds v as the next parameter. Go strings go out in text format with
// the type PostgreSQL infers from context, like PostgREST's unknown-typed
// parameters, so "5" compares with a bigint and "x" fails a bigint cast.
func (b *builder) arg(v string) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

// ident quotes a SQL identifier.
func ident(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// node is one level of the read plan.
type node struct {
	table    string
	alias    string // SQL alias
	key      string // JSON key in the parent
	path     string // parameter path ("" for the root)
	items    []selectItem
	params   *nodeParams
	rel      *relationship
	inner    bool
	children []*node
	hidden   bool // rel() with an empty select: joined, not output
}

// plan resolves a select list against the schema cache.
func (b *builder) plan(table, alias, path string, items []selectItem, depth int) (*node, *Error) {
	n := &node{table: table, alias: alias, path: path, params: b.params[path]}
	b.used[path] = true
	if n.params == nil {
		n.params = &nodeParams{}
	}
	if len(items) == 0 && path == "" {
		items = []selectItem{{Star: true}}
	}
	for _, it := range items {
		if it.Embed == nil {
			n.items = append(n.items, it)
			continue
		}
		e := it.Embed
		rel, err := b.sc.findRel(b.schema, table, e.Name, e.Hint)
		if err != nil {
			return nil, err
		}
		key := e.Name
		if e.Alias != "" {
			key = e.Alias
		}
		childPath := key
		if path != "" {
			childPath = path + "." + key
		}
		b.nAlias++
		child, err := b.plan(rel.FTable, rel.FTable+"_"+strconv.Itoa(b.nAlias), childPath, e.Items, depth+1)
		if err != nil {
			return nil, err
		}
		// A filter path may also name the relation rather than its alias.
		if e.Alias != "" {
			alt := e.Name
			if path != "" {
				alt = path + "." + e.Name
			}
			if p := b.params[alt]; p != nil && !b.used[alt] {
				merged := *child.params
				merged.Filters = append(append([]filter(nil), merged.Filters...), p.Filters...)
				merged.Logic = append(append([]logicTree(nil), merged.Logic...), p.Logic...)
				merged.Order = append(append([]orderTerm(nil), merged.Order...), p.Order...)
				if merged.Limit == nil {
					merged.Limit = p.Limit
				}
				if merged.Offset == nil {
					merged.Offset = p.Offset
				}
				child.params = &merged
				b.used[alt] = true
			}
		}
		child.key = key
		child.rel = rel
		child.inner = e.Inner
		child.hidden = len(e.Items) == 0
		n.children = append(n.children, child)
	}
	// PostgREST 12 filters parents on an embed with rel=is.null or
	// rel=not.is.null; this server does not, and must not answer as if the
	// name were a column.
	for _, f := range n.params.Filters {
		for _, c := range n.children {
			if f.Field == c.key {
				return nil, errNotImplemented("filtering on the embedded resource '" + c.key + "' (is.null / not.is.null) is not supported by this server; use !inner")
			}
		}
	}
	return n, nil
}

// checkUnused rejects filters on embeds that are not in the select
// (PostgREST's PGRST108).
func (b *builder) checkUnused() *Error {
	for p := range b.params {
		if !b.used[p] {
			name := p
			if i := strings.LastIndexByte(p, '.'); i >= 0 {
				name = p[i+1:]
			}
			return &Error{Status: 400, Code: "PGRST108",
				Message: "'" + name + "' is not an embedded resource in this request",
				Hint:    "Verify that '" + name + "' is included in the 'select' query parameter."}
		}
	}
	return nil
}

// selectList renders the output columns of n: plain columns in select
// order, then embeds in select order (PostgREST 12 puts joins last).
func (b *builder) selectList(n *node) string {
	var cols []string
	for _, it := range n.items {
		if it.Star {
			cols = append(cols, ident(n.alias)+".*")
			continue
		}
		key := it.Col
		if it.Alias != "" {
			key = it.Alias
		}
		expr := ident(n.alias) + "." + ident(it.Col)
		if it.Cast != "" {
			expr = "CAST(" + expr + " AS " + it.Cast + ")"
		}
		cols = append(cols, expr+" AS "+ident(key))
	}
	for _, c := range n.children {
		if c.hidden {
			continue
		}
		if c.rel.toOne() {
			cols = append(cols, "row_to_json("+ident(c.alias)+".*)::jsonb AS "+ident(c.key))
		} else {
			agg := ident(c.alias + "_agg")
			cols = append(cols, "COALESCE("+agg+"."+agg+", '[]') AS "+ident(c.key))
		}
	}
	return strings.Join(cols, ", ")
}

// joins renders the lateral joins for n's embeds.
func (b *builder) joins(n *node) string {
	var sb strings.Builder
	for _, c := range n.children {
		sub := b.subquery(c, n.alias)
		join := " LEFT JOIN LATERAL "
		if c.inner {
			join = " INNER JOIN LATERAL "
		}
		if c.rel.toOne() {
			sb.WriteString(join + "(" + sub + ") AS " + ident(c.alias) + " ON TRUE")
		} else {
			agg := ident(c.alias + "_agg")
			cond := "TRUE"
			if c.inner {
				cond = agg + "." + agg + " IS NOT NULL"
			}
			sb.WriteString(join + "(SELECT json_agg(" + ident(c.alias) + ")::jsonb AS " + agg +
				" FROM (" + sub + ") AS " + ident(c.alias) + ") AS " + agg + " ON " + cond)
		}
	}
	return sb.String()
}

// subquery renders an embedded level correlated to its parent alias.
func (b *builder) subquery(c *node, parentAlias string) string {
	var conds []string
	for i := range c.rel.Cols {
		conds = append(conds, ident(c.alias)+"."+ident(c.rel.FCols[i])+" = "+ident(parentAlias)+"."+ident(c.rel.Cols[i]))
	}
	conds = append(conds, b.where(c)...)
	sql := "SELECT " + b.selectList(c) + " FROM " + ident(b.schema) + "." + ident(c.table) + " AS " + ident(c.alias) +
		b.joins(c) + " WHERE " + strings.Join(conds, " AND ")
	sql += b.orderBy(c)
	// Embedded ranges are not intersected with anything: a negative
	// offset or limit reaches PostgreSQL, which refuses it, as in PostgREST.
	if r, ok := urlRange(c.params.Limit, c.params.Offset); ok {
		sql += sqlLimitOffset(r)
	}
	return sql
}

// where renders n's filters and logic trees.
func (b *builder) where(n *node) []string {
	var out []string
	for i := range n.params.Filters {
		out = append(out, b.filterSQL(n.alias, &n.params.Filters[i]))
	}
	for i := range n.params.Logic {
		out = append(out, b.logicSQL(n.alias, &n.params.Logic[i]))
	}
	return out
}

func (b *builder) filterSQL(alias string, f *filter) string {
	col := ident(alias) + "." + ident(f.Field)
	var expr string
	switch f.Op {
	case "eq":
		expr = col + " = " + b.arg(f.Val)
	case "neq":
		expr = col + " <> " + b.arg(f.Val)
	case "gt":
		expr = col + " > " + b.arg(f.Val)
	case "gte":
		expr = col + " >= " + b.arg(f.Val)
	case "lt":
		expr = col + " < " + b.arg(f.Val)
	case "lte":
		expr = col + " <= " + b.arg(f.Val)
	case "like":
		expr = col + " LIKE " + b.arg(strings.ReplaceAll(f.Val, "*", "%"))
	case "ilike":
		expr = col + " ILIKE " + b.arg(strings.ReplaceAll(f.Val, "*", "%"))
	case "match": // POSIX regular expression, as PostgREST's match
		expr = col + " ~ " + b.arg(f.Val)
	case "imatch":
		expr = col + " ~* " + b.arg(f.Val)
	case "is":
		expr = col + " IS " + f.Val // a keyword validated by isValue
	case "in":
		if len(f.List) == 0 {
			expr = "FALSE"
		} else {
			ps := make([]string, len(f.List))
			for i, v := range f.List {
				ps[i] = b.arg(v)
			}
			expr = col + " IN (" + strings.Join(ps, ", ") + ")"
		}
	}
	if f.Not {
		return "NOT (" + expr + ")"
	}
	return expr
}

func (b *builder) logicSQL(alias string, t *logicTree) string {
	parts := make([]string, 0, len(t.Children))
	for _, c := range t.Children {
		if c.Filter != nil {
			parts = append(parts, b.filterSQL(alias, c.Filter))
		} else {
			parts = append(parts, b.logicSQL(alias, c.Tree))
		}
	}
	op := " AND "
	if t.Or {
		op = " OR "
	}
	expr := "(" + strings.Join(parts, op) + ")"
	if t.Not {
		return "NOT " + expr
	}
	return expr
}

func (b *builder) orderBy(n *node) string {
	if len(n.params.Order) == 0 {
		return ""
	}
	terms := make([]string, len(n.params.Order))
	for i, o := range n.params.Order {
		t := ident(n.alias) + "." + ident(o.Col)
		if o.Desc {
			t += " DESC"
		} else {
			t += " ASC"
		}
		switch o.Nulls {
		case "first":
			t += " NULLS FIRST"
		case "last":
			t += " NULLS LAST"
		}
		terms[i] = t
	}
	return " ORDER BY " + strings.Join(terms, ", ")
}
