// Package postgreststandin is a PostgREST-compatible HTTP API over pgx for the local
// development stack. It reproduces the parts of PostgREST 12/13 that the
// gateway and the original Edge Functions use: JWT verification with
// PostgREST's error codes, per-request role switching so that row-level
// security applies, reads with embeds and filters rendered by PostgreSQL
// itself, singular responses, counting, simple writes and calls of
// functions with named arguments (rpc.go). Anything outside that subset
// answers a PostgREST-style 400 rather than a different result.
package postgreststandin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/lestrrat-go/jwx/v2/jwk"
)

// Config mirrors the PostgREST settings this server honours.
type Config struct {
	// Pool connects as a role that may SET ROLE to every API role (the
	// superuser in the dev stack, authenticator in Supabase). Required.
	Pool *pgxpool.Pool
	// JWKS holds the public keys for ES256/RS256 tokens (jwt-secret as a
	// JWKS in PostgREST). Optional.
	JWKS jwk.Set
	// JWKSFunc, when set, is consulted per request instead of JWKS, so keys
	// can rotate while the server runs.
	JWKSFunc func(ctx context.Context) jwk.Set
	// JWTSecret is the legacy HS256 secret. Optional.
	JWTSecret []byte
	// Audience, when set, must match the aud claim (jwt-aud).
	Audience string
	// AnonRole is the role for requests without a token. Default "anon".
	AnonRole string
	// Schema is the exposed schema. Default "public".
	Schema string
	// MaxRows caps top-level results (db-max-rows). Default 1000; negative
	// means unlimited.
	MaxRows int
	// MaxBodyBytes bounds write payloads. Default 1 MiB.
	MaxBodyBytes int64
	// Logger receives internal errors. nil discards.
	Logger *slog.Logger
	// Now is the clock for JWT checks. Default time.Now.
	Now func() time.Time
}

// Handler serves the API at its root ("/<table>"); mount it under /rest/v1/
// with http.StripPrefix.
type Handler struct {
	cfg    Config
	schema *schemaHolder
	log    *slog.Logger
}

// New validates cfg and returns a handler. The schema cache is loaded on
// first use and reloaded when a request names an unknown table.
func New(cfg Config) (*Handler, error) {
	if cfg.Pool == nil {
		return nil, errors.New("postgreststandin: Config.Pool is required")
	}
	if cfg.AnonRole == "" {
		cfg.AnonRole = "anon"
	}
	if cfg.Schema == "" {
		cfg.Schema = "public"
	}
	if cfg.MaxRows == 0 {
		cfg.MaxRows = 1000
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{cfg: cfg, log: log,
		schema: &schemaHolder{pool: cfg.Pool, schema: cfg.Schema, minInterval: time.Second}}, nil
}

// ReloadSchema re-reads the schema cache (PostgREST's NOTIFY pgrst).
func (h *Handler) ReloadSchema(ctx context.Context) error { return h.schema.reload(ctx) }

func (h *Handler) now() time.Time { return h.cfg.Now() }

const (
	ctJSON   = "application/json; charset=utf-8"
	ctObject = "application/vnd.pgrst.object+json; charset=utf-8"
)

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.serve(w, r); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Status: 500, Code: "PGRSTX00", Message: "Internal server error", Err: err}
		}
		switch {
		case e.Status >= 500:
			h.log.ErrorContext(r.Context(), "postgreststandin request failed", "method", r.Method, "path", r.URL.Path, "code", e.Code, "error", e.Error())
		case e.Err != nil:
			// A database error PostgREST answers as the client's (such as
			// 22P02 or 22007, invalid input syntax: the gateway's start-up
			// probe of its migrations asks for one on purpose).
			h.log.DebugContext(r.Context(), "postgreststandin request refused", "method", r.Method, "path", r.URL.Path, "code", e.Code, "error", e.Error())
		}
		for k, vs := range e.Header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		body := e.body()
		w.Header().Set("Content-Type", ctJSON)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("Proxy-Status", "PostgREST; error="+e.Code)
		w.WriteHeader(e.Status)
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
	}
}

