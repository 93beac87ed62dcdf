package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

func TestTTLCacheFreshness(t *testing.T) {
	c := newTTLCache[string](10, profileCacheTTL)
	t0 := time.Unix(1000, 0)
	c.set("k", "v", t0)
	for _, tt := range []struct {
		after time.Duration
		fresh bool
	}{
		{0, true},
		{profileCacheTTL, true}, // fresh while now−cachedAt ≤ TTL, as in the original
		{profileCacheTTL + time.Millisecond, false},
	} {
		c.set("k", "v", t0)
		_, ok := c.get("k", t0.Add(tt.after))
		if ok != tt.fresh {
			t.Errorf("after %v: fresh = %v, want %v", tt.after, ok, tt.fresh)
		}
	}
	if c.len() != 0 {
		t.Errorf("expired entry kept: len = %d", c.len())
	}
}

func TestTTLCacheCap(t *testing.T) {
	c := newTTLCache[int](3, profileCacheTTL)
	now := time.Unix(1000, 0)
	for i := range 5 {
		c.set(fmt.Sprint(i), i, now)
	}
	if c.len() != 3 {
		t.Fatalf("len = %d, want 3", c.len())
	}
	for i := range 5 {
		_, ok := c.get(fmt.Sprint(i), now)
		if want := i >= 2; ok != want {
			t.Errorf("key %d present = %v, want %v (oldest written are evicted)", i, ok, want)
		}
	}
	// Rewriting a key makes it the newest.
	c.set("2", 2, now)
	c.set("5", 5, now)
	if _, ok := c.get("2", now); !ok {
		t.Error("rewritten key was evicted")
	}
	if _, ok := c.get("3", now); ok {
		t.Error("oldest key survived")
	}
}

// newTestCall returns a Call for userID on reg (a fresh Registry when nil).
func newTestCall(t *testing.T, reg *Registry, userID string) (*Call, *counter) {
	t.Helper()
	if reg == nil {
		reg = New(Options{})
	}
	db, cnt := clientFor(t, userID)
	return &Call{DB: db, Args: jsjson.NewObject(0), reg: reg}, cnt
}

func TestPublicProfiles(t *testing.T) {
	c, cnt := newTestCall(t, nil, userAlice)
	ctx := context.Background()
	ids := []string{
		privID(1, 3), privID(1, 3), // duplicates are looked up once
		pubID(1, 4),  // a public id never resolves (quirk 11)
		privID(1, 8), // Tara: empty public name → nil
		privID(1, 5), // Dale: disabled grader
		privID(2, 7), // another class
		"not-a-uuid", // fails the uuid cast, so the whole query fails
	}
	got := c.publicProfiles(ctx, "1", ids[:6])
	want := map[string]publicProfile{
		privID(1, 3): {ID: pubID(1, 3), Name: "Purple Penguin"},
		privID(1, 8): {ID: pubID(1, 8), Name: nil},
		privID(1, 5): {ID: pubID(1, 5), Name: "Sleepy Sloth", staff: true},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(publicProfile{})); diff != "" {
		t.Errorf("publicProfiles (-want +got):\n%s", diff)
	}
	if cnt.Count() != 1 {
		t.Errorf("%d requests, want 1", cnt.Count())
	}
	// Cached: no further request, and staff detection shares the entries.
	staff := c.staffProfileIDs(ctx, "1", []string{privID(1, 3), privID(1, 5), privID(1, 8)})
	if diff := cmp.Diff(map[string]bool{privID(1, 5): true}, staff); diff != "" {
		t.Errorf("staffProfileIDs (-want +got):\n%s", diff)
	}
	if cnt.Count() != 1 {
		t.Errorf("%d requests after cached look-ups, want 1", cnt.Count())
	}
	// Ids without a row are not cached (as in the original): asked again.
	if staff := c.staffProfileIDs(ctx, "1", []string{pubID(1, 2)}); len(staff) != 0 || cnt.Count() != 2 {
		t.Errorf("public id of a grader: staff %v after %d requests, want none after 2", staff, cnt.Count())
	}
	// A malformed id makes the query fail: nothing is returned or cached.
	if got := c.publicProfiles(ctx, "1", []string{privID(1, 4), ids[6]}); len(got) != 0 {
		t.Errorf("failed look-up returned %v", got)
	}
	cnt.Reset()
	if got := c.publicProfiles(ctx, "1", []string{privID(1, 4)}); got[privID(1, 4)].ID != pubID(1, 4) || cnt.Count() != 1 {
		t.Errorf("after a failed look-up: %v with %d requests, want a fresh query", got, cnt.Count())
	}
}

