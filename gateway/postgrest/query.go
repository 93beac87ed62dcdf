package postgrest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// Query is one request under construction. Methods append to it and return
// it, mirroring postgrest-js so a query reads like the original's.
// A Query is not safe for concurrent use; build one per request.
type Query struct {
	c      *Client
	table  string
	params [][2]string
}

func (q *Query) add(k, v string) *Query {
	q.params = append(q.params, [2]string{k, v})
	return q
}

// Select sets the columns to return. White space outside double quotes is
// removed, as postgrest-js does.
func (q *Query) Select(columns string) *Query {
	return q.add("select", stripSpace(columns))
}

func stripSpace(s string) string {
	quoted := false
	return strings.Map(func(r rune) rune {
		if r == '"' {
			quoted = !quoted
		}
		if !quoted && (r == ' ' || r == '\t' || r == '\n' || r == '\r') {
			return -1
		}
		return r
	}, s)
}

// Filter adds column=operator.value, with value sent as given.
func (q *Query) Filter(column, operator, value string) *Query {
	return q.add(column, operator+"."+value)
}

// Eq adds column=eq.value.
func (q *Query) Eq(column, value string) *Query { return q.Filter(column, "eq", value) }

// Neq adds column=neq.value.
func (q *Query) Neq(column, value string) *Query { return q.Filter(column, "neq", value) }

// Gt adds column=gt.value.
func (q *Query) Gt(column, value string) *Query { return q.Filter(column, "gt", value) }

// Gte adds column=gte.value.
func (q *Query) Gte(column, value string) *Query { return q.Filter(column, "gte", value) }

// Lt adds column=lt.value.
func (q *Query) Lt(column, value string) *Query { return q.Filter(column, "lt", value) }

// Lte adds column=lte.value.
func (q *Query) Lte(column, value string) *Query { return q.Filter(column, "lte", value) }

// Like adds column=like.pattern (PostgREST reads * as %).
func (q *Query) Like(column, pattern string) *Query { return q.Filter(column, "like", pattern) }

// Ilike adds column=ilike.pattern.
func (q *Query) Ilike(column, pattern string) *Query { return q.Filter(column, "ilike", pattern) }

// Is adds column=is.value (null, true, false).
func (q *Query) Is(column, value string) *Query { return q.Filter(column, "is", value) }

// In adds column=in.(v1,v2,…), quoting each value that PostgREST's grammar
// would otherwise split or misread, as postgrest-js does.
func (q *Query) In(column string, values []string) *Query {
	var b strings.Builder
	b.WriteString("in.(")
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(QuoteValue(v))
	}
	b.WriteByte(')')
	return q.add(column, b.String())
}

