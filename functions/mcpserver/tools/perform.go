package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userdb"
)

// plannable lists the writes a plan may name, with the columns each may
// set or match: exactly what the three write tools plan. A plan read back
// from the pending-actions table is checked against it before it runs, so
// a row altered there cannot turn an approval into another write.
var plannable = map[string]struct {
	op            string
	values, match []string
	now           []string
}{
	"help_request_messages": {op: "insert", values: []string{"help_request_id", "class_id", "author", "message", "instructors_only", "reply_to_message_id"}},
	"help_requests":         {op: "update", values: []string{"status", "assignee", "resolved_by", "resolution_status"}, match: []string{"id", "class_id"}, now: []string{"resolved_at"}},
	"discussion_threads":    {op: "insert", values: []string{"subject", "parent", "root", "topic_id", "instructors_only", "class_id", "author", "body"}},
}

// PerformWrite runs an approved plan as the approving user: db is that
// user's client (per-user JWT on the anon key), so row-level security
// decides. It returns the written (or updated) row's id.
func PerformWrite(ctx context.Context, db *userdb.Client, plan WritePlan, now time.Time) (string, error) {
	allowed, ok := plannable[plan.Table]
	if !ok || plan.Op != allowed.op {
		return "", fmt.Errorf("tools: the plan names a write no tool makes (%s %s)", plan.Op, plan.Table)
	}
	for k := range plan.Values {
		if !slices.Contains(allowed.values, k) {
			return "", fmt.Errorf("tools: the plan sets column %s of %s, which no tool writes", k, plan.Table)
		}
	}
	values := make(map[string]any, len(plan.Values)+len(plan.Now))
	for k, v := range plan.Values {
		values[k] = v
	}
	for _, k := range plan.Now {
		if !slices.Contains(allowed.now, k) {
			return "", fmt.Errorf("tools: the plan sets column %s of %s, which no tool writes", k, plan.Table)
		}
		values[k] = now.UTC().Format(time.RFC3339Nano)
	}
	if len(plan.Match) != len(allowed.match) {
		return "", errors.New("tools: an update plan must match its row by id and class")
	}
	for _, k := range allowed.match {
		if _, ok := plan.Match[k]; !ok {
			return "", errors.New("tools: an update plan must match its row by id and class")
		}
	}
	q := db.From(plan.Table).Select("id")
	var raw json.RawMessage
	var err error
	switch plan.Op {
	case "insert":
		raw, err = q.Insert(ctx, values, postgrest.ReturnRows)
	case "update":
		for _, k := range allowed.match {
			q = q.Eq(k, plan.Match[k])
		}
		raw, err = q.Update(ctx, values, postgrest.ReturnRows)
	}
	if err != nil {
		return "", err
	}
	var rows []struct {
		ID json.Number `json:"id"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil {
		return "", fmt.Errorf("tools: decode the written row: %w", err)
	}
	if len(rows) != 1 {
		// An update RLS hides matches nothing; PostgREST answers 200 [].
		return "", errors.New("nothing was written: Pawtograder's row-level security did not allow this change for your account")
	}
	return rows[0].ID.String(), nil
}

// writeIDString is an id argument as PostgREST filters it.
func writeIDString(v int64) string { return strconv.FormatInt(v, 10) }