// request carries everything decided before the database is touched.
type request struct {
	table    string
	q        *query
	singular bool
	auth     authResult
	prefer   prefs
	method   string
	path     string
	rangeLo  *int64
	rangeHi  *int64
}

type prefs struct {
	returnRep bool
	returnSet string // "", "minimal", "representation", "headers-only"
	count     bool
	countPref string
	// unsupported names a preference that would change the result and
	// that this server does not implement.
	unsupported string
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) error {
	// A client that hangs up does not cancel its statement: PostgREST runs
	// it on to its commit or error (PostgREST issues #699, #2352), so a
	// write whose answer is lost may still be made, as it is in production.
	ctx := context.WithoutCancel(r.Context())
	path := strings.Trim(r.URL.Path, "/")
	if path == "" {
		return errNotImplemented("the OpenAPI root endpoint is not supported by this server")
	}
	fn, isRPC := strings.CutPrefix(path, "rpc/")
	if strings.Contains(path, "/") && (!isRPC || strings.Contains(fn, "/")) {
		return &Error{Status: 404, Code: "PGRST125", Message: "Invalid path specified in request URL"}
	}
	if s := r.Header.Get("Accept-Profile"); s != "" && s != h.cfg.Schema {
		return &Error{Status: 406, Code: "PGRST106", Message: "Invalid schema: " + s, Hint: "Only the following schemas are exposed: " + h.cfg.Schema}
	}
	if s := r.Header.Get("Content-Profile"); s != "" && s != h.cfg.Schema {
		return &Error{Status: 406, Code: "PGRST106", Message: "Invalid schema: " + s, Hint: "Only the following schemas are exposed: " + h.cfg.Schema}
	}
	req := &request{table: path, method: r.Method, path: r.URL.Path}

	// Authentication first, as PostgREST does.
	req.auth = authResult{role: h.cfg.AnonRole, claims: map[string]any{"role": h.cfg.AnonRole}}
	if ah := r.Header.Get("Authorization"); ah != "" {
		scheme, tok, _ := strings.Cut(ah, " ")
		if strings.EqualFold(scheme, "bearer") {
			res, e := h.verifyToken(ctx, strings.TrimSpace(tok))
			if e != nil {
				return e
			}
			req.auth = res
		}
	}

	single, e := negotiate(r.Header.Values("Accept"))
	if e != nil {
		return e
	}
	req.singular = single
	req.prefer = parsePrefer(r.Header.Values("Prefer"))
	if req.prefer.unsupported != "" {
		return errNotImplemented(req.prefer.unsupported + " is not supported by this server")
	}
	if req.prefer.returnSet == "headers-only" {
		return errNotImplemented("Prefer: return=headers-only is not supported by this server")
	}
	if isRPC {
		return h.rpc(ctx, w, r, req, fn)
	}
	q, e := parseQuery(r.URL.RawQuery)
	if e != nil {
		return e
	}
	req.q = q
	if rg := r.Header.Get("Range"); rg != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		lo, hi, ok := parseRange(rg)
		if !ok {
			return &Error{Status: 416, Code: "PGRST103", Message: "Requested range not satisfiable",
				Details: "The lower boundary must be lower than or equal to the upper boundary in the Range header."}
		}
		req.rangeLo, req.rangeHi = &lo, hi
	}

	sc, err := h.schema.get(ctx)
	if err != nil {
		return &Error{Status: 503, Code: "PGRST002", Message: "Could not query the database for the schema cache. Retrying.", Err: err}
	}
	if sc.tables[req.table] == nil {
		if sc, err = h.schema.refreshIfStale(ctx); err != nil {
			return &Error{Status: 503, Code: "PGRST002", Message: "Could not query the database for the schema cache. Retrying.", Err: err}
		}
		if sc.tables[req.table] == nil {
			return errTableNotFound(h.cfg.Schema, req.table)
		}
	}

	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return h.read(ctx, w, r, req, sc)
	case http.MethodPost, http.MethodPatch, http.MethodDelete:
		var body []byte
		if r.Method != http.MethodDelete {
			b, err := io.ReadAll(io.LimitReader(r.Body, h.cfg.MaxBodyBytes+1))
			if err != nil {
				return errInvalidBody("Could not read the request body")
			}
			if int64(len(b)) > h.cfg.MaxBodyBytes {
				return &Error{Status: 413, Code: "PGRST102", Message: "Request body too large"}
			}
			body = b
		}
		return h.write(ctx, w, req, sc, body)
	case http.MethodPut:
		return errNotImplemented("PUT (upsert) is not supported by this server")
	case http.MethodOptions:
		w.Header().Set("Allow", "OPTIONS,GET,HEAD,POST,PATCH,DELETE")
		w.WriteHeader(http.StatusOK)
		return nil
	}
	return &Error{Status: 405, Code: "PGRST117", Message: "Unsupported HTTP method: " + r.Method}
}

