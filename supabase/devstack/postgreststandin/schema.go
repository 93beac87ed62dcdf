package postgreststandin

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cardinality names follow PostgREST's error details.
const (
	cardM2O = "many-to-one"
	cardO2M = "one-to-many"
	cardO2O = "one-to-one"
)

// relationship is one way of embedding FTable from Table through a foreign
// key: Table.Cols[i] = FTable.FCols[i].
type relationship struct {
	Constraint string
	Table      string
	FTable     string
	Cols       []string
	FCols      []string
	Card       string
	// Parent is true when the foreign key lives on Table (the embedding
	// side), i.e. many-to-one or the child side of a one-to-one.
	OnTable bool
}

// toOne reports whether the embed renders as an object.
func (r *relationship) toOne() bool { return r.Card != cardO2M }

// schemaCache is the part of the catalog PostgREST keeps in memory: the
// tables of the exposed schema with their columns, and the relationships
// derived from foreign keys.
type schemaCache struct {
	tables map[string]*tableInfo
	rels   map[string][]*relationship // by Table
	loaded time.Time
}

// tableInfo describes one table or view.
type tableInfo struct {
	Name    string
	Columns []string
	colSet  map[string]bool
}

// schemaHolder reloads the cache lazily and at most once per minInterval when
// a request names an unknown table (tests create tables after start-up).
type schemaHolder struct {
	mu          sync.Mutex
	cache       *schemaCache
	pool        *pgxpool.Pool
	schema      string
	minInterval time.Duration
}

func (s *schemaHolder) get(ctx context.Context) (*schemaCache, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache != nil {
		return s.cache, nil
	}
	c, err := loadSchema(ctx, s.pool, s.schema)
	if err != nil {
		return nil, err
	}
	s.cache = c
	return c, nil
}

// refreshIfStale reloads the cache when it is older than minInterval.
func (s *schemaHolder) refreshIfStale(ctx context.Context) (*schemaCache, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache != nil && time.Since(s.cache.loaded) < s.minInterval {
		return s.cache, nil
	}
	c, err := loadSchema(ctx, s.pool, s.schema)
	if err != nil {
		return nil, err
	}
	s.cache = c
	return c, nil
}

func (s *schemaHolder) reload(ctx context.Context) error {
	c, err := loadSchema(ctx, s.pool, s.schema)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.cache = c
	s.mu.Unlock()
	return nil
}

const columnsSQL = `
SELECT c.relname, a.attname
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relkind IN ('r','v','m','f','p')
ORDER BY c.relname, a.attnum`

const keysSQL = `
SELECT con.conname, con.contype::text, src.relname, coalesce(tgt.relname, ''),
  ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[],
  ARRAY(SELECT a.attname FROM unnest(coalesce(con.confkey, '{}'::int2[])) WITH ORDINALITY k(attnum, ord)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[]
FROM pg_catalog.pg_constraint con
JOIN pg_catalog.pg_class src ON src.oid = con.conrelid
JOIN pg_catalog.pg_namespace sn ON sn.oid = src.relnamespace
LEFT JOIN pg_catalog.pg_class tgt ON tgt.oid = con.confrelid
LEFT JOIN pg_catalog.pg_namespace tn ON tn.oid = tgt.relnamespace
WHERE sn.nspname = $1 AND con.contype IN ('p','u','f') AND (con.contype <> 'f' OR tn.nspname = $1)
ORDER BY con.conname, src.relname`

