package tools

// Expectations checked beside the goldens.
//
// A golden file is written by the code under test (-update), so it shows a
// change, not that the first answer was right. The tests in the expect_*
// files check each tool's key cases (found, not found, another class,
// empty, and the quirks of docs/compatibility.md) against expectations made
// without the tool code: derived by SQL over the seeded database, read as a
// superuser so that no RLS or tool logic is involved, following the
// contract (docs/contract/tools.md), or written by hand from the seed's
// stable facts (ids, names; supabase/fixtures/SEED.md). Values that the seed
// may change (texts, timestamps, counts) always come from SQL.
//
// Where the caller's row-level security matters, the expectation is a
// hand-written fact of SEED.md (for example "Sam sees help requests 1, 2, 3
// and 5"); the SQL expectations are taken as an instructor of the class,
// who sees every row of it.

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// seedJSON runs query, which must return one JSON value, as the database
// superuser and returns the value decoded by encoding/json (numbers as
// float64, like the tool's answer decoded the same way).
func seedJSON(t *testing.T, query string, args ...any) any {
	t.Helper()
	db := testEnv(t).DB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var text *string
	if err := db.QueryRow(ctx, "SELECT ("+query+")::text", args...).Scan(&text); err != nil {
		t.Fatalf("expectation query failed: %v\n%s", err, query)
	}
	if text == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(*text), &v); err != nil {
		t.Fatalf("expectation query returned %q: %v", *text, err)
	}
	return v
}

// seedIDs runs query, which must return one column of integers, and returns
// them as float64 in the order returned.
func seedIDs(t *testing.T, query string, args ...any) []any {
	t.Helper()
	v := seedJSON(t, "SELECT coalesce(json_agg(x.id), '[]') FROM ("+query+") x(id)", args...)
	return v.([]any)
}

// toolJSON calls tool as user and decodes the answer text with
// encoding/json.
func toolJSON(t *testing.T, reg *Registry, user, tool, args string) any {
	t.Helper()
	db, _ := clientFor(t, user)
	if reg == nil {
		reg = New(Options{})
	}
	text := callToolWith(t, reg, db, tool, args)
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s(%s) answered text that is not JSON: %v\n%s", tool, args, err, text)
	}
	return v
}

// expectEqual compares a value derived by the test with the tool's.
func expectEqual(t *testing.T, what string, want, got any) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// field returns v[key] for a JSON object v (nil when v is not an object).
func field(v any, key string) any {
	o, _ := v.(map[string]any)
	return o[key]
}

// pick keeps only keys of the JSON object v.
func pick(v any, keys ...string) any {
	o, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if x, ok := o[k]; ok {
			out[k] = x
		}
	}
	return out
}

// pluck returns v[i][key] for every element of the JSON array v.
func pluck(v any, key string) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, x := range list {
		out = append(out, field(x, key))
	}
	return out
}

// keys returns the key set of the JSON object v.
func keysOf(v any) map[string]bool {
	o, _ := v.(map[string]any)
	out := map[string]bool{}
	for k := range o {
		out[k] = true
	}
	return out
}

// nums turns integers into the float64 that JSON decoding gives.
func nums(n ...int) []any {
	out := make([]any, len(n))
	for i, x := range n {
		out[i] = float64(x)
	}
	return out
}

// SQL fragments over the seed, written from the contract
// (docs/contract/tools.md §1) and not from the tool code.
const (
	// sqlPublicID is the public profile id of private profile $pid in class
	// $cid (docs/contract/tools.md §1.2), or NULL: a public profile never resolves.
	sqlPublicID = `(SELECT ur.public_profile_id FROM public.user_roles ur
		WHERE ur.private_profile_id = %s AND ur.class_id = %s LIMIT 1)`
	// sqlPublicName is that profile's name, NULL when empty (JS `|| null`).
	sqlPublicName = `(SELECT nullif(p.name, '') FROM public.user_roles ur JOIN public.profiles p ON p.id = ur.public_profile_id
		WHERE ur.private_profile_id = %s AND ur.class_id = %s LIMIT 1)`
	// sqlPasses is the pass rule of docs/contract/tools.md §1.6 for a grader_result_tests
	// row aliased t.
	sqlPasses = `(t.score IS NOT NULL AND t.max_score IS NOT NULL AND t.score >= t.max_score)`
	// sqlOutputOrder orders grader_result_output rows aliased o as quirk Q7
	// chooses: visibility in the listed order, then the lowest id.
	sqlOutputOrder = `array_position(ARRAY['visible','hidden','after_due_date','after_published'], o.visibility::text), o.id`
)

// publicID and publicName format sqlPublicID / sqlPublicName for the
// given SQL expressions.
func publicID(pid, cid string) string   { return fmt.Sprintf(sqlPublicID, pid, cid) }
func publicName(pid, cid string) string { return fmt.Sprintf(sqlPublicName, pid, cid) }