// negotiate picks the response media type from Accept headers: JSON array or
// PostgREST's singular object.
func negotiate(accepts []string) (bool, *Error) {
	if len(accepts) == 0 {
		return false, nil
	}
	type cand struct {
		mt string
		q  float64
		i  int
	}
	var cs []cand
	for _, a := range accepts {
		for _, part := range strings.Split(a, ",") {
			fields := strings.Split(part, ";")
			mt := strings.ToLower(strings.TrimSpace(fields[0]))
			if mt == "" {
				continue
			}
			q := 1.0
			for _, p := range fields[1:] {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.TrimSpace(k) == "q" {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
						q = f
					}
				}
			}
			cs = append(cs, cand{mt, q, len(cs)})
		}
	}
	if len(cs) == 0 {
		return false, nil
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].q > cs[j].q })
	var names []string
	for _, c := range cs {
		if c.q <= 0 {
			continue
		}
		switch c.mt {
		case "application/json", "*/*", "application/*":
			return false, nil
		case "application/vnd.pgrst.object+json", "application/vnd.pgrst.object":
			return true, nil
		}
		names = append(names, c.mt)
	}
	return false, &Error{Status: 406, Code: "PGRST107", Message: "None of these media types are available: " + strings.Join(names, ", ")}
}

func parsePrefer(vals []string) prefs {
	var p prefs
	for _, v := range vals {
		for _, part := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch strings.TrimSpace(k) {
			case "return":
				p.returnSet = strings.TrimSpace(val)
				p.returnRep = p.returnSet == "representation"
			case "count":
				switch strings.TrimSpace(val) {
				case "exact", "planned", "estimated":
					p.count = true
					p.countPref = strings.TrimSpace(val)
				}
			case "missing":
				p.unsupported = "Prefer: missing=" + strings.TrimSpace(val)
			case "resolution":
				p.unsupported = "Prefer: resolution=" + strings.TrimSpace(val) + " (upsert)"
			case "tx":
				if strings.TrimSpace(val) == "rollback" {
					p.unsupported = "Prefer: tx=rollback"
				}
			}
		}
	}
	return p
}

// parseRange reads "items=lo-hi", "lo-hi" or "lo-".
func parseRange(s string) (int64, *int64, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "items=")
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, nil, false
	}
	lo, err := strconv.ParseInt(a, 10, 64)
	if err != nil || lo < 0 {
		return 0, nil, false
	}
	if b == "" {
		return lo, nil, true
	}
	hi, err := strconv.ParseInt(b, 10, 64)
	if err != nil || hi < lo {
		return 0, nil, false
	}
	return lo, &hi, true
}

// begin opens the request transaction and switches to the request's role
// with its claims, as PostgREST's pre-request setup does.
func (h *Handler) begin(ctx context.Context, req *request, readOnly bool) (pgx.Tx, error) {
	opts := pgx.TxOptions{}
	if readOnly {
		opts.AccessMode = pgx.ReadOnly
	}
	tx, err := h.cfg.Pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	claims, err := json.Marshal(req.auth.claims)
	if err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	_, err = tx.Exec(ctx, `SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
		set_config('request.method', $3, true), set_config('request.path', $4, true)`,
		req.auth.role, string(claims), req.method, req.path)
	if err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	return tx, nil
}

