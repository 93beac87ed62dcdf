package tools

// Shared look-ups (docs/contract/tools.md §1.1–§1.5): private↔public profile
// translation, staff detection and the assignment record, plus the bounded
// caches behind them and the small PostgREST-result helpers every tool file
// uses.
//
// The original keeps process-wide maps shared by every user, never evicted,
// and caches the staff set even when its query failed (quirk 14). Here every
// entry is keyed by the calling user as well as the class, so a cached answer
// is always one the caller's own RLS-filtered query produced; entries expire
// after the original's 5 minutes and the maps are capped; and a failed query
// is never cached.
//
// Staff detection needs no query of its own: private_profile_id is unique in
// user_roles, so the row the translation reads for a private id is the only
// row that can make it staff, and reading its role answers §1.4 exactly as
// the original's "all staff of the class" query does (same rows, same RLS).

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

const (
	// profileIDsPerQuery is the original's MAX_ROWS cap on the ids one
	// profile query sends in in.(…).
	profileIDsPerQuery = 1000
	// profileCacheTTL is how long a cached look-up stays fresh. An entry is
	// fresh while now−cachedAt ≤ TTL, as in the original.
	profileCacheTTL = 5 * time.Minute
	// defaultProfileCacheEntries bounds each cache map when Options leaves
	// ProfileCacheEntries at 0.
	defaultProfileCacheEntries = 10000
)

// publicProfile is what a private profile id translates to: the public
// (pseudonymous) profile id and its name, string or nil.
type publicProfile struct {
	ID   string
	Name any
	// staff is whether the enrolment's role is instructor or grader
	// (disabled or not, as the original's §1.4 query).
	staff bool
}

// caches holds the registry-wide look-up caches. All maps are guarded by mu;
// the look-ups run outside the lock.
type caches struct {
	now func() time.Time

	mu sync.Mutex
	// toPublic maps user, class and private profile id to the public profile.
	toPublic *ttlCache[publicProfile]
	// toPrivate maps user, class and public profile id to the private id.
	toPrivate *ttlCache[string]
	// flights are private→public look-ups in progress, so concurrent
	// branches of one call (a help request's student and its submission's
	// author are usually the same profile) share one query. An entry lives
	// only while its query runs, so the map is bounded by the calls in
	// progress. x/sync/singleflight cannot express it: one query answers
	// a batch of ids, and each id must be a flight that other batches
	// join, which needs the leader to know which ids it leads before it
	// queries.
	flights map[string]*profileFlight
}

// profileFlight is one private→public look-up in progress.
type profileFlight struct {
	done    chan struct{}
	profile publicProfile
	found   bool
	// failed is set when the query did not answer; waiters then query
	// themselves rather than take a miss that was never observed.
	failed bool
}

// newCaches returns empty caches holding at most entries items per map
// (defaultProfileCacheEntries when entries ≤ 0).
func newCaches(entries int, now func() time.Time) *caches {
	if entries <= 0 {
		entries = defaultProfileCacheEntries
	}
	return &caches{
		now:       now,
		toPublic:  newTTLCache[publicProfile](entries, profileCacheTTL),
		toPrivate: newTTLCache[string](entries, profileCacheTTL),
		flights:   map[string]*profileFlight{},
	}
}

// storeProfile records a successful translation in both directions. The
// caller holds mu.
func (cc *caches) storeProfile(prefix, privateID string, p publicProfile, now time.Time) {
	cc.toPublic.set(prefix+privateID, p, now)
	cc.toPrivate.set(prefix+p.ID, privateID, now)
}

// cacheKey partitions the caches by calling user and class. NUL cannot occur
// in a user id or in the JSON text of a class id argument of type number.
func (c *Call) cacheKey(classID string) string {
	return c.DB.UserID() + "\x00" + classID + "\x00"
}

// publicProfiles translates private profile ids into public profiles
// (§1.2). Empty strings are queried like any id (the original only drops
// nulls); ids without a visible user_roles row in the class are absent from
// the result.
func (c *Call) publicProfiles(ctx context.Context, classID string, privateIDs []string) map[string]publicProfile {
	ids := uniqueStrings(privateIDs)
	out := make(map[string]publicProfile, len(ids))
	if len(ids) == 0 {
		return out
	}
	prefix := c.cacheKey(classID)
	claim := c.reg.caches.claimProfiles(prefix, ids, out)
	if len(claim.mine) > 0 {
		c.leadProfileLookup(ctx, classID, prefix, claim, out)
	}
	if retry := awaitProfileFlights(ctx, claim.waits, out); len(retry) > 0 {
		c.retryProfileLookup(ctx, classID, prefix, retry, out)
	}
	return out
}

