package tools

// Test harness shared by every test of the package (both tool families).
//
// One seeded Supabase stack serves the whole package (gatewaytest: by
// default a local supabase/devstack — PostgreSQL with the Pawtograder
// fixture schema, RLS and the seed of supabase/fixtures/SEED.md, behind a
// PostgREST-compatible API — or the real stack named by
// GATEWAY_TEST_SUPABASE_URL). TestMain owns it; it is started on first use,
// so tests that need no database (catalogue, helpers) run without
// PostgreSQL, and closed after all tests.
//
// The helper API:
//
//	clientFor(t, userID) (*userclient.Client, *counter)
//	    A client acting as userID (a session token for userID on the anon
//	    key, so RLS applies) and the counter of its upstream requests.
//	    counter: Count, Tables, Requests, Reset, SetDelay, Depth (longest
//	    chain of requests that waited for each other).
//	callTool(t, db, name, argsJSON) string
//	    Runs a tool through a fresh Registry, as tools/call does, and returns
//	    the text the client would see: JSON.stringify(result, null, 2).
//	    callToolWith does the same on a given Registry (shared caches).
//	checkGolden(t, "<tool>/<case>", got)
//	    Compares got with testdata/golden/<tool>/<case>.txt; `go test
//	    -update` rewrites the file.
//	measureCall(t, userID, name, argsJSON) (count, depth, tables)
//	    One cold call with a fixed delay per request, for round-trip budgets.
//	testEnv(t) *gatewaytest.Env
//	    The stack itself (DB for superuser SQL in tests).
//	requireSearchFixture(t) *gatewaytest.Env
//	    The stack, after skipping t unless class 3 (below) is loaded.
//	userAlice … userNora, privID(class, uu), pubID(class, uu)
//	    The seed's personas and profile ids.
//
// Besides the seed, the harness adds a third class used only by the search
// tests (searchFixtureSQL): threads whose text holds the characters
// PostgREST's filter grammar and LIKE treat specially, each with decoys
// that a wildcard reading would also match. It is written with SQL, so on a
// real stack it needs GATEWAY_TEST_DATABASE_URL (the tests that use it skip
// without), and it is removed again after the tests there.

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/goldenfile"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// The seed's users (SEED.md "Users and enrolments").
const (
	userAlice = gatewaytest.Alice // instructor, class 1
	userGary  = gatewaytest.Gary  // grader, class 1
	userSam   = gatewaytest.Sam   // student, class 1
	userSofia = gatewaytest.Sofia // student, class 1
	userDale  = gatewaytest.Dale  // disabled grader, class 1
	userBea   = gatewaytest.Bea   // instructor, class 2
	userBen   = gatewaytest.Ben   // student, class 2
	userTara  = gatewaytest.Tara  // student class 1, grader class 2
	userNora  = gatewaytest.Nora  // no enrolment
)

// privID is the seed's private profile id of user uu in class.
func privID(class, uu int) string {
	return fmt.Sprintf("2000000%d-0000-4000-8000-0000000000%02d", class, uu)
}

// pubID is the seed's public profile id of user uu in class.
func pubID(class, uu int) string {
	return fmt.Sprintf("3000000%d-0000-4000-8000-0000000000%02d", class, uu)
}

var (
	stack gatewaytest.Lazy

	// searchFixtureOnce loads class 3 (searchFixtureSQL) on the first
	// testEnv; searchFixtureLoaded says it is there.
	searchFixtureOnce   sync.Once
	searchFixtureErr    error
	searchFixtureLoaded bool
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	// A local stack is thrown away; a real one keeps its rows.
	if env, ok := stack.Started(); ok && env.Stack == nil && searchFixtureLoaded {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := execSQL(ctx, env.DatabaseURL, searchFixtureRemoveSQL); err != nil {
			fmt.Fprintln(os.Stderr, "removing the search fixture:", err)
			code = max(code, 1)
		}
		cancel()
	}
	if err := stack.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "closing the stack:", err)
	}
	os.Exit(code)
}

