package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// plans are each write tool's typed plan: the Go types whose JSON keys the
// tool's SQL write function reads, by the part of the plan ("values",
// "expect", "match") that holds them.
var plans = map[string]map[string]any{
	"reply_to_help_request":      {"values": helpReplyValues{}},
	"set_help_request_status":    {"values": helpStatusValues{}, "match": helpStatusMatch{}, "expect": helpStatusExpect{}},
	"reply_to_discussion_thread": {"values": threadReplyValues{}},
	"comment_on_regrade_request": {"values": regradeCommentValues{}},
	"decide_regrade_request":     {"values": decisionValues{}, "expect": decisionExpect{}},
	"add_rubric_comment":         {"values": rubricCommentValues{}, "expect": rubricCommentExpect{}},
}

// TestPlansMatchTheirSQL holds each write tool's typed plan to the write
// function its registration (mcp_write_tools, in the migrations) names:
// every key the function reads is a field of the plan, and every field of
// the plan is a key the function reads, so neither side can rename, add
// or drop a value alone.
func TestPlansMatchTheirSQL(t *testing.T) {
	sql := migrationsText(t)
	registered := registrations(t, sql)
	if diff := cmp.Diff(sortedKeys(plans), sortedKeys(registered)); diff != "" {
		t.Fatalf("tools with a plan (-) and registered tools (+) differ:\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(WriteNames())), sortedKeys(registered)); diff != "" {
		t.Errorf("write tools (-) and registered tools (+) differ:\n%s", diff)
	}
	for tool, fn := range registered {
		body := lastDefinition(t, sql, fn)
		reads := keysRead(body)
		for part, typ := range plans[tool] {
			if diff := cmp.Diff(jsonKeys(typ), reads[part]); diff != "" {
				t.Errorf("%s: the %s keys of its plan (-) and those %s reads (+) differ:\n%s", tool, part, fn, diff)
			}
		}
		for part := range reads {
			if _, ok := plans[tool][part]; !ok && part != "now" {
				t.Errorf("%s: %s reads the plan's %q, which its Go plan does not have", tool, fn, part)
			}
		}
	}
}

// migrationsText is every migration, in the order they apply.
func migrationsText(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "supabase", "migrations")
	names, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no migrations in %s: %v", dir, err)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	return b.String()
}

var registration = regexp.MustCompile(`\('([a-z_]+)', 'public\.([a-z_]+)\(`)

// registrations are the tools mcp_write_tools registers, with their write
// functions.
func registrations(t *testing.T, sql string) map[string]string {
	t.Helper()
	i := strings.Index(sql, "INSERT INTO public.mcp_write_tools")
	if i < 0 {
		t.Fatal("no migration registers a write tool")
	}
	out := map[string]string{}
	for _, block := range strings.Split(sql[i:], "INSERT INTO public.mcp_write_tools")[1:] {
		block, _, _ = strings.Cut(block, ";")
		for _, m := range registration.FindAllStringSubmatch(block, -1) {
			out[m[1]] = m[2]
		}
	}
	return out
}

// lastDefinition is the body of fn's last CREATE in the migrations.
func lastDefinition(t *testing.T, sql, fn string) string {
	t.Helper()
	start := strings.LastIndex(sql, "CREATE OR REPLACE FUNCTION public."+fn+"(")
	if start < 0 {
		t.Fatalf("no migration defines %s", fn)
	}
	body := sql[start:]
	open := strings.Index(body, "AS $$")
	end := strings.Index(body[open+5:], "$$;")
	return body[:open+5+end]
}

var (
	// alias declares a variable for a part of the plan: v jsonb := p_write->'values';
	alias = regexp.MustCompile(`(\w+) jsonb := p_write->'(\w+)'`)
	// direct reads a part's key without an alias: p_write->'expect'->>'released'
	direct = regexp.MustCompile(`p_write->'(\w+)'->>?'(\w+)'`)
	// nowKey reads the now list: coalesce(p_write->'now', …) ? 'resolved_at'
	nowKey = regexp.MustCompile(`p_write->'now', '\[\]'::jsonb\) \? '(\w+)'`)
)

// keysRead are the plan's keys a write function's body reads, by part.
func keysRead(body string) map[string][]string {
	out := map[string][]string{}
	add := func(part, key string) {
		if !slices.Contains(out[part], key) {
			out[part] = append(out[part], key)
		}
	}
	for _, a := range alias.FindAllStringSubmatch(body, -1) {
		use := regexp.MustCompile(`\b` + a[1] + `(?:->>?| \? )'(\w+)'`)
		for _, m := range use.FindAllStringSubmatch(body, -1) {
			add(a[2], m[1])
		}
	}
	for _, m := range direct.FindAllStringSubmatch(body, -1) {
		add(m[1], m[2])
	}
	for _, m := range nowKey.FindAllStringSubmatch(body, -1) {
		add("now", m[1])
	}
	for part := range out {
		sort.Strings(out[part])
	}
	return out
}

// jsonKeys are the JSON keys of a struct's fields, sorted.
func jsonKeys(v any) []string {
	var keys []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	sort.Strings(keys)
	return keys
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestDecisionPointsBoundSharedWithSQL: the points bound the tool checks
// when proposing is the one its SQL function checks again on approval.
func TestDecisionPointsBoundSharedWithSQL(t *testing.T) {
	body := lastDefinition(t, migrationsText(t), "mcp_write_decide_regrade_request")
	if want := "points < 0 OR points > " + strconv.Itoa(maxRegradePoints); !strings.Contains(body, want) {
		t.Errorf("mcp_write_decide_regrade_request does not check %q", want)
	}
}