// profileClaim is how publicProfiles splits its ids: the fresh cached ones
// are already in its result; mine are the look-ups it leads (with their
// flights), waits the ones another call is leading.
type profileClaim struct {
	mine        []string
	mineFlights []*profileFlight
	waits       []profileWait
}

// profileWait is an id whose look-up another call leads.
type profileWait struct {
	id string
	f  *profileFlight
}

// claimProfiles puts the fresh cached ids into out and, for the others,
// joins a flight in progress or starts one.
func (cc *caches) claimProfiles(prefix string, ids []string, out map[string]publicProfile) profileClaim {
	var claim profileClaim
	cc.mu.Lock()
	defer cc.mu.Unlock()
	now := cc.now()
	for _, id := range ids {
		if p, ok := cc.toPublic.get(prefix+id, now); ok {
			out[id] = p
			continue
		}
		if f, ok := cc.flights[prefix+id]; ok {
			claim.waits = append(claim.waits, profileWait{id, f})
			continue
		}
		f := &profileFlight{done: make(chan struct{})}
		cc.flights[prefix+id] = f
		claim.mine = append(claim.mine, id)
		claim.mineFlights = append(claim.mineFlights, f)
	}
	return claim
}

// leadProfileLookup queries the ids this call leads, stores what it found
// and ends their flights.
func (c *Call) leadProfileLookup(ctx context.Context, classID, prefix string, claim profileClaim, out map[string]publicProfile) {
	cc := c.reg.caches
	// The original sends at most MAX_ROWS missing ids; callers never pass
	// more (messages and search pages are capped at MAX_ROWS).
	queried := claim.mine[:min(len(claim.mine), profileIDsPerQuery)]
	found, ok := c.fetchPublicProfiles(ctx, classID, queried)
	cc.mu.Lock()
	defer cc.mu.Unlock()
	now := cc.now()
	// Stored in request order so that, when the cap evicts, what survives
	// does not depend on map iteration order.
	for _, id := range queried {
		if p, ok := found[id]; ok {
			cc.storeProfile(prefix, id, p, now)
		}
	}
	for i, id := range claim.mine {
		f := claim.mineFlights[i]
		f.profile, f.found = found[id]
		f.failed = !ok || i >= len(queried)
		if f.found {
			out[id] = f.profile
		}
		delete(cc.flights, prefix+id)
		close(f.done)
	}
}

// awaitProfileFlights waits for the flights other calls lead and returns
// the ids whose look-up failed, which the caller queries itself rather
// than take a miss that was never observed.
func awaitProfileFlights(ctx context.Context, waits []profileWait, out map[string]publicProfile) []string {
	var retry []string
	for _, w := range waits {
		select {
		case <-w.f.done:
		case <-ctx.Done():
			return nil
		}
		switch {
		case w.f.failed:
			retry = append(retry, w.id)
		case w.f.found:
			out[w.id] = w.f.profile
		}
	}
	return retry
}

// retryProfileLookup queries ids whose led look-up failed.
func (c *Call) retryProfileLookup(ctx context.Context, classID, prefix string, retry []string, out map[string]publicProfile) {
	cc := c.reg.caches
	found, _ := c.fetchPublicProfiles(ctx, classID, retry)
	cc.mu.Lock()
	defer cc.mu.Unlock()
	now := cc.now()
	for _, id := range retry {
		if p, ok := found[id]; ok {
			cc.storeProfile(prefix, id, p, now)
			out[id] = p
		}
	}
}

// profileLookupColumns are the columns of §1.2's user_roles row.
const profileLookupColumns = "private_profile_id, public_profile_id, role, profiles!user_roles_public_profile_id_fkey(name)"

// embeddedProfiles is §1.2 for the private profile of a row that embeds
// its user_roles row (profileLookupColumns, filtered to the class): the
// map publicProfiles would return for the row's profile_id, with no
// query. A fresh cached translation wins, as publicProfiles would serve it
// (it keeps the caller's own spelling of an id: TestProfileIDSpelling…);
// otherwise the embedded one is cached like a queried one.
func (c *Call) embeddedProfiles(classID string, row *jsjson.Object) map[string]publicProfile {
	priv, _ := row.String("profile_id")
	if priv == "" {
		return nil
	}
	cc := c.reg.caches
	prefix := c.cacheKey(classID)
	cc.mu.Lock()
	defer cc.mu.Unlock()
	now := cc.now()
	if cached, ok := cc.toPublic.get(prefix+priv, now); ok {
		return map[string]publicProfile{priv: cached}
	}
	ur, ok := row.Object("user_roles")
	if id, _ := ur.String("private_profile_id"); !ok || ur == nil || id != priv {
		return nil // no visible user_roles row in the class: not found
	}
	pub, _ := ur.String("public_profile_id")
	p := publicProfile{ID: pub, Name: embeddedName(ur), staff: isStaffRole(ur)}
	cc.storeProfile(prefix, priv, p, now)
	return map[string]publicProfile{priv: p}
}