// testEnv returns the package's stack, starting it on first use, with the
// search fixture loaded when a database URL is known.
func testEnv(t testing.TB) *gatewaytest.Env {
	t.Helper()
	env := stack.Env(t)
	searchFixtureOnce.Do(func() {
		if env.DatabaseURL == "" {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// The removal first: a real stack may keep class 3 from an
		// interrupted run.
		searchFixtureErr = execSQL(ctx, env.DatabaseURL, searchFixtureRemoveSQL+searchFixtureSQL)
		searchFixtureLoaded = searchFixtureErr == nil
	})
	if searchFixtureErr != nil {
		t.Fatalf("search fixture: %v", searchFixtureErr)
	}
	return env
}

// requireSearchFixture is testEnv for tests that read class 3; it skips t
// when the fixture could not be loaded (a real stack without
// GATEWAY_TEST_DATABASE_URL).
func requireSearchFixture(t testing.TB) *gatewaytest.Env {
	t.Helper()
	env := testEnv(t)
	if !searchFixtureLoaded {
		t.Skip("needs the search fixture (class 3), written with SQL: set GATEWAY_TEST_DATABASE_URL")
	}
	return env
}

// searchFixtureSQL is class 3, "search fixtures": Alice teaches it, and its
// threads exercise literal matching of , ) " * % _ \ and . in
// search_discussion_threads. Ids start at 900001, clear of the seed and of
// the identity sequences (which restart at 1000000). Top-level threads carry
// root = id, as Pawtograder's insert trigger would set it; writing it here
// keeps that trigger from updating the row (and set_updated_at from
// stamping updated_at). The class's default topics and office-hours queue
// come from the classes trigger and are removed with the class.
const searchFixtureSQL = `
INSERT INTO public.classes (id, created_at, name, slug, term, github_org, course_title, time_zone, start_date, end_date) VALUES
  (3, '2026-01-01T00:00:00Z', 'CS 9999: Search Fixtures', 'cs9999-search', 202630, 'pawtograder-cs9999', 'Search Fixtures', 'America/New_York', '2026-01-05', '2026-04-30');
INSERT INTO public.profiles (id, name, short_name, class_id, is_private_profile, created_at, updated_at) VALUES
  ('20000003-0000-4000-8000-000000000001', 'Alice Instructor', 'Alice', 3, true,  '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
  ('30000003-0000-4000-8000-000000000001', 'Wise Owl',         'Wise',  3, false, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
INSERT INTO public.user_roles (id, user_id, class_id, role, private_profile_id, public_profile_id, disabled, updated_at) VALUES
  (900001, '10000000-0000-4000-8000-000000000001', 3, 'instructor', '20000003-0000-4000-8000-000000000001', '30000003-0000-4000-8000-000000000001', false, '2026-01-01T00:00:00Z');
INSERT INTO public.discussion_topics (id, class_id, assignment_id, topic, color, description, ordinal, created_at, updated_at) VALUES
  (900001, 3, NULL, 'Search', 'gray', 'Search fixtures.', 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
INSERT INTO public.discussion_threads (id, class_id, topic_id, author, subject, body, created_at, updated_at, is_question, children_count, parent, root, instructors_only, draft, pinned) VALUES
  (900001, 3, 900001, '20000003-0000-4000-8000-000000000001', 'Commas, parens) and "quotes"', 'a,b)c(d', '2026-02-01T10:00:00Z', '2026-02-01T10:00:00Z', true, 0, NULL, 900001, false, false, false),
  (900002, 3, 900001, '20000003-0000-4000-8000-000000000001', 'Star * power', '2*3 = 6', '2026-02-01T10:01:00Z', '2026-02-01T10:01:00Z', false, 0, NULL, 900002, false, false, false),
  (900003, 3, 900001, '20000003-0000-4000-8000-000000000001', 'Percent 100% and under_score', 'snake_case_name', '2026-02-01T10:02:00Z', '2026-02-01T10:02:00Z', false, 0, NULL, 900003, false, false, false),
  (900004, 3, 900001, '20000003-0000-4000-8000-000000000001', 'Decoys', 'Star power, 100 percent, underXscore, 2x3, snakeXcase, *Xjava, aXb)c, C:Xtemp', '2026-02-01T10:03:00Z', '2026-02-01T10:03:00Z', false, 0, NULL, 900004, false, false, false),
  (900005, 3, 900001, '20000003-0000-4000-8000-000000000001', 'Path C:\temp\new', 'Glob *.java files — 日本語 ünïcode 🐾', '2026-02-01T10:04:00Z', '2026-02-01T10:04:00Z', false, 0, NULL, 900005, false, false, false);
`

// searchFixtureRemoveSQL deletes class 3 (searchFixtureSQL) together with
// every row that references it, directly or through other rows: on
// Pawtograder's real schema, triggers add rows for a new class, enrolment
// and thread (topics, queue, gradebook, read status, tags, metrics) that the
// fixture does not know by name. It collects the rows first by following
// foreign keys from class 3 and its profiles (profiles.class_id has no
// foreign key), then deletes them all with triggers off, so their order does
// not matter and no trigger adds rows back.
const searchFixtureRemoveSQL = `
CREATE TEMP TABLE purge_set (rel regclass, row_ctid tid, PRIMARY KEY (rel, row_ctid)) ON COMMIT DROP;
DO $purge$
DECLARE
  fk record;
  added bigint;
  total bigint;
BEGIN
  INSERT INTO purge_set SELECT 'public.classes'::regclass, ctid FROM public.classes WHERE id = 3;
  INSERT INTO purge_set SELECT 'public.profiles'::regclass, ctid FROM public.profiles WHERE class_id = 3;
  LOOP
    total := 0;
    FOR fk IN
      SELECT c.conrelid::regclass AS child, c.confrelid::regclass AS parent,
             (SELECT string_agg(format('ch.%I = pa.%I', ca.attname, pa.attname), ' AND ')
                FROM unnest(c.conkey, c.confkey) AS k(ck, pk)
                JOIN pg_attribute ca ON ca.attrelid = c.conrelid AND ca.attnum = k.ck
                JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = k.pk) AS cond
        FROM pg_constraint c
       WHERE c.contype = 'f' AND c.confrelid IN (SELECT DISTINCT rel FROM purge_set)
    LOOP
      EXECUTE format('INSERT INTO purge_set SELECT %L::regclass, ch.ctid FROM %s ch JOIN %s pa ON %s
                       WHERE pa.ctid IN (SELECT row_ctid FROM purge_set WHERE rel = %L::regclass)
                      ON CONFLICT DO NOTHING', fk.child, fk.child, fk.parent, fk.cond, fk.parent);
      GET DIAGNOSTICS added = ROW_COUNT;
      total := total + added;
    END LOOP;
    EXIT WHEN total = 0;
  END LOOP;
END
$purge$;
SET LOCAL session_replication_role = replica;
DO $delete$
DECLARE
  r regclass;
BEGIN
  FOR r IN SELECT DISTINCT rel FROM purge_set LOOP
    EXECUTE format('DELETE FROM %s WHERE ctid IN (SELECT row_ctid FROM purge_set WHERE rel = %L::regclass)', r, r);
  END LOOP;
END
$delete$;
SET LOCAL session_replication_role = origin;
`

// execSQL runs sql as the superuser, in one transaction.
func execSQL(ctx context.Context, databaseURL, sql string) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// request is one upstream PostgREST request seen by a counter.
type request struct {
	Table      string
	Query      string
	Start, End time.Time
}

// counter records the PostgREST requests of one client. Its delay, when
// set, is added to every request so that concurrency shows in the timings
// (see Depth).
type counter struct {
	mu    sync.Mutex
	reqs  []request
	delay time.Duration
}

// RoundTrip records the request and forwards it.
func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	delay := c.delay
	c.mu.Unlock()
	start := time.Now()
	if delay > 0 {
		time.Sleep(delay)
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	end := time.Now()
	c.mu.Lock()
	c.reqs = append(c.reqs, request{Table: filepath.Base(r.URL.Path), Query: r.URL.RawQuery, Start: start, End: end})
	c.mu.Unlock()
	return resp, err
}

// SetDelay makes every later request take at least d.
func (c *counter) SetDelay(d time.Duration) {
	c.mu.Lock()
	c.delay = d
	c.mu.Unlock()
}

// Reset forgets the recorded requests.
func (c *counter) Reset() {
	c.mu.Lock()
	c.reqs = nil
	c.mu.Unlock()
}

// Requests returns the recorded requests in completion order.
func (c *counter) Requests() []request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs)
}

