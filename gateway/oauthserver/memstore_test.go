package oauthserver

import (
	"context"
	"slices"
	"sync"
	"time"
)

// memStore is an in-memory Store for unit tests, with the same atomicity
// as the PostgREST one.
type memStore struct {
	mu       sync.Mutex
	staff    map[string]bool
	codes    map[string]*Code
	grants   map[string]*Grant
	refresh  map[string]*Refresh
	revoked  map[string]bool
	failNext error
}

func newMemStore(staff ...string) *memStore {
	m := &memStore{staff: map[string]bool{}, codes: map[string]*Code{}, grants: map[string]*Grant{},
		refresh: map[string]*Refresh{}, revoked: map[string]bool{}}
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
	c.Scopes = slices.Clone(c.Scopes)
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
	c.Used = true
	return &out, nil
}

func (m *memStore) CreateGrant(_ context.Context, g Grant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return err
	}
	m.grants[g.TokenID] = &g
	return nil
}

func (m *memStore) SaveRefresh(_ context.Context, r Refresh) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return err
	}
	m.refresh[r.Hash] = &r
	return nil
}

func (m *memStore) MarkRefreshUsed(_ context.Context, hash string, _ time.Time) (*Refresh, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.refresh[hash]
	if !ok {
		return nil, ErrNotFound
	}
	out := *r
	r.Used = true
	return &out, nil
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

func (m *memStore) GrantClient(_ context.Context, id string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.grants[id]
	if !ok {
		return "", ErrNotFound
	}
	return g.ClientID, nil
}

func (m *memStore) GrantActive(_ context.Context, id string, now time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.grants[id]
	return ok && !m.revoked[id] && now.Before(g.ExpiresAt), nil
}

func (m *memStore) RevokeGrant(_ context.Context, id string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revoked[id] = true
	return nil
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
