package activityrecord

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// RPC calls a SQL function through PostgREST; *postgrest.Client satisfies
// it.
type RPC interface {
	RPC(ctx context.Context, fn string, args any) (json.RawMessage, error)
}

// PostgRESTStore is the Store on the project's PostgREST, through the
// service-role client main builds (mcpauth.ServiceClient); this package
// never names the key.
type PostgRESTStore struct{ db RPC }

// NewPostgRESTStore writes through db.
func NewPostgRESTStore(db RPC) *PostgRESTStore { return &PostgRESTStore{db: db} }

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Insert implements Store with mcp_activity_record.
func (s *PostgRESTStore) Insert(ctx context.Context, rows []Row, now time.Time) (int, error) {
	return s.count(ctx, "mcp_activity_record", map[string]any{"p_rows": rows, "p_now": ts(now)})
}

// Purge implements Store with mcp_activity_purge.
func (s *PostgRESTStore) Purge(ctx context.Context, before time.Time, limit int) (int, error) {
	return s.count(ctx, "mcp_activity_purge", map[string]any{"p_before": ts(before), "p_limit": limit})
}

func (s *PostgRESTStore) count(ctx context.Context, fn string, args map[string]any) (int, error) {
	body, err := s.db.RPC(ctx, fn, args)
	if err != nil {
		return 0, err
	}
	var n int
	if err := json.Unmarshal(body, &n); err != nil {
		return 0, fmt.Errorf("activityrecord: decode %s: %w", fn, err)
	}
	return n, nil
}
