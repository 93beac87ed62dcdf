package oauthserver

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// memStore is an in-memory Store for unit tests, with the same atomicity
// and the same semantics as the PostgREST one's SQL functions. revoked
// stands for api_tokens.revoked_at (and so revoked_token_ids).
type memStore struct {
	mu      sync.Mutex
	staff   map[string]bool
	codes   map[string]*Code
	grants  map[string]*Grant
	refresh map[string]*Refresh
	revoked map[string]bool
	decided map[string]time.Time
	// replayed are the codes presented again after their first use.
	replayed map[string]bool
	failNext error
}

func newMemStore(staff ...string) *memStore {
	m := &memStore{staff: map[string]bool{}, codes: map[string]*Code{}, grants: map[string]*Grant{},
		refresh: map[string]*Refresh{}, revoked: map[string]bool{}, decided: map[string]time.Time{}, replayed: map[string]bool{}}
	for _, s := range staff {
		m.staff[s] = true
	}
	return m
}

func (m *memStore) fail() error {
	err := m.failNext
	m.failNext = nil
	return err
}

func (m *memStore) IsStaff(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return false, err
	}
	return m.staff[id], nil
}

func (m *memStore) SaveCode(_ context.Context, c Code) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return err
	}
	c.Scopes, c.Replaces = slices.Clone(c.Scopes), slices.Clone(c.Replaces)
	m.codes[c.Hash] = &c
	return nil
}

func (m *memStore) MarkCodeUsed(_ context.Context, hash string, _ time.Time) (*Code, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return nil, err
	}
	c, ok := m.codes[hash]
	if !ok {
		return nil, ErrNotFound
	}
	out := *c
	if c.Used {
		// A replay revokes the grant if it exists, and otherwise makes
		// CreateGrant create it revoked, as mcp_oauth_use_code does.
		m.replayed[hash] = true
		if _, ok := m.grants[c.TokenID]; ok {
			m.revoked[c.TokenID] = true
		}
	}
	c.Used = true
	return &out, nil
}

func (m *memStore) CreateGrant(_ context.Context, codeHash string, g Grant, refreshHash string, _ time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return false, err
	}
	c, ok := m.codes[codeHash]
	if !ok || !c.Used {
		return false, errors.New("memstore: the authorization code has not been redeemed")
	}
	if _, dup := m.grants[c.TokenID]; dup {
		return false, errors.New("memstore: duplicate grant")
	}
	g.TokenID, g.UserID, g.Scopes, g.ClientName, g.RedirectURI = c.TokenID, c.UserID, slices.Clone(c.Scopes), c.ClientName, c.RedirectURI
	m.grants[g.TokenID] = &g
	m.refresh[refreshHash] = &Refresh{Hash: refreshHash, TokenID: c.TokenID, UserID: c.UserID, ClientHash: c.ClientHash,
		Scopes: slices.Clone(c.Scopes), ExpiresAt: g.ExpiresAt}
	// Step-up: the replaced grants of the same user and client are
	// revoked, replayed or not, as mcp_oauth_create_grant does.
	for _, id := range c.Replaces {
		if old, ok := m.grants[id]; ok && id != c.TokenID && old.UserID == c.UserID && old.ClientID == g.ClientID {
			m.revoked[id] = true
		}
	}
	if m.replayed[codeHash] {
		m.revoked[g.TokenID] = true
		return false, nil
	}
	return true, nil
}

// LiveGrants is mcp_oauth_live_grants: oldest first stands for token id
// order here (grants have no creation time in memory).
func (m *memStore) LiveGrants(_ context.Context, userID, clientHash string, now time.Time) ([]Grant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return nil, err
	}
	var out []Grant
	for id, g := range m.grants {
		if g.UserID == userID && hashToken(g.ClientID) == clientHash && !m.revoked[id] && now.Before(g.ExpiresAt) {
			out = append(out, Grant{TokenID: id, UserID: userID, Scopes: slices.Clone(g.Scopes)})
		}
	}
	slices.SortFunc(out, func(a, b Grant) int { return strings.Compare(a.TokenID, b.TokenID) })
	return out, nil
}

// liveGrantScopes are the scopes of each live grant of userID issued to
// clientID, the step-up tests' view of the person's token list.
func (m *memStore) liveGrantScopes(userID, clientID string, now time.Time) [][]string {
	gs, _ := m.LiveGrants(context.Background(), userID, hashToken(clientID), now)
	var out [][]string
	for _, g := range gs {
		out = append(out, g.Scopes)
	}
	return out
}

// RotateRefresh is mcp_oauth_rotate_refresh under the store's lock.
func (m *memStore) RotateRefresh(_ context.Context, hash, next string, now time.Time) (Rotation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return "", err
	}
	r, ok := m.refresh[hash]
	if !ok {
		return "", ErrNotFound
	}
	if g, ok := m.grants[r.TokenID]; !ok || m.revoked[r.TokenID] || !now.Before(g.ExpiresAt) {
		return Inactive, nil
	}
	outcome := Rotated
	if r.Used {
		n, ok := m.refresh[r.ReplacedBy]
		if r.ReplacedBy == "" || !ok || n.Used {
			m.revoked[r.TokenID] = true
			return Reused, nil
		}
		n.Used, n.ReplacedBy = true, ""
		outcome = Retried
	}
	r.Used, r.ReplacedBy = true, next
	m.refresh[next] = &Refresh{Hash: next, TokenID: r.TokenID, UserID: r.UserID, ClientHash: r.ClientHash,
		Scopes: slices.Clone(r.Scopes), ExpiresAt: r.ExpiresAt}
	return outcome, nil
}

func (m *memStore) ConsumePending(_ context.Context, id string, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return false, err
	}
	if _, done := m.decided[id]; done {
		return false, nil
	}
	m.decided[id] = expires
	return true, nil
}

func (m *memStore) FindRefresh(_ context.Context, hash string) (*Refresh, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.refresh[hash]
	if !ok {
		return nil, ErrNotFound
	}
	out := *r
	return &out, nil
}

func (m *memStore) RevokeGrant(_ context.Context, id, clientID string, _ time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return false, err
	}
	g, ok := m.grants[id]
	if !ok || g.ClientID != clientID || m.revoked[id] {
		return false, nil
	}
	m.revoked[id] = true
	return true, nil
}

func (m *memStore) isRevoked(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.revoked[id]
}

func (m *memStore) grantCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.grants)
}

// errTestStore is a store failure injected through failNext.
var errTestStore = errors.New("test: store unavailable")