// read serves GET and HEAD.
func (h *Handler) read(ctx context.Context, w http.ResponseWriter, r *http.Request, req *request, sc *schemaCache) error {
	b := &builder{schema: h.cfg.Schema, sc: sc, params: req.q.Params, used: map[string]bool{}}
	root, e := b.plan(req.table, req.table, "", req.q.Select, 0)
	if e != nil {
		return e
	}
	if e := b.checkUnused(); e != nil {
		return e
	}
	// Pagination: limit/offset intersected with the Range header, then
	// max-rows (pagerange.go).
	limitRange, _ := urlRange(root.params.Limit, root.params.Offset)
	header := allRange()
	if req.rangeLo != nil {
		header = rowRange{lo: big.NewInt(*req.rangeLo)}
		if req.rangeHi != nil {
			header.hi = big.NewInt(*req.rangeHi)
		}
	}
	top := intersect(header, limitRange)
	if l := limitRange.limit(); l != nil && l.Sign() == 0 {
		top = rowRange{lo: big.NewInt(0), hi: big.NewInt(-1)} // limit=0 is allowed
	} else if top.empty() {
		return &Error{Status: 416, Code: "PGRST103", Message: "Requested range not satisfiable", Details: "Limit should be greater than or equal to zero."}
	}
	if h.cfg.MaxRows > 0 {
		top = restrict(big.NewInt(int64(h.cfg.MaxRows)), top)
	}
	// offset is only used for Content-Range and the 416 check; a value
	// beyond bigint never gets there (PostgreSQL refuses the query).
	offset := top.lo.Int64()
	where := b.where(root)
	from := " FROM " + ident(h.cfg.Schema) + "." + ident(req.table) + " AS " + ident(root.alias) + b.joins(root)
	if len(where) > 0 {
		from += " WHERE " + strings.Join(where, " AND ")
	}
	inner := "SELECT " + b.selectList(root) + from + b.orderBy(root) + sqlLimitOffset(top)
	bodyExpr := "coalesce(json_agg(_postgrest_t), '[]')::text"
	if req.singular {
		bodyExpr = "coalesce((json_agg(_postgrest_t)->0)::text, 'null')"
	}
	countExpr := "NULL::bigint"
	if req.prefer.count {
		countExpr = "(SELECT pg_catalog.count(*) FROM (SELECT 1" + from + ") _postgrest_c)"
	}
	sql := "SELECT " + countExpr + " AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, " + bodyExpr +
		" AS body FROM (" + inner + ") _postgrest_t"

	tx, err := h.begin(ctx, req, true)
	if err != nil {
		return fromPg(err, req.auth.authed)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var total *int64
	var pageTotal int64
	var body string
	if err := tx.QueryRow(ctx, sql, b.args...).Scan(&total, &pageTotal, &body); err != nil {
		return fromPg(err, req.auth.authed)
	}
	if req.singular && pageTotal != 1 {
		return errSingular(pageTotal)
	}
	if err := tx.Commit(ctx); err != nil {
		return fromPg(err, req.auth.authed)
	}
	status := http.StatusOK
	if total != nil {
		if offset > *total && !(offset == 0 && *total == 0) {
			return &Error{Status: 416, Code: "PGRST103", Message: "Requested range not satisfiable",
				Details: fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", offset, *total)}
		}
		if pageTotal < *total {
			status = http.StatusPartialContent
		}
	}
	w.Header().Set("Content-Range", contentRange(offset, offset+pageTotal-1, total))
	if req.singular {
		w.Header().Set("Content-Type", ctObject)
	} else {
		w.Header().Set("Content-Type", ctJSON)
	}
	if req.prefer.count {
		w.Header().Set("Preference-Applied", "count="+req.prefer.countPref)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, body)
	}
	return nil
}

// contentRange is PostgREST's contentRangeH.
func contentRange(lower, upper int64, total *int64) string {
	rng := "*"
	if (total == nil || *total != 0) && lower <= upper {
		rng = strconv.FormatInt(lower, 10) + "-" + strconv.FormatInt(upper, 10)
	}
	tot := "*"
	if total != nil {
		tot = strconv.FormatInt(*total, 10)
	}
	return rng + "/" + tot
}

// write serves POST (insert), PATCH (update) and DELETE.
func (h *Handler) write(ctx context.Context, w http.ResponseWriter, req *request, sc *schemaCache, body []byte) error {
	ti := sc.tables[req.table]
	b := &builder{schema: h.cfg.Schema, sc: sc, params: req.q.Params, used: map[string]bool{}}
	root := req.q.Params[""]
	if root == nil {
		root = &nodeParams{}
	}
	if root.Limit != nil || root.Offset != nil || len(root.Order) > 0 {
		if req.method != http.MethodPost {
			return errNotImplemented("limit, offset and order on PATCH/DELETE are not supported by this server")
		}
	}
	tbl := ident(h.cfg.Schema) + "." + ident(req.table)
	alias := ident(req.table)
	var stmt string
	switch req.method {
	case http.MethodPost:
		cols, payload, e := payloadColumns(body, req.q.Columns, true)
		if e != nil {
			return e
		}
		for _, c := range cols {
			if !ti.colSet[c] {
				return errColumnNotFound(req.table, c)
			}
		}
		qcols := make([]string, len(cols))
		for i, c := range cols {
			qcols[i] = ident(c)
		}
		if len(cols) == 0 {
			// PostgREST inserts one row of defaults per object.
			stmt = "INSERT INTO " + tbl + " AS " + alias + " DEFAULT VALUES"
			if n := countObjects(payload); n != 1 {
				return errNotImplemented("inserting several rows with no columns is not supported by this server")
			}
		} else {
			stmt = "INSERT INTO " + tbl + " AS " + alias + " (" + strings.Join(qcols, ", ") + ") SELECT " + strings.Join(qcols, ", ") +
				" FROM json_populate_recordset(NULL::" + tbl + ", " + b.arg(payload) + "::text::json) _"
		}
	case http.MethodPatch:
		cols, payload, e := payloadColumns(body, req.q.Columns, false)
		if e != nil {
			return e
		}
		for _, c := range cols {
			if !ti.colSet[c] {
				return errColumnNotFound(req.table, c)
			}
		}
		if len(cols) == 0 {
			return h.respondEmptyWrite(w, req)
		}
		sets := make([]string, len(cols))
		for i, c := range cols {
			sets[i] = ident(c) + " = _." + ident(c)
		}
		rootNode := &node{alias: req.table, params: root}
		b.used[""] = true
		where := b.where(rootNode)
		stmt = "UPDATE " + tbl + " AS " + alias + " SET " + strings.Join(sets, ", ") +
			" FROM (SELECT * FROM json_populate_record(NULL::" + tbl + ", " + b.arg(payload) + "::text::json)) _"
		if len(where) > 0 {
			stmt += " WHERE " + strings.Join(where, " AND ")
		}
	case http.MethodDelete:
		rootNode := &node{alias: req.table, params: root}
		b.used[""] = true
		where := b.where(rootNode)
		stmt = "DELETE FROM " + tbl + " AS " + alias
		if len(where) > 0 {
			stmt += " WHERE " + strings.Join(where, " AND ")
		}
	}

	tx, err := h.begin(ctx, req, false)
	if err != nil {
		return fromPg(err, req.auth.authed)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()

	var affected int64
	var respBody string
	if req.prefer.returnRep {
		// Embeds filtered through rel.col params apply to the returned rows;
		// root-level params were consumed by the mutation itself.
		saved := b.params[""]
		b.params[""] = &nodeParams{}
		pl, e := b.plan(req.table, req.table, "", req.q.Select, 0)
		b.params[""] = saved
		if e != nil {
			return e
		}
		if e := b.checkUnused(); e != nil {
			return e
		}
		bodyExpr := "coalesce(json_agg(_postgrest_t), '[]')::text"
		if req.singular {
			bodyExpr = "coalesce((json_agg(_postgrest_t)->0)::text, 'null')"
		}
		sql := "WITH pgrst_source AS (" + stmt + " RETURNING " + alias + ".*) SELECT pg_catalog.count(_postgrest_t), " + bodyExpr +
			" FROM (SELECT " + b.selectList(pl) + " FROM pgrst_source AS " + alias + b.joins(pl) + ") _postgrest_t"
		if err := tx.QueryRow(ctx, sql, b.args...).Scan(&affected, &respBody); err != nil {
			return fromPg(err, req.auth.authed)
		}
	} else {
		if e := b.checkUnused(); e != nil {
			return e
		}
		tag, err := tx.Exec(ctx, stmt, b.args...)
		if err != nil {
			return fromPg(err, req.auth.authed)
		}
		affected = tag.RowsAffected()
	}
	if req.singular && affected != 1 {
		return errSingular(affected)
	}
	if err := tx.Commit(ctx); err != nil {
		return fromPg(err, req.auth.authed)
	}
	var total *int64
	if req.prefer.count {
		total = &affected
	}
	hdr := w.Header()
	if req.prefer.returnSet != "" {
		hdr.Set("Preference-Applied", "return="+req.prefer.returnSet)
	}
	status := http.StatusOK
	switch req.method {
	case http.MethodPost:
		status = http.StatusCreated
		hdr.Set("Content-Range", contentRange(1, 0, total))
	default:
		hdr.Set("Content-Range", contentRange(0, affected-1, total))
		if !req.prefer.returnRep {
			status = http.StatusNoContent
		}
	}
	if !req.prefer.returnRep {
		w.WriteHeader(status)
		return nil
	}
	if req.singular {
		hdr.Set("Content-Type", ctObject)
	} else {
		hdr.Set("Content-Type", ctJSON)
	}
	hdr.Set("Content-Length", strconv.Itoa(len(respBody)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, respBody)
	return nil
}

// respondEmptyWrite answers a PATCH with an empty object the way PostgREST
// does: nothing is updated.
func (h *Handler) respondEmptyWrite(w http.ResponseWriter, req *request) error {
	if req.prefer.returnRep {
		w.Header().Set("Content-Type", ctJSON)
		w.Header().Set("Content-Range", "*/*")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "[]")
		return nil
	}
	w.Header().Set("Content-Range", "*/*")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// payloadColumns validates a JSON write body and returns its columns and
// the payload normalised to an array (inserts) or object (updates).
func payloadColumns(body []byte, columns []string, array bool) ([]string, string, *Error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, "", errInvalidBody("Empty or invalid json")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, "", errInvalidBody("Empty or invalid json")
	}
	var objs []map[string]json.RawMessage
	switch v.(type) {
	case map[string]any:
		var o map[string]json.RawMessage
		_ = json.Unmarshal(trimmed, &o)
		objs = []map[string]json.RawMessage{o}
	case []any:
		if !array {
			return nil, "", errNotImplemented("bulk PATCH with an array body is not supported by this server")
		}
		if err := json.Unmarshal(trimmed, &objs); err != nil {
			return nil, "", errInvalidBody("All object keys must match")
		}
	default:
		return nil, "", errInvalidBody("Empty or invalid json")
	}
	var cols []string
	if len(columns) > 0 {
		cols = columns
	} else if len(objs) > 0 {
		cols = keysInOrder(trimmed, objs[0])
		for _, o := range objs[1:] {
			if len(o) != len(cols) {
				return nil, "", errInvalidBody("All object keys must match")
			}
			for _, c := range cols {
				if _, ok := o[c]; !ok {
					return nil, "", errInvalidBody("All object keys must match")
				}
			}
		}
	}
	if array {
		b, _ := json.Marshal(objs)
		return cols, string(b), nil
	}
	b, _ := json.Marshal(objs[0])
	return cols, string(b), nil
}

// keysInOrder returns the keys of the first object in document order.
func keysInOrder(doc []byte, first map[string]json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	tok, _ := dec.Token()
	if d, ok := tok.(json.Delim); ok && d == '[' {
		tok, _ = dec.Token()
	}
	var out []string
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return out
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := kt.(string)
		out = append(out, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	if len(out) != len(first) {
		out = out[:0]
		for k := range first {
			out = append(out, k)
		}
		sort.Strings(out)
	}
	return out
}

func countObjects(payload string) int {
	var a []json.RawMessage
	_ = json.Unmarshal([]byte(payload), &a)
	return len(a)
}