// Count is the number of recorded requests.
func (c *counter) Count() int { return len(c.Requests()) }

// Tables lists the tables of the recorded requests in completion order.
func (c *counter) Tables() []string {
	var out []string
	for _, r := range c.Requests() {
		out = append(out, r.Table)
	}
	return out
}

// Depth is the longest chain of requests in which each starts after the
// previous one ended: the number of sequential round trips a call waits
// for. With a delay set, requests that ran concurrently overlap and do not
// chain.
func (c *counter) Depth() int {
	reqs := c.Requests()
	slices.SortFunc(reqs, func(a, b request) int { return a.End.Compare(b.End) })
	best := make([]int, len(reqs))
	longest := 0
	for i, r := range reqs {
		best[i] = 1
		for j := range i {
			if !reqs[j].End.After(r.Start) && best[j]+1 > best[i] {
				best[i] = best[j] + 1
			}
		}
		longest = max(longest, best[i])
	}
	return longest
}

// clientFor returns a client acting as userID and the counter of its
// requests.
func clientFor(t testing.TB, userID string) (*userclient.Client, *counter) {
	t.Helper()
	env := testEnv(t)
	token := env.SessionToken(t, userID)
	cnt := &counter{}
	base, err := postgrest.New(postgrest.Options{
		BaseURL:    env.RestURL,
		APIKey:     env.AnonKey,
		HTTPClient: &http.Client{Transport: cnt},
	})
	if err != nil {
		t.Fatal(err)
	}
	return userclient.NewClient(base, userID, token), cnt
}

