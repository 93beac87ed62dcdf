package postgreststandin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// function is one overload of a function of the exposed schema, as the
// catalogue describes it.
type function struct {
	inNames  []string // names of the input arguments, in order ("" when unnamed)
	inTypes  []string // their types, as format_type renders them
	defaults int      // how many trailing inputs have defaults
	retSet   bool     // RETURNS SETOF or TABLE
	void     bool     // RETURNS void
	rowType  bool     // returns rows (a composite type or OUT columns)
}

// required are the input names a call must give.
func (f *function) required() []string { return f.inNames[:len(f.inNames)-f.defaults] }

// matches reports whether a call with exactly the arguments args (sorted)
// can call f by name, as PostgREST picks an overload.
func (f *function) matches(args []string) bool {
	for _, a := range args {
		if !slices.Contains(f.inNames, a) {
			return false
		}
	}
	for _, r := range f.required() {
		if _, found := slices.BinarySearch(args, r); !found {
			return false
		}
	}
	return true
}

// singleJSON reports whether f takes one unnamed json or jsonb argument,
// which PostgREST passes the whole body to.
func (f *function) singleJSON() bool {
	return len(f.inNames) == 1 && f.inNames[0] == "" && (f.inTypes[0] == "json" || f.inTypes[0] == "jsonb")
}

// functionsSQL reads the overloads of a function from the catalogue. It
// runs on every call: unlike PostgREST's schema cache, a function created
// while the server runs is callable at once (PostgREST needs NOTIFY pgrst).
const functionsSQL = `SELECT coalesce(p.proargnames, '{}'), coalesce(p.proargmodes::text[], '{}'),
	coalesce((SELECT array_agg(pg_catalog.format_type(a.t, NULL) ORDER BY a.i)
	            FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, i)), '{}'),
	p.pronargdefaults, p.proretset, p.prorettype = 'pg_catalog.void'::pg_catalog.regtype,
	t.typtype = 'c' OR (p.prorettype = 'pg_catalog.record'::pg_catalog.regtype AND p.proargmodes IS NOT NULL
	                    AND ('o' = ANY (p.proargmodes) OR 't' = ANY (p.proargmodes)))
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
JOIN pg_catalog.pg_type t ON t.oid = p.prorettype
WHERE n.nspname = $1 AND p.proname = $2 AND p.prokind = 'f'
ORDER BY p.oid`