// loadSchema reads tables, columns and foreign keys of schema.
func loadSchema(ctx context.Context, pool *pgxpool.Pool, schema string) (*schemaCache, error) {
	sc := &schemaCache{tables: map[string]*tableInfo{}, rels: map[string][]*relationship{}, loaded: time.Now()}
	rows, err := pool.Query(ctx, columnsSQL, schema)
	if err != nil {
		return nil, fmt.Errorf("postgreststandin: load columns: %w", err)
	}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgreststandin: load columns: %w", err)
		}
		ti := sc.tables[t]
		if ti == nil {
			ti = &tableInfo{Name: t, colSet: map[string]bool{}}
			sc.tables[t] = ti
		}
		ti.Columns = append(ti.Columns, c)
		ti.colSet[c] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgreststandin: load columns: %w", err)
	}
	type fk struct {
		name, src, tgt string
		cols, fcols    []string
	}
	var fks []fk
	unique := map[string][]string{} // table -> sorted column lists joined by ","
	rows, err = pool.Query(ctx, keysSQL, schema)
	if err != nil {
		return nil, fmt.Errorf("postgreststandin: load keys: %w", err)
	}
	for rows.Next() {
		var name, typ, src, tgt string
		var cols, fcols []string
		if err := rows.Scan(&name, &typ, &src, &tgt, &cols, &fcols); err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgreststandin: load keys: %w", err)
		}
		if typ == "f" {
			fks = append(fks, fk{name, src, tgt, cols, fcols})
		} else {
			unique[src] = append(unique[src], setKey(cols))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgreststandin: load keys: %w", err)
	}
	for _, f := range fks {
		isUnique := false
		for _, u := range unique[f.src] {
			if u == setKey(f.cols) {
				isUnique = true
			}
		}
		fwd := &relationship{Constraint: f.name, Table: f.src, FTable: f.tgt, Cols: f.cols, FCols: f.fcols, Card: cardM2O, OnTable: true}
		rev := &relationship{Constraint: f.name, Table: f.tgt, FTable: f.src, Cols: f.fcols, FCols: f.cols, Card: cardO2M}
		if isUnique {
			fwd.Card, rev.Card = cardO2O, cardO2O
		}
		sc.rels[f.src] = append(sc.rels[f.src], fwd)
		sc.rels[f.tgt] = append(sc.rels[f.tgt], rev)
	}
	return sc, nil
}

func setKey(cols []string) string {
	c := append([]string(nil), cols...)
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	return strings.Join(c, ",")
}

// findRel resolves the embed name (with optional hint) from table the way
// PostgREST's findRel does, returning PGRST200/PGRST201 errors.
func (sc *schemaCache) findRel(schema, table, name, hint string) (*relationship, *Error) {
	single := func(h string, cols []string) bool { return len(cols) == 1 && cols[0] == h }
	var found []*relationship
	for _, r := range sc.rels[table] {
		var match bool
		switch {
		case hint == "":
			// rel by table name, by constraint name, or (to-one through the
			// FK on this table) by the FK column name.
			match = r.FTable == name || r.Constraint == name || (r.OnTable && single(name, r.Cols))
		default:
			match = r.FTable == name && (hint == r.Constraint || single(hint, r.Cols) || single(hint, r.FCols))
		}
		if match {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		d := "Searched for a foreign key relationship between '" + table + "' and '" + name
		if hint != "" {
			d += "' using the hint '" + hint
		}
		d += "' in the schema '" + schema + "', but no matches were found."
		return nil, &Error{Status: 400, Code: "PGRST200",
			Message: "Could not find a relationship between '" + table + "' and '" + name + "' in the schema cache",
			Details: d}
	}
	type relDetail struct {
		Cardinality  string `json:"cardinality"`
		Embedding    string `json:"embedding"`
		Relationship string `json:"relationship"`
	}
	var details []relDetail
	var hints []string
	for _, r := range found {
		details = append(details, relDetail{
			Cardinality:  r.Card,
			Embedding:    r.Table + " with " + r.FTable,
			Relationship: r.Constraint + " using " + r.Table + "(" + strings.Join(r.Cols, ", ") + ") and " + r.FTable + "(" + strings.Join(r.FCols, ", ") + ")",
		})
		hints = append(hints, "'"+r.FTable+"!"+r.Constraint+"'")
	}
	return nil, &Error{Status: 300, Code: "PGRST201",
		Message: "Could not embed because more than one relationship was found for '" + table + "' and '" + name + "'",
		Details: details,
		Hint:    "Try changing '" + name + "' to one of the following: " + strings.Join(hints, ", ") + ". Find the desired relationship in the 'details' key."}
}