func TestPrivateProfileID(t *testing.T) {
	c, cnt := newTestCall(t, nil, userAlice)
	ctx := context.Background()
	for _, tt := range []struct {
		class, public, want string
		ok                  bool
	}{
		{"1", pubID(1, 3), privID(1, 3), true},
		{"1", privID(1, 3), "", false}, // a private id is not a public one
		{"2", pubID(2, 7), "", false},  // Alice cannot see class 2's roles
		{"1", "garbage", "", false},
	} {
		got, ok := c.privateProfileID(ctx, tt.class, tt.public)
		if got != tt.want || ok != tt.ok {
			t.Errorf("privateProfileID(%s, %s) = %q, %v; want %q, %v", tt.class, tt.public, got, ok, tt.want, tt.ok)
		}
	}
	// Both directions were cached by the first look-up.
	cnt.Reset()
	if got, ok := c.privateProfileID(ctx, "1", pubID(1, 3)); !ok || got != privID(1, 3) {
		t.Errorf("cached look-up = %q, %v", got, ok)
	}
	if p := c.publicProfiles(ctx, "1", []string{privID(1, 3)}); p[privID(1, 3)].Name != "Purple Penguin" {
		t.Errorf("reverse entry = %v", p)
	}
	if cnt.Count() != 0 {
		t.Errorf("%d requests for cached look-ups", cnt.Count())
	}
}

// TestProfileCacheIsPerUser is quirk 14's fix: Alice (instructor) can read
// Sofia's enrolment, Sam (student) cannot, so Sam must not be served the
// translation Alice's call cached.
func TestProfileCacheIsPerUser(t *testing.T) {
	reg := New(Options{})
	alice, _ := newTestCall(t, reg, userAlice)
	sam, samCount := newTestCall(t, reg, userSam)
	ctx := context.Background()
	if got := alice.publicProfiles(ctx, "1", []string{privID(1, 4)}); got[privID(1, 4)].Name != "Green Gecko" {
		t.Fatalf("Alice's look-up = %v", got)
	}
	if got := sam.publicProfiles(ctx, "1", []string{privID(1, 4)}); len(got) != 0 {
		t.Errorf("Sam was served %v", got)
	}
	if samCount.Count() != 1 {
		t.Errorf("Sam's look-up sent %d requests, want its own query", samCount.Count())
	}
	// The same through a tool: Sam's search matches a cold registry's.
	want := callTool(t, sam.DB, "search_help_requests", `{"class_id":1}`)
	callToolWith(t, reg, alice.DB, "search_help_requests", `{"class_id":1}`)
	if diff := cmp.Diff(want, callToolWith(t, reg, sam.DB, "search_help_requests", `{"class_id":1}`)); diff != "" {
		t.Errorf("Sam's search after Alice's (-cold +shared):\n%s", diff)
	}
}

func TestProfileCacheExpiresAndIsBounded(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	reg := New(Options{Now: func() time.Time { return now }, ProfileCacheEntries: 2})
	c, cnt := newTestCall(t, reg, userAlice)
	ctx := context.Background()
	ids := []string{privID(1, 1), privID(1, 2), privID(1, 3)}
	c.publicProfiles(ctx, "1", ids)
	if n := reg.caches.toPublic.len(); n != 2 {
		t.Errorf("cache holds %d entries, cap 2", n)
	}
	cnt.Reset()
	c.publicProfiles(ctx, "1", ids[2:])
	if cnt.Count() != 0 {
		t.Errorf("fresh entry re-queried")
	}
	now = now.Add(profileCacheTTL + time.Millisecond)
	c.publicProfiles(ctx, "1", ids[2:])
	if cnt.Count() != 1 {
		t.Errorf("expired entry served from cache")
	}
}