// callTool runs tool name with the JSON arguments through a fresh Registry
// and returns the result text as tools/call would put it in the response.
func callTool(t testing.TB, db *userclient.Client, name, argsJSON string) string {
	t.Helper()
	return callToolWith(t, New(Options{}), db, name, argsJSON)
}

// callToolWith is callTool on a given Registry (to share its caches).
func callToolWith(t testing.TB, reg *Registry, db *userclient.Client, name, argsJSON string) string {
	t.Helper()
	v, err := jsjson.Decode([]byte(argsJSON))
	if err != nil {
		t.Fatalf("bad test arguments %s: %v", argsJSON, err)
	}
	args, ok := v.(*jsjson.Object)
	if !ok {
		t.Fatalf("test arguments %s are not an object", argsJSON)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := reg.Call(ctx, db, []string{ScopeRead}, name, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, argsJSON, err)
	}
	text, err := jsjson.MarshalIndent(res)
	if err != nil {
		t.Fatalf("%s(%s): marshal: %v", name, argsJSON, err)
	}
	return string(text)
}

// checkGolden compares got with testdata/golden/<name>.txt (goldenfile,
// -update).
func checkGolden(t testing.TB, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", filepath.FromSlash(name)+".txt"), []byte(got))
}

// goldenName turns a case description into a file name.
func goldenName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '_'
	}, s)
}

// measureCall runs one tool call with a fresh Registry (empty caches) and a
// per-request delay, and returns its request count, longest dependent
// chain (counter.Depth) and the tables it read.
func measureCall(t testing.TB, userID, name, argsJSON string) (count, depth int, tables []string) {
	t.Helper()
	db, cnt := clientFor(t, userID)
	cnt.SetDelay(80 * time.Millisecond)
	callTool(t, db, name, argsJSON)
	return cnt.Count(), cnt.Depth(), cnt.Tables()
}
