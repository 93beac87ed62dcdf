package main

import (
	"context"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// negotiatedFieldQueries are the fields the original's tools add at
// negotiated revisions (docs/compatibility.md S31), computed by SQL over the
// seed: per tool, the list that holds the items, the fields, and the query
// of their values from the item's id ($1) and, when byCaller, the caller's
// user id ($2).
var negotiatedFieldQueries = map[string]struct {
	list     string
	fields   []string
	query    string
	byCaller bool
}{
	"get_help_request": {"messages", []string{"instructors_only", "is_caller"},
		`SELECT m.instructors_only, EXISTS (SELECT 1 FROM public.user_roles ur WHERE ur.user_id = $2 AND ur.class_id = m.class_id
			AND m.author IN (ur.private_profile_id, ur.public_profile_id)) FROM public.help_request_messages m WHERE m.id = $1`, true},
	"list_submission_tests": {"tests", []string{"is_released"},
		`SELECT t.is_released FROM public.grader_result_tests t WHERE t.id = $1`, false},
}

// negotiatedText is what tool answers as text at a negotiated revision,
// given its drop-in text (hidden characters already marked, S30): the same
// bytes with S31's fields added to each item, as the seed has them for
// the SDK tests' caller, Alice.
func negotiatedText(t *testing.T, tool, dropIn string) string {
	t.Helper()
	nf, ok := negotiatedFieldQueries[tool]
	if !ok {
		return dropIn
	}
	v, err := jsjson.Decode([]byte(dropIn))
	if err != nil {
		t.Fatalf("%s: drop-in text: %v", tool, err)
	}
	o, _ := v.(*jsjson.Object)
	items, _ := o.Array(nf.list)
	for _, it := range items {
		item, _ := it.(*jsjson.Object)
		id, _ := item.Number("id")
		args := []any{int64(id)}
		if nf.byCaller {
			args = append(args, gatewaytest.Alice)
		}
		vals := make([]bool, len(nf.fields))
		dest := make([]any, len(vals))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := env.DB(t).QueryRow(context.Background(), nf.query, args...).Scan(dest...); err != nil {
			t.Fatalf("%s: %v of item %v: %v", tool, nf.fields, id, err)
		}
		for i, f := range nf.fields {
			item.Set(f, vals[i])
		}
	}
	out, err := jsjson.MarshalIndent(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