// fetchPublicProfiles runs §1.2's query for ids. ok is false when the query
// failed, so nothing is learnt about the ids.
func (c *Call) fetchPublicProfiles(ctx context.Context, classID string, ids []string) (map[string]publicProfile, bool) {
	raw, err := c.DB.From("user_roles").
		Select(profileLookupColumns).
		Eq("class_id", classID).
		In("private_profile_id", ids).
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return nil, false
	}
	found := make(map[string]publicProfile, len(rows))
	for _, r := range rows {
		priv, _ := r.String("private_profile_id")
		pub, _ := r.String("public_profile_id")
		found[priv] = publicProfile{ID: pub, Name: embeddedName(r), staff: isStaffRole(r)}
	}
	return found, true
}

// embeddedName is the original's `profiles?.name || null`: the embedded
// public profile's name when it is a non-empty string, else nil (also when
// the profile row is invisible and the embed is null).
func embeddedName(row *jsjson.Object) any {
	p, _ := row.Object("profiles")
	if v := p.Value("name"); jsjson.Truthy(v) {
		return v
	}
	return nil
}

// privateProfileID translates a public profile id into the private one
// (§1.3); ok is false when no visible user_roles row matches or the query
// failed.
func (c *Call) privateProfileID(ctx context.Context, classID, publicID string) (string, bool) {
	cc := c.reg.caches
	prefix := c.cacheKey(classID)
	cc.mu.Lock()
	priv, hit := cc.toPrivate.get(prefix+publicID, cc.now())
	cc.mu.Unlock()
	if hit && priv != "" {
		return priv, true
	}
	raw, err := c.DB.From("user_roles").
		Select("private_profile_id, role, profiles!user_roles_public_profile_id_fkey(name)").
		Eq("class_id", classID).
		Eq("public_profile_id", publicID).
		MaybeSingle(ctx)
	row := c.pgObject(ctx, raw, err)
	if row == nil {
		return "", false
	}
	priv, _ = row.String("private_profile_id")
	cc.mu.Lock()
	cc.storeProfile(prefix, priv, publicProfile{ID: publicID, Name: embeddedName(row), staff: isStaffRole(row)}, cc.now())
	cc.mu.Unlock()
	return priv, priv != ""
}

// staffProfileIDs returns which of ids are private profiles of instructors
// or graders of the class (§1.4). Disabled staff still count, as in the
// original. It shares publicProfiles' look-up (and cache), so asking for the
// names and the staff flags of the same authors costs one query.
func (c *Call) staffProfileIDs(ctx context.Context, classID string, ids []string) map[string]bool {
	out := map[string]bool{}
	for id, p := range c.publicProfiles(ctx, classID, ids) {
		if p.staff {
			out[id] = true
		}
	}
	return out
}

// isStaffRole reports whether a user_roles row's role is instructor or
// grader.
func isStaffRole(row *jsjson.Object) bool {
	role, _ := row.String("role")
	return role == "instructor" || role == "grader"
}

// assignmentColumns is the select list of the assignment record A.
const assignmentColumns = "id, title, slug, description, handout_url, due_date, release_date, total_points, has_autograder, class_id"

// assignmentKeys are A's keys in select-list order.
var assignmentKeys = strings.Split(strings.ReplaceAll(assignmentColumns, " ", ""), ",")

// embeddedAssignment is A read from an `assignments(assignmentColumns)`
// embed of parent instead of its own query: the embedded row when it is
// visible and belongs to the class_id argument, else nil. It equals
// assignmentRecord for the same id: the embed reads the same row under the
// same RLS, and A's class_id filter becomes the comparison with the
// (validated, numeric) argument. The keys are re-laid in select-list
// order, which a top-level row always has but an embedded one need not
// (an embed built as jsonb sorts its keys).
func embeddedAssignment(parent *jsjson.Object, classID any) any {
	a, ok := parent.Object("assignments")
	if !ok {
		return nil
	}
	got, isNum := a.Number("class_id")
	want, wantNum := classID.(float64)
	if !isNum || !wantNum || got != want {
		return nil
	}
	out := jsjson.NewObject(len(assignmentKeys))
	for _, k := range assignmentKeys {
		v, present := a.Get(k)
		if !present {
			return nil // not the row shape A promises; treat as unreadable
		}
		out.Set(k, v)
	}
	return out
}