// QuoteValue quotes v for use inside in.(…) or or=(…) lists when it
// contains a character PostgREST's grammar treats specially. A quoted value
// escapes \ and " with a backslash; PostgREST then matches it literally.
func QuoteValue(v string) string {
	if !strings.ContainsAny(v, ",()\"\\") && v != "" {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// Or adds or=(filters). filters is PostgREST logic-tree syntax, already
// quoted by the caller where needed.
func (q *Query) Or(filters string) *Query { return q.add("or", "("+filters+")") }

// Order adds order=column.asc|desc with no nulls modifier, so PostgreSQL's
// default null placement applies, as in postgrest-js's default.
func (q *Query) Order(column string, ascending bool) *Query {
	dir := "desc"
	if ascending {
		dir = "asc"
	}
	return q.appendOrder("order", column+"."+dir)
}

// OrderIn orders the embedded resource rel.
func (q *Query) OrderIn(rel, column string, ascending bool) *Query {
	dir := "desc"
	if ascending {
		dir = "asc"
	}
	return q.appendOrder(rel+".order", column+"."+dir)
}

func (q *Query) appendOrder(key, term string) *Query {
	for i, p := range q.params {
		if p[0] == key {
			q.params[i][1] += "," + term
			return q
		}
	}
	return q.add(key, term)
}

// Limit adds limit=n.
func (q *Query) Limit(n int) *Query { return q.add("limit", itoa(n)) }

// LimitIn limits the embedded resource rel.
func (q *Query) LimitIn(rel string, n int) *Query { return q.add(rel+".limit", itoa(n)) }

// Offset adds offset=n.
func (q *Query) Offset(n int) *Query { return q.add("offset", itoa(n)) }

// Params returns the query parameters in order, for tests and logs.
func (q *Query) Params() [][2]string { return q.params }

// Rows runs the query and returns the JSON array PostgREST answered.
func (q *Query) Rows(ctx context.Context) (json.RawMessage, error) {
	body, _, err := q.c.do(ctx, http.MethodGet, q.table, q.params, nil, nil)
	return body, err
}

// Single asks PostgREST for exactly one row (postgrest-js .single()).
// Zero or several rows fail with an *Error whose Code is PGRST116.
func (q *Query) Single(ctx context.Context) (json.RawMessage, error) {
	h := http.Header{"Accept": {"application/vnd.pgrst.object+json"}}
	body, _, err := q.c.do(ctx, http.MethodGet, q.table, q.params, h, nil)
	return body, err
}

// MaybeSingle fetches rows as a plain array and decides client-side, as
// postgrest-js .maybeSingle() does: no rows gives (nil, nil), one row gives
// that row, several give an *Error with Code PGRST116.
func (q *Query) MaybeSingle(ctx context.Context) (json.RawMessage, error) {
	body, _, err := q.c.do(ctx, http.MethodGet, q.table, q.params, nil, nil)
	return maybeSingle(q.table, body, err)
}

// maybeSingle is MaybeSingle's decision on a plain-array answer.
func maybeSingle(table string, body json.RawMessage, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(body, &rows); err != nil {
		return nil, &Error{Table: table, Status: http.StatusOK, Err: err}
	}
	switch len(rows) {
	case 0:
		return nil, nil
	case 1:
		return rows[0], nil
	default:
		return nil, &Error{Table: table, Status: http.StatusOK, Code: CodeNoRows,
			Message: "JSON object requested, multiple (or no) rows returned",
			Details: "Results contain " + itoa(len(rows)) + " rows, application/vnd.pgrst.object+json requires 1 row"}
	}
}

// Return says what a write returns.
type Return int

const (
	// ReturnMinimal asks for no body (Prefer: return=minimal).
	ReturnMinimal Return = iota
	// ReturnRows asks for the written rows as an array.
	ReturnRows
	// ReturnSingle asks for the single written row as an object.
	ReturnSingle
)

func writeHeader(ret Return) http.Header {
	h := http.Header{}
	switch ret {
	case ReturnMinimal:
		h.Set("Prefer", "return=minimal")
	case ReturnRows:
		h.Set("Prefer", "return=representation")
	case ReturnSingle:
		h.Set("Prefer", "return=representation")
		h.Set("Accept", "application/vnd.pgrst.object+json")
	}
	return h
}

// Insert POSTs body (an object or array) and returns what ret asks for.
func (q *Query) Insert(ctx context.Context, body any, ret Return) (json.RawMessage, error) {
	return q.write(ctx, http.MethodPost, body, ret)
}

// Update PATCHes the rows matched by the filters with body.
func (q *Query) Update(ctx context.Context, body any, ret Return) (json.RawMessage, error) {
	return q.write(ctx, http.MethodPatch, body, ret)
}

func (q *Query) write(ctx context.Context, method string, body any, ret Return) (json.RawMessage, error) {
	var raw []byte
	switch b := body.(type) {
	case []byte:
		raw = b
	case json.RawMessage:
		raw = b
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(body); err != nil {
			return nil, &Error{Table: q.table, Err: err}
		}
		raw = bytes.TrimRight(buf.Bytes(), "\n")
	}
	out, _, err := q.c.do(ctx, method, q.table, q.params, writeHeader(ret), raw)
	if err != nil {
		return nil, err
	}
	if ret == ReturnMinimal {
		return nil, nil
	}
	return out, nil
}

// RPC calls the SQL function fn with args as its named arguments (POST
// /rpc/<fn>) and returns its JSON result. Each call is one transaction.
func (c *Client) RPC(ctx context.Context, fn string, args any) (json.RawMessage, error) {
	return c.From("rpc/"+fn).write(ctx, http.MethodPost, args, ReturnRows)
}

// ReadRPC calls fn as RPC does, for a function that only reads (STABLE):
// no Prefer header, and the request is marked idempotent, so net/http
// sends it again once when a reused keep-alive connection turns out to be
// dead, as it does a GET. The mark is an Idempotency-Key with no value,
// which net/http never puts on the wire.
func (c *Client) ReadRPC(ctx context.Context, fn string, args any) (json.RawMessage, error) {
	body, err := json.Marshal(args)
	if err != nil {
		return nil, &Error{Table: "rpc/" + fn, Err: err}
	}
	out, _, err := c.do(ctx, http.MethodPost, "rpc/"+fn, nil, http.Header{"Idempotency-Key": {}}, body)
	return out, err
}