// TestConcurrentLookUpsShareOneQuery checks the in-flight sharing that lets
// a help request's student, its submission's author and its messages'
// authors be translated by as few queries as possible.
func TestConcurrentLookUpsShareOneQuery(t *testing.T) {
	c, cnt := newTestCall(t, nil, userAlice)
	cnt.SetDelay(100 * time.Millisecond)
	var wg sync.WaitGroup
	results := make([]map[string]publicProfile, 5)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.publicProfiles(context.Background(), "1", []string{privID(1, 3)})
		}()
	}
	wg.Wait()
	if cnt.Count() != 1 {
		t.Errorf("%d queries for one id looked up 5 times at once", cnt.Count())
	}
	for i, r := range results {
		if r[privID(1, 3)].ID != pubID(1, 3) {
			t.Errorf("caller %d got %v", i, r)
		}
	}
}

// TestEmbeddedAssignmentMatchesRecord: reading A through a submission's or
// a topic's embed gives exactly what assignmentRecord's own query gives,
// for every seeded submission and topic, class argument and caller.
func TestEmbeddedAssignmentMatchesRecord(t *testing.T) {
	ctx := context.Background()
	embeds := []struct{ table, sel string }{
		{"submissions", "assignment_id, assignments!submissio_assignment_id_fkey(" + assignmentColumns + ")"},
		{"discussion_topics", "assignment_id, assignments!discussion_topics_assignment_id_fkey(" + assignmentColumns + ")"},
	}
	for _, user := range []string{userAlice, userGary, userSam, userBea, userTara} {
		c, _ := newTestCall(t, nil, user)
		for _, e := range embeds {
			raw, err := c.DB.From(e.table).Select(e.sel).Order("id", true).Rows(ctx)
			rows, ok := c.pgRows(ctx, raw, err)
			if !ok {
				t.Fatalf("%s: %v", e.table, err)
			}
			for _, row := range rows {
				aid := row.Value("assignment_id")
				if aid == nil {
					continue
				}
				for _, class := range []float64{1, 2, 3} {
					want, _ := jsjson.Marshal(c.assignmentRecord(ctx, jsString(aid, true), jsString(class, true)))
					got, _ := jsjson.Marshal(embeddedAssignment(row, class))
					if string(got) != string(want) {
						t.Errorf("user %s, %s assignment %v, class %v: embed %s, query %s", user, e.table, aid, class, got, want)
					}
				}
			}
		}
	}
}

// TestProfileIDSpellingStaysWithItsCaller: a public profile id spelt
// without hyphens (PostgreSQL reads it as the same UUID) comes back in that
// spelling in the caller's own answers, which the translation cache
// serves, but never in another user's: Gary, after Alice, sees the
// canonical spelling, exactly as on a cold registry. The original's shared
// cache gave Gary Alice's spelling (docs/contract/tools.md §1.3).
func TestProfileIDSpellingStaysWithItsCaller(t *testing.T) {
	reg := New(Options{})
	canonical := pubID(1, 3) // Sam's public profile in class 1
	unhyphenated := strings.ReplaceAll(canonical, "-", "")
	forStudent := func(id string) string {
		return `{"student_profile_id":"` + id + `","assignment_id":1,"class_id":1}`
	}
	const submission = `{"submission_id":1,"class_id":1}` // Sam's first submission
	spellings := func(v any) []any { return pluck(v, "student_profile_id") }

	expectEqual(t, "Alice's submissions for the id she spelt", []any{unhyphenated, unhyphenated, unhyphenated},
		spellings(toolJSON(t, reg, userAlice, "get_submissions_for_student", forStudent(unhyphenated))))
	expectEqual(t, "Alice's submission after her look-up", unhyphenated,
		field(toolJSON(t, reg, userAlice, "get_submission", submission), "student_profile_id"))

	cold := toolJSON(t, nil, userGary, "get_submission", submission)
	expectEqual(t, "Gary's submission on a cold registry", canonical, field(cold, "student_profile_id"))
	expectEqual(t, "Gary's submission after Alice's look-up", cold, toolJSON(t, reg, userGary, "get_submission", submission))
	expectEqual(t, "Gary's submissions for the canonical id", []any{canonical, canonical, canonical},
		spellings(toolJSON(t, reg, userGary, "get_submissions_for_student", forStudent(canonical))))
}