// assignmentRecord returns the assignment row A (§1.5) as PostgREST
// answered it (10 keys, select-list order), or nil when the assignment is
// missing, in another class, invisible or the query failed.
func (c *Call) assignmentRecord(ctx context.Context, assignmentID, classID string) any {
	raw, err := c.DB.From("assignments").
		Select(assignmentColumns).
		Eq("id", assignmentID).
		Eq("class_id", classID).
		Single(ctx)
	if row := c.pgObject(ctx, raw, err); row != nil {
		return row
	}
	return nil
}

// pgRows decodes a list response into row objects. ok is false when the
// query failed; the original treats that like no rows, and callers decide.
func (c *Call) pgRows(ctx context.Context, raw json.RawMessage, err error) ([]*jsjson.Object, bool) {
	if err != nil {
		c.logQueryFailure(ctx, err)
		return nil, false
	}
	v, derr := jsjson.Decode(raw)
	arr, isArr := v.([]any)
	if derr != nil || !isArr {
		c.logQueryFailure(ctx, errors.Join(errors.New("tools: PostgREST list response is not a JSON array"), derr))
		return nil, false
	}
	rows := make([]*jsjson.Object, 0, len(arr))
	for _, e := range arr {
		if o, ok := e.(*jsjson.Object); ok && o != nil {
			rows = append(rows, o)
		}
	}
	return rows, true
}

// pgObject decodes a Single or MaybeSingle response; nil stands for "no
// row", including failures (the original's `error || !data`).
func (c *Call) pgObject(ctx context.Context, raw json.RawMessage, err error) *jsjson.Object {
	if err != nil {
		if !postgrest.IsNoRows(err) {
			c.logQueryFailure(ctx, err)
		}
		return nil
	}
	if raw == nil {
		return nil
	}
	v, derr := jsjson.Decode(raw)
	o, ok := v.(*jsjson.Object)
	if derr != nil || !ok || o == nil {
		c.logQueryFailure(ctx, errors.Join(errors.New("tools: PostgREST single response is not a JSON object"), derr))
		return nil
	}
	return o
}

// logQueryFailure records a failed query. The original's tools still
// answer as the original does (as if there were no rows), so an outage
// would otherwise be invisible; the tools whose reads are strict
// (strictReads) answer a ReadFailedError instead. A rejected filter (bad
// argument) is routine and only logged at debug level.
func (c *Call) logQueryFailure(ctx context.Context, err error) {
	if c.reads != nil {
		c.reads.note(err)
	}
	var pe *postgrest.Error
	if errors.As(err, &pe) && !pe.Unreachable() {
		c.Logger().DebugContext(ctx, "postgrest query rejected", "table", pe.Table, "status", pe.Status, "code", pe.Code, "error", err.Error())
		return
	}
	c.Logger().WarnContext(ctx, "postgrest query failed", "error", err.Error())
}

// uniqueStrings removes duplicates keeping first-seen order, as the
// original's [...new Set(ids)].
func uniqueStrings(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ttlCache is an LRU of capacity entries whose values stay fresh for ttl
// after they were written. It is read with Peek, so the entry dropped at
// capacity is the least recently written. cachedAt lives in the entry and
// is checked against the caller's now (the Registry's clock): expirable's
// TTL runs on the wall clock. Not safe for concurrent use; caches guards
// it with its mutex.
type ttlCache[V any] struct {
	ttl time.Duration
	lru *simplelru.LRU[string, ttlEntry[V]]
}

type ttlEntry[V any] struct {
	val      V
	cachedAt time.Time
}

func newTTLCache[V any](capacity int, ttl time.Duration) *ttlCache[V] {
	c, err := simplelru.NewLRU[string, ttlEntry[V]](capacity, nil)
	if err != nil {
		panic(err) // only for a capacity ≤ 0; newCaches defaults it
	}
	return &ttlCache[V]{ttl: ttl, lru: c}
}

// get returns the fresh value under key. An expired entry is removed.
func (t *ttlCache[V]) get(key string, now time.Time) (V, bool) {
	e, ok := t.lru.Peek(key)
	if ok && now.Sub(e.cachedAt) > t.ttl {
		t.lru.Remove(key)
		var zero V
		return zero, false
	}
	return e.val, ok
}

// set stores val under key as the newest entry, evicting the oldest when
// at capacity.
func (t *ttlCache[V]) set(key string, val V, now time.Time) {
	t.lru.Add(key, ttlEntry[V]{val: val, cachedAt: now})
}

// len reports the number of stored entries, fresh or not.
func (t *ttlCache[V]) len() int { return t.lru.Len() }