// rpc serves POST /rpc/<name>: the body's keys are the function's named
// arguments, converted to the argument types by json_to_record as
// PostgREST does, and the call runs in the request's role and transaction.
// Results are shaped as PostgREST 12 shapes them: rows as a JSON array (or
// one object with Accept: application/vnd.pgrst.object+json, or for a
// function returning one composite value), a scalar as its JSON value, and
// void as 204 without a body. Prefer: return=… does not apply to functions
// and is ignored, as PostgREST ignores it. Not supported (answered with
// PGRST127): GET calls, filters and select on the result, a single unnamed
// json argument, and the singular media type on a scalar result.
func (h *Handler) rpc(ctx context.Context, w http.ResponseWriter, r *http.Request, req *request, name string) error {
	if r.Method != http.MethodPost {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			return errNotImplemented("calling functions with GET is not supported by this server")
		}
		return &Error{Status: 405, Code: "PGRST101", Message: "Only GET, HEAD or POST are allowed for functions"}
	}
	if r.URL.RawQuery != "" {
		return errNotImplemented("query parameters on function calls are not supported by this server")
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, h.cfg.MaxBodyBytes+1))
	if err != nil {
		return errInvalidBody("Could not read the request body")
	}
	if int64(len(raw)) > h.cfg.MaxBodyBytes {
		return &Error{Status: 413, Code: "PGRST102", Message: "Request body too large"}
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil || body == nil {
		if len(raw) > 0 && raw[0] == '[' {
			return errNotImplemented("calling a function with an array body is not supported by this server")
		}
		return errInvalidBody("Empty or invalid json")
	}
	args := make([]string, 0, len(body))
	for k := range body {
		args = append(args, k)
	}
	sort.Strings(args)

	fns, err := h.functions(ctx, name)
	if err != nil {
		return &Error{Status: 503, Code: "PGRST002", Message: "Could not query the database for the schema cache. Retrying.", Err: err}
	}
	var match []function
	for _, f := range fns {
		if f.singleJSON() {
			return errNotImplemented("functions with a single unnamed json argument are not supported by this server")
		}
		if f.matches(args) {
			match = append(match, f)
		}
	}
	switch len(match) {
	case 0:
		return errFunctionNotFound(h.cfg.Schema, name, args, fns)
	case 1:
	default:
		return &Error{Status: http.StatusMultipleChoices, Code: "PGRST203",
			Message: fmt.Sprintf("Could not choose the best candidate function between: %d overloads of %s.%s", len(match), h.cfg.Schema, name)}
	}
	f := match[0]
	if req.singular && !f.rowType {
		return errNotImplemented("the singular media type on a function that does not return rows is not supported by this server")
	}

	// The call: named arguments from json_to_record's columns.
	var named, cols []string
	for i, n := range f.inNames {
		if _, given := body[n]; !given {
			continue
		}
		named = append(named, ident(n)+" := _."+ident(n))
		cols = append(cols, ident(n)+" "+f.inTypes[i])
	}
	call := ident(h.cfg.Schema) + "." + ident(name) + "(" + strings.Join(named, ", ") + ")"
	from := " FROM json_to_record($1::text::json) AS _(" + strings.Join(cols, ", ") + ")"
	if len(cols) == 0 {
		from = ""
	}
	var sql string
	switch {
	case f.void:
		sql = "SELECT " + call + from
	case f.rowType:
		bodyExpr := "coalesce(json_agg(_postgrest_t), '[]')::text"
		if req.singular || !f.retSet {
			bodyExpr = "coalesce((json_agg(_postgrest_t)->0)::text, 'null')"
		}
		src := "SELECT _postgrest_f.*" + from
		if from == "" {
			src += " FROM "
		} else {
			src += ", LATERAL "
		}
		src += call + " AS _postgrest_f"
		sql = "SELECT pg_catalog.count(_postgrest_t), " + bodyExpr + " FROM (" + src + ") _postgrest_t"
	case f.retSet:
		sql = "SELECT pg_catalog.count(*), coalesce(json_agg(_postgrest_t.v), '[]')::text FROM (SELECT " + call + " AS v" + from + ") _postgrest_t"
	default:
		sql = "SELECT 1::bigint, coalesce(to_json(" + call + ")::text, 'null')" + from
	}

	tx, err := h.begin(ctx, req, false)
	if err != nil {
		return fromPg(err, req.auth.authed)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var (
		n      int64
		resp   string
		params []any
	)
	if from != "" {
		params = []any{string(raw)}
	}
	if f.void {
		_, err = tx.Exec(ctx, sql, params...)
	} else {
		err = tx.QueryRow(ctx, sql, params...).Scan(&n, &resp)
	}
	if err != nil {
		return fromPg(err, req.auth.authed)
	}
	if req.singular && n != 1 {
		return errSingular(n)
	}
	if err := tx.Commit(ctx); err != nil {
		return fromPg(err, req.auth.authed)
	}
	hdr := w.Header()
	if f.void {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	hdr.Set("Content-Range", contentRange(0, n-1, nil))
	if req.singular {
		hdr.Set("Content-Type", ctObject)
	} else {
		hdr.Set("Content-Type", ctJSON)
	}
	hdr.Set("Content-Length", strconv.Itoa(len(resp)))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, resp)
	return nil
}

// functions returns the overloads of name in the exposed schema.
func (h *Handler) functions(ctx context.Context, name string) ([]function, error) {
	rows, err := h.cfg.Pool.Query(ctx, functionsSQL, h.cfg.Schema, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []function
	for rows.Next() {
		var (
			names, modes, types []string
			defaults            int
			f                   function
		)
		if err := rows.Scan(&names, &modes, &types, &defaults, &f.retSet, &f.void, &f.rowType); err != nil {
			return nil, err
		}
		for i, t := range types {
			// Without modes every argument is an input, in order; with
			// them, inputs are the i, b (INOUT) and v (VARIADIC) ones.
			n := ""
			if len(modes) == 0 {
				if i < len(names) {
					n = names[i]
				}
			} else {
				k := -1
				for j, m := range modes {
					if m == "i" || m == "b" || m == "v" {
						k++
						if k == i {
							n = names[j]
							break
						}
					}
				}
			}
			f.inNames = append(f.inNames, n)
			f.inTypes = append(f.inTypes, t)
		}
		f.defaults = defaults
		out = append(out, f)
	}
	return out, rows.Err()
}

// errFunctionNotFound is PGRST202, worded as PostgREST 12 words it; the
// hint names an overload of the same name when there is one.
func errFunctionNotFound(schema, name string, args []string, overloads []function) *Error {
	qn := schema + "." + name
	e := &Error{Status: http.StatusNotFound, Code: "PGRST202"}
	if len(args) == 0 {
		e.Message = "Could not find the function " + qn + " without parameters in the schema cache"
		e.Details = "Searched for the function " + qn + " without parameters or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache."
	} else {
		list := strings.Join(args, ", ")
		e.Message = "Could not find the function " + qn + "(" + list + ") in the schema cache"
		e.Details = "Searched for the function " + qn + " with parameters " + list + " or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache."
	}
	if len(overloads) > 0 {
		e.Hint = "Perhaps you meant to call the function " + qn + "(" + strings.Join(overloads[0].inNames, ", ") + ")"
	}
	return e
}
